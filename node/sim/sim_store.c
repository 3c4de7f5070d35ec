/*
 * sim_store: store.h's record store kept in memory, one pool of records
 * shared by every store of the process, for the simulator's nodes
 * (sim_real.c). It stands in for store.c in bench-sim and net-sim only.
 *
 * In a network every node holds the same signed records; N SQLite stores
 * of N labs' adverts hold N x N rows, which keeps `bench-sim --real` to a
 * few thousand nodes. Here a record's bytes are kept once, in its author's
 * pool feed at its seq, and a store holds per feed only how far it has
 * it: 4 bytes in an array indexed by the pool feed (plus 4 in the list of
 * feeds it holds, for store_feed_at's stable order). The store's contract
 * (store.h) holds as for store.c: a feed extends only at head + 1 with the
 * head as prev, duplicates and gaps and broken chains are told apart, a
 * second record at a held seq is equivocation evidence and flags its
 * author. node/tests/store_cases.c runs the same cases on both.
 *
 * What it does not do, since the simulator does not need it:
 *   - keep anything across a store_destroy (":memory:" in every case);
 *   - hold two different records at one (author, seq) in two stores: the
 *     pool keeps the first, and a store that extends its feed with
 *     another gets -ENOTSUP (the simulated authors are honest);
 *   - learned peers (store_put_peer keeps nothing, store_peers gives
 *     none): the simulator sets each peer's table itself;
 *   - SQLite's memory: store_mem_used, store_shrink_idle give 0.
 * A rollback restores the feeds' heads and takes back the requests put;
 * records put in the pool stay there (no store holds them beyond its
 * head) and so does evidence.
 *
 * Layout: the pool, then open/close and transactions, then records and
 * feeds, evidence, requests, and what is not kept.
 */
#include "node/store/store.h"

#include "proto/keymap.h"
#include "proto/mem.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define SIM_STORE_FLAG 0x80000000u /* in a store's per-feed word */
#define SIM_STORE_RING 8	   /* store_feed results alive at once */

/* ---- the pool, shared by every store of the process -------------------- */

typedef struct {
	uint8_t id[STORE_ID_BYTES];
	int kind;
	int64_t ts_ms;
	size_t len;
	uint8_t bytes[];
} prec_t;

typedef struct {
	uint8_t author[STORE_KEY_BYTES];
	prec_t **recs; /* recs[seq - 1] */
	uint32_t n, alloc;
} pfeed_t;

typedef struct {
	uint8_t author[STORE_KEY_BYTES];
	uint32_t g; /* its index in pool.feeds */
} pauthor_t;

typedef struct {
	uint8_t id[STORE_ID_BYTES];
	int64_t expires_ms;
	size_t len;
	uint8_t *bytes;
} preq_t; /* a keymap element; the pool never deletes one, so its index
	   * in keymap_at's order is its number */

static struct {
	int refs; /* stores open */
	keymap_t *authors;
	pfeed_t *feeds;
	uint32_t n_feeds, alloc_feeds;
	keymap_t *reqs;
} P;

static void s_pool_ref(void)
{
	if (P.refs++ > 0)
		return;
	P.authors = keymap_new(sizeof(pauthor_t));
	P.reqs = keymap_new(sizeof(preq_t));
}

static void s_pool_unref(void)
{
	if (--P.refs > 0)
		return;
	for (uint32_t g = 0; g < P.n_feeds; g++) {
		for (uint32_t k = 0; k < P.feeds[g].n; k++)
			free(P.feeds[g].recs[k]);
		free(P.feeds[g].recs);
	}
	free(P.feeds);
	for (size_t i = 0; i < keymap_size(P.reqs); i++)
		free(((preq_t *)keymap_at(P.reqs, i))->bytes);
	keymap_destroy(&P.authors);
	keymap_destroy(&P.reqs);
	memset(&P, 0, sizeof(P));
}

/* The pool feed of author: its index, or UINT32_MAX when none (make:
 * made). */
static uint32_t s_pool_feed(const uint8_t *author, bool make)
{
	pauthor_t *a = keymap_get(P.authors, author);
	bool added;

	if (a || !make)
		return a ? a->g : UINT32_MAX;
	a = keymap_put(P.authors, author, &added);
	if (P.n_feeds == P.alloc_feeds) {
		P.alloc_feeds = P.alloc_feeds ? P.alloc_feeds * 2 : 64;
		P.feeds = xreallocarray(P.feeds, P.alloc_feeds,
					sizeof(*P.feeds));
	}
	a->g = P.n_feeds++;
	memset(&P.feeds[a->g], 0, sizeof(P.feeds[a->g]));
	memcpy(P.feeds[a->g].author, author, STORE_KEY_BYTES);
	return a->g;
}

