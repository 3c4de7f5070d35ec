/*
 * node_int: the daemon's shared state, private to node_*.c.
 */
#ifndef LABMESH_NODE_NODE_INT_H
#define LABMESH_NODE_NODE_INT_H

#include "labs/lab.h"
#include "node/net/node.h"
#include "node/store/store.h"
#include "node/store/wire.h"

#include <czmq.h>
#include <sodium.h>
/* czmq pulls in syslog.h, whose LOG_INFO/LOG_DEBUG macros would shadow
 * proto/log.h's levels */
#undef LOG_INFO
#undef LOG_DEBUG
#include "proto/log.h"

/* Named caps and timings. */
#define NODE_MAX_PEERS_HARD 64          /* whatever the config says */
#define NODE_INBOUND_FACTOR 2           /* max_peers x this for dialers */
#define NODE_EVICT_MIN_PEERS 3          /* a peer this well connected may
                                         * make room for a newcomer */
#define NODE_EVICT_MS 1000              /* at most one such eviction per */
#define NODE_EVICTED_MS (5 * 60 * 1000) /* an evicted peer cannot evict */
#define NODE_MAX_STRANGERS 1024         /* tracked keys without a hello */
#define NODE_MAX_REQ_PER_MIN 600        /* requests per peer per minute */
/* requests we forward to one peer per minute: half its cap on us, as our
 * minute and its minute need not start together */
#define NODE_MAX_FWD_PER_MIN (NODE_MAX_REQ_PER_MIN / 2)
#define NODE_MAX_HELLO_PER_MIN 30
#define NODE_GARBAGE_BAN 64             /* bad messages before a ban */
#define NODE_BAN_MS (60 * 1000)
#define NODE_MAX_BURST 64               /* messages per ROUTER wakeup */
#define NODE_CREDIT_INITIAL 512        /* records a peer lets us send */
#define NODE_CREDIT_MAX 1024
#define NODE_MAX_INFLIGHT 32            /* batches sent, not credited */
#define NODE_MAX_PENDING_BYTES (8 * 1024 * 1024) /* unacknowledged bytes */
#define NODE_MAX_WANTS 16               /* wants a peer may queue with us */
#define NODE_WANT_RECORDS 512           /* records asked for at a time */
#define NODE_MAX_EVIDENCE_SENT 32       /* evidence pairs told a new peer */
#define NODE_MAX_EVIDENCE_BATCH 4       /* equivocations spread per batch */
#define NODE_SNDHWM 4096
#define NODE_TICK_MS 500
#define NODE_PING_MS 2000               /* after silence; < liveness/2 */
#define NODE_LIVENESS_MS 5000
#define NODE_REHELLO_MS 3000           /* hellos to a peer out of step */
#define NODE_BIND_RETRY_MS 5000        /* the listen port busy at start */
#define NODE_BACKOFF_MIN_MS 500
#define NODE_BACKOFF_MAX_MS 30000
#define NODE_SEED_BACKOFF_MAX_MS 4000
#define NODE_WANT_TIMEOUT_MS 5000
#define NODE_ROUND_MIN_MS 5000
#define NODE_ROUND_JITTER_MS 5000
#define NODE_FULL_VECTOR_MS 30000 /* a whole vector to one peer */
#define NODE_APPEND_CHUNK 2000          /* debug appends per loop turn */
#define NODE_TRIM_MS 5000
#define NODE_SQLITE_HEAP (2 * 1024 * 1024) /* all SQLite caches */
#define NODE_MALLOC_ARENAS 2
#define NODE_BEACON_PORT 7709            /* UDP, LAN hint */
#define NODE_BEACON_MS 2000
#define NODE_LOG_EVERY_MS 10000         /* garbage logging per peer */
#define NODE_LOG_BURST 20               /* such warnings per window, all
					 * keys together */

enum peer_state {
	PEER_CONNECTING = 0, /* dealer up, hello sent, theirs not seen */
	PEER_ACTIVE,         /* their hello seen */
	PEER_DOWN,           /* silent: waiting for the backoff to retry */
};

