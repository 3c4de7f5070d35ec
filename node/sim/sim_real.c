/*
 * sim_real: the node's own replication code run by N nodes in one
 * process. node_repl.c, node_digest.c, node_flood.c, node_session.c
 * (peers, pings, pongs) and digest.c are linked as the daemon links them
 * (the objects of node/net's library); each node is a node_t with its
 * own store and a peer_t per link. The stores are sim_store.c's: store.h
 * over one pool of records shared by all nodes, each store holding how
 * far it has each feed (store.c's SQLite would hold every record once
 * per node: a row per lab per node). This file stands
 * in for what the daemon's other files give that code: the clock
 * (node_now, node_wall_ms: virtual time), the sockets (node_send: a link
 * with latency, in order, maybe lossy), the loop's timers (node_timer:
 * the event heap), the tick (s_handle_tick: pings after silence as
 * node_peer.c's s_tick_one sends them, repl_tick), the router's wakeup
 * (repl_send_vectors,
 * repl_pull_all after the messages of a moment), and the jobs side
 * (jobs_on_request: labs accept or decline; jobs_on_stored).
 *
 * Not sent: hellos and peers messages. A session starts as node_peer.c
 * starts one once hellos are exchanged (state, features, repl_on_active,
 * a ping), and each peer's table (peer_t.their_ids, which node_repl.c
 * reads) is set as its next peers message would set it. A node that goes
 * offline (churn) is cut off from its peers and its sessions end on both
 * sides at once; it keeps its state, as after a network outage.
 *
 * The workload, the overlay and the figures are sim.c's and sim_net.c's,
 * so a run and the model's (sim_run) at one seed have the same jobs,
 * requests and links. Every node holds one record (an advert) of every
 * feed at the start; the model starts feeds at seq 100-5100, which only
 * changes the size of the numbers in vectors.
 */
#include "node/sim/sim_int.h"
#include "node/jobs/jobs.h"

#include "proto/mem.h"
#include "proto/record.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* What a node of this version says in its hello: what wire_hello sets,
 * and the jobs side's blobs and cancels. */
static uint64_t s_features(void)
{
	static uint64_t features;
	uint8_t *b = NULL;
	size_t len = 0;
	wire_msg_t w;

	if (features)
		return features;
	if (wire_hello((const uint8_t *)"", 0, true, false, &b, &len) < 0 ||
	    wire_msg_decode(b, len, &w) < 0)
		abort();
	features = w.msg->hello.features | MSG_FEATURE_BLOBS |
		   MSG_FEATURE_CANCEL;
	wire_msg_free(&w);
	free(b);
	return features;
}

enum {
	EV_R_TIMER = 100, /* a zloop timer of a node fires */
	EV_R_WAKE,	  /* the router's wakeup after messages */
	EV_R_ANSWER,	  /* a lab signs its answer to a request */
	EV_R_BURST,	  /* a lab appends p.burst records at once */
};

struct jobs {
	uint32_t idx; /* the node's index */
};

typedef struct {
	node_t node;
	struct jobs jobs;
	bool wake; /* an EV_R_WAKE is due */
	int burst; /* messages read since the last wakeup's work */
} real_node_t;

typedef struct {
	sim_t *s;
	real_node_t *nodes;
	peer_t **ends;	    /* per link: each end's peer_t for the other */
	record_t *tmpl[8];  /* per WIRE_KIND_*: a body to sign */
	lab_config_t cfg;
	uint8_t (*req_ids)[WIRE_ID_BYTES];
	uint32_t origin; /* of the request being submitted */
	int64_t *up_ms;	 /* per node: when it came back online last */
	double *busy_ms; /* per node: busy until (p.load) */
	uint64_t garbage;
	int64_t wall0;
	char loop; /* its address stands for the nodes' zloop */
} real_t;

static real_t *R; /* the run: the node's code calls plain functions */

/* ---- what node.c and node_peer.c give the replication code ------------ */

/* the node's monotonic clock: never 0, which its code takes for unset */
#define REAL_CLOCK_MS (1000LL * 1000 * 1000)
/* sessions start this long before the window, so that what it measures
 * is a network under way, as the model's is */
#define REAL_WARMUP_MS (120 * 1000)

int64_t node_now(void)
{
	return REAL_CLOCK_MS + R->s->now;
}

int64_t node_wall_ms(void)
{
	return R->wall0 + R->s->now;
}

void node_garbage(node_t *node, const char *curve, const char *what)
{
	if (R->garbage++ < 5)
		log_warn("sim: node %.12s took a message of %.12s as garbage:"
			 " %s", node->hex, curve, what);
}

/* Virtual time: a node never stalls. */
void peer_note_stall(node_t *node, int64_t now)
{
	(void)node;
	(void)now;
}

