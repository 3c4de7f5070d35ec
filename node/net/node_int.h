/*
 * node_int: the daemon's shared state, private to node_*.c.
 */
#ifndef LABMESH_NODE_NODE_INT_H
#define LABMESH_NODE_NODE_INT_H

#include "labs/lab.h"
#include "node/net/digest.h"
#include "node/net/node.h"
#include "node/store/store.h"
#include "node/store/wire.h"

#include <czmq.h>
#include <sodium.h>
/* czmq pulls in syslog.h, whose LOG_INFO/LOG_DEBUG macros would shadow
 * proto/log.h's levels */
#undef LOG_INFO
#undef LOG_DEBUG
#include "proto/keymap.h"
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
#define NODE_BURST_MS 50                /* and time spent on them */
#define NODE_CREDIT_INITIAL 512        /* records a peer lets us send */
#define NODE_CREDIT_MAX 1024
#define NODE_MAX_INFLIGHT 32            /* batches sent, not credited */
#define NODE_MAX_PENDING_BYTES (8 * 1024 * 1024) /* unacknowledged bytes */
/* wants a peer may queue with us: as many as we keep in flight to one
 * peer (NODE_MAX_PULLS_PER_PEER), since a want past it is not answered
 * and its pull would stall and drop that peer's claim */
#define NODE_MAX_WANTS 64
#define NODE_WANT_RECORDS 512           /* records asked for at a time */
#define NODE_MAX_EVIDENCE_SENT 32       /* evidence pairs told a new peer */
#define NODE_MAX_EVIDENCE_BATCH 4       /* equivocations spread per batch */
#define NODE_SNDHWM 4096
#define NODE_TICK_MS 500
/* node.liveness by default, and the ping after silence a liveness
 * implies (its 2/5: < liveness/2, so a lost ping is sent again in time) */
#define NODE_LIVENESS_MS 5000
#define NODE_PING_OF(liveness_ms) ((liveness_ms) * 2 / 5)
#define NODE_PING_MS NODE_PING_OF(NODE_LIVENESS_MS)
#define NODE_PINGS_KEPT 4 /* open pings whose pongs still count */
/* a tick this much later than due means we were not running (starved of
 * CPU, stopped): that time does not count as our peers' silence */
#define NODE_STALL_MS 1000
#define NODE_REHELLO_MS 3000           /* hellos to a peer out of step */
#define NODE_BIND_RETRY_MS 5000        /* the listen port busy at start */
#define NODE_BACKOFF_MIN_MS 500
#define NODE_BACKOFF_MAX_MS 30000
#define NODE_SEED_BACKOFF_MAX_MS 4000
#define NODE_WANT_TIMEOUT_MS 5000
#define NODE_ROUND_MIN_MS 5000
#define NODE_ROUND_JITTER_MS 5000
/* Feeds the round checks against our vector: all of them up to this many,
 * a slice of a node of 10,000 labs (each a lookup or two), the whole in
 * turn */
#define NODE_ROUND_SWEEP_FEEDS 256
#define NODE_FULL_VECTOR_MS 30000 /* a whole vector to one peer */
/* news of records from peers waits a random while up to this before our
 * vector tells it (node_repl.c: repl_send_vectors) */
#define NODE_ANNOUNCE_MS 200
/* ...but a record that came alone, of a feed we held, to a peer that
 * takes pushes (node_repl.c: the push tree), only between half this and
 * this: the repair path, with the records of the while as one entry */
#define NODE_LAZY_MS 4000
/* ...and, when the record came by push (the push tree of that feed
 * works here), to this many of the peers it waits for, at random (each
 * told with probability NODE_LAZY_FANOUT / their number): every node
 * repairs so, so a node hears it from about this many peers, not from
 * each. One we pulled (the tree missed us, and likely our peers) goes
 * to every peer waiting. */