static const prec_t *s_pool_rec(uint32_t g, uint64_t seq)
{
	return seq && seq <= P.feeds[g].n ? P.feeds[g].recs[seq - 1] : NULL;
}

/* Keep r at its seq of pool feed g: 0, or -ENOTSUP when the pool holds
 * another record there. */
static int s_pool_keep(uint32_t g, const store_rec_t *r)
{
	pfeed_t *f = &P.feeds[g];
	const prec_t *held = s_pool_rec(g, r->seq);
	prec_t *c;

	if (held)
		return memcmp(held->id, r->id, STORE_ID_BYTES) ? -ENOTSUP : 0;
	if (r->seq != (uint64_t)f->n + 1)
		return -ENOTSUP; /* a store extends only at its head + 1 */
	if (f->n == f->alloc) {
		f->alloc = f->alloc ? f->alloc * 2 : 4;
		f->recs = xreallocarray(f->recs, f->alloc, sizeof(*f->recs));
	}
	c = xmalloc(sizeof(*c) + r->len);
	memcpy(c->id, r->id, STORE_ID_BYTES);
	c->kind = r->kind;
	c->ts_ms = r->ts_ms;
	c->len = r->len;
	memcpy(c->bytes, r->bytes, r->len);
	f->recs[f->n++] = c;
	return 0;
}

/* ---- a store ------------------------------------------------------------- */

typedef struct {
	uint8_t id[STORE_ID_BYTES];
	uint8_t author[STORE_KEY_BYTES];
	uint64_t seq;
	size_t len;
	uint8_t *bytes;
} evidence_t;

typedef struct {
	uint32_t idx;  /* in the pool's requests */
	uint32_t seen; /* put order, for store_requests */
} held_req_t;

typedef struct {
	uint32_t g;    /* a pool feed, or UNDO_REQ: word is a request put */
	uint32_t word; /* the feed's word before */
} undo_t;

#define UNDO_REQ UINT32_MAX

struct store {
	uint32_t *word; /* per pool feed: 0 none, else (seq + 1) | flag */
	uint32_t n_word;
	uint32_t *order; /* pool feeds held, in order of first put */
	uint32_t n_order, alloc_order;
	int64_t n_records;
	store_feed_t ring[SIM_STORE_RING];
	unsigned ring_next;
	evidence_t *ev;
	size_t n_ev;
	/* requests held, latest to expire first (expires, then id, down) */
	held_req_t *req;
	uint32_t n_req, alloc_req, seen;
	uint8_t *req_bit; /* per pool request: held */
	size_t n_req_bit; /* bytes */
	/* a transaction's undo: words as they were, and counts */
	bool in_tx;
	undo_t *undo;
	size_t n_undo, alloc_undo;
	uint32_t tx_order;
	int64_t tx_records;
};

int store_open(const char *path, store_t **ret_store)
{
	(void)path; /* every store is in memory */
	s_pool_ref();
	*ret_store = xcalloc(1, sizeof(**ret_store));
	return 0;
}

void store_destroy(store_t **p)
{
	store_t *s = p ? *p : NULL;

	if (!s)
		return;
	for (size_t i = 0; i < s->n_ev; i++)
		free(s->ev[i].bytes);
	free(s->ev);
	free(s->word);
	free(s->order);
	free(s->req);
	free(s->req_bit);
	free(s->undo);
	free(s);
	*p = NULL;
	s_pool_unref();
}

int store_begin(store_t *s)
{
	s->in_tx = true;
	s->n_undo = 0;
	s->tx_order = s->n_order;
	s->tx_records = s->n_records;
	return 0;
}

int store_commit(store_t *s)
{
	s->in_tx = false;
	s->n_undo = 0;
	return 0;
}

static uint32_t s_word(const store_t *s, uint32_t g)
{
	return g < s->n_word ? s->word[g] : 0;
}

static void s_undo_log(store_t *s, uint32_t g, uint32_t word)
{
	if (!s->in_tx)
		return;
	if (s->n_undo == s->alloc_undo) {
		s->alloc_undo = s->alloc_undo ? s->alloc_undo * 2 : 16;
		s->undo = xreallocarray(s->undo, s->alloc_undo,
					sizeof(*s->undo));
	}
	s->undo[s->n_undo++] = (undo_t){ g, word };
}

