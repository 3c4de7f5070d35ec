/*
 * lease_relay: a lease holder's operations (exec, put, get, power,
 * console) travel from the holder's node to the lab over the peers'
 * CURVE links, relayed by the nodes between them: straight to the lab
 * when it is a peer, else to every other peer, at most PROTO_MAX_HOPS
 * times, each node passing an operation once. Each node remembers which
 * peer an operation came from and sends the lab's signed replies back
 * that way. Every peer's relayed bytes are capped per second; the lab
 * takes operations only from the lease holder's key (lease_sess.c).
 */
#include "node/jobs/jobs_int.h"

#include "proto/mem.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define RELAY_SEEN 1024

typedef struct {
	uint8_t id[32];
	char curve[WIRE_Z85_LEN + 1]; /* "" and local: ours */
	bool used, local;
	int64_t at;
} s_route_t;

typedef struct {
	uint8_t *bytes;
	size_t len;
} s_item_t;

typedef struct {
	uint8_t id[32];
	bool used;
	int64_t at;
	s_item_t q[RELAY_MAX_QUEUED];
	size_t head, n;
} s_box_t;

typedef struct {
	char curve[WIRE_Z85_LEN + 1];
	int64_t window_ms;
	size_t bytes;
} s_rate_t;

struct jobs_relay {
	s_route_t routes[RELAY_MAX_ROUTES];
	size_t route_next;
	s_box_t boxes[RELAY_MAX_BOXES];
	uint8_t seen[RELAY_SEEN][32];
	size_t seen_next, seen_n;
	s_rate_t rates[RELAY_MAX_PEERS];
	int64_t log_ms;
};

void lease_relay_new(jobs_t *j)
{
	j->relay = xzalloc(sizeof(*j->relay));
}

static void s_box_clear(s_box_t *b)
{
	for (size_t i = 0; i < b->n; i++)
		free(b->q[(b->head + i) % RELAY_MAX_QUEUED].bytes);
	memset(b, 0, sizeof(*b));
}

void lease_relay_destroy(jobs_t *j)
{
	if (!j->relay)
		return;
	for (size_t i = 0; i < RELAY_MAX_BOXES; i++)
		s_box_clear(&j->relay->boxes[i]);
	free(j->relay);
	j->relay = NULL;
}

bool lease_relay_seen(jobs_t *j, const uint8_t id[32])
{
	jobs_relay_t *r = j->relay;

	for (size_t i = 0; i < r->seen_n; i++)
		if (memcmp(r->seen[i], id, 32) == 0)
			return true;
	memcpy(r->seen[r->seen_next], id, 32);
	r->seen_next = (r->seen_next + 1) % RELAY_SEEN;
	if (r->seen_n < RELAY_SEEN)
		r->seen_n++;
	return false;
}

/* ---- routes and mailboxes ---- */

static s_route_t *s_route(jobs_t *j, const uint8_t id[32])
{
	int64_t old = jobs_now() - RELAY_ROUTE_MS;

	for (size_t i = 0; i < RELAY_MAX_ROUTES; i++) {
		s_route_t *r = &j->relay->routes[i];

		if (r->used && r->at > old && memcmp(r->id, id, 32) == 0)
			return r;
	}
	return NULL;
}

static void s_route_add(jobs_t *j, const uint8_t id[32], const char *curve)
{
	s_route_t *r = &j->relay->routes[j->relay->route_next];

	j->relay->route_next = (j->relay->route_next + 1) % RELAY_MAX_ROUTES;
	memcpy(r->id, id, 32);
	r->local = !curve;
	snprintf(r->curve, sizeof(r->curve), "%s", curve ? curve : "");
	r->used = true;
	r->at = jobs_now();
}

static s_box_t *s_box(jobs_t *j, const uint8_t id[32], bool make)
{
	s_box_t *oldest = NULL;

	for (size_t i = 0; i < RELAY_MAX_BOXES; i++) {
		s_box_t *b = &j->relay->boxes[i];

		if (b->used && memcmp(b->id, id, 32) == 0)
			return b;
		if (!oldest || !b->used || (oldest->used && b->at < oldest->at))
			oldest = b;
	}
	if (!make)
		return NULL;
	s_box_clear(oldest);
	memcpy(oldest->id, id, 32);
	oldest->used = true;
	oldest->at = jobs_now();
	return oldest;
}