/* What comes for a busy node waits as its own event (p.load): a timer
 * never finds it unread. */
bool node_input_waiting(node_t *node)
{
	(void)node;
	return false;
}

int node_timer(node_t *node, size_t delay_ms, zloop_timer_fn handler)
{
	sim_msg_t *m = sim_msg_new(0);

	m->timer_fn = handler;
	m->timer_arg = node;
	sim_at(R->s, R->s->now + (int64_t)delay_ms, EV_R_TIMER,
	       (uint32_t)((real_node_t *)(void *)node - R->nodes), 0, m);
	return 1;
}

static int s_kind(const uint8_t *b, size_t len)
{
	switch (len >= 2 ? b[1] : 0) {
	case MSG_HELLO:
		return SIM_HELLO;
	case MSG_PEERS:
	case MSG_PEERS_DELTA:
		return SIM_PEERS;
	case MSG_REQUEST:
		return SIM_REQUEST;
	case MSG_REQUEST_IDS:
	case MSG_REQUEST_SUMMARY:
	case MSG_REQUEST_IDS_IN:
		return SIM_REQUEST_IDS;
	case MSG_VECTOR:
		return SIM_VECTOR;
	case MSG_RANGES:
	case MSG_SUBRANGES:
		return SIM_REPAIR;
	case MSG_WANT:
		return SIM_WANT;
	case MSG_RECORDS:
		return SIM_RECORDS;
	case MSG_CREDIT:
		return SIM_CREDIT;
	case MSG_PING:
		return SIM_PING;
	case MSG_PONG:
		return SIM_PONG;
	case MSG_DIGEST:
	case MSG_SUBDIGEST:
		return SIM_DIGEST;
	default:
		return -1;
	}
}

/* The link p (a peer of node) is the far end of, and node's end of it. */
static uint32_t s_link_of(node_t *node, peer_t *p, int *ret_end)
{
	sim_t *s = R->s;
	uint32_t x = (uint32_t)((real_node_t *)(void *)node - R->nodes);

	for (uint32_t i = 0; i < s->nodes[x].deg; i++) {
		uint32_t l = s->nodes[x].links[i];
		int e = sim_end_of(&s->links[l], x);

		if (R->ends[2 * (size_t)l + (size_t)e] == p) {
			*ret_end = e;
			return l;
		}
	}
	return UINT32_MAX;
}

int node_send(node_t *node, peer_t *p, uint8_t *bytes, size_t len)
{
	int e = 0;
	uint32_t link = s_link_of(node, p, &e);
	int kind = bytes ? s_kind(bytes, len) : -1;
	sim_msg_t *m;

	if (!bytes)
		return -EINVAL;
	if (link == UINT32_MAX || !R->s->links[link].up || kind < 0) {
		if (kind < 0)
			R->garbage++; /* a message the simulator cannot name */
		free(bytes);
		return -ENOTCONN;
	}
	node->msgs_tx++;
	node->bytes_tx += len;
	node->kind_msgs_tx[bytes[1]]++;
	node->kind_bytes_tx[bytes[1]] += len;
	m = sim_msg_new(kind);
	m->bytes = bytes;
	/* counted, then lost with the connection (the sender cannot tell)
	 * or due at the other end, in order */
	sim_send(R->s, link, e, m, len);
	return 0;
}

/* ---- the jobs side ------------------------------------------------------- */

void jobs_on_stored(jobs_t *j, const void *items, size_t n)
{
	(void)j;
	(void)items;
	(void)n;
}

static bool s_accepts(const sim_t *s, uint32_t req, uint32_t node)
{
	const uint32_t *acc =
		(const uint32_t *)s->req_accepts + (size_t)req * s->p.accept_labs;

	for (uint32_t i = 0; i < s->p.accept_labs; i++)
		if (acc[i] == node)
			return true;
	return false;
}

/* A new valid request reached node j: its delay is the flood's (not at
 * its origin), and the lab answers a moment later. */
void jobs_on_request(jobs_t *j, const uint8_t *id, const uint8_t *bytes,
		     size_t len)
{
	sim_t *s = R->s;
	uint32_t req = s->n_reqs;

	(void)bytes;
	(void)len;
	while (req > 0 && memcmp(R->req_ids[req - 1], id, WIRE_ID_BYTES))
		req--;
	if (!req--)
		return;
	/* the flood's delay, to nodes online since the request was made
	 * (one that was offline has it from request-ids when back) */
	if (j->idx != R->origin && R->up_ms[j->idx] <= s->req_t0[req])
		sim_flood_arrival(s, req);
	if (s_accepts(s, req, j->idx))
		sim_at(s, s->now, EV_R_ANSWER, j->idx, WIRE_KIND_ACCEPT, NULL);
	else if (s->p.every_lab_answers)
		sim_at(s, s->now, EV_R_ANSWER, j->idx, WIRE_KIND_DECLINE, NULL);
}

