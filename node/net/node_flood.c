/*
 * node_flood: test requests flooded over the peers. On first sight a
 * valid, unexpired request is stored, handed to the jobs side
 * (jobs_on_request) and sent to every other peer; on connect both sides
 * send the ids of their unexpired requests, and each sends the other what
 * it lacks.
 * A request the store could not take is asked for again next round.
 *
 * Layout: request ids; taking and forwarding a request; the handlers.
 */
#include "node/net/node_int.h"
#include "node/jobs/jobs.h"

#include "proto/error.h"
#include "proto/log.h"
#include "proto/mem.h"
#include "proto/types.h"

#include <errno.h>
#include <string.h>

/* ---- request ids ------------------------------------------------------ */

/* The buffers of one message of ids and of one summary, shared by the
 * functions below (one runs at a time): static pages, touched once. */
static uint8_t s_ids[WIRE_MAX_REQUEST_IDS][WIRE_ID_BYTES];

static int s_send_id(void *arg, const uint8_t *id, int64_t expires_ms)
{
	uint8_t(*ids)[WIRE_ID_BYTES] = ((void **)arg)[0];
	size_t *n = ((void **)arg)[1];

	memcpy(ids[(*n)++], id, WIRE_ID_BYTES);
	return 0;
}

/* Our request ids, whole: to a peer that takes no summary, and each round
 * while a request we could not store is to be asked for again. */
void repl_send_request_ids(node_t *node, peer_t *p)
{
	size_t n = 0;
	void *args[2] = { s_ids, &n };
	uint8_t *b = NULL;
	size_t len = 0;

	store_request_ids(node->store, node_wall_ms(), WIRE_MAX_REQUEST_IDS,
			  s_send_id, args);
	if (wire_request_ids((const uint8_t(*)[WIRE_ID_BYTES])s_ids, n, &b,
			     &len) == 0)
		node_send(node, p, b, len);
}

/* Our requests by bucket, ascending; false when they fill more than
 * WIRE_MAX_REQ_BUCKETS. The store names them latest to expire first. */
typedef struct {
	wire_req_bucket_t b[WIRE_MAX_REQ_BUCKETS];
	size_t n;
	bool over;
} s_summary_t;

static s_summary_t s_sum;

static int s_sum_id(void *arg, const uint8_t *id, int64_t expires_ms)
{
	s_summary_t *sum = arg;
	uint32_t bucket = msg_req_bucket((uint64_t)expires_ms);
	wire_req_bucket_t *last = sum->n ? &sum->b[sum->n - 1] : NULL;

	if (!last || last->bucket != bucket) {
		if (sum->n == WIRE_MAX_REQ_BUCKETS) {
			sum->over = true;
			return 1;
		}
		last = &sum->b[sum->n++];
		*last = (wire_req_bucket_t){ .bucket = bucket };
	}
	last->count++;
	last->hash ^= msg_req_hash(id);
	return 0;
}

static bool s_summary(node_t *node, s_summary_t *sum)
{
	sum->n = 0;
	sum->over = false;
	store_request_ids(node->store, node_wall_ms(), WIRE_MAX_REQUEST_IDS,
			  s_sum_id, sum);
	for (size_t i = 0; i < sum->n / 2; i++) { /* ascending */
		wire_req_bucket_t t = sum->b[i];

		sum->b[i] = sum->b[sum->n - 1 - i];
		sum->b[sum->n - 1 - i] = t;
	}
	return !sum->over;
}

/* A new session: both sides send their summary and answer the other's
 * with the ids of the buckets that differ (a day of requests is ~30
 * buckets, ~0.5 KB, against ~34 KB of ids); to a peer that takes none,
 * our ids. */
void repl_start_requests(node_t *node, peer_t *p)
{
	uint8_t *b = NULL;
	size_t len = 0;

	if (!(p->features & MSG_FEATURE_REQ_SUMMARY) || node->no_digest ||
	    !s_summary(node, &s_sum)) {
		repl_send_request_ids(node, p);
		return;
	}
	if (wire_request_summary(s_sum.b, s_sum.n, &b, &len) == 0)
		node_send(node, p, b, len);
}

/* ---- requests --------------------------------------------------------- */

static bool s_known_add(peer_t *p, const uint8_t *id);

static void s_forward_request(node_t *node, peer_t *from, const uint8_t *bytes,
			      size_t len)
{
	uint8_t id[WIRE_ID_BYTES];

	proto_id(bytes, len, id);
	for (size_t i = 0; i < node->n_peers; i++) {
		peer_t *p = node->peers[i];
		uint8_t *b = NULL;
		size_t blen = 0;

		if (p == from || p->state != PEER_ACTIVE)
			continue;
		/* over its cap on us, it would count us as a flooder and
		 * ban us: a relay must not carry a flood it was handed by
		 * many keys of one attacker */
		if (!node_rate_ok(&p->fwd_window_ms, &p->fwd_count,
				  NODE_MAX_FWD_PER_MIN))
			continue;
		(void)s_known_add(p, id); /* full: sent again at worst */
		if (wire_request(bytes, len, &b, &blen) == 0 &&
		    node_send(node, p, b, blen) == 0) {
			node->req_msgs_tx++;
			p->ask_sent += blen;
		}
	}
}