#define NODE_LAZY_FANOUT 2
/* feeds a peer may have us push (those it pulled from us to our head) */
#define NODE_MAX_PUSH_FEEDS 4096
#define NODE_APPEND_CHUNK 2000          /* debug appends per loop turn */
#define NODE_TRIM_MS 5000
#define NODE_SQLITE_HEAP (2 * 1024 * 1024) /* all SQLite caches */
#define NODE_MALLOC_ARENAS 2
#define NODE_MALLOC_MMAP (128 * 1024) /* larger blocks mapped apart */
#define NODE_BEACON_PORT 7709            /* UDP, LAN hint */
#define NODE_BEACON_MS 2000
#define NODE_LOG_EVERY_MS 10000         /* garbage logging per peer */
#define NODE_MAX_IDS 65536              /* node ids known by CURVE key,
					 * for refusal lines */
#define NODE_LOG_BURST 20               /* such warnings per window, all
					 * keys together */
/* Requests sent to a peer, paced by its reading: a ping goes after them and
 * its pong says everything before it was read. At most this many bytes of
 * requests sent and not yet followed by a pong. */
#define NODE_REQ_WINDOW_BYTES (1024 * 1024)
#define NODE_MAX_REQ_IDS_PER_MIN 12     /* request-ids a peer may send */
/* blob data (and cancels) sent to a peer and not yet followed by a pong:
 * past it, its blob-gets wait for its reading */
#define NODE_BLOB_WINDOW_BYTES NODE_MAX_PENDING_BYTES
#define NODE_MAX_BLOB_GET_PER_MIN 12000  /* 200 chunks a second */
#define NODE_MAX_PING_PER_MIN 600       /* pings of a peer answered */
#define NODE_MAX_CANCEL_PER_MIN NODE_MAX_REQ_PER_MIN /* cancels per peer */
/* lease takes, renewals and releases per peer: people ask for boards a
 * few times an hour, and a lab answers each take for it with a signed
 * record, which a flood of invented takes must not turn into a flood
 * of records */
#define NODE_MAX_LEASE_PER_MIN 60
/* request ids remembered per peer session as sent to it or held by it,
 * so that a request is not sent twice to one session within
 * NODE_REQ_RESEND_MS (the idle trim forgets older ones) */
#define NODE_MAX_REQ_KNOWN (2 * WIRE_MAX_REQUEST_IDS)
/* a request the peer still lacks this long after we sent it is sent
 * again on its request-ids: it could not store it (a full disk) and asks
 * again each round while so; a round is at least NODE_ROUND_MIN_MS */
#define NODE_REQ_RESEND_MS 5000
#define NODE_REQ_RETRY_MS 30000
/* Their vector: entries for authors we hold no feed of (invented, or not
 * pulled yet) per peer; more in one vector message is the peer's garbage */
#define NODE_MAX_VEC_UNKNOWN 4096
/* digests a peer may send us per minute: each costs us the ranges that
 * differ (up to our whole vector); we send one peer at most one per
 * NODE_DIGEST_EVERY_MS but at a session's start (restarts are capped by
 * NODE_MAX_RESET_PER_MIN) */
#define NODE_DIGEST_EVERY_MS 5000
/* A range of a digest that differs is answered with its subdigest (to a
 * peer with MSG_FEATURE_SUBDIGEST) when we hold at least this many
 * entries in it and the peer at least half as many: the entries of the
 * sub-ranges that differ then follow, not the whole range's (among
 * 10,000 feeds a range holds ~160, a sub-range ~2.5). A peer that holds
 * little there gets the range at once. */
#define NODE_SUBDIGEST_MIN 8
/* A peer back within NODE_RESUME_MS of its last session's end hears the
 * changes since that session as a vector, and our digest only
 * NODE_RESUME_DIGEST_MS (and up to half as much again) later: after
 * minutes away, most ranges differ, and a digest at once would cost every
 * entry of each of them, on every link of a node that comes back. Of new
 * sessions, one a NODE_RESUME_DIGEST_MS gets our digest at once, the
 * others at the end of that time: a node that starts behind catches up
 * from the first answer, and the later digests find little to differ. */