/* ---- records and requests ------------------------------------------------ */

/* Sign kind's body as record seq of node's feed after prev: the bytes
 * (caller frees), or NULL; *rec says what they are. */
static uint8_t *s_sign(node_t *node, int kind, uint64_t seq,
		       const uint8_t *prev, wire_record_t *rec, size_t *ret_len)
{
	record_t *t = R->tmpl[kind];
	uint8_t *bytes = NULL;

	if (kind == WIRE_KIND_ADVERT)
		memcpy(t->advert.node_id, node->key.pk, WIRE_KEY_BYTES);
	if (wire_record_sign(&node->key, t, seq, prev, node_wall_ms(), &bytes,
			     ret_len, rec) < 0)
		return NULL;
	return bytes;
}

/* As node_feed.c's node_append_record: signed, stored, pushed. */
static void s_append(uint32_t idx, int kind)
{
	node_t *node = &R->nodes[idx].node;
	const store_feed_t *f = store_feed(node->store, node->key.pk);
	wire_record_t rec;
	store_rec_t sr;
	size_t len = 0;
	uint8_t *bytes;

	if (kind <= 0 || kind >= 8 || !R->tmpl[kind] || !f)
		return;
	bytes = s_sign(node, kind, f->seq + 1, f->head, &rec, &len);
	if (!bytes) {
		R->garbage++;
		return;
	}
	sr = wire_store_rec(&rec, bytes, len);
	if (store_begin(node->store) == 0 &&
	    store_put_record(node->store, &sr) == STORE_ADDED &&
	    store_commit(node->store) == 0) {
		repl_pushed_own(node, rec.seq, bytes, len);
		/* every record (an answer may come in the drain) */
		R->s->r->records++;
		R->s->r->record_bytes += len;
	} else {
		store_rollback(node->store);
		R->garbage++;
	}
	free(bytes);
}

/* As node_feed.c's s_append_synthetic: n records in one transaction,
 * announced by vector, not pushed one at a time. */
static void s_burst(uint32_t idx, uint32_t n)
{
	node_t *node = &R->nodes[idx].node;
	int rc = store_begin(node->store);

	for (uint32_t i = 0; rc == 0 && i < n; i++) {
		const store_feed_t *f = store_feed(node->store, node->key.pk);
		wire_record_t rec;
		store_rec_t sr;
		size_t len = 0;
		uint8_t *bytes = f ? s_sign(node, WIRE_KIND_EVENT, f->seq + 1,
					    f->head, &rec, &len) :
				     NULL;

		if (!bytes) {
			rc = -EPROTO;
			break;
		}
		sr = wire_store_rec(&rec, bytes, len);
		rc = store_put_record(node->store, &sr) == STORE_ADDED ?
			     0 :
			     -EPROTO;
		R->s->r->records++;
		R->s->r->record_bytes += len;
		free(bytes);
	}
	if (rc == 0)
		rc = store_commit(node->store);
	else
		store_rollback(node->store);
	if (rc < 0) {
		R->garbage++;
		return;
	}
	repl_vec_sync(node, node->key.pk);
	node->vec_dirty = true;
	repl_send_vectors(node);
}

static void s_req_grow(sim_t *s)
{
	s->a_reqs = s->a_reqs ? 2 * s->a_reqs : 256;
	s->req_t0 = xreallocarray(s->req_t0, s->a_reqs, sizeof(*s->req_t0));
	s->req_last = xreallocarray(s->req_last, s->a_reqs,
				    sizeof(*s->req_last));
	s->req_reached = xreallocarray(s->req_reached, s->a_reqs,
				       sizeof(*s->req_reached));
	s->req_accepts = xreallocarray(s->req_accepts,
				       (size_t)s->a_reqs * s->p.accept_labs,
				       sizeof(uint32_t));
	R->req_ids = xreallocarray(R->req_ids, s->a_reqs,
				   sizeof(*R->req_ids));
}

/* A request signed by a random online lab and flooded from it. */
static void s_submit(sim_t *s)
{
	uint32_t req, origin;
	uint8_t *b = NULL;
	size_t len = 0;

	if (!s->writing)
		return;
	do
		origin = sim_uniform(s, s->p.nodes);
	while (!s->nodes[origin].online);
	if (s->n_reqs == s->a_reqs)
		s_req_grow(s);
	if (sim_wire_request_new(&R->nodes[origin].node.key.kp,
				 node_wall_ms(), &b, &len,
				 R->req_ids[s->n_reqs]) < 0) {
		R->garbage++;
		return;
	}
	req = s->n_reqs++;
	sim_request_start(s, req);
	R->origin = origin;
	if (node_submit_request(&R->nodes[origin].node, b, len) != 1)
		R->garbage++;
	R->origin = UINT32_MAX;
	free(b);
}

