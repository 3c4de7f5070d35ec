/*
 * node_digest: our vector as peers are told it, and its reconciliation
 * by range digests (digest.h).
 *
 * Our vector. Every feed we hold (but an equivocator's) has an entry:
 * its seq and the number of its last change, kept in order of change
 * (vec_first to vec_last), so that a peer's vector goes out as the
 * changes since the number it was told up to (node_repl.c:
 * s_send_vector), and a digest of
 * 64 ranges of authors is kept as entries change, never rescanned.
 *
 * Reconciliation. To a new peer (at once for the first new session in
 * NODE_RESUME_DIGEST_MS, the others at its end; a resumed session's
 * after that time too), and to one random peer per safety-net round, we
 * send our digest (a fixed ~0.7 KB, whatever the number of feeds). The peer compares it with its own: when equal, nothing more;
 * else it answers ranges: ALL its entries in the ranges that differ,
 * with their mask. We take those as a vector (pulls), then send back, as
 * an ordinary vector, our entries in those ranges it lacks or holds less
 * of. A peer without MSG_FEATURE_DIGEST gets our whole vector instead.
 *
 * A large range (NODE_SUBDIGEST_MIN entries of ours, and the peer holds
 * at least half as many) is answered instead with its subdigest: the
 * count and hash of each of its 64 sub-ranges. The peer answers that with
 * subranges: its entries in the sub-ranges that differ; we take them and
 * send back ours there it lacks, as for ranges. Entries then cross for
 * what differs, not for every range that holds a difference.
 *
 * Layout: our vector; sending digests; answering them; taking answers.
 */
#include "node/net/node_int.h"

#include "proto/mem.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(DIGEST_BUCKETS == WIRE_DIGEST_RANGES,
	       "a digest message carries every range");
_Static_assert(DIGEST_KEY_BYTES == WIRE_KEY_BYTES, "authors are keys");

/* ---- our vector ----------------------------------------------------------- */

static void s_vec_init(node_t *node)
{
	if (node->vec_mine)
		return;
	node->vec_mine = keymap_new(sizeof(vec_mine_t));
	node->vec_first = node->vec_last = 0;
	digest_clear(&node->digest);
}

/* Element index + 1 of e, and the element of such a link. */
static uint32_t s_link_of(node_t *node, const vec_mine_t *e)
{
	return (uint32_t)keymap_index(node->vec_mine, e) + 1;
}

static vec_mine_t *s_at(node_t *node, uint32_t link)
{
	return link ? keymap_at(node->vec_mine, link - 1) : NULL;
}

static void s_unlink(node_t *node, vec_mine_t *e)
{
	vec_mine_t *prev = s_at(node, e->prev), *next = s_at(node, e->next);

	if (prev)
		prev->next = e->next;
	else
		node->vec_first = e->next;
	if (next)
		next->prev = e->prev;
	else
		node->vec_last = e->prev;
	e->prev = e->next = 0;
}

static void s_link_last(node_t *node, vec_mine_t *e)
{
	uint32_t link = s_link_of(node, e);
	vec_mine_t *last = s_at(node, node->vec_last);

	e->prev = node->vec_last;
	e->next = 0;
	if (last)
		last->next = link;
	else
		node->vec_first = link;
	node->vec_last = link;
}

/* Drop e (unlinked): the last element takes its place, and its
 * neighbours' links follow it there. */
static void s_drop(node_t *node, vec_mine_t *e)
{
	uint32_t hole = s_link_of(node, e);
	uint32_t moved = (uint32_t)keymap_size(node->vec_mine);
	vec_mine_t *m;

	keymap_delete(node->vec_mine, e->author);
	if (hole == moved)
		return;
	m = s_at(node, hole);
	if (m->prev)
		s_at(node, m->prev)->next = hole;
	else
		node->vec_first = hole;
	if (m->next)
		s_at(node, m->next)->prev = hole;
	else
		node->vec_last = hole;
}

vec_mine_t *repl_vec_get(node_t *node, const uint8_t *author)
{
	return keymap_get(node->vec_mine, author);
}