typedef struct peer {
	uint8_t id[WIRE_KEY_BYTES];
	char hex[2 * WIRE_KEY_BYTES + 1];
	char curve[WIRE_Z85_LEN + 1];
	char *endpoint;
	char lab[LAB_MAX_NAME + 1];
	uint8_t *desc; /* their signed descriptor */
	size_t desc_len;
	zsock_t *dealer;
	enum peer_state state;
	bool seed;
	int64_t last_seen_ms, last_hello_ms, next_try_ms;
	int backoff_ms;
	int64_t ping_sent_ms;
	uint64_t ping_nonce;
	int rtt_ms; /* -1 unknown */
	uint64_t records_rx, records_tx, requests_rx;
	size_t their_peers; /* in its last peers message */
	/* replication: their vector (hex author -> uint64 in a malloc'd box)
	 * and what we last told them */
	zhashx_t *their_vec;
	zhashx_t *sent_vec;
	int64_t credit;          /* records we may still send them */
	/* records batches sent and not yet credited back: a ring */
	uint32_t fl_recs[NODE_MAX_INFLIGHT];
	uint32_t fl_bytes[NODE_MAX_INFLIGHT];
	size_t fl_head, fl_count;
	size_t inflight_bytes;
	/* wants waiting for credit, one per author */
	struct pending_want {
		uint8_t author[WIRE_KEY_BYTES];
		uint64_t next, left;
	} wants[NODE_MAX_WANTS];
	size_t n_wants;
	/* limits */
	int64_t req_window_ms, hello_window_ms;
	int req_count, hello_count;
	int64_t fwd_window_ms; /* requests we forwarded to them */
	int fwd_count;
} peer_t;

/* Traffic accounting for any CURVE key, known peer or not. */
typedef struct {
	char curve[WIRE_Z85_LEN + 1];
	uint32_t garbage, suppressed;
	int64_t banned_until_ms, last_log_ms;
	int64_t evicted_ms; /* made room for a newcomer: may not do so */
	int64_t hello_window_ms;
	int hello_count;
} stranger_t;

/* One pull in flight per author. */
typedef struct {
	peer_t *peer;
	uint64_t from;
	int64_t deadline_ms;
	char avoid[WIRE_Z85_LEN + 1]; /* timed out: try someone else */
} upstream_t;

struct node {
	char *home;
	lab_config_t *cfg;
	wire_key_t key;
	char hex[2 * WIRE_KEY_BYTES + 1];
	uint8_t *desc;
	size_t desc_len;
	store_t *store;
	zloop_t *loop;
	zsock_t *router, *zap, *ctl;
	int max_peers;
	peer_t **peers;
	size_t n_peers;
	zhashx_t *by_curve;  /* z85 -> peer_t (borrowed) */
	zhashx_t *strangers; /* z85 -> stranger_t (owned) */
	zhashx_t *upstream;  /* hex author -> upstream_t (owned) */
	zhashx_t *trust;     /* z85 -> "" when the trust list is closed */
	int64_t next_round_ms, next_full_ms;
	int64_t last_evict_ms;
	bool vec_dirty, pull_dirty;
	bool req_retry; /* a request could not be stored: re-ask the peers */
	int64_t last_trim_ms;
	int64_t last_gc_ms;      /* blob retention pass (results_gc_node) */
	int64_t gc_tmp_mtime_ns; /* HOME/blobs/tmp then: new blobs since? */
	uint64_t messages_total; /* received on the ROUTER, good or bad */
	uint64_t garbage_total, bans_total, refused_total;
	int64_t log_window_ms; /* warnings about outside traffic, node-wide */
	int log_count;
	uint64_t log_suppressed;
	/* traffic counters (status): peer messages and their payload bytes,
	 * request messages sent, records taken from peers, and the wall
	 * time of the last new request and the last record from a peer */
	uint64_t msgs_tx, bytes_tx, msgs_rx, bytes_rx, req_msgs_tx;
	uint64_t records_in;
	int64_t last_request_ms, last_record_ms;
	bool peers_changed;
	bool stopping;
	bool tamper;
	uint64_t debug_append_left;
	int debug_timer;
	int *board_state;     /* enum board_state per config board */
	uint32_t *board_queue;
	char **board_notes;   /* per config board: maintenance, busy (owned) */
	zactor_t *beacon;
	struct jobs *jobs; /* the jobs side (node/jobs/jobs.h) */
};