#define NODE_RESUME_MS (60 * 60 * 1000)
#define NODE_RESUME_DIGEST_MS 5000
#define NODE_MAX_DIGEST_PER_MIN 30
#define NODE_MAX_PULLS_PER_PEER 64      /* wants in flight to one peer */
_Static_assert(NODE_MAX_PULLS_PER_PEER <= NODE_MAX_WANTS,
	       "a peer queues every want we keep in flight to it");
#define NODE_MAX_PULL_TODO 8192         /* authors waiting to be pulled,
					 * held feeds and others each */
#define NODE_PULL_PER_TURN 256          /* of those looked at per wakeup */
#define NODE_PULL_RETRY 4               /* of those waiting for a peer's
					 * wants in flight, looked at again
					 * for each pull ended */
/* An upstream must deliver at least this many records (or all it claimed)
 * per NODE_WANT_TIMEOUT_MS, or it loses the feed: judged by rate, so a
 * relay trickling one record per window cannot hold a feed back */
#define NODE_PULL_MIN_RECORDS 16
#define NODE_FIRST_RECORDS_MS 2000      /* the first of them due by then */
/* ...or, from a peer that need not be holding it back (silent, busy,
 * slow lately or the only one: node_repl.c: s_waits), by this */
#define NODE_PULL_PATIENCE_MS 30000
/* ...and all of the first of them by this when another peer claims at
 * least as much of the feed then: one that answered short of them (a
 * trickle), or one asked although it did not deliver lately, loses the
 * feed to that peer at once, not records later */
#define NODE_FIRST_BATCH_MS 300
/* a pull with no answer this long may be taken over by a better placed
 * peer (the author, one that delivers); sooner, an honest peer that is
 * about to answer would send its range as well. Judged when the first
 * batch is (its timer), not a tick later */
#define NODE_PREEMPT_MS NODE_FIRST_BATCH_MS
#define NODE_DISTRUST_MS (60 * 1000)    /* a claim not delivered: that
					 * peer asked last for it */
#define NODE_DELIVERED_MS 10000         /* a peer that served a pull at
					 * the rate this lately is asked
					 * first */
#define NODE_MAX_DISTRUST 1024          /* such (peer, author) pairs */
#define NODE_MAX_RESET_PER_MIN 6        /* sessions a peer may restart */
/* peers messages: a peer gets our table when its session starts, and
 * what changed in it at most once per NODE_PEERS_EVERY_MS after that: to
 * a peer that takes them, as a peers-delta (what joined and what left) */