/* ---- sessions ------------------------------------------------------------ */

static peer_t *s_end(uint32_t link, int e)
{
	return R->ends[2 * (size_t)link + (size_t)e];
}

/* What x's next peers message would tell each of its peers: x's other
 * peers in session (node_peer.c: s_table), up to WIRE_MAX_DESCS. */
static void s_tables(uint32_t x)
{
	sim_t *s = R->s;
	sim_node_t *n = &s->nodes[x];

	for (uint32_t i = 0; i < n->deg; i++) {
		sim_link_t *l = &s->links[n->links[i]];
		int ex = sim_end_of(l, x);
		peer_t *to = s_end(n->links[i], 1 - ex); /* its view of x */

		if (!l->up)
			continue;
		to->n_their_ids = 0;
		for (uint32_t k = 0; k < n->deg &&
				     to->n_their_ids < WIRE_MAX_DESCS; k++) {
			sim_link_t *o = &s->links[n->links[k]];

			if (k == i || !o->up)
				continue;
			memcpy(to->their_ids[to->n_their_ids++],
			       R->nodes[sim_peer(o, sim_end_of(o, x))]
				       .node.key.pk,
			       WIRE_KEY_BYTES);
		}
	}
}

static void s_wake(uint32_t idx)
{
	if (R->nodes[idx].wake)
		return;
	R->nodes[idx].wake = true;
	sim_at(R->s, R->s->now, EV_R_WAKE, idx, 0, NULL);
}

/* node.c: s_handle_router, after the messages of a wakeup. */
static void s_wakeup_work(uint32_t idx)
{
	node_t *node = &R->nodes[idx].node;

	R->nodes[idx].burst = 0;
	repl_send_vectors(node);
	repl_pull_all(node);
}

/* Both hellos taken (node_peer.c: s_activate). */
static void s_session_up(uint32_t link)
{
	sim_t *s = R->s;
	sim_link_t *l = &s->links[link];

	l->up = true;
	l->session++;
	for (int e = 0; e < 2; e++) {
		peer_t *p = s_end(link, e);

		p->state = PEER_ACTIVE;
		p->features = s_features();
		p->backoff_ms = 0;
		p->last_seen_ms = p->live_ms = node_now();
		p->peers_sent_ms = 0;
		R->nodes[l->n[e]].node.peers_gen++;
		l->end[e].fifo_ms = s->now;
	}
	for (int e = 0; e < 2; e++) {
		node_t *node = &R->nodes[l->n[e]].node;
		peer_t *p = s_end(link, e);

		repl_on_active(node, p);
		peer_ping(node, p);
	}
	s_tables(l->n[0]);
	s_tables(l->n[1]);
	s_wake(l->n[0]);
	s_wake(l->n[1]);
}

/* The connection is gone: both sides end the session (peer_down). */
static void s_session_down(uint32_t link)
{
	sim_t *s = R->s;
	sim_link_t *l = &s->links[link];

	if (!l->up)
		return;
	l->up = false;
	l->session++;
	for (int e = 0; e < 2; e++) {
		node_t *node = &R->nodes[l->n[e]].node;
		peer_t *p = s_end(link, e);

		node->peers_gen++;
		p->peers_sent_ms = 0;
		repl_forget_peer(node, p);
		p->state = PEER_DOWN;
		p->rtt_ms = -1;
	}
	s_tables(l->n[0]);
	s_tables(l->n[1]);
}

static void s_node_down(uint32_t idx)
{
	sim_t *s = R->s;
	sim_node_t *n;

	if (idx == UINT32_MAX)
		idx = sim_uniform(s, s->p.nodes);
	n = &s->nodes[idx];
	if (!s->writing || !n->online)
		return;
	n->online = false;
	for (uint32_t i = 0; i < n->deg; i++)
		s_session_down(n->links[i]);
	if (s->measuring)
		s->r->churned++;
	sim_at(s, s->now + (int64_t)(1000 * sim_exp(s, s->p.offline_s)), EV_UP,
	       idx, 0, NULL);
}

static void s_node_up(uint32_t idx)
{
	sim_t *s = R->s;
	sim_node_t *n = &s->nodes[idx];

	if (n->online)
		return;
	n->online = true;
	R->up_ms[idx] = s->now;
	for (uint32_t i = 0; i < n->deg; i++) {
		sim_link_t *l = &s->links[n->links[i]];

		if (!l->up && s->nodes[sim_peer(l, sim_end_of(l, idx))].online)
			s_session_up(n->links[i]);
	}
}