int64_t node_now(void);
int64_t node_wall_ms(void);

/* A sliding one-minute counter: true while under max. */
static inline bool node_rate_ok(int64_t *window, int *count, int max)
{
	int64_t now = node_now();

	if (now - *window >= 60000) {
		*window = now;
		*count = 0;
	}
	return ++*count <= max;
}

/* node_feed.c: append n synthetic records, a chunk per loop turn; our
 * advert, signed again only when it differs from the last (0 or -errno) */
void node_debug_append(node_t *node, uint64_t n);
int node_publish_advert(node_t *node);

/* node.c */
void node_stop(node_t *node);

/* Start the LAN beacon when the lab config asks for one (node_beacon.c):
 * a hint only, peers found this way still need CURVE and a hello. */
void node_beacon_start(node_t *node);
/*
 * Send one encoded message (len bytes) to p without blocking. Frees bytes
 * (malloc'd, e.g. an encoder's output) whether or not it was sent, so
 * callers hand it over and never touch it again. 0, -EINVAL (bytes NULL),
 * -ENOTCONN (no dealer to p), or -errno of zmq_send (-EAGAIN when p's
 * queue is full); failures are logged at debug only.
 */
int node_send(node_t *node, peer_t *p, uint8_t *bytes, size_t len);
bool node_log_budget(node_t *node);
stranger_t *node_stranger(node_t *node, const char *curve);
void node_garbage(node_t *node, const char *curve, const char *what);
bool node_banned(node_t *node, const char *curve);

/* node_peer.c */
peer_t *peer_find(node_t *node, const uint8_t *id);
peer_t *peer_add(node_t *node, const uint8_t *id, const char *endpoint,
		 bool seed);
void peer_connect(node_t *node, peer_t *p);
void peer_down(node_t *node, peer_t *p, const char *why);
void peer_free(peer_t **pp);
void peer_on_hello(node_t *node, const char *curve, const wire_msg_t *m);
/* A known peer spoke as if a session were up that we do not have. */
void peer_rehello(node_t *node, peer_t *p);
void peer_on_peers(node_t *node, peer_t *p, const wire_msg_t *m);
void peer_on_ping(node_t *node, peer_t *p, const wire_msg_t *m);
void peer_tick(node_t *node);
void peer_send_peers(node_t *node, peer_t *only);
int peer_seed(node_t *node);
void peer_restore(node_t *node);

/* node_repl.c */
void repl_on_active(node_t *node, peer_t *p);
void repl_on_vector(node_t *node, peer_t *p, const wire_msg_t *m);
void repl_on_want(node_t *node, peer_t *p, const wire_msg_t *m);
void repl_on_records(node_t *node, peer_t *p, const wire_msg_t *m);
void repl_on_credit(node_t *node, peer_t *p, const wire_msg_t *m);
void repl_send_vectors(node_t *node);
void repl_pull_all(node_t *node);
void repl_tick(node_t *node);
void repl_forget_peer(node_t *node, peer_t *p);
void repl_pushed_own(node_t *node, uint64_t seq, const uint8_t *bytes,
		     size_t len);
uint64_t repl_their_seq(peer_t *p, const char *author_hex);

/* node_flood.c: request flooding; repl_send_request_ids sends p the ids
 * of our unexpired requests */
void repl_on_request(node_t *node, peer_t *p, const wire_msg_t *m);
void repl_on_request_ids(node_t *node, peer_t *p, const wire_msg_t *m);
void repl_send_request_ids(node_t *node, peer_t *p);

/* node_ctl.c */
int ctl_handle(node_t *node, zmsg_t *req, zmsg_t *reply);
int render_boards(store_t *store, bool json, char **ret);

#endif