#define NODE_PEERS_EVERY_MS 1000
#define NODE_NOTES 4 /* advert notes per board: maint, busy, lease, health */

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
	uint64_t features; /* MSG_FEATURE_* of its last hello */
	enum peer_state state;
	bool seed;
	int64_t last_seen_ms, last_hello_ms, next_try_ms;
	/* the liveness clock: last_seen_ms, moved on by the time we were
	 * stalled since (our own stall is not its silence) */
	int64_t live_ms;
	int backoff_ms;
	int64_t ping_sent_ms;
	/* it had read all we sent it up to then: the send time of the ping
	 * its last pong answered (node_session.c: peer_on_ping) */
	int64_t read_ms;
	uint64_t ping_nonce;
	/* pings sent again before their pong came (a peer behind on its
	 * reading by more than the ping interval): their pongs still show
	 * what it read. The last NODE_PINGS_KEPT, oldest first */
	uint64_t ping_old_nonce[NODE_PINGS_KEPT];
	int64_t ping_old_ms[NODE_PINGS_KEPT];
	size_t n_ping_old;
	int rtt_ms; /* -1 unknown */
	uint64_t records_rx, records_tx, requests_rx;
	size_t their_peers; /* in its last peers message */
	/* our last peers message to it: when (0: none this session), the
	 * table's change count then (node->peers_gen), and the ids it
	 * holds of our table by our messages */
	int64_t peers_sent_ms;
	uint64_t peers_sent_gen;
	uint8_t told_ids[WIRE_MAX_DESCS][WIRE_KEY_BYTES];
	size_t n_told_ids;
	/* the node ids of that message (verified), up to WIRE_MAX_DESCS:
	 * peers it tells of its own records itself (node_repl.c) */
	uint8_t their_ids[WIRE_MAX_DESCS][WIRE_KEY_BYTES];
	size_t n_their_ids;
	/* replication: their vector (hex author -> uint64 in a malloc'd box),
	 * only the entries that differ from ours: those ahead of us (to
	 * pull) and those not yet weighed against a change of ours; what we
	 * told them: every change of our vector up to the number told, but
	 * those whose author tells them itself (skip: hex author -> "",
	 * looked at again each time) */
	zhashx_t *their_vec;
	uint64_t told;
	zhashx_t *skip;
	/* changes held back for NODE_LAZY_MS (hex author -> "", sent when
	 * the lazy timer fires), and the feeds it pulled from us to our
	 * head (hex author -> uint64 the seq it holds by what we sent, in a
	 * malloc'd box): we push it the records of those we take, one at a
	 * time, until it tells us a head of that feed (node_repl.c) */
	zhashx_t *lazy;
	zhashx_t *push_to;
	/* digests: a digest (or, to a peer without MSG_FEATURE_DIGEST, our
	 * whole vector) is due; the ranges of our last digest whose answer
	 * is due; the ranges of ours we sent it in full, answering its
	 * digest; its digests lately; a digest again once the unknown
	 * authors of its last answer are pulled */
	bool resync;
	/* a session resumed (the peer back within NODE_RESUME_MS of the
	 * last one's end): the number it had read our changes up to then,
	 * when that session ended; our digest is due at digest_at_ms, once both sides
	 * have sent what changed meanwhile */
	uint64_t resume_told;
	int64_t resume_ms, digest_at_ms;
	/* told when our last ping went, and as of its pong: it had read
	 * every change up to told_acked (a link keeps order) */
	uint64_t told_at_ping, told_acked;
	int64_t digest_sent_ms;
	uint64_t ranges_open, ranges_told;
	/* ranges we sent a subdigest of, their subranges still to come */
	uint64_t sub_open;
	int64_t digest_window_ms;
	int digest_count;
	bool digest_soon;
	/* our own feed's seq it holds by what we sent it (pushed or served)
	 * in this session, so our next record is pushed to it at once */
	uint64_t own_sent;
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
		bool follows; /* it held some of the feed before: push
			       * it the next records (node_repl.c) */
	} wants[NODE_MAX_WANTS];
	size_t n_wants;
	/* requests: ids sent to it or held by it this session (id -> since
	 * when, node_now),
	 * ids to send it, and the window paced by its pongs */
	keymap_t *req_known; /* of known_t (node_flood.c) */
	uint8_t (*req_todo)[WIRE_ID_BYTES]; /* WIRE_MAX_REQUEST_IDS, lazily */
	size_t n_req_todo;
	uint64_t ask_sent, ask_at_ping, ask_acked;
	bool ping_open;
	int64_t ids_window_ms, blob_window_ms, ping_window_ms, cancel_window_ms;
	int ids_count, blob_count, ping_count, cancel_count;
	int64_t ids_in_window_ms;
	int ids_in_count;
	int64_t lease_window_ms;
	int lease_count;
	/* pulls: wants in flight to it; authors whose claim it did not
	 * deliver, until when (node_now; expired ones go in the idle
	 * trim, repl_distrust_expire) */
	size_t pulls_out;
	keymap_t *distrust; /* of distrust_t */
	size_t vec_unknown; /* their_vec entries for authors we lack */
	int64_t last_delivered_ms; /* it served a pull at the rate then */
	int64_t records_rx_ms; /* it last sent records that verified */
	int64_t answer_ms;  /* its time from a want to its first records,
			     * smoothed (node_repl.c: s_preempt_ms,
			     * s_waits) */
	uint64_t serve_rate;       /* records a second, that pull */
	int64_t reset_window_ms;
	int reset_count;
	/* limits */
	int64_t req_window_ms, hello_window_ms;
	int req_count, hello_count;
	int64_t fwd_window_ms; /* requests we forwarded to them */
	int fwd_count;
} peer_t;