vec_mine_t *repl_vec_get_hex(node_t *node, const char *hex)
{
	uint8_t author[WIRE_KEY_BYTES];

	if (!node->vec_mine || wire_unhex(hex, author, sizeof(author)) < 0)
		return NULL;
	return keymap_get(node->vec_mine, author);
}

vec_mine_t *repl_vec_newest(node_t *node)
{
	return node->vec_mine ? s_at(node, node->vec_last) : NULL;
}

vec_mine_t *repl_vec_older(node_t *node, const vec_mine_t *e)
{
	return s_at(node, e->prev);
}

/* Our vector takes author's feed as f (the store's entry, or NULL)
 * says. */
static void s_vec_sync_to(node_t *node, const uint8_t *author,
			  const store_feed_t *f)
{
	uint64_t seq = f && !f->flagged ? f->seq : 0;
	vec_mine_t *e;

	s_vec_init(node);
	e = keymap_get(node->vec_mine, author);
	if ((e ? e->seq : 0) == seq)
		return;
	digest_update(&node->digest, author, e ? e->seq : 0, seq);
	node->vec_dirty = true;
	if (!seq) { /* flagged: its feed stops with us */
		s_unlink(node, e);
		s_drop(node, e);
		return;
	}
	if (!e)
		e = keymap_put(node->vec_mine, author, NULL);
	else
		s_unlink(node, e);
	s_link_last(node, e);
	e->step = seq > e->seq ? seq - e->seq : 0;
	e->pushed = false; /* the records path says (node_repl.c: s_took) */
	e->seq = seq;
	e->chg = ++node->vec_chg;
}

void repl_vec_sync(node_t *node, const uint8_t *author)
{
	s_vec_sync_to(node, author, store_feed(node->store, author));
}

/* The store's i-th feed into our vector. */
static void s_vec_sync_at(node_t *node, size_t i)
{
	const store_feed_t *f = store_feed_at(node->store, i);
	uint8_t author[WIRE_KEY_BYTES];

	/* copied: the entry is the store's, and only read before the
	 * vector changes, but the key must outlive it */
	memcpy(author, f->author, WIRE_KEY_BYTES);
	s_vec_sync_to(node, author, f);
}

void repl_vec_sync_all(node_t *node)
{
	size_t n = store_feed_count(node->store);

	s_vec_init(node);
	/* filled at start from the store: room for the feeds it holds (the
	 * vector has one entry of each at most), not the next power of two
	 * (a node of 10,000 labs) */
	keymap_reserve(node->vec_mine, n);
	for (size_t i = 0; i < n; i++)
		s_vec_sync_at(node, i);
}

void repl_vec_sweep(node_t *node, size_t max)
{
	size_t n = store_feed_count(node->store);

	for (size_t k = 0; k < max && k < n; k++) {
		if (node->vec_sweep >= n)
			node->vec_sweep = 0;
		s_vec_sync_at(node, node->vec_sweep++);
	}
}

void repl_vec_destroy(node_t *node)
{
	keymap_destroy(&node->vec_mine);
	node->vec_first = node->vec_last = 0;
}

size_t repl_vec_state(node_t *node)
{
	size_t n = 0;

	for (size_t i = 0; i < node->n_peers; i++)
		n += zhashx_size(node->peers[i]->their_vec) +
		     zhashx_size(node->peers[i]->skip) +
		     zhashx_size(node->peers[i]->lazy) +
		     zhashx_size(node->peers[i]->push_to);
	return n;
}

/* An empty table that grew (a peer's vector while we caught up on a
 * thousand feeds) keeps its buckets: a purge gives them back. */
static void s_shrink(zhashx_t *h)
{
	if (h && zhashx_size(h) == 0)
		zhashx_purge(h);
}

void repl_shrink(node_t *node)
{
	for (size_t i = 0; i < node->n_peers; i++) {
		peer_t *p = node->peers[i];

		s_shrink(p->their_vec);
		s_shrink(p->skip);
		s_shrink(p->lazy);
		s_shrink(p->push_to);
		repl_distrust_expire(p, node_now());
		repl_requests_expire(p, node_now());
	}
	s_shrink(node->upstream);
	s_shrink(node->pull_known);
	s_shrink(node->pull_new);
	s_shrink(node->pull_wait);
	s_shrink(node->lazy_count);
}