/* 1 new, 0 known, or -errno / a proto code. *ret_local says a failure was
 * ours (the store could not take it: disk full, I/O), not the sender's. */
static int s_take_request(node_t *node, peer_t *from, const uint8_t *bytes,
			  size_t len, bool *ret_local)
{
	uint8_t id[WIRE_ID_BYTES];
	int64_t expires;
	int rc;

	/* the id is a hash of the bytes: dedup before the signature check */
	proto_id(bytes, len, id);
	if (store_has_request(node->store, id))
		return 0;
	rc = wire_request_verify(bytes, len,
				 (uint64_t)node->cfg->max_request_hours *
					 3600 * 1000,
				 id, &expires);
	if (rc < 0)
		return rc;
	if (expires <= node_wall_ms())
		return -ETIME;
	rc = store_put_request(node->store, id, bytes, len, expires);
	if (rc < 0) {
		/* ask the peers again on the next round: it was not stored,
		 * so their request ids will offer it once more */
		char hex[2 * WIRE_ID_BYTES + 1];

		wire_hex(id, WIRE_ID_BYTES, hex);
		if (!node->req_retry_ms)
			log_warn("request %.12s not stored: %s; asking peers"
				 " again later", hex, strerror(-rc));
		node->req_retry_ms = node_now();
		*ret_local = true;
		return rc;
	}
	if (rc == 0)
		return rc;
	node->last_request_ms = node_wall_ms();
	s_forward_request(node, from, bytes, len);
	jobs_on_request(node->jobs, id, bytes, len); /* the lab decides */
	return 1;
}

int node_submit_request(node_t *node, const uint8_t *bytes, size_t len)
{
	bool local = false;

	return s_take_request(node, NULL, bytes, len, &local);
}

void repl_on_request(node_t *node, peer_t *p, const wire_msg_t *m)
{
	bool local = false;
	int rc;

	if (m->n_items != 1)
		return;
	if (!node_rate_ok(&p->req_window_ms, &p->req_count,
			  NODE_MAX_REQ_PER_MIN)) {
		node_garbage(node, p->curve, "too many requests");
		return;
	}
	rc = s_take_request(node, p, m->items[0].p, m->items[0].len, &local);
	if (rc >= 0) { /* it holds it: never sent back this session */
		uint8_t id[WIRE_ID_BYTES];

		proto_id(m->items[0].p, m->items[0].len, id);
		s_known_add(p, id);
	}
	if (rc == 1)
		p->requests_rx++;
	else if (rc == PROTO_E_LIFETIME)
		/* labs may allow less than others: not the relay's fault;
		 * past proto's own cap it is garbage at decode already */
		log_debug("request from %.12s refused: %s", p->hex,
			  wire_strerror(rc));
	else if (rc < 0 && !local && rc != -ETIME)
		node_garbage(node, p->curve, rc == PROTO_E_TIME ?
			     "bad request: time out of range" : "bad request");
}

/* ---- what a peer lacks ------------------------------------------------ */

/* A request id a peer's session knows, since when (node_now). */
_Static_assert(WIRE_ID_BYTES == KEYMAP_KEY_BYTES, "ids key a keymap");
typedef struct {
	uint8_t id[WIRE_ID_BYTES];
	int64_t at;
} known_t;

static keymap_t *s_known_new(void)
{
	return keymap_new(sizeof(known_t));
}

/* Remember in known that p's session has id (sent to it, or it holds it)
 * since at; false when the memory is full. */
static bool s_known_put(keymap_t *known, const uint8_t *id, int64_t at)
{
	known_t *k = keymap_get(known, id);

	if (!k) {
		if (keymap_size(known) >= NODE_MAX_REQ_KNOWN)
			return false;
		k = keymap_put(known, id, NULL);
	}
	k->at = at;
	return true;
}

static bool s_known_add(peer_t *p, const uint8_t *id)
{
	return s_known_put(p->req_known, id, node_now());
}

void repl_requests_expire(peer_t *p, int64_t now)
{
	if (!p->req_known)
		return;
	/* from the end: a delete moves the last element into the hole,
	 * one already looked at */
	for (size_t i = keymap_size(p->req_known); i-- > 0;) {
		known_t *k = keymap_at(p->req_known, i);

		if (now - k->at >= NODE_REQ_RESEND_MS)
			keymap_delete(p->req_known, k->id);
	}
}