/* An author whose claim a peer did not deliver: its word on that
 * author counts for nothing until then. */
typedef struct {
	uint8_t author[WIRE_KEY_BYTES];
	int64_t until_ms;
} distrust_t;

/* Traffic accounting for any CURVE key, known peer or not. */
typedef struct {
	char curve[WIRE_Z85_LEN + 1];
	uint32_t garbage, suppressed;
	int64_t banned_until_ms, last_log_ms;
	int64_t evicted_ms; /* made room for a newcomer: may not do so */
	int64_t hello_window_ms;
	int hello_count;
} stranger_t;

/* An entry of our vector: its seq, and the number of its last change;
 * an element of node->vec_mine (a keymap: it moves when another is put
 * or deleted), linked in order of change by element index + 1. */
typedef struct {
	uint8_t author[WIRE_KEY_BYTES];
	uint64_t seq;
	uint64_t chg;
	uint64_t step; /* records its last change added */
	uint32_t prev, next; /* 0: none */
	bool pushed;   /* ...and they came by push (s_lazy_pick) */
} vec_mine_t;

/* One pull in flight per author. */
typedef struct {
	peer_t *peer;
	uint64_t from;
	int64_t deadline_ms;
	int64_t started_ms; /* the want sent */
	uint64_t need; /* records due by the deadline */
	uint64_t got;  /* records it delivered since the want */
	uint64_t until; /* the last seq the want asked for */
	uint64_t got_mark; /* got at the last deadline it went past */
	int64_t first_batch_ms; /* need due by then (another peer has as
				 * much), or 0 */
	bool waited; /* past its first deadline, for its peer (s_judge) */
	/* left before its range was in, the peer told to stop: no other
	 * peer is asked until its pong shows it read the stop (what it sent
	 * before is in by then), or until handover_ms (s_hand_over) */
	int64_t stop_ms, handover_ms;
	uint64_t handover_got; /* got then; more since: it waits longer */
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
	int64_t liveness_ms; /* node.liveness; pings after 2/5 of it */
	peer_t **peers;
	size_t n_peers;
	zhashx_t *by_curve;  /* z85 -> peer_t (borrowed) */
	zhashx_t *strangers; /* z85 -> stranger_t (owned) */
	zhashx_t *upstream;  /* hex author -> upstream_t (owned) */
	/* hex author -> "": to look at for pulling, feeds we hold and
	 * authors we do not */
	zhashx_t *pull_known, *pull_new;
	/* hex author -> "": authors whose every claiming peer had its
	 * wants in flight full, looked at again as pulls end (pull_retry:
	 * how many, NODE_PULL_RETRY for each pull ended) */
	zhashx_t *pull_wait;
	size_t pull_retry;
	zhashx_t *trust;     /* z85 -> "" when the trust list is closed */
	/* node ids known here by CURVE key (node_ids.c), made when first
	 * needed */
	struct node_ids *ids;
	/* our vector as peers are told it (node_digest.c): author ->
	 * vec_mine_t, linked in order of their last change from vec_first
	 * to vec_last (element index + 1; 0: empty), the number of the
	 * last change, and its digest; an equivocator's feed is in none of
	 * them */
	keymap_t *vec_mine;
	uint32_t vec_first, vec_last;
	size_t vec_sweep; /* the store's feed the round's sweep goes on at */
	uint64_t vec_chg;
	digest_t digest;
	int64_t next_round_ms, next_full_ms;
	/* the last new session whose digest went at once (repl_on_active) */
	int64_t session_digest_ms;
	int64_t last_evict_ms;
	bool vec_dirty, pull_dirty;
	bool judge_armed; /* the first-batch timer is set */
	bool vec_armed;   /* the announcement timer is set */
	/* changes held back for NODE_LAZY_MS: some wait, their timer is
	 * set, they go now */
	bool lazy_dirty, lazy_armed, lazy_now;
	zhashx_t *lazy_count; /* hex author -> peers waiting (s_lazy_count) */
	/* a request could not be stored then (0: none lately): our request
	 * ids go to every peer each round for NODE_REQ_RETRY_MS after, as
	 * a peer sends a request again only NODE_REQ_RESEND_MS after the
	 * last time */
	int64_t req_retry_ms;
	int64_t last_trim_ms;
	/* liveness verdicts: the last tick; since when input waited unread
	 * at a tick (0: it did not) */
	int64_t tick_last_ms, behind_since_ms;
	int64_t long_stall_ms; /* when a stall past the liveness window ended */
	int64_t last_gc_ms;      /* blob retention pass (results_gc_node) */
	int64_t gc_tmp_mtime_ns; /* HOME/blobs/tmp then: new blobs since? */
	uint64_t messages_total; /* received on the ROUTER, good or bad */
	uint64_t garbage_total, bans_total, refused_total;
	int64_t log_window_ms; /* warnings about outside traffic, node-wide */
	int log_count;
	uint64_t log_suppressed;
	/* traffic counters (status): peer messages and their payload bytes,
	 * request messages sent, records taken from peers (and received,
	 * duplicates too), and the wall
	 * time of the last new request and the last record from a peer */
	uint64_t msgs_tx, bytes_tx, msgs_rx, bytes_rx, req_msgs_tx;
	/* the same sent, per message type (index 0: none we know) */
	uint64_t kind_msgs_tx[MSG_TYPE_MAX + 1], kind_bytes_tx[MSG_TYPE_MAX + 1];
	uint64_t records_in;
	uint64_t records_rx_items; /* every record of records messages */
	/* records received already held, from the peer a pull of their
	 * author is in flight to, or from another (a push, a late answer
	 * of a pull since moved); pulls started, moved to a better placed
	 * peer (of those, before it answered at all), and moved for want
	 * of records (of those, at the first batch), and pulls that waited
	 * for their peer past their first deadline */
	uint64_t dup_pulled, dup_other;
	/* of dup_pulled, those below the pull's range: an earlier want's
	 * answer to that peer; wants of peers for records we did not hold,
	 * for a feed whose want of theirs was still being served, and not
	 * served whole when they came (credit, batches in flight), and
	 * dropped for a send refused (its queue full, or not connected) */
	uint64_t dup_stale, wants_unheld, wants_again, wants_queued;
	uint64_t wants_unsent;
	/* records of wants left unsent as their puller asked for a stop,
	 * and the stops we sent (s_pull_stop) */
	uint64_t wants_stopped, wants_stop_sent;
	uint64_t pulls_stalled_read; /* stalled after a pong said it read */
	/* stall verdicts put off as peers' messages waited unread here */
	uint64_t pulls_judged_later;
	/* vector entries sent as a pull of a batch started, to stop the
	 * pushes of that feed (s_prune_pushers) */
	uint64_t pushers_pruned;
	/* records taken of a feed while its pull was in flight to another
	 * peer: pushed by their author, or from a relay (pushed, or sent
	 * before it read our stop; the pull's range then brings them
	 * again) */
	uint64_t beside_author, beside_relay;
	/* pulls that left their peer and waited for it to read the stop:
	 * all, those its pong ended, and those out of time */
	uint64_t handovers, handovers_read, handovers_timed;
	uint64_t pulls_started, pulls_taken_over, pulls_preempted;
	uint64_t pulls_stalled, pulls_stalled_first, pulls_waited;
	/* of pulls stalled, those whose peer never answered a ping, and
	 * those out of patience */
	uint64_t pulls_stalled_unponged, pulls_stalled_patience;
	int64_t last_request_ms, last_record_ms;
	uint64_t peers_gen; /* the peer table's changes, counted */
	bool stopping;
	bool listen_fixed; /* --listen: the lab file's node.listen unused */
	bool tamper;
	bool no_digest; /* testing: as a node before digests */
	uint64_t debug_append_left;
	int debug_timer;
	int *board_state;     /* enum board_state per config board */
	uint32_t *board_queue;
	char **board_notes;   /* NODE_NOTES per config board: maintenance,
			       * busy, lease, health (owned) */
	zactor_t *beacon;
	struct jobs *jobs; /* the jobs side (node/jobs/jobs.h) */
};