/* ---- the node's loop ----------------------------------------------------- */

/* A message arrives (node.c: s_on_message, s_dispatch). */
static void s_arrive(sim_msg_t *m)
{
	sim_t *s = R->s;
	sim_link_t *l = &s->links[m->link];
	uint32_t idx = l->n[m->to];
	node_t *node = &R->nodes[idx].node;
	peer_t *p = s_end(m->link, m->to);
	wire_msg_t w;

	if (!l->up || m->session != l->session)
		return; /* sent on a session since ended */
	sim_count(s, idx, m->kind, m->len, false);
	node->msgs_rx++;
	node->bytes_rx += m->len;
	if (wire_msg_decode(m->bytes, m->len, &w) < 0) {
		node_garbage(node, p->curve, "undecodable");
		return;
	}
	switch (w.type) {
	case WIRE_PING:
		peer_on_ping(node, p, &w);
		break;
	case WIRE_VECTOR:
		repl_on_vector(node, p, &w);
		break;
	case WIRE_DIGEST:
		repl_on_digest(node, p, &w);
		break;
	case WIRE_RANGES:
		repl_on_ranges(node, p, &w);
		break;
	case WIRE_SUBDIGEST:
		repl_on_subdigest(node, p, &w);
		break;
	case WIRE_SUBRANGES:
		repl_on_subranges(node, p, &w);
		break;
	case WIRE_WANT:
		repl_on_want(node, p, &w);
		break;
	case WIRE_RECORDS:
		repl_on_records(node, p, &w);
		break;
	case WIRE_CREDIT:
		repl_on_credit(node, p, &w);
		break;
	case WIRE_REQUEST:
		repl_on_request(node, p, &w);
		break;
	case WIRE_REQUEST_IDS:
		repl_on_request_ids(node, p, &w);
		break;
	case WIRE_REQUEST_SUMMARY:
		repl_on_request_summary(node, p, &w);
		break;
	case WIRE_REQUEST_IDS_IN:
		repl_on_request_ids_in(node, p, &w);
		break;
	default:
		node_garbage(node, p->curve, "not a replication message");
		break;
	}
	wire_msg_free(&w);
	p->last_seen_ms = p->live_ms = node_now();
	s_wake(idx);
	/* node.c reads at most NODE_MAX_BURST messages a wakeup: a node
	 * behind on its reading does the wakeup's work between them */
	if (++R->nodes[idx].burst >= NODE_MAX_BURST)
		s_wakeup_work(idx);
}

/* node.c: s_handle_tick — pings after silence (node_peer.c: s_tick_one),
 * then repl_tick, and the trim of the node's tables every NODE_TRIM_MS
 * (repl_shrink; malloc_trim is the process's). Peers are never judged
 * silent here: a session ends only when its node goes offline. */
static void s_tick(uint32_t idx)
{
	node_t *node = &R->nodes[idx].node;
	int64_t now = node_now(), ping_ms = NODE_PING_OF(node->liveness_ms);

	for (size_t i = 0; i < node->n_peers; i++) {
		peer_t *p = node->peers[i];

		if (p->state != PEER_ACTIVE)
			continue;
		if (now - (p->ping_sent_ms > p->last_seen_ms ?
				   p->ping_sent_ms :
				   p->last_seen_ms) >= ping_ms ||
		    (p->ping_open && now - p->ping_sent_ms >= ping_ms))
			peer_ping(node, p);
	}
	repl_tick(node);
	if (now - node->last_trim_ms > NODE_TRIM_MS) {
		repl_shrink(node);
		node->last_trim_ms = now;
	}
	node->tick_last_ms = now;
}

static void s_dispatch(const sim_event_t *ev)
{
	sim_t *s = R->s;

	switch (ev->type) {
	case EV_MSG:
		s_arrive(ev->msg);
		sim_msg_free(ev->msg);
		break;
	case EV_R_TIMER:
		ev->msg->timer_fn(NULL, 0, ev->msg->timer_arg);
		sim_msg_free(ev->msg);
		break;
	case EV_R_WAKE:
		R->nodes[ev->id].wake = false;
		s_wakeup_work(ev->id);
		break;
	case EV_TICK:
		s_tick(ev->id);
		sim_at(s, s->now + NODE_TICK_MS, EV_TICK, ev->id, 0, NULL);
		break;
	case EV_WRITE:
		if (s->writing && s->nodes[ev->id].online)
			s_append(ev->id, (int)ev->arg);
		break;
	case EV_R_ANSWER:
		s_append(ev->id, (int)ev->arg);
		break;
	case EV_SUBMIT:
		s_submit(s);
		break;
	case EV_R_BURST:
		s_burst(ev->id, s->p.burst);
		break;
	case EV_DOWN:
		s_node_down(ev->id);
		break;
	case EV_UP:
		s_node_up(ev->id);
		break;
	default: /* the model's own timers (rounds, digests) */
		break;
	}
}