/* Set g's word (a new feed goes in the order list), logged for a
 * rollback. */
static void s_set_word(store_t *s, uint32_t g, uint32_t w)
{
	if (g >= s->n_word) {
		uint32_t n = P.alloc_feeds > g ? P.alloc_feeds : g + 1;

		s->word = xreallocarray(s->word, n, sizeof(*s->word));
		memset(s->word + s->n_word, 0,
		       (n - s->n_word) * sizeof(*s->word));
		s->n_word = n;
	}
	s_undo_log(s, g, s->word[g]);
	if (!s->word[g]) {
		if (s->n_order == s->alloc_order) {
			s->alloc_order = s->alloc_order ?
						 s->alloc_order + s->alloc_order / 2 :
						 64;
			s->order = xreallocarray(s->order, s->alloc_order,
						 sizeof(*s->order));
		}
		s->order[s->n_order++] = g;
	}
	s->word[g] = w;
}

static void s_req_drop(store_t *s, uint32_t idx);

void store_rollback(store_t *s)
{
	while (s->n_undo > 0) {
		undo_t *u = &s->undo[--s->n_undo];

		if (u->g == UNDO_REQ)
			s_req_drop(s, u->word);
		else
			s->word[u->g] = u->word;
	}
	s->n_order = s->tx_order;
	s->n_records = s->tx_records;
	s->in_tx = false;
}

/* ---- records and feeds ---------------------------------------------------- */

static uint64_t s_seq(uint32_t w)
{
	return w ? (uint64_t)((w & ~SIM_STORE_FLAG) - 1) : 0;
}

/* The feed entry of pool feed g, in the ring of results. */
static const store_feed_t *s_feed_of(store_t *s, uint32_t g)
{
	uint32_t w = s_word(s, g);
	store_feed_t *f;
	const prec_t *head;

	if (!w)
		return NULL;
	f = &s->ring[s->ring_next++ % SIM_STORE_RING];
	memcpy(f->author, P.feeds[g].author, STORE_KEY_BYTES);
	f->seq = s_seq(w);
	f->flagged = (w & SIM_STORE_FLAG) != 0;
	head = s_pool_rec(g, f->seq);
	if (head)
		memcpy(f->head, head->id, STORE_ID_BYTES);
	else
		memset(f->head, 0, STORE_ID_BYTES);
	return f;
}

static int s_evidence_add(store_t *s, const store_rec_t *r)
{
	evidence_t *e;

	for (size_t i = 0; i < s->n_ev; i++)
		if (memcmp(s->ev[i].id, r->id, STORE_ID_BYTES) == 0)
			return 0;
	s->ev = xreallocarray(s->ev, s->n_ev + 1, sizeof(*s->ev));
	e = &s->ev[s->n_ev++];
	memcpy(e->id, r->id, STORE_ID_BYTES);
	memcpy(e->author, r->author, STORE_KEY_BYTES);
	e->seq = r->seq;
	e->len = r->len;
	e->bytes = xmalloc(r->len ? r->len : 1);
	memcpy(e->bytes, r->bytes, r->len);
	return 1;
}

/* seq at or below the head: a duplicate or equivocation evidence. */
static int s_put_old(store_t *s, uint32_t g, uint32_t w, const store_rec_t *r)
{
	const prec_t *held = s_pool_rec(g, r->seq);

	if (!held)
		return -EIO; /* contiguous feed lost a record */
	if (memcmp(held->id, r->id, STORE_ID_BYTES) == 0)
		return STORE_DUPLICATE;
	s_evidence_add(s, r);
	s_set_word(s, g, w | SIM_STORE_FLAG);
	return STORE_EQUIVOCATION;
}