int64_t node_now(void);
int64_t node_wall_ms(void);
/* Call handler(NULL-or-loop, id, node) once, delay_ms from now, on the
 * node's loop: an id, or -1 with no loop (then the caller acts at once) */
int node_timer(node_t *node, size_t delay_ms, zloop_timer_fn handler);
/* Whether peers' messages wait unread on the router (zloop runs timers
 * before readers: a timer of a node behind on its reading finds them) */
bool node_input_waiting(node_t *node);

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

/* node_reload.c: read the lab file again (SIGHUP, the control command
 * reload): boards, policy, seeds, trust without a restart. 0, or -errno
 * with *ret_err (caller frees), logged, and the node unchanged. */
int node_reload(node_t *node, char **ret_err);
/* node_reload.c: max_peers and liveness from node->cfg */
void node_apply_limits(node_t *node);

/* node_ids.c: the hex node id known here for a CURVE key (a peer's, one
 * on the trust list, a feed's author), borrowed until the next call, or
 * NULL when none is: the key alone does not say (the conversion drops a
 * sign). node_ids_add makes id known. */
void node_ids_add(node_t *node, const uint8_t id[WIRE_KEY_BYTES]);
const char *node_id_of_curve(node_t *node, const char *z85);
size_t node_ids_count(node_t *node);
void node_ids_destroy(node_t *node);

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