/* The node an event runs on, or UINT32_MAX. */
static uint32_t s_event_node(const sim_event_t *ev)
{
	switch (ev->type) {
	case EV_MSG:
		return R->s->links[ev->msg->link].n[ev->msg->to];
	case EV_R_TIMER:
	case EV_R_WAKE:
	case EV_TICK:
	case EV_WRITE:
	case EV_R_ANSWER:
	case EV_R_BURST:
		return ev->id;
	default:
		return UINT32_MAX;
	}
}

static double s_cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1000.0 + (double)ts.tv_nsec / 1e6;
}

/* Run ev, or, when its node is still busy (p.load, p.busy_ms), put it
 * off until the node is free: messages, timers and the tick wait their
 * turn as in a process that shares the machine. */
static void s_run_event(sim_t *s, sim_event_t *ev)
{
	uint32_t x = s->p.load > 0 || s->p.busy_ms > 0 ? s_event_node(ev) :
							  UINT32_MAX;
	double t0;

	if (x != UINT32_MAX && R->busy_ms[x] > (double)ev->t) {
		sim_at(s, (int64_t)R->busy_ms[x] + 1, ev->type, ev->id,
		       ev->arg, ev->msg);
		return;
	}
	s->now = ev->t;
	sim_progress(s);
	if (x == UINT32_MAX) {
		s_dispatch(ev);
		return;
	}
	t0 = s_cpu_ms();
	s_dispatch(ev);
	R->busy_ms[x] = (double)s->now + s->p.busy_ms +
			(s->p.load > 0 ? (s_cpu_ms() - t0) * s->p.load : 0);
}

static void s_end_window(sim_t *s)
{
	s->measuring = false;
	s->writing = false;
	for (uint32_t i = 0; i < s->p.nodes; i++)
		s_node_up(i);
}

static void s_loop(sim_t *s)
{
	int64_t stop = s->end_ms + (int64_t)(1000 * s->p.drain_s);

	while (s->n_heap && s->heap[0].t <= stop) {
		sim_event_t ev = sim_pop(s);

		if (!s->measuring && s->writing && ev.t >= 0)
			s->measuring = true; /* the warm-up is over */
		if (s->measuring && ev.t >= s->end_ms)
			s_end_window(s);
		s_run_event(s, &ev);
	}
	if (s->measuring)
		s_end_window(s);
	while (s->n_heap) {
		sim_event_t ev = sim_pop(s);

		sim_msg_free(ev.msg);
	}
}

/* ---- the network at the start -------------------------------------------- */

static int s_templates(void)
{
	for (int k = 1; k < 8; k++) {
		size_t len;
		const uint8_t *b = sim_wire_sample(k, &len);

		if (b && wire_record_decode(b, len, &R->tmpl[k]) < 0)
			return -EPROTO;
	}
	return R->tmpl[WIRE_KIND_ADVERT] ? 0 : -EPROTO;
}

static void s_node_init(sim_t *s, uint32_t idx)
{
	real_node_t *rn = &R->nodes[idx];
	node_t *node = &rn->node;
	uint8_t seed[32];

	for (int k = 0; k < 32; k += 8) {
		uint64_t r = sim_rand(s);

		memcpy(seed + k, &r, 8);
	}
	(void)key_from_seed(seed, &node->key.kp);
	memcpy(node->key.pk, node->key.kp.pk, WIRE_KEY_BYTES);
	wire_hex(node->key.pk, WIRE_KEY_BYTES, node->hex);
	rn->jobs.idx = idx;
	node->jobs = &rn->jobs;
	node->cfg = &R->cfg;
	node->loop = (zloop_t *)(void *)&R->loop;
	node->max_peers = (int)s->p.max_peers;
	node->liveness_ms = s->p.liveness_ms > 0 ? s->p.liveness_ms :
						    NODE_LIVENESS_MS;
	node_tables_new(node);
}

/* node e of link's peer_t for the node at the other end (as node_peer.c
 * adds one). */
static peer_t *s_peer_new(uint32_t link, int e)
{
	sim_link_t *l = &R->s->links[link];

	return peer_new(&R->nodes[l->n[e]].node,
			R->nodes[l->n[1 - e]].node.key.pk, "sim", false);
}

/* A day of requests before the window, as every node holds them (they
 * expire 24 h after they were made): request-ids at a session's start
 * carry their ids, as the model's do. */