int store_put_record(store_t *s, const store_rec_t *r)
{
	static const uint8_t zero[STORE_ID_BYTES];
	uint32_t g = s_pool_feed(r->author, false);
	uint32_t w = g == UINT32_MAX ? 0 : s_word(s, g);
	uint64_t head = s_seq(w);
	const prec_t *h = w ? s_pool_rec(g, head) : NULL;
	int rc;

	if (r->seq == 0 || r->seq > INT64_MAX)
		return -EINVAL;
	if (w && r->seq <= head)
		return s_put_old(s, g, w, r);
	if (w & SIM_STORE_FLAG)
		return STORE_FLAGGED;
	if (r->seq > head + 1)
		return STORE_GAP;
	if (memcmp(r->prev_id, h ? h->id : zero, STORE_ID_BYTES) != 0)
		return STORE_BROKEN_CHAIN;
	if (r->seq >= SIM_STORE_FLAG - 1)
		return -EOVERFLOW;
	if (g == UINT32_MAX)
		g = s_pool_feed(r->author, true);
	rc = s_pool_keep(g, r);
	if (rc < 0)
		return rc;
	s_set_word(s, g, (uint32_t)(r->seq + 1));
	s->n_records++;
	return STORE_ADDED;
}

const store_feed_t *store_feed(store_t *s, const uint8_t *author)
{
	uint32_t g = s_pool_feed(author, false);

	return g == UINT32_MAX ? NULL : s_feed_of(s, g);
}

size_t store_feed_count(store_t *s)
{
	return s->n_order;
}

const store_feed_t *store_feed_at(store_t *s, size_t i)
{
	return i < s->n_order ? s_feed_of(s, s->order[i]) : NULL;
}

int store_records(store_t *s, const uint8_t *author, uint64_t from,
		  size_t max, size_t max_bytes, store_rec_fn fn, void *arg)
{
	uint32_t g = s_pool_feed(author, false);
	uint64_t head = g == UINT32_MAX ? 0 : s_seq(s_word(s, g));
	size_t total = 0;
	int n = 0;

	if (from > INT64_MAX || max > INT32_MAX)
		return -EINVAL;
	for (uint64_t seq = from ? from : 1; seq <= head && (size_t)n < max;
	     seq++) {
		const prec_t *r = s_pool_rec(g, seq);

		if (n > 0 && total + r->len > max_bytes)
			break;
		total += r->len;
		n++;
		if (fn(arg, seq, r->bytes, r->len))
			break;
	}
	return n;
}

/* The latest record of kind at or below g's head in s, or NULL. */
static const prec_t *s_latest(store_t *s, uint32_t g, int kind,
			      uint64_t *ret_seq)
{
	for (uint64_t seq = s_seq(s_word(s, g)); seq > 0; seq--) {
		const prec_t *r = s_pool_rec(g, seq);

		if (r->kind == kind) {
			*ret_seq = seq;
			return r;
		}
	}
	return NULL;
}

typedef struct {
	const prec_t *r;
	uint64_t seq;
} latest_t;

static int s_by_ts(const void *a, const void *b)
{
	const latest_t *x = a, *y = b;

	return (x->r->ts_ms > y->r->ts_ms) - (x->r->ts_ms < y->r->ts_ms);
}

int store_latest_of_kind(store_t *s, int kind, store_rec_fn fn, void *arg)
{
	latest_t *l = xcalloc(s->n_order + 1, sizeof(*l));
	size_t n = 0;
	int given = 0;

	for (uint32_t i = 0; i < s->n_order; i++) {
		l[n].r = s_latest(s, s->order[i], kind, &l[n].seq);
		if (l[n].r)
			n++;
	}
	qsort(l, n, sizeof(*l), s_by_ts);
	for (size_t i = 0; i < n; i++) {
		given++;
		if (fn(arg, l[i].seq, l[i].r->bytes, l[i].r->len))
			break;
	}
	free(l);
	return given;
}

int store_latest_own(store_t *s, const uint8_t *author, int kind,
		     uint8_t **ret_bytes, size_t *ret_len)
{
	uint32_t g = s_pool_feed(author, false);
	const prec_t *r;
	uint64_t seq;

	r = g == UINT32_MAX ? NULL : s_latest(s, g, kind, &seq);
	if (!r)
		return -ENOENT;
	*ret_bytes = xmalloc(r->len ? r->len : 1);
	memcpy(*ret_bytes, r->bytes, r->len);
	*ret_len = r->len;
	return 0;
}

int64_t store_record_count(store_t *s)
{
	return s->n_records;
}

/* ---- evidence --------------------------------------------------------------- */

/* One record of a pair: 1 if it went in as new evidence, 0 if it is the
 * record held at its seq or evidence already kept. */
static int s_pair_one(store_t *s, uint32_t g, const store_rec_t *r)
{
	const prec_t *held = NULL;

	if (g != UINT32_MAX && r->seq <= s_seq(s_word(s, g)))
		held = s_pool_rec(g, r->seq);
	if (held && memcmp(held->id, r->id, STORE_ID_BYTES) == 0)
		return 0;
	return s_evidence_add(s, r);
}