static void s_box_push(jobs_t *j, const uint8_t id[32], const uint8_t *bytes,
		       size_t len)
{
	s_box_t *b = s_box(j, id, false);
	s_item_t *it;

	if (!b)
		return;
	if (b->n == RELAY_MAX_QUEUED) {
		log_warn("lease operation: more than %d replies not yet read:"
			 " dropped one", RELAY_MAX_QUEUED);
		return;
	}
	it = &b->q[(b->head + b->n) % RELAY_MAX_QUEUED];
	it->bytes = xmalloc(len ? len : 1);
	memcpy(it->bytes, bytes, len);
	it->len = len;
	b->n++;
	b->at = jobs_now();
}

int lease_relay_poll(jobs_t *j, const uint8_t op_id[32], uint8_t **ret,
	       size_t *ret_len)
{
	s_box_t *b = s_box(j, op_id, false);

	if (!b)
		return -ENOENT;
	b->at = jobs_now();
	if (!b->n)
		return 0;
	*ret = b->q[b->head].bytes;
	*ret_len = b->q[b->head].len;
	b->q[b->head].bytes = NULL;
	b->head = (b->head + 1) % RELAY_MAX_QUEUED;
	b->n--;
	return 1;
}

/* ---- sending ---- */

static void s_send(jobs_t *j, const char *curve, int type,
		   const uint8_t id[32], uint32_t hops, const uint8_t *body,
		   size_t len)
{
	msg_t m = { .type = type };
	uint8_t *out = NULL;
	size_t olen = 0;

	memcpy(m.relay.id, id, 32);
	m.relay.hops = hops;
	m.relay.body = (proto_bytes_t){ body, len };
	if (msg_encode(&m, &out, &olen) == 0)
		j->ctx.send(j->ctx.arg, curve, out, olen);
}

/* An operation on to the lab `to`: to it alone when it is a peer, else
 * to every peer but the one it came from. */
static void s_forward(jobs_t *j, const uint8_t to[32], uint32_t hops,
		      const uint8_t *body, size_t len, const char *except)
{
	size_t n = j->ctx.n_peers(j->ctx.arg);
	char hex[65];
	jobs_peer_t p;

	if (hops > PROTO_MAX_HOPS)
		return;
	wire_hex(to, 32, hex);
	for (size_t i = 0; i < n; i++)
		if (j->ctx.peer(j->ctx.arg, i, &p) && p.lease &&
		    strcmp(p.hex, hex) == 0) {
			s_send(j, p.curve, MSG_RELAY, to, hops, body, len);
			return;
		}
	for (size_t i = 0; i < n; i++)
		if (j->ctx.peer(j->ctx.arg, i, &p) && p.lease &&
		    !(except && strcmp(p.curve, except) == 0))
			s_send(j, p.curve, MSG_RELAY, to, hops, body, len);
}

void lease_relay_reply(jobs_t *j, const uint8_t op_id[32], uint64_t index,
		 bool final, int64_t status, const void *data, size_t len)
{
	lease_reply_t r = { .index = index, .final = final, .status = status,
			    .data = data, .data_len = len };
	s_route_t *rt = s_route(j, op_id);
	uint8_t *out = NULL;
	size_t olen = 0;

	if (!rt || !j->ctx.key) {
		log_debug("lease reply: no route back");
		return;
	}
	memcpy(r.op_id, op_id, 32);
	if (lease_reply_sign(&r, j->ctx.key, &out, &olen) < 0)
		return;
	if (rt->local)
		s_box_push(j, op_id, out, olen);
	else
		s_send(j, rt->curve, MSG_RELAY_BACK, op_id, 0, out, olen);
	free(out);
}