/* ---- sending digests ------------------------------------------------------- */

int repl_send_digest(node_t *node, peer_t *p)
{
	wire_range_t r[WIRE_DIGEST_RANGES];
	uint8_t *b = NULL;
	size_t len = 0;
	int rc;

	s_vec_init(node);
	for (unsigned i = 0; i < WIRE_DIGEST_RANGES; i++) {
		r[i].count = node->digest.count[i];
		r[i].hash = node->digest.hash[i];
	}
	rc = wire_digest(r, &b, &len);
	if (rc == 0)
		rc = node_send(node, p, b, len);
	if (rc == 0) {
		/* a new round: its answer may cover every range */
		p->ranges_open = ~(uint64_t)0;
		p->ranges_told = 0;
	}
	return rc;
}

/* ---- answering them -------------------------------------------------------- */

static int s_cmp_entry(const void *a, const void *b)
{
	return memcmp(((const wire_vec_t *)a)->author,
		      ((const wire_vec_t *)b)->author, WIRE_KEY_BYTES);
}

/* Our entries in the ranges of mask, sorted by author (so by range). */
static wire_vec_t *s_entries_in(node_t *node, uint64_t mask, size_t *ret_n)
{
	size_t all = keymap_size(node->vec_mine), n = 0;
	wire_vec_t *v = xcalloc(all + 1, sizeof(*v));

	for (size_t i = 0; i < all; i++) {
		const vec_mine_t *e = keymap_at(node->vec_mine, i);

		if (!digest_in(mask, e->author))
			continue;
		memcpy(v[n].author, e->author, WIRE_KEY_BYTES);
		v[n++].seq = e->seq;
	}
	qsort(v, n, sizeof(*v), s_cmp_entry);
	*ret_n = n;
	return v;
}

typedef struct {
	node_t *node;
	peer_t *p;
	const wire_vec_t *v;
} s_piece_t;

static int s_send_piece(void *arg, size_t from, size_t count, uint64_t mask)
{
	s_piece_t *t = arg;
	uint8_t *b = NULL;
	size_t len = 0;

	if (wire_ranges(mask, t->v + from, count, &b, &len) < 0)
		return -EINVAL;
	return node_send(t->node, t->p, b, len);
}

/* Every entry of ours in the ranges of mask, as ranges messages of at
 * most WIRE_MAX_VECTOR entries (digest_pieces: a range of more entries
 * than that goes in pieces, the last with its bit; the peer then sends
 * back some entries of it that an earlier piece held: harmless). */
static int s_answer(node_t *node, peer_t *p, uint64_t mask)
{
	size_t n;
	wire_vec_t *v = s_entries_in(node, mask, &n);
	uint8_t *bucket = xmalloc(n + 1);
	s_piece_t t = { node, p, v };
	int rc;

	for (size_t i = 0; i < n; i++)
		bucket[i] = (uint8_t)digest_bucket(v[i].author);
	rc = digest_pieces(bucket, n, mask, WIRE_MAX_VECTOR, s_send_piece,
			   &t);
	free(bucket);
	free(v);
	return rc;
}

/* ---- sub-ranges ------------------------------------------------------------ */

/* Our subdigests of the ranges of mask, d[r] range r's: one pass over
 * the vector. */
static void s_sub_digests(node_t *node, uint64_t mask, digest_t *d)
{
	for (size_t i = 0; i < keymap_size(node->vec_mine); i++) {
		const vec_mine_t *e = keymap_at(node->vec_mine, i);
		unsigned r = digest_bucket(e->author);

		if ((mask >> r) & 1)
			digest_sub_add(&d[r], e->author, e->seq);
	}
}