int store_put_evidence_pair(store_t *s, const store_rec_t *a,
			    const store_rec_t *b)
{
	uint32_t g, w;
	int ra, rb;

	if (memcmp(a->author, b->author, STORE_KEY_BYTES) != 0 ||
	    a->seq != b->seq || a->seq == 0 || a->seq > INT64_MAX ||
	    memcmp(a->id, b->id, STORE_ID_BYTES) == 0)
		return -EINVAL;
	g = s_pool_feed(a->author, true);
	ra = s_pair_one(s, g, a);
	rb = s_pair_one(s, g, b);
	w = s_word(s, g);
	s_set_word(s, g, (w ? w : 1) | SIM_STORE_FLAG); /* seq 0 if new */
	return ra || rb || !(w & SIM_STORE_FLAG);
}

/* The other record of e's pair: the one held at its seq, or another
 * evidence record at that seq; NULL when none. */
static const uint8_t *s_other(store_t *s, const evidence_t *e,
			      size_t *ret_len)
{
	uint32_t g = s_pool_feed(e->author, false);
	const prec_t *held = NULL;

	if (g != UINT32_MAX && e->seq <= s_seq(s_word(s, g)))
		held = s_pool_rec(g, e->seq);
	if (held) {
		*ret_len = held->len;
		return held->bytes;
	}
	for (size_t i = 0; i < s->n_ev; i++) {
		const evidence_t *o = &s->ev[i];

		if (o != e && o->seq == e->seq &&
		    memcmp(o->author, e->author, STORE_KEY_BYTES) == 0) {
			*ret_len = o->len;
			return o->bytes;
		}
	}
	return NULL;
}

int store_evidence_pairs(store_t *s, size_t max, store_pair_fn fn, void *arg)
{
	int n = 0;

	if (max > INT32_MAX)
		return -EINVAL;
	for (size_t i = s->n_ev; i > 0 && (size_t)n < max; i--) {
		const evidence_t *e = &s->ev[i - 1];
		size_t len = 0;
		const uint8_t *other = s_other(s, e, &len);

		if (!other)
			continue;
		n++;
		if (fn(arg, e->bytes, e->len, other, len))
			break;
	}
	return n;
}

int64_t store_evidence_count(store_t *s)
{
	return (int64_t)s->n_ev;
}

/* ---- requests -------------------------------------------------------------- */

static const preq_t *s_req(uint32_t idx)
{
	return keymap_at(P.reqs, idx);
}

static bool s_req_held(const store_t *s, uint32_t idx)
{
	return idx / 8 < s->n_req_bit && (s->req_bit[idx / 8] >> (idx % 8)) & 1;
}

static void s_req_mark(store_t *s, uint32_t idx, bool held)
{
	if (idx / 8 >= s->n_req_bit) {
		size_t n = keymap_size(P.reqs) / 8 + 64;

		s->req_bit = xrealloc(s->req_bit, n);
		memset(s->req_bit + s->n_req_bit, 0, n - s->n_req_bit);
		s->n_req_bit = n;
	}
	if (held)
		s->req_bit[idx / 8] |= (uint8_t)(1u << (idx % 8));
	else
		s->req_bit[idx / 8] &= (uint8_t)~(1u << (idx % 8));
}

/* Whether request a comes after b in the held list: later to expire
 * first, then the greater id. */
static int s_req_cmp(uint32_t a, uint32_t b)
{
	const preq_t *x = s_req(a), *y = s_req(b);

	if (x->expires_ms != y->expires_ms)
		return x->expires_ms < y->expires_ms ? 1 : -1;
	return -memcmp(x->id, y->id, STORE_ID_BYTES);
}

