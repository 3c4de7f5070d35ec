/*
 * sim_int: the simulator's shared state, private to sim_*.c.
 *
 * Feeds are counted from where every node stood at the start: a node's
 * "have" of an author is how many of the window's records of that author
 * it holds (its seq minus the author's seq at the start). Only authors
 * that write in the window ("active" authors, a small index) need such
 * numbers; every node holds every other feed in full from the start.
 */
#ifndef LABMESH_NODE_SIM_SIM_INT_H
#define LABMESH_NODE_SIM_SIM_INT_H

#include "node/sim/sim.h"
#include "node/net/digest.h"

#include <stdbool.h>
#include <stdint.h>

/* Timings of node/net/node_int.h the model uses, by the same names. */
#include "node/net/node_int.h"

#define SIM_NO_ACTIVE UINT32_MAX

/* One end of a link: what its node knows of the node at the other end. */
typedef struct {
	bool active;	   /* this end's session is up */
	uint16_t own_sent; /* our feed's records it holds by what we sent */
	uint16_t *their;   /* per active author: what it said it holds */
	uint16_t *sent;	   /* what we last told it */
	/* per active author: it pulled that feed from us to our head, and
	 * holds this much by what we sent (node_repl.c: the push tree);
	 * 0: not pushed to */
	uint16_t *push_to;
	int64_t last_delivered_ms;
	uint64_t serve_rate;
	struct sim_distrust {
		uint32_t a;
		int64_t until;
	} * distrust;
	uint32_t n_distrust;
	/* pings (node_peer.c: s_tick_one, peer_on_ping) */
	int64_t seen_ms, ping_ms, ping_at, pong_at;
	bool ping_open;
	int64_t fifo_ms; /* last arrival at the other end: links keep order */
	/* its last session ended at ended_ms (a resumed session: the
	 * changes since go as a vector, our digest NODE_RESUME_DIGEST_MS
	 * later); a node that comes back has restarted: none */
	bool ended;
	int64_t ended_ms;
	bool resumed;
	/* our last peers message to it (node_peer.c: peer_send_peers):
	 * when (-1: none this session), and our table's change count then;
	 * the peers that joined and left our table since */
	int64_t peers_sent_ms;
	uint32_t peers_sent_gen;
	uint16_t peers_add, peers_gone;
} sim_end_t;

typedef struct {
	uint32_t n[2]; /* its two nodes */
	uint32_t lat_ms;
	uint32_t session; /* messages of an older session are dropped */
	bool up;	  /* both nodes online and connected */
	sim_end_t end[2]; /* end[i]: node n[i]'s side */
} sim_link_t;

/* One pull in flight (node_repl.c: upstream_t). */
typedef struct {
	uint32_t a;
	uint32_t link; /* the upstream: the peer at the other end */
	uint16_t from;
	int64_t started_ms, deadline_ms, first_batch_ms;
	uint32_t need, got;
} sim_up_t;

typedef struct {
	uint8_t key[DIGEST_KEY_BYTES];
	bool online;
	uint16_t phase_ms; /* of its NODE_TICK_MS ticks */
	uint32_t *links;
	uint32_t deg, dialled;
	uint32_t active; /* its index as an active author, or SIM_NO_ACTIVE */
	uint16_t *have;	 /* per active author */
	digest_t dg;
	/* authors whose vector entries may need telling (vec_dirty) */
	uint32_t *dirty;
	uint32_t n_dirty, a_dirty;
	bool *is_dirty;
	bool vec_armed;
	/* per active author: records its last change added; the authors
	 * whose entries wait for the lazy timer (node_repl.c: s_lazy) */
	uint16_t *step;
	bool *pushed; /* ...and they came by push (s_lazy_pick) */
	bool *is_lazy;
	uint32_t *lazy, n_lazy, a_lazy;
	bool lazy_armed, lazy_now;
	/* authors to pull (pull_known), authors some peer claimed ahead */
	uint32_t *notes, n_notes, a_notes;
	uint32_t *claims, n_claims, a_claims;
	sim_up_t *ups;
	uint32_t n_ups, a_ups;
	bool tick_armed;
	bool vec_dirty;	  /* node->vec_dirty */
	bool session_digest;	 /* node->session_digest_ms, when set */
	int64_t session_digest_ms;
	/* the table's changes, counted (node->peers_gen); an EV_PEERS is
	 * due at peers_at (-1: none) */
	uint32_t peers_gen;
	int64_t peers_at;
	uint8_t *reqs;	  /* bitmap: requests of the window held */
	uint64_t tx[SIM_KINDS], rx[SIM_KINDS];
	uint32_t spells; /* times it went offline while measuring */
} sim_node_t;