static void s_send_subdigests(node_t *node, peer_t *p, uint64_t mask)
{
	/* 48 KiB while it runs, not held */
	digest_t *d = xcalloc(DIGEST_BUCKETS, sizeof(*d));

	s_sub_digests(node, mask, d);
	for (unsigned r = 0; r < DIGEST_BUCKETS; r++) {
		wire_sub_range_t subs[DIGEST_BUCKETS];
		size_t n = 0;
		uint8_t *b = NULL;
		size_t len = 0;

		if (!((mask >> r) & 1))
			continue;
		for (unsigned i = 0; i < DIGEST_BUCKETS; i++)
			if (d[r].count[i])
				subs[n++] = (wire_sub_range_t){ i, d[r].count[i],
								d[r].hash[i] };
		if (wire_subdigest(r, subs, n, &b, &len) == 0 &&
		    node_send(node, p, b, len) == 0)
			p->sub_open |= (uint64_t)1 << r;
	}
	free(d);
}

static int s_cmp_sub(const void *a, const void *b)
{
	unsigned x = digest_sub(((const wire_vec_t *)a)->author);
	unsigned y = digest_sub(((const wire_vec_t *)b)->author);

	return x < y ? -1 : x > y;
}

/* Its subdigest of a range of our digest: our entries in the sub-ranges
 * that differ, as one subranges message (sub-ranges past WIRE_MAX_VECTOR
 * entries wait for a later digest), even none: it then knows. */
void repl_on_subdigest(node_t *node, peer_t *p, const wire_msg_t *m)
{
	static wire_vec_t v[WIRE_MAX_VECTOR];
	uint64_t bit = (uint64_t)1 << m->range, mask;
	digest_t ours, theirs;
	wire_vec_t *all;
	size_t n = 0, k = 0;
	uint8_t *b = NULL;
	size_t len = 0;

	/* only for a range of a digest of ours, once */
	if (!(p->ranges_open & bit))
		return;
	p->ranges_open &= ~bit;
	p->ranges_told &= ~bit;
	s_vec_init(node);
	digest_clear(&ours);
	digest_clear(&theirs);
	all = s_entries_in(node, bit, &n);
	for (size_t i = 0; i < n; i++)
		digest_sub_add(&ours, all[i].author, all[i].seq);
	for (size_t i = 0; i < m->n_subs; i++) {
		theirs.count[m->subs[i].sub] = m->subs[i].count;
		theirs.hash[m->subs[i].sub] = m->subs[i].hash;
	}
	mask = digest_diff(&ours, &theirs);
	/* by sub-range (stable enough: whole sub-ranges are cut, and each
	 * is sorted by author in wire_subranges) */
	qsort(all, n, sizeof(*all), s_cmp_sub);
	for (size_t i = 0, j; i < n; i = j) {
		unsigned s = digest_sub(all[i].author);

		for (j = i; j < n && digest_sub(all[j].author) == s; j++)
			;
		if (!((mask >> s) & 1))
			continue;
		if (k + (j - i) > WIRE_MAX_VECTOR) {
			/* it and the rest of the sub-ranges: later */
			for (unsigned t = s; t < DIGEST_BUCKETS; t++)
				mask &= ~((uint64_t)1 << t);
			break;
		}
		memcpy(v + k, all + i, (j - i) * sizeof(*v));
		k += j - i;
	}
	free(all);
	if (wire_subranges(m->range, mask, v, k, &b, &len) == 0)
		node_send(node, p, b, len);
}