void repl_forget_requests(peer_t *p)
{
	if (!p->req_known)
		p->req_known = s_known_new();
	keymap_clear(p->req_known);
	p->n_req_todo = 0;
	p->ask_sent = p->ask_at_ping = p->ask_acked = 0;
	p->ping_open = false;
	p->n_ping_old = 0;
}

typedef struct {
	peer_t *p;
	keymap_t *theirs; /* ids it said it has */
	keymap_t *known;  /* the session's memory, rebuilt */
} s_lack_t;

static int s_note_lacking(void *arg, const uint8_t *id, int64_t expires_ms)
{
	s_lack_t *l = arg;
	peer_t *p = l->p;
	const known_t *sent = keymap_get(p->req_known, id);
	int64_t now = node_now();

	if (keymap_get(l->theirs, id)) {
		s_known_put(l->known, id, sent ? sent->at : now);
		return 0;
	}
	/* sent lately: not again. Sent long ago and lacking still: it
	 * could not store it (a full disk) and asks again */
	if (sent && now - sent->at < NODE_REQ_RESEND_MS) {
		s_known_put(l->known, id, sent->at);
		return 0;
	}
	s_known_put(l->known, id, now);
	if (!p->req_todo)
		p->req_todo = xmalloc(WIRE_MAX_REQUEST_IDS *
				      sizeof(*p->req_todo));
	if (p->n_req_todo < WIRE_MAX_REQUEST_IDS)
		memcpy(p->req_todo[p->n_req_todo++], id, WIRE_ID_BYTES);
	return 0;
}

/*
 * Send p, from the queue, the requests it lacks while its window allows,
 * and no more a minute than it takes from a peer: once the window is
 * full, a ping follows them and its pong opens the window again, so a
 * peer that does not read is sent at most NODE_REQ_WINDOW_BYTES beyond
 * what it read; past the minute's share, repl_tick sends the rest.
 */
void repl_pump_requests(node_t *node, peer_t *p)
{
	size_t done = 0;

	/* within what it takes from one peer a minute, as forwards are
	 * (s_forward_request): the rest next minute (repl_tick) */
	while (done < p->n_req_todo && p->state == PEER_ACTIVE &&
	       p->ask_sent - p->ask_acked < NODE_REQ_WINDOW_BYTES &&
	       node_rate_ok(&p->fwd_window_ms, &p->fwd_count,
			    NODE_MAX_FWD_PER_MIN)) {
		uint8_t *bytes = NULL, *b = NULL;
		size_t len = 0, blen = 0;
		int rc = store_get_request(node->store, p->req_todo[done],
					   &bytes, &len);

		if (rc == 0 && wire_request(bytes, len, &b, &blen) == 0) {
			rc = node_send(node, p, b, blen);
			if (rc == -EAGAIN) {
				free(bytes);
				break; /* its queue is full: later */
			}
			if (rc == 0) {
				node->req_msgs_tx++;
				p->ask_sent += blen;
			}
		}
		free(bytes);
		done++;
	}
	if (done) /* req_todo may be NULL: no memmove of nothing from it */
		memmove(p->req_todo, p->req_todo + done,
			(p->n_req_todo - done) * sizeof(*p->req_todo));
	p->n_req_todo -= done;
	if (!p->n_req_todo) { /* 32 KiB a peer, held only while in use */
		free(p->req_todo);
		p->req_todo = NULL;
	}
	/* the window full: its pong opens it (past the minute's share,
	 * the next tick goes on) */
	if (p->n_req_todo && !p->ping_open && p->state == PEER_ACTIVE &&
	    p->ask_sent - p->ask_acked >= NODE_REQ_WINDOW_BYTES)
		peer_ping(node, p);
}

/* Whether bucket is one of the n (ascending) buckets. */
static bool s_bucket_in(const uint32_t *buckets, size_t n, uint32_t bucket)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (buckets[mid] == bucket)
			return true;
		if (buckets[mid] < bucket)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

typedef struct {
	const uint32_t *buckets;
	size_t n_buckets;
	uint8_t (*ids)[WIRE_ID_BYTES];
	size_t n;
} s_in_t;

static int s_id_in(void *arg, const uint8_t *id, int64_t expires_ms)
{
	s_in_t *in = arg;

	if (s_bucket_in(in->buckets, in->n_buckets,
			msg_req_bucket((uint64_t)expires_ms)) &&
	    in->n < WIRE_MAX_REQUEST_IDS)
		memcpy(in->ids[in->n++], id, WIRE_ID_BYTES);
	return 0;
}