static int s_backlog(node_t *node, uint8_t **reqs, size_t *lens,
		     uint8_t (*ids)[WIRE_ID_BYTES], int64_t *expires,
		     uint32_t n)
{
	int rc = 0;

	for (uint32_t k = 0; k < n && rc >= 0; k++)
		rc = store_put_request(node->store, ids[k], reqs[k], lens[k],
				       expires[k]);
	return rc < 0 ? rc : 0;
}

/* Every node holds every lab's first advert, and a day of requests. */
static int s_preload(sim_t *s)
{
	uint32_t n = s->p.nodes;
	uint8_t **bytes = xcalloc(n, sizeof(*bytes));
	size_t *lens = xcalloc(n, sizeof(*lens));
	wire_record_t *recs = xcalloc(n, sizeof(*recs));
	static const uint8_t zero[WIRE_ID_BYTES];
	uint32_t n_req = (uint32_t)s->p.requests_per_day;
	uint8_t **reqs = xcalloc(n_req + 1, sizeof(*reqs));
	size_t *req_lens = xcalloc(n_req + 1, sizeof(*req_lens));
	uint8_t(*ids)[WIRE_ID_BYTES] = xcalloc(n_req + 1, sizeof(*ids));
	int64_t *expires = xcalloc(n_req + 1, sizeof(*expires));
	int rc = 0;

	for (uint32_t k = 0; k < n_req && rc == 0; k++) {
		/* made at a random moment of the day before */
		int64_t made = R->wall0 + s->now -
			       (int64_t)sim_uniform(s, 86400u * 1000u);

		rc = sim_wire_request_new(
			&R->nodes[sim_uniform(s, n)].node.key.kp, made,
			&reqs[k], &req_lens[k], ids[k]);
		expires[k] = made + 24LL * 3600 * 1000;
	}
	for (uint32_t a = 0; a < n && rc == 0; a++) {
		bytes[a] = s_sign(&R->nodes[a].node, WIRE_KIND_ADVERT, 1, zero,
				  &recs[a], &lens[a]);
		if (!bytes[a])
			rc = -EPROTO;
	}
	for (uint32_t i = 0; i < n && rc == 0; i++) {
		node_t *node = &R->nodes[i].node;

		rc = store_open(":memory:", &node->store);
		if (rc == 0)
			rc = store_begin(node->store);
		for (uint32_t a = 0; a < n && rc == 0; a++) {
			store_rec_t sr = wire_store_rec(&recs[a], bytes[a],
							lens[a]);

			rc = store_put_record(node->store, &sr) == STORE_ADDED ?
				     0 :
				     -EPROTO;
		}
		if (rc == 0)
			rc = s_backlog(node, reqs, req_lens, ids, expires,
				       n_req);
		if (rc == 0)
			rc = store_commit(node->store);
		if (rc == 0)
			repl_vec_sync_all(node);
	}
	for (uint32_t k = 0; k < n_req; k++)
		free(reqs[k]);
	free(reqs);
	free(req_lens);
	free(ids);
	free(expires);
	for (uint32_t a = 0; a < n; a++)
		free(bytes[a]);
	free(bytes);
	free(lens);
	free(recs);
	return rc;
}

static void s_start(sim_t *s)
{
	for (uint32_t i = 0; i < s->n_links; i++)
		for (int e = 0; e < 2; e++)
			R->ends[2 * (size_t)i + (size_t)e] = s_peer_new(i, e);
	for (uint32_t i = 0; i < s->p.nodes; i++) {
		s->nodes[i].online = true;
		sim_at(s, s->now + sim_uniform(s, NODE_TICK_MS), EV_TICK, i, 0,
		       NULL);
	}
	/* the overlay as it stands once every hello is in */
	for (uint32_t i = 0; i < s->n_links; i++)
		s_session_up(i);
}

/* ---- figures -------------------------------------------------------------- */

/* Why node i lacks author a's records after the drain, as far as its
 * tables say (stderr: the first few of a run). */
static void s_tell_missing(uint32_t i, uint32_t a, uint64_t held,
			   uint64_t head)
{
	node_t *node = &R->nodes[i].node;
	const node_t *author = &R->nodes[a].node;
	size_t active = 0, claim = 0;

	for (size_t k = 0; k < node->n_peers; k++) {
		peer_t *p = node->peers[k];

		active += p->state == PEER_ACTIVE;
		claim += repl_their_seq(p, author->hex) > held;
	}
	fprintf(stderr, "bench-sim: node %u holds %" PRIu64 " of %" PRIu64
		" records of node %u's feed: %s since %.0f s, %zu peers"
		" active, %zu claim more, pull %s\n", i, held, head, a,
		R->s->nodes[i].online ? "online" : "offline",
		(double)R->up_ms[i] / 1000, active, claim,
		zhashx_lookup(node->upstream, author->hex) ? "open" : "none");
}