/* node_session.c: the node's tables of peers, pulls and vectors (made
 * empty; destroyed with every peer); a peer's objects, pings and pongs.
 * peer_new makes a peer (DOWN) with its tables and adds it to the node's
 * table (NULL when id has no CURVE key) */
void node_tables_new(node_t *node);
void node_tables_destroy(node_t *node);
peer_t *peer_find(node_t *node, const uint8_t *id);
peer_t *peer_new(node_t *node, const uint8_t *id, const char *endpoint,
		 bool seed);
void peer_free(peer_t **pp);
void peer_on_ping(node_t *node, peer_t *p, const wire_msg_t *m);
/* Ping p: its pong says it read everything we sent before. */
void peer_ping(node_t *node, peer_t *p);

/* node_peer.c */
peer_t *peer_add(node_t *node, const uint8_t *id, const char *endpoint,
		 bool seed);
void peer_connect(node_t *node, peer_t *p);
void peer_down(node_t *node, peer_t *p, const char *why);
void peer_on_hello(node_t *node, const char *curve, const wire_msg_t *m);
/* A known peer spoke as if a session were up that we do not have. */
void peer_rehello(node_t *node, peer_t *p);
void peer_on_peers(node_t *node, peer_t *p, const wire_msg_t *m);
void peer_tick(node_t *node);
void peer_note_stall(node_t *node, int64_t now);
void peer_send_peers(node_t *node);
int peer_seed(node_t *node);
void peer_restore(node_t *node);

/* node_repl.c */
void repl_on_active(node_t *node, peer_t *p);
void repl_on_vector(node_t *node, peer_t *p, const wire_msg_t *m);
void repl_on_digest(node_t *node, peer_t *p, const wire_msg_t *m);
void repl_on_ranges(node_t *node, peer_t *p, const wire_msg_t *m);
void repl_on_subdigest(node_t *node, peer_t *p, const wire_msg_t *m);
void repl_on_subranges(node_t *node, peer_t *p, const wire_msg_t *m);
/* Our vector (and digest) takes author's feed as the store now holds it,
 * or every feed (at start), or the next max feeds of the store's order
 * from where the last sweep stopped (each round: a path that forgot
 * one). */