int store_put_request(store_t *s, const uint8_t *id, const uint8_t *bytes,
		      size_t len, int64_t expires_ms)
{
	bool added;
	preq_t *q = keymap_put(P.reqs, id, &added);
	uint32_t idx = (uint32_t)keymap_index(P.reqs, q), lo = 0, hi;

	if (added) {
		q->expires_ms = expires_ms;
		q->len = len;
		q->bytes = xmalloc(len ? len : 1);
		memcpy(q->bytes, bytes, len);
	}
	if (s_req_held(s, idx))
		return 0;
	/* the pool keeps a request's first bytes and expiry: the
	 * simulator's copies of one request are the same bytes */
	hi = s->n_req;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (s_req_cmp(s->req[mid].idx, idx) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (s->n_req == s->alloc_req) {
		s->alloc_req = s->alloc_req ? s->alloc_req * 2 : 64;
		s->req = xreallocarray(s->req, s->alloc_req, sizeof(*s->req));
	}
	memmove(&s->req[lo + 1], &s->req[lo],
		(s->n_req - lo) * sizeof(*s->req));
	s->req[lo] = (held_req_t){ idx, s->seen++ };
	s->n_req++;
	s_req_mark(s, idx, true);
	s_undo_log(s, UNDO_REQ, idx);
	return 1;
}

/* Take request idx out of s's list (a rollback of its put). */
static void s_req_drop(store_t *s, uint32_t idx)
{
	for (uint32_t i = 0; i < s->n_req; i++) {
		if (s->req[i].idx != idx)
			continue;
		memmove(&s->req[i], &s->req[i + 1],
			(s->n_req - i - 1) * sizeof(*s->req));
		s->n_req--;
		s_req_mark(s, idx, false);
		return;
	}
}

static uint32_t s_req_find(const store_t *s, const uint8_t *id)
{
	const preq_t *q = keymap_get(P.reqs, id);
	uint32_t idx;

	if (!q)
		return UINT32_MAX;
	idx = (uint32_t)keymap_index(P.reqs, q);
	return s_req_held(s, idx) ? idx : UINT32_MAX;
}

bool store_has_request(store_t *s, const uint8_t *id)
{
	return s_req_find(s, id) != UINT32_MAX;
}

int store_get_request(store_t *s, const uint8_t *id, uint8_t **ret_bytes,
		      size_t *ret_len)
{
	uint32_t idx = s_req_find(s, id);
	const preq_t *q;

	if (idx == UINT32_MAX)
		return -ENOENT;
	q = s_req(idx);
	*ret_bytes = xmalloc(q->len ? q->len : 1);
	memcpy(*ret_bytes, q->bytes, q->len);
	*ret_len = q->len;
	return 0;
}

static int s_by_seen(const void *a, const void *b)
{
	const held_req_t *x = a, *y = b;

	return (x->seen < y->seen) - (x->seen > y->seen);
}

int store_requests(store_t *s, int64_t now_ms, size_t max, store_req_fn fn,
		   void *arg)
{
	held_req_t *l = xcalloc(s->n_req + 1, sizeof(*l));
	int n = 0;

	if (s->n_req)
		memcpy(l, s->req, s->n_req * sizeof(*l));
	qsort(l, s->n_req, sizeof(*l), s_by_seen); /* last seen first */
	for (uint32_t i = 0; i < s->n_req && (size_t)n < max; i++) {
		const preq_t *q = s_req(l[i].idx);

		if (q->expires_ms <= now_ms)
			continue;
		n++;
		if (fn(arg, q->id, q->bytes, q->len, q->expires_ms))
			break;
	}
	free(l);
	return n;
}

int store_request_ids(store_t *s, int64_t now_ms, size_t max,
		      store_req_id_fn fn, void *arg)
{
	int n = 0;

	for (uint32_t i = 0; i < s->n_req && (size_t)n < max; i++) {
		const preq_t *q = s_req(s->req[i].idx);

		if (q->expires_ms <= now_ms)
			break; /* the rest expire sooner */
		n++;
		if (fn(arg, q->id, q->expires_ms))
			break;
	}
	return n;
}

int store_expire_requests(store_t *s, int64_t now_ms)
{
	while (s->n_req > 0 &&
	       s_req(s->req[s->n_req - 1].idx)->expires_ms <= now_ms)
		s_req_mark(s, s->req[--s->n_req].idx, false);
	return 0;
}

/* ---- not kept ------------------------------------------------------------ */

int store_put_peer(store_t *s, const uint8_t *id, const char *endpoint,
		   const uint8_t *desc, size_t desc_len, int64_t seen_ms)
{
	(void)s, (void)id, (void)endpoint, (void)desc, (void)desc_len;
	(void)seen_ms;
	return 0;
}

int store_peers(store_t *s, size_t max, store_peer_fn fn, void *arg)
{
	(void)s, (void)max, (void)fn, (void)arg;
	return 0;
}

int store_check(store_t *s)
{
	(void)s;
	return 0;
}

size_t store_shrink_idle(store_t *s)
{
	(void)s;
	return 0;
}

size_t store_mem_used(void)
{
	return 0;
}