void repl_on_request_summary(node_t *node, peer_t *p, const wire_msg_t *m)
{
	const s_summary_t *sum = &s_sum;
	uint32_t differ[2 * WIRE_MAX_REQ_BUCKETS];
	s_in_t in = { differ, 0, s_ids, 0 };
	size_t i = 0, j = 0;
	uint8_t *b = NULL;
	size_t len = 0;

	if (!node_rate_ok(&p->ids_window_ms, &p->ids_count,
			  NODE_MAX_REQ_IDS_PER_MIN)) {
		node_garbage(node, p->curve, "too many request summaries");
		return;
	}
	if (!s_summary(node, &s_sum)) { /* ours do not fit one: all of them */
		repl_send_request_ids(node, p);
		return;
	}
	/* both lists ascend: a bucket differs when one side lacks it or
	 * their counts or hashes differ */
	while (i < sum->n || j < m->n_buckets) {
		const wire_req_bucket_t *a = i < sum->n ? &sum->b[i] : NULL;
		const wire_req_bucket_t *t = j < m->n_buckets ?
						     &m->req_sum[j] : NULL;

		if (a && (!t || a->bucket < t->bucket)) {
			differ[in.n_buckets++] = a->bucket;
			i++;
		} else if (!a || t->bucket < a->bucket) {
			differ[in.n_buckets++] = t->bucket;
			j++;
		} else {
			if (a->count != t->count || a->hash != t->hash)
				differ[in.n_buckets++] = a->bucket;
			i++;
			j++;
		}
	}
	if (!in.n_buckets)
		return;
	if (in.n_buckets > WIRE_MAX_REQ_BUCKETS) { /* cannot name them all */
		repl_send_request_ids(node, p);
		return;
	}
	store_request_ids(node->store, node_wall_ms(), WIRE_MAX_REQUEST_IDS,
			  s_id_in, &in);
	if (wire_request_ids_in(differ, in.n_buckets,
				(const uint8_t(*)[WIRE_ID_BYTES])s_ids, in.n, &b,
				&len) == 0)
		node_send(node, p, b, len);
}

typedef struct {
	s_lack_t l;
	const uint32_t *buckets;
	size_t n_buckets;
} s_lack_in_t;

static int s_note_lacking_in(void *arg, const uint8_t *id, int64_t expires_ms)
{
	s_lack_in_t *li = arg;

	if (!s_bucket_in(li->buckets, li->n_buckets,
			 msg_req_bucket((uint64_t)expires_ms)))
		return 0;
	return s_note_lacking(&li->l, id, expires_ms);
}

/* Its ids in the buckets that differ: queue ours there that it lacks. The
 * session's memory is kept (the other buckets' ids), and added to. */
void repl_on_request_ids_in(node_t *node, peer_t *p, const wire_msg_t *m)
{
	s_lack_in_t li;

	if (!p->req_known)
		p->req_known = s_known_new();
	li = (s_lack_in_t){ { p, keymap_new(WIRE_ID_BYTES), p->req_known },
			    m->buckets, m->n_buckets };

	if (!node_rate_ok(&p->ids_in_window_ms, &p->ids_in_count,
			  NODE_MAX_REQ_IDS_PER_MIN)) {
		node_garbage(node, p->curve, "too many request-ids-in");
		goto out;
	}
	for (size_t i = 0; i < m->n_items; i++)
		if (m->items[i].len == WIRE_ID_BYTES)
			keymap_put(li.l.theirs, m->items[i].p, NULL);
	store_request_ids(node->store, node_wall_ms(), WIRE_MAX_REQUEST_IDS,
			  s_note_lacking_in, &li);
	repl_pump_requests(node, p);
out:
	keymap_destroy(&li.l.theirs);
}

void repl_on_request_ids(node_t *node, peer_t *p, const wire_msg_t *m)
{
	s_lack_t l = { p, keymap_new(WIRE_ID_BYTES), s_known_new() };

	if (!node_rate_ok(&p->ids_window_ms, &p->ids_count,
			  NODE_MAX_REQ_IDS_PER_MIN)) {
		node_garbage(node, p->curve, "too many request-ids");
		goto out;
	}
	for (size_t i = 0; i < m->n_items; i++)
		if (m->items[i].len == WIRE_ID_BYTES)
			keymap_put(l.theirs, m->items[i].p, NULL);
	/* it told us what it has: queue what it lacks, once per session.
	 * The memory is rebuilt from our own requests (at most
	 * WIRE_MAX_REQUEST_IDS), whatever ids it named */
	store_request_ids(node->store, node_wall_ms(), WIRE_MAX_REQUEST_IDS,
			  s_note_lacking, &l);
	keymap_destroy(&p->req_known);
	p->req_known = l.known;
	l.known = NULL;
	repl_pump_requests(node, p);
out:
	keymap_destroy(&l.theirs);
	keymap_destroy(&l.known);
}