/* A record of the window: its author's (active) index and seq. */
typedef struct {
	uint8_t *kinds; /* per seq - 1: WIRE_KIND_* */
	uint32_t n, alloc;
	uint32_t node;
	uint64_t base_seq; /* its seq at the start */
} sim_feed_t;

enum sim_ev {
	EV_MSG = 1,
	EV_ANNOUNCE,
	EV_TICK,
	EV_FIRST_BATCH,
	EV_ROUND,
	EV_DIGEST,
	EV_WRITE,
	EV_SUBMIT,
	EV_DOWN,
	EV_UP,
	EV_DETECT,
	EV_PEERS,
	EV_RESUME_DIGEST, /* id: the link; arg: its session << 1 | end */
	EV_LAZY,
};

typedef struct sim_msg sim_msg_t;

typedef struct {
	int64_t t;
	uint64_t seq;
	uint32_t type, id, arg;
	sim_msg_t *msg;
} sim_event_t;

/* A message in flight: what the receiver's model needs, not its bytes. */
struct sim_msg {
	int kind;
	uint32_t len; /* its bytes */
	uint32_t link;
	int to; /* the receiving end */
	uint32_t session;
	uint32_t a, from, upto, count; /* want, records, credit */
	uint32_t req;
	bool pumped;   /* request: sent on request-ids */
	uint32_t n;    /* vector: entries of active authors */
	uint32_t *ea;  /* their authors */
	uint16_t *ed;  /* and haves */
	uint64_t mask; /* repair: the ranges it covers */
	bool back;     /* repair: the answer to an answer */
	digest_t *dg;  /* digest */
	uint8_t *reqs; /* request-ids: the sender's bitmap */
	/* sim_real.c: the message's bytes; a timer's handler and its
	 * argument */
	uint8_t *bytes;
	zloop_timer_fn *timer_fn;
	void *timer_arg;
};

typedef struct sim {
	sim_params_t p;
	uint64_t rng;
	sim_node_t *nodes;
	sim_link_t *links;
	uint32_t n_links, a_links;
	sim_feed_t *feeds; /* per active author */
	uint32_t *lazy_cnt; /* per active author: at a node's lazy timer, the
			     * peers waiting for its entry (s_lazy_count) */
	uint32_t n_active, a_active;
	uint64_t *base_seq; /* per node: its feed's seq at the start */
	digest_t base_dg;
	uint32_t *bucket_nodes[DIGEST_BUCKETS];
	uint32_t bucket_n[DIGEST_BUCKETS];
	sim_event_t *heap;
	size_t n_heap, a_heap;
	uint64_t ev_seq, events;
	int64_t now, end_ms;
	bool measuring; /* the window (counters), not the drain */
	bool writing;	/* records may be written, nodes may go down */
	/* requests of the window */
	uint32_t n_reqs, a_reqs;
	int64_t *req_t0;
	uint32_t *req_reached;
	int64_t *req_last;
	uint8_t *req_accepts; /* n_reqs x nodes, only when needed */
	uint32_t *flood_ms;   /* arrival delays at each node */
	size_t n_flood, a_flood;
	uint32_t req_bytes; /* bitmap bytes */
	sim_result_t *r;
	double wall0, wall_told; /* s, monotonic: the run's start, last line */
} sim_t;

/* sim.c */
/* A run's state from checked parameters (the wire's samples made), or
 * NULL and *ret_rc; sim_wire_fini after */
sim_t *sim_begin(const sim_params_t *p, sim_result_t *ret, int *ret_rc);
uint64_t sim_rand(sim_t *s);
uint32_t sim_uniform(sim_t *s, uint32_t n);
double sim_unit(sim_t *s);
void sim_at(sim_t *s, int64_t t, uint32_t type, uint32_t id, uint32_t arg,
	    sim_msg_t *m);
uint32_t sim_active_of(sim_t *s, uint32_t node); /* makes one if none */
uint64_t sim_seq(const sim_t *s, uint32_t a, uint16_t have);
double sim_exp(sim_t *s, double mean);
sim_event_t sim_pop(sim_t *s);
/* jobs, requests and churn of the window, as events */
void sim_workload(sim_t *s);
/* bytes per node per day, from the nodes' counters; the flood's delays */
void sim_traffic(sim_t *s, sim_result_t *r);
void sim_flood_figures(sim_t *s, sim_result_t *r);
/* Free what sim.c and sim_net.c made (nodes' links, links, events,
 * requests), not the model's own */