void repl_vec_sync(node_t *node, const uint8_t *author);
void repl_vec_sync_all(node_t *node);
void repl_vec_sweep(node_t *node, size_t max);
void repl_vec_destroy(node_t *node);
/* Our vector's entry of author (or of hex, an author in hex), or NULL;
 * valid until our vector next changes (repl_vec_sync). */
vec_mine_t *repl_vec_get(node_t *node, const uint8_t *author);
vec_mine_t *repl_vec_get_hex(node_t *node, const char *hex);
/* The entries in order of change, newest first: the last changed, and
 * the one changed before e (NULL: none). */
vec_mine_t *repl_vec_newest(node_t *node);
vec_mine_t *repl_vec_older(node_t *node, const vec_mine_t *e);
/* Send p our digest (node_digest.c); 0 or -errno of node_send. */
int repl_send_digest(node_t *node, peer_t *p);
/* Take n entries of p's vector (node_repl.c): asked, an answer to our
 * digest (more unknown authors than we hold are not its fault then). */
void repl_take_entries(node_t *node, peer_t *p, const wire_vec_t *v,
		       size_t n, bool asked);
/* Entries of their vectors held for all peers (status). */
size_t repl_vec_state(node_t *node);
/* Forget p's distrust that ran out by now. */
void repl_distrust_expire(peer_t *p, int64_t now);
/* The empty replication tables' buckets given back (the idle trim) */
void repl_shrink(node_t *node);
void repl_on_want(node_t *node, peer_t *p, const wire_msg_t *m);
void repl_on_records(node_t *node, peer_t *p, const wire_msg_t *m);
void repl_on_credit(node_t *node, peer_t *p, const wire_msg_t *m);
void repl_send_vectors(node_t *node);
void repl_pull_all(node_t *node);
void repl_tick(node_t *node);
/* We did not run for late ms: the pulls in flight get that much longer. */
void repl_stalled(node_t *node, int64_t late);
void repl_forget_peer(node_t *node, peer_t *p);
/* p's pong: it read what we sent before its ping */
void repl_on_read(node_t *node, peer_t *p);
void repl_pushed_own(node_t *node, uint64_t seq, const uint8_t *bytes,
		     size_t len);
uint64_t repl_their_seq(peer_t *p, const char *author_hex);

/* node_flood.c: request flooding; repl_send_request_ids sends p the ids
 * of our unexpired requests */
void repl_on_request(node_t *node, peer_t *p, const wire_msg_t *m);
void repl_on_request_ids(node_t *node, peer_t *p, const wire_msg_t *m);
void repl_send_request_ids(node_t *node, peer_t *p);
/* a new session: our request summary (or ids, to a peer that takes no
 * summary); a peer's summary and the ids-in that answer it */
void repl_start_requests(node_t *node, peer_t *p);
void repl_on_request_summary(node_t *node, peer_t *p, const wire_msg_t *m);
void repl_on_request_ids_in(node_t *node, peer_t *p, const wire_msg_t *m);
/* Send p what it lacks of our requests, within its window (node_flood.c);
 * repl_forget_requests ends the session's memory of them;
 * repl_requests_expire drops what it remembers from NODE_REQ_RESEND_MS
 * ago or more: only a send within that keeps a request from going to it
 * again (a day of requests is ~1,000 ids, 60-110 KB a peer) */
void repl_pump_requests(node_t *node, peer_t *p);
void repl_forget_requests(peer_t *p);
void repl_requests_expire(peer_t *p, int64_t now);

/* node_ctl.c */
int ctl_handle(node_t *node, zmsg_t *req, zmsg_t *reply);
int render_boards(store_t *store, bool json, char **ret);

#endif