static void s_figures(sim_t *s, sim_result_t *r)
{
	uint64_t deg = 0, total = 0;

	sim_traffic(s, r);
	sim_flood_figures(s, r);
	for (uint32_t a = 0; a < s->p.nodes; a++) {
		node_t *author = &R->nodes[a].node;
		uint64_t head = store_feed(author->store, author->key.pk)->seq;

		for (uint32_t i = 0; i < s->p.nodes; i++) {
			const store_feed_t *f =
				store_feed(R->nodes[i].node.store,
					   author->key.pk);
			uint64_t held = f ? f->seq : 0;

			if (held < head && r->missing < 5)
				s_tell_missing(i, a, held, head);
			r->missing += held < head ? head - held : 0;
		}
		total += (head - 1) * s->p.nodes;
	}
	r->delivered = total ? 1.0 - (double)r->missing / (double)total : 1.0;
	for (uint32_t i = 0; i < s->p.nodes; i++) {
		node_t *node = &R->nodes[i].node;

		r->deliveries += node->records_in;
		r->duplicates += node->records_rx_items - node->records_in;
		r->pulls_preempted += node->pulls_preempted;
		r->dup_pulled += node->dup_pulled;
		r->dup_other += node->dup_other;
		r->dup_stale += node->dup_stale;
		r->wants_unheld += node->wants_unheld;
		r->wants_again += node->wants_again;
		r->wants_queued += node->wants_queued;
		r->pulls_started += node->pulls_started;
		r->pulls_taken_over += node->pulls_taken_over;
		r->pulls_stalled += node->pulls_stalled;
		r->pulls_waited += node->pulls_waited;
		r->pulls_stalled_unponged += node->pulls_stalled_unponged;
		r->pulls_stalled_patience += node->pulls_stalled_patience;
		r->pulls_stalled_read += node->pulls_stalled_read;
		r->pulls_judged_later += node->pulls_judged_later;
		r->wants_stop_sent += node->wants_stop_sent;
		r->wants_stopped += node->wants_stopped;
		r->beside_relay += node->beside_relay;
		r->handovers += node->handovers;
		r->handovers_read += node->handovers_read;
		r->handovers_timed += node->handovers_timed;
		deg += s->nodes[i].deg;
		if (s->nodes[i].deg > r->degree_max)
			r->degree_max = s->nodes[i].deg;
	}
	r->degree_mean = (double)deg / s->p.nodes;
	r->events = s->events;
	r->garbage = R->garbage;
	for (int k = 1; k < 8; k++)
		r->record_size[k] = sim_wire_record(k);
}

static void s_free(sim_t *s)
{
	for (uint32_t i = 0; R->nodes && i < s->p.nodes; i++) {
		node_t *node = &R->nodes[i].node;

		node_tables_destroy(node);
		store_destroy(&node->store);
		key_wipe(&node->key.kp);
	}
	for (int k = 0; k < 8; k++)
		record_destroy(&R->tmpl[k]);
	free(R->nodes);
	free(R->ends);
	free(R->req_ids);
	free(R->up_ms);
	free(R->busy_ms);
	sim_free_common(s);
}

int sim_run_real(const sim_params_t *p, sim_result_t *ret)
{
	real_t real = {0};
	int rc;
	sim_t *s = sim_begin(p, ret, &rc);

	if (!s)
		return rc;
	R = &real;
	R->s = s;
	R->origin = UINT32_MAX;
	R->cfg.max_request_hours = 7 * 24; /* a lab file's default */
	R->wall0 = 1796000000000LL; /* late 2026 */
	R->nodes = xcalloc(p->nodes, sizeof(*R->nodes));
	R->up_ms = xcalloc(p->nodes, sizeof(*R->up_ms));
	R->busy_ms = xcalloc(p->nodes, sizeof(*R->busy_ms));
	rc = s_templates();
	for (uint32_t i = 0; rc == 0 && i < p->nodes; i++)
		s_node_init(s, i);
	if (rc == 0) {
		sim_topology(s);
		R->ends = xcalloc(2 * (size_t)s->n_links, sizeof(*R->ends));
		rc = s_preload(s);
	}
	if (rc == 0) {
		s->now = -REAL_WARMUP_MS;
		s->writing = true;
		s_start(s);
		sim_workload(s);
		if (p->burst)
			sim_at(s, 60 * 1000, EV_R_BURST,
			       sim_uniform(s, p->nodes), 0, NULL);
		s_loop(s);
		s_figures(s, ret);
	}
	s_free(s);
	free(s);
	R = NULL;
	if (rc == 0 && sim_wire_failed())
		rc = -EPROTO;
	sim_wire_fini();
	return rc;
}