void repl_on_digest(node_t *node, peer_t *p, const wire_msg_t *m)
{
	digest_t theirs;
	uint64_t mask, sub = 0;

	if (!node_rate_ok(&p->digest_window_ms, &p->digest_count,
			  NODE_MAX_DIGEST_PER_MIN)) {
		node_garbage(node, p->curve, "too many digests");
		return;
	}
	s_vec_init(node);
	for (unsigned i = 0; i < DIGEST_BUCKETS; i++) {
		theirs.count[i] = m->ranges[i].count;
		theirs.hash[i] = m->ranges[i].hash;
	}
	mask = digest_diff(&node->digest, &theirs);
	if (!digest_in(mask, node->key.pk)) {
		/* it holds our own feed as we do (that range is equal):
		 * our next record goes straight to it */
		vec_mine_t *own = repl_vec_get(node, node->key.pk);

		if (own && p->own_sent < own->seq)
			p->own_sent = own->seq;
	}
	if (!mask)
		return;
	if ((p->features & MSG_FEATURE_SUBDIGEST) && !node->no_digest) {
		for (unsigned r = 0; r < DIGEST_BUCKETS; r++)
			if (((mask >> r) & 1) &&
			    node->digest.count[r] >= NODE_SUBDIGEST_MIN &&
			    2 * (uint64_t)theirs.count[r] >=
				    node->digest.count[r])
				sub |= (uint64_t)1 << r;
	}
	if (sub)
		s_send_subdigests(node, p, sub);
	mask &= ~sub;
	/* those ranges it hears in full: the ranges it answers our own
	 * digest with need not come back as a vector too */
	if (mask && s_answer(node, p, mask) == 0)
		p->ranges_told |= mask;
}

/* ---- taking answers -------------------------------------------------------- */

/* Its seq of author in the sorted entries v, or 0. */
static uint64_t s_find(const wire_vec_t *v, size_t n, const uint8_t *author)
{
	wire_vec_t key;
	const wire_vec_t *hit;

	memcpy(key.author, author, WIRE_KEY_BYTES);
	hit = bsearch(&key, v, n, sizeof(*v), s_cmp_entry);
	return hit ? hit->seq : 0;
}

/* Our entries in the ranges of mask (and of those, the sub-ranges of
 * subs) that m's entries lack or hold less of, to p as a vector (however
 * its author tells it: this is the net). */
static void s_send_back(node_t *node, peer_t *p, const wire_msg_t *m,
			uint64_t mask, uint64_t subs)
{
	static wire_vec_t v[WIRE_MAX_VECTOR];
	size_t n = 0;

	for (size_t i = 0; i < keymap_size(node->vec_mine); i++) {
		const vec_mine_t *e = keymap_at(node->vec_mine, i);
		uint8_t *b = NULL;
		size_t len = 0;

		if (!digest_in(mask, e->author) ||
		    !((subs >> digest_sub(e->author)) & 1) ||
		    s_find(m->vec, m->n_vec, e->author) >= e->seq)
			continue;
		memcpy(v[n].author, e->author, WIRE_KEY_BYTES);
		v[n++].seq = e->seq;
		if (n < WIRE_MAX_VECTOR)
			continue;
		if (wire_vector(v, n, &b, &len) == 0)
			node_send(node, p, b, len);
		n = 0;
	}
	if (n) {
		uint8_t *b = NULL;
		size_t len = 0;

		if (wire_vector(v, n, &b, &len) == 0)
			node_send(node, p, b, len);
	}
}

void repl_on_ranges(node_t *node, peer_t *p, const wire_msg_t *m)
{
	/* ranges of our digests, each answered once: a peer cannot make us
	 * send our whole vector back for a few bytes, again and again (it
	 * may answer two digests of ours at once: not its fault) */
	uint64_t asked = m->mask & p->ranges_open;
	uint64_t back = asked & ~p->ranges_told;

	p->ranges_open &= ~asked;
	p->ranges_told &= ~asked;
	s_vec_init(node);
	repl_take_entries(node, p, m->vec, m->n_vec, asked != 0 ||
			  p->ranges_open != 0);
	if (back)
		s_send_back(node, p, m, back, ~(uint64_t)0);
}

/* Its entries in the sub-ranges of a subdigest of ours: taken, and ours
 * there it lacks or holds less of sent back. */
void repl_on_subranges(node_t *node, peer_t *p, const wire_msg_t *m)
{
	uint64_t bit = (uint64_t)1 << m->range;

	if (!(p->sub_open & bit))
		return; /* not asked for, or answered already */
	p->sub_open &= ~bit;
	s_vec_init(node);
	repl_take_entries(node, p, m->vec, m->n_vec, true);
	if (m->mask)
		s_send_back(node, p, m, bit, m->mask);
}