void sim_free_common(sim_t *s);
/* Count one event; with p.progress, tell how far the run is now and
 * then (stderr). */
void sim_progress(sim_t *s);
/* request req made now: its times, and the labs that accept it */
void sim_request_start(sim_t *s, uint32_t req);
/* request req reached a node now, by the flood */
void sim_flood_arrival(sim_t *s, uint32_t req);

/* sim_net.c: topology, links, pings, sending */
void sim_topology(sim_t *s);
static inline int sim_end_of(const sim_link_t *l, uint32_t node)
{
	return l->n[0] == node ? 0 : 1;
}
static inline uint32_t sim_peer(const sim_link_t *l, int e)
{
	return l->n[1 - e];
}
sim_msg_t *sim_msg_new(int kind);
void sim_msg_free(sim_msg_t *m);
/* Count len bytes of kind sent (tx) or received by node, in the window */
void sim_count(sim_t *s, uint32_t node, int kind, size_t len, bool tx);
/* Whether a message of kind may be lost on a link (s->p.loss) */
bool sim_lossy(int kind);
/* Send m (len bytes) from end e of link: counted, then lost or due. */
void sim_send(sim_t *s, uint32_t link, int e, sim_msg_t *m, size_t len);
/* A message arrived: false when dropped (the session ended). */
bool sim_arrive(sim_t *s, sim_msg_t *m);
void sim_pings_until(sim_t *s, sim_link_t *l, int64_t t);
void sim_session_up(sim_t *s, uint32_t link);
void sim_node_down(sim_t *s, uint32_t node);
void sim_node_up(sim_t *s, uint32_t node);
void sim_detect(sim_t *s, uint32_t link, int e);
void sim_grow_active(sim_t *s, uint32_t cap);
void sim_peers_changed(sim_t *s, uint32_t node, uint32_t link, bool joined);
void sim_send_peers(sim_t *s, uint32_t node);

/* sim_repl.c: replication, flooding and the digest, as the node does */
void sim_repl_on_msg(sim_t *s, sim_msg_t *m);
void sim_repl_write(sim_t *s, uint32_t node, int kind);
void sim_repl_announce(sim_t *s, uint32_t node);
void sim_repl_lazy(sim_t *s, uint32_t node);
void sim_repl_tick(sim_t *s, uint32_t node, bool first_only);
void sim_repl_round(sim_t *s, uint32_t node);
void sim_repl_digest(sim_t *s, uint32_t node);
void sim_repl_on_active(sim_t *s, uint32_t link, int e);
void sim_repl_forget(sim_t *s, uint32_t link, int e);
void sim_repl_resume_digest(sim_t *s, uint32_t link, uint32_t arg);
void sim_repl_mark_untold(sim_t *s, uint32_t node, uint32_t link);
void sim_repl_submit(sim_t *s);
void sim_repl_mark_all_dirty(sim_t *s, uint32_t node);

/* sim_wire.c: real sizes */
int sim_wire_init(void);
void sim_wire_fini(void);
bool sim_wire_failed(void); /* an encoder refused one: figures wrong */
size_t sim_wire_record(int kind);
/* a record of kind as signed at init (its body is a template), borrowed */
const uint8_t *sim_wire_sample(int kind, size_t *ret_len);
/* A signed request made at created_ms by kp: 0 or a negative code */
int sim_wire_request_new(const key_pair_t *kp, int64_t created_ms,
			 uint8_t **ret, size_t *ret_len, uint8_t ret_id[32]);
size_t sim_wire_head(sim_t *s, uint32_t node);
size_t sim_wire_peers_delta(uint32_t add, uint32_t gone);
size_t sim_wire_vector(sim_t *s, uint32_t node, const uint32_t *ea,
		       const uint16_t *ed, uint32_t n, uint64_t mask);
size_t sim_wire_want(sim_t *s, uint32_t a, uint64_t from);
size_t sim_wire_records(const sim_feed_t *f, uint32_t from, uint32_t upto);
size_t sim_wire_credit(uint32_t n);
size_t sim_wire_ping(bool pong);
size_t sim_wire_request(void);
size_t sim_wire_request_ids(uint32_t n);
size_t sim_wire_hello(void);
size_t sim_wire_peers(uint32_t n);
size_t sim_wire_digest(const digest_t *d);

#endif