int lease_relay_use(jobs_t *j, const uint8_t *bytes, size_t len,
	      const uint8_t node[32], const char **ret_why)
{
	lease_t *l = xmalloc(sizeof(*l));

	if (lease_decode(bytes, len, l) < 0 || l->op < LEASE_EXEC) {
		*ret_why = "not a valid signed lease operation";
		free(l);
		return -EINVAL;
	}
	if (s_route(j, l->id)) {
		*ret_why = "operation already sent";
		free(l);
		return -EALREADY;
	}
	s_box(j, l->id, true);
	s_route_add(j, l->id, NULL);
	if (sodium_memcmp(node, j->ctx.node_id, 32) == 0)
		lease_use(j, l, bytes, len);
	else
		s_forward(j, node, 0, bytes, len, NULL);
	free(l);
	return 0;
}

/* ---- from peers ---- */

/* Whether p may relay len more bytes this second. */
static bool s_rate_ok(jobs_t *j, const char *curve, size_t len)
{
	s_rate_t *r = NULL, *old = NULL;
	int64_t now = jobs_now();

	for (size_t i = 0; i < RELAY_MAX_PEERS && !r; i++) {
		s_rate_t *x = &j->relay->rates[i];

		if (strcmp(x->curve, curve) == 0)
			r = x;
		else if (!old || x->window_ms < old->window_ms)
			old = x;
	}
	if (!r) {
		r = old;
		snprintf(r->curve, sizeof(r->curve), "%s", curve);
		r->window_ms = 0;
	}
	if (now - r->window_ms >= 1000) {
		r->window_ms = now;
		r->bytes = 0;
	}
	r->bytes += len;
	if (r->bytes <= RELAY_BYTES_PER_S)
		return true;
	if (now - j->relay->log_ms >= 10000 && j->ctx.log_budget(j->ctx.arg)) {
		j->relay->log_ms = now;
		log_warn("lease relay: a peer sends over %d bytes/s: dropped",
			 RELAY_BYTES_PER_S);
	}
	return false;
}

static void s_on_relay(jobs_t *j, const jobs_peer_t *p, const msg_t *m)
{
	lease_t *l = xmalloc(sizeof(*l));

	if (lease_decode(m->relay.body.p, m->relay.body.len, l) < 0 ||
	    l->op < LEASE_EXEC) {
		j->ctx.garbage(j->ctx.arg, p->curve, "bad relayed lease op");
	} else if (!s_route(j, l->id)) { /* else: seen, a loop */
		s_route_add(j, l->id, p->curve);
		if (memcmp(m->relay.id, j->ctx.node_id, 32) == 0)
			lease_use(j, l, m->relay.body.p, m->relay.body.len);
		else
			s_forward(j, m->relay.id, m->relay.hops + 1,
				  m->relay.body.p, m->relay.body.len, p->curve);
	}
	free(l);
}

static void s_on_back(jobs_t *j, const jobs_peer_t *p, const msg_t *m)
{
	s_route_t *rt = s_route(j, m->relay.id);
	lease_reply_t r;

	if (!rt)
		return; /* no operation of that id passed here: dropped unread */
	if (lease_reply_decode(m->relay.body.p, m->relay.body.len, &r) < 0 ||
	    memcmp(r.op_id, m->relay.id, 32) != 0) {
		j->ctx.garbage(j->ctx.arg, p->curve, "bad relayed lease reply");
		return;
	}
	if (rt->local)
		s_box_push(j, m->relay.id, m->relay.body.p, m->relay.body.len);
	else if (m->relay.hops < PROTO_MAX_HOPS)
		s_send(j, rt->curve, MSG_RELAY_BACK, m->relay.id,
		       m->relay.hops + 1, m->relay.body.p, m->relay.body.len);
}

void lease_relay_on_message(jobs_t *j, const jobs_peer_t *p, const msg_t *m)
{
	switch (m->type) {
	case MSG_LEASE:
		if (jobs_lease_take(j, p->curve, m->lease.p, m->lease.len) < 0)
			j->ctx.garbage(j->ctx.arg, p->curve, "bad lease");
		break;
	case MSG_RELAY:
		if (s_rate_ok(j, p->curve, m->relay.body.len))
			s_on_relay(j, p, m);
		break;
	case MSG_RELAY_BACK:
		if (s_rate_ok(j, p->curve, m->relay.body.len))
			s_on_back(j, p, m);
		break;
	default:
		break;
	}
}
