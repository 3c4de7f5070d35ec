/*
 * node_repl: feed replication by version-vector anti-entropy (vectors,
 * wants, records batches, equivocation evidence) and the replication
 * timers. Request flooding is node_flood.c's.
 *
 * Feeds. Each side tells the other its vector (author -> highest
 * contiguous seq), sending only entries changed since it last told that
 * peer (changes are numbered: node_digest.c keeps our vector in order of
 * change, and a peer's state is the number told, plus what of its vector
 * differs from ours). A new session, and one peer per safety-net round,
 * reconcile by range digests (node_digest.c); one new session at a time
 * (NODE_RESUME_DIGEST_MS), so a node that starts behind catches up from
 * one answer. A session resumed within NODE_RESUME_MS starts from the
 * number the peer had read up to (its pongs say), its digest later. A
 * node behind on an author
 * pulls with want(author, from, max) from ONE upstream per author at a
 * time — the peer claiming the highest seq — and switches when that
 * upstream stalls. The server answers a want
 * with records batches (<= WIRE_MAX_BATCH_RECORDS, <= WIRE_MAX_BATCH_BYTES)
 * while it has credit from the puller; the puller returns credit for
 * every batch it has stored. Every record is verified over its received
 * bytes and stored only if it extends the author's hash chain; a batch is
 * one transaction. A new record of our own is pushed at once to peers that
 * are up to date with us; a record of another author we take alone, to
 * the peers that pulled that feed from us to our head (the push tree, see
 * s_subscribe), and the other peers hear of it by vector later (s_lazy).
 *
 * Layout: vectors; pulling; serving; equivocation evidence; receiving
 * records; timers.
 */
#include "node/net/node_int.h"
#include "node/jobs/jobs.h"

#include "proto/error.h"
#include "proto/log.h"
#include "proto/mem.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <time.h>

static void s_vec_set(zhashx_t *h, const char *hex, uint64_t seq)
{
	uint64_t *box = zhashx_lookup(h, hex);

	if (!box) {
		box = xmalloc(sizeof(*box));
		zhashx_insert(h, hex, box);
	}
	*box = seq;
}

uint64_t repl_their_seq(peer_t *p, const char *author_hex)
{
	uint64_t *box = zhashx_lookup(p->their_vec, author_hex);

	return box ? *box : 0;
}

/* Raise h's entry for hex to seq (never lowers it). */
static void s_vec_raise(zhashx_t *h, const char *hex, uint64_t seq)
{
	uint64_t *box = zhashx_lookup(h, hex);

	if (!box || *box < seq)
		s_vec_set(h, hex, seq);
}

static uint64_t s_our_seq(node_t *node, const uint8_t *author)
{
	const store_feed_t *f = store_feed(node->store, author);

	return f ? f->seq : 0;
}

/* ---- vectors ------------------------------------------------------------ */

static int s_flush_vector(node_t *node, peer_t *p, wire_vec_t *v, size_t *n)
{
	uint8_t *b = NULL;
	size_t len = 0;
	int rc = 0;

	if (*n && wire_vector(v, *n, &b, &len) == 0)
		rc = node_send(node, p, b, len);
	*n = 0;
	return rc;
}

/*
 * Whether author tells p of its records itself: the author is our peer
 * and named p in its last peers message. A node pushes its new record to
 * every peer in step with it and sends the others its vector, so the
 * author's other peers need not tell p too. When that link is gone, the
 * author's next peers message leaves p out and the next round tells p.
 */
static bool s_author_tells(node_t *node, const uint8_t *author, peer_t *p)
{
	peer_t *a = peer_find(node, author);

	if (!a || a == p || a->state != PEER_ACTIVE)
		return false;
	for (size_t i = 0; i < a->n_their_ids; i++)
		if (memcmp(a->their_ids[i], p->id, WIRE_KEY_BYTES) == 0)
			return true;
	return false;
}

/* Whether a change of ours is still to be weighed for p (its vector
 * entry for author hex then stays: it may hold as much already). */
static bool s_pending(node_t *node, peer_t *p, const char *hex)
{
	vec_mine_t *e = repl_vec_get_hex(node, hex);

	return (e && e->chg > p->told) || zhashx_lookup(p->skip, hex) ||
	       zhashx_lookup(p->lazy, hex);
}

/* Forget p's entries we hold as much of, with nothing pending: only what
 * differs from ours stays (their_vec is not F entries per peer). */
static void s_their_prune(node_t *node, peer_t *p)
{
	zlistx_t *keys = zhashx_keys(p->their_vec);

	for (char *k = zlistx_first(keys); k; k = zlistx_next(keys)) {
		uint64_t *s = zhashx_lookup(p->their_vec, k);
		uint8_t author[WIRE_KEY_BYTES];

		if (wire_unhex(k, author, sizeof(author)) < 0 ||
		    *s > s_our_seq(node, author) || s_pending(node, p, k))
			continue;
		if (strcmp(k, node->hex) == 0 && p->own_sent < *s)
			p->own_sent = *s; /* it holds our feed so far */
		zhashx_delete(p->their_vec, k);
	}
	zlistx_destroy(&keys);
}

static const char s_mark[] = "";

/* Whether p holds as much as e: it said so, or sent us the records, or
 * we pushed them. */
static bool s_holds(node_t *node, peer_t *p, const vec_mine_t *e,
		    const char *hex)
{
	uint64_t *pushed = zhashx_lookup(p->push_to, hex);

	return repl_their_seq(p, hex) >= e->seq ||
	       (pushed && *pushed >= e->seq) ||
	       (strcmp(hex, node->hex) == 0 && p->own_sent >= e->seq);
}

/* Whether p hears of e now: not when it holds as much, nor when e's
 * author tells it itself (looked at again next time: that link may go). */
static bool s_tells(node_t *node, peer_t *p, const vec_mine_t *e,
		    const char *hex)
{
	if (s_holds(node, p, e, hex))
		return false; /* it holds as much */
	if (s_author_tells(node, e->author, p)) {
		zhashx_insert(p->skip, hex, (void *)s_mark);
		return false; /* it hears it */
	}
	return true;
}

/*
 * Whether e waits for the lazy timer: a record of a feed we held that we
 * took alone (a record made one at a time), to a peer that takes pushes:
 * its parent in the push tree pushes it the record, and this entry is its
 * repair path, sent only if it did not tell us it took the record
 * meanwhile, and a run of records goes out as one entry. A feed new to
 * us, a batch (a burst: pulled), our own records, go at once.
 */
static bool s_lazy(node_t *node, peer_t *p, const vec_mine_t *e,
		   const char *hex)
{
	if (node->lazy_now || e->step != 1 || e->seq < 2 ||
	    !(p->features & MSG_FEATURE_PUSH) ||
	    memcmp(e->author, node->key.pk, WIRE_KEY_BYTES) == 0)
		return false;
	zhashx_insert(p->lazy, hex, (void *)s_mark);
	node->lazy_dirty = true;
	return true;
}

static void s_add_told(node_t *node, peer_t *p, wire_vec_t *v, size_t *n,
		       const vec_mine_t *e, int *rc)
{
	char hex[2 * WIRE_KEY_BYTES + 1];

	wire_hex(e->author, WIRE_KEY_BYTES, hex);
	zhashx_delete(p->lazy, hex);
	memcpy(v[*n].author, e->author, WIRE_KEY_BYTES);
	v[(*n)++].seq = e->seq;
	if (*n == WIRE_MAX_VECTOR && s_flush_vector(node, p, v, n) < 0)
		*rc = -EAGAIN;
}

/* The lazy timer: how many peers wait for each author (node->lazy_count,
 * hex -> count), so each is told with probability NODE_LAZY_FANOUT /
 * that when the record came by push. The push tree brings the record;
 * this is its repair, and the digest (one random peer every
 * NODE_FULL_VECTOR_MS) repairs the rest. A record we pulled goes to
 * every peer waiting: the tree did not bring it here. Peers that hold
 * as much, or hear it from its author, are not counted. */
static void s_lazy_count(node_t *node)
{
	zhashx_purge(node->lazy_count);
	for (size_t i = 0; i < node->n_peers; i++) {
		peer_t *p = node->peers[i];

		if (p->state != PEER_ACTIVE)
			continue;
		for (void *m = zhashx_first(p->lazy); m;
		     m = zhashx_next(p->lazy)) {
			const char *k = zhashx_cursor(p->lazy);
			vec_mine_t *e = repl_vec_get_hex(node, k);
			uintptr_t c;

			/* a pulled record goes to every peer: not counted */
			if (!e || !e->pushed || s_holds(node, p, e, k) ||
			    s_author_tells(node, e->author, p))
				continue;
			c = (uintptr_t)zhashx_lookup(node->lazy_count, k);
			zhashx_update(node->lazy_count, k, (void *)(c + 1));
		}
	}
}

static bool s_lazy_pick(node_t *node, const vec_mine_t *e, const char *hex)
{
	uintptr_t c = (uintptr_t)zhashx_lookup(node->lazy_count, hex);

	return !e->pushed || c <= NODE_LAZY_FANOUT ||
	       randombytes_uniform((uint32_t)c) < NODE_LAZY_FANOUT;
}

/* The changes held back for p in h, looked at again: those its author
 * was to tell it of (p->skip), and, when the lazy timer fires, those
 * that waited for it (p->lazy: s_lazy holds none back then), to a few
 * of the peers that wait for each (s_lazy_pick). */
static void s_held_back(node_t *node, peer_t *p, zhashx_t *h, wire_vec_t *v,
			size_t *n, int *rc)
{
	zlistx_t *keys;
	bool lazy = h == p->lazy;

	if (!zhashx_size(h))
		return;
	keys = zhashx_keys(h);
	for (char *k = zlistx_first(keys); k; k = zlistx_next(keys)) {
		vec_mine_t *e = repl_vec_get_hex(node, k);

		zhashx_delete(h, k);
		if (e && e->chg <= p->told && s_tells(node, p, e, k) &&
		    !s_lazy(node, p, e, k) &&
		    (!lazy || s_lazy_pick(node, e, k)))
			s_add_told(node, p, v, n, e, rc);
	}
	zlistx_destroy(&keys);
}

/* A session's start or a safety-net round (or a vector that could not be
 * queued): a peer that takes digests gets ours, the ranges that differ
 * come back; any other gets our whole vector. True: the changes not told
 * it go now (all of them, for the whole vector). */
static bool s_resync(node_t *node, peer_t *p)
{
	p->resync = false;
	if (node->no_digest || !(p->features & MSG_FEATURE_DIGEST)) {
		p->told = 0;
		zhashx_purge(p->skip);
		zhashx_purge(p->lazy);
		return true;
	}
	if (p->digest_sent_ms &&
	    node_now() - p->digest_sent_ms < NODE_DIGEST_EVERY_MS) {
		/* not again so soon: at a later round; the changes
		 * meanwhile as usual */
		p->resync = true;
		return true;
	}
	if (repl_send_digest(node, p) < 0) {
		p->resync = true; /* its queue is full: later */
		node->vec_dirty = true;
		return false;
	}
	p->digest_sent_ms = node_now();
	p->told = node->vec_chg; /* the rest by the ranges that differ */
	zhashx_purge(p->skip);
	zhashx_purge(p->lazy);
	return false;
}

/* Send p the changes of our vector since we last told it. */
static void s_send_vector(node_t *node, peer_t *p)
{
	static wire_vec_t v[WIRE_MAX_VECTOR];
	size_t n = 0;
	int rc = 0;

	if (!node->vec_mine || (p->resync && !s_resync(node, p)))
		return;
	s_held_back(node, p, p->skip, v, &n, &rc);
	if (node->lazy_now)
		s_held_back(node, p, p->lazy, v, &n, &rc);
	/* newest first: the log is in order of change */
	for (vec_mine_t *e = repl_vec_newest(node); e && e->chg > p->told;
	     e = repl_vec_older(node, e)) {
		char hex[2 * WIRE_KEY_BYTES + 1];

		wire_hex(e->author, WIRE_KEY_BYTES, hex);
		if (s_tells(node, p, e, hex) && !s_lazy(node, p, e, hex))
			s_add_told(node, p, v, &n, e, &rc);
	}
	p->told = node->vec_chg;
	if (s_flush_vector(node, p, v, &n) < 0 || rc < 0) {
		/* not sent (its queue is full): a digest or our whole
		 * vector on a later tick rather than a stale view */
		p->resync = true;
		node->vec_dirty = true;
	}
	s_their_prune(node, p);
}

static void s_arm_lazy(node_t *node);

static void s_send_vectors_now(node_t *node)
{
	if (!node->vec_dirty)
		return;
	node->vec_dirty = false;
	for (size_t i = 0; i < node->n_peers; i++)
		if (node->peers[i]->state == PEER_ACTIVE)
			s_send_vector(node, node->peers[i]);
	s_arm_lazy(node);
}

/* The changes held back (s_lazy), to every peer. */
static int s_handle_lazy(zloop_t *loop, int timer_id, void *arg)
{
	node_t *node = arg;

	(void)loop;
	(void)timer_id;
	node->lazy_armed = false;
	node->lazy_dirty = false;
	node->lazy_now = true;
	s_lazy_count(node);
	for (size_t i = 0; i < node->n_peers; i++)
		if (node->peers[i]->state == PEER_ACTIVE)
			s_send_vector(node, node->peers[i]);
	node->lazy_now = false;
	return 0;
}

/* Changes held back go out between NODE_LAZY_MS / 2 and NODE_LAZY_MS
 * after the first: random, so that of two peers that both took a record
 * the first to speak spares the other its entry. */
static void s_arm_lazy(node_t *node)
{
	size_t ms = NODE_LAZY_MS / 2 + randombytes_uniform(NODE_LAZY_MS / 2);

	if (!node->lazy_dirty || node->lazy_armed)
		return;
	if (node_timer(node, ms, s_handle_lazy) >= 0)
		node->lazy_armed = true;
	else
		s_handle_lazy(NULL, 0, node);
}

static int s_handle_announce(zloop_t *loop, int timer_id, void *arg)
{
	node_t *node = arg;

	(void)loop;
	(void)timer_id;
	node->vec_armed = false;
	s_send_vectors_now(node);
	return 0;
}

/*
 * Changes of our vector go out a random while (up to NODE_ANNOUNCE_MS)
 * after the first: peers that took the same record meanwhile say so in
 * their own vectors and are not told it back (s_send_vector), so two
 * peers that both hold a new record tell each other about once, not
 * twice; and a run of records goes out as one entry.
 */
void repl_send_vectors(node_t *node)
{
	s_arm_lazy(node);
	if (!node->vec_dirty || node->vec_armed)
		return;
	if (node_timer(node, 1 + randombytes_uniform(NODE_ANNOUNCE_MS),
		       s_handle_announce) >= 0)
		node->vec_armed = true;
	else
		s_send_vectors_now(node);
}

/* Look at author (hex) for pulling soon: feeds we hold apart from
 * authors we do not (invented ones among them), which are looked at
 * after. Bounded: the round looks at every author again, so one not
 * noted here waits for it at worst. */
static void s_pull_note(node_t *node, const char *hex)
{
	uint8_t author[WIRE_KEY_BYTES];
	zhashx_t *todo;

	if (wire_unhex(hex, author, sizeof(author)) < 0)
		return;
	todo = store_feed(node->store, author) ? node->pull_known :
						 node->pull_new;
	if (zhashx_size(todo) < NODE_MAX_PULL_TODO)
		zhashx_insert(todo, hex, (void *)s_mark);
}

/* The upstream of author hex is done with (delivered, stalled, or its
 * peer gone: again false, the round looks at it then). */
static void s_upstream_end(node_t *node, const char *hex, upstream_t *u,
			   bool again)
{
	if (u->peer && u->peer->pulls_out) {
		u->peer->pulls_out--;
		/* a want in flight freed: some authors waiting for one */
		if (node->pull_retry < zhashx_size(node->pull_wait))
			node->pull_retry += NODE_PULL_RETRY;
	}
	u->peer = NULL;
	if (again)
		s_pull_note(node, hex);
	zhashx_delete(node->upstream, hex); /* frees u */
}

/* told, or below the first change held back for p if lower. */
static uint64_t s_lazy_floor(node_t *node, peer_t *p, uint64_t told)
{
	for (void *m = zhashx_first(p->lazy); m; m = zhashx_next(p->lazy)) {
		vec_mine_t *e = repl_vec_get_hex(node, zhashx_cursor(p->lazy));

		if (e && e->chg <= told)
			told = e->chg - 1;
	}
	return told;
}

void repl_forget_peer(node_t *node, peer_t *p)
{
	zlistx_t *keys = zhashx_keys(node->upstream);

	for (char *k = zlistx_first(keys); k; k = zlistx_next(keys)) {
		upstream_t *u = zhashx_lookup(node->upstream, k);

		if (u->peer == p) /* one handed over: asked of another */
			s_upstream_end(node, k, u, u->handover_ms != 0);
	}
	zlistx_destroy(&keys);
	zhashx_purge(p->their_vec);
	zhashx_purge(p->skip);
	zhashx_purge(p->push_to);
	if (p->told_acked && !node->no_digest &&
	    (p->features & MSG_FEATURE_DIGEST)) {
		/* what it read, not what we sent: changes sent into a
		 * connection about to drop go again, and those held back */
		p->resume_told = s_lazy_floor(node, p, p->told_acked);
		p->resume_ms = node_now();
	}
	zhashx_purge(p->lazy);
	p->told = p->told_at_ping = p->told_acked = 0;
	p->digest_at_ms = 0;
	p->resync = p->digest_soon = false;
	p->ranges_open = p->ranges_told = p->sub_open = 0;
	p->own_sent = 0;
	p->n_their_ids = 0;
	keymap_clear(p->distrust);
	p->vec_unknown = 0;
	p->pulls_out = 0;
	p->credit = NODE_CREDIT_INITIAL;
	p->fl_head = p->fl_count = 0;
	p->inflight_bytes = 0;
	p->n_wants = 0;
	repl_forget_requests(p);
	node->pull_dirty = true;
}

static void s_send_evidence(node_t *node, peer_t *p);

/* Our own feed's head, to p whose session starts with no digest now:
 * the vector that goes now has it only if it changed meanwhile, and our
 * other peers leave our records to us (s_author_tells), so without it p
 * would hear of those made before the session only from the digest. */
static void s_send_own_head(node_t *node, peer_t *p)
{
	vec_mine_t *e = repl_vec_get(node, node->key.pk);
	wire_vec_t v[1];
	size_t n = 1;

	if (!e || e->chg > p->told)
		return;
	memcpy(v[0].author, e->author, WIRE_KEY_BYTES);
	v[0].seq = e->seq;
	s_flush_vector(node, p, v, &n);
}

void repl_on_active(node_t *node, peer_t *p)
{
	int64_t now = node_now();
	const char *how = "new: our digest (or whole vector) now";
	bool own_head = false;

	if (p->resume_ms && now - p->resume_ms < NODE_RESUME_MS &&
	    p->resume_told <= node->vec_chg && !node->no_digest &&
	    (p->features & MSG_FEATURE_DIGEST)) {
		/* back after a break: what changed since we told it goes now
		 * as a vector (it does the same), and our digest once those
		 * are pulled, to mend what the end of the last session lost */
		p->told = p->resume_told;
		/* it has read as much still: a session that ends again
		 * before a pong (hellos that crossed) resumes from there */
		p->told_acked = p->told_at_ping = p->resume_told;
		p->digest_at_ms = now;
		how = "resumed: the changes since, our digest later";
	} else if (!node->no_digest && (p->features & MSG_FEATURE_DIGEST) &&
		   node->session_digest_ms &&
		   now - node->session_digest_ms < NODE_RESUME_DIGEST_MS) {
		/* another new session's digest went just now: ours once its
		 * answer is pulled; the changes meanwhile as usual */
		p->told = node->vec_chg;
		p->digest_at_ms = node->session_digest_ms;
		own_head = true;
		how = "new: our digest after another's answer";
	} else {
		p->resync = true; /* our digest, or our whole vector */
		if (!node->no_digest && (p->features & MSG_FEATURE_DIGEST))
			node->session_digest_ms = now;
		p->digest_at_ms = 0;
	}
	log_debug("peer %.12s: session %s", p->hex, how);
	if (p->digest_at_ms) { /* the digest later, a while after */
		p->resync = false;
		p->digest_at_ms += NODE_RESUME_DIGEST_MS +
				   randombytes_uniform(NODE_RESUME_DIGEST_MS / 2);
	}
	p->resume_ms = 0;
	p->digest_sent_ms = 0;
	zhashx_purge(p->lazy);
	zhashx_purge(p->push_to);
	p->ranges_open = p->ranges_told = p->sub_open = 0;
	p->digest_soon = false;
	p->own_sent = 0;
	p->credit = NODE_CREDIT_INITIAL;
	p->fl_head = p->fl_count = 0;
	p->inflight_bytes = 0;
	p->n_wants = 0;
	repl_forget_requests(p);
	node->lazy_now = true; /* a new session hears it all at once */
	s_send_vector(node, p);
	node->lazy_now = false;
	if (own_head)
		s_send_own_head(node, p);
	repl_start_requests(node, p);
	s_send_evidence(node, p);
}

/*
 * Their vector. Entries for authors we hold no feed of cost memory for as
 * long as they are claimed and cannot be checked: at most
 * NODE_MAX_VEC_UNKNOWN of them per peer, the rest of a message dropped and
 * the message counted as garbage. Only entries ahead of us are looked at
 * for pulling.
 */
static size_t s_count_unknown(node_t *node, peer_t *p)
{
	size_t n = 0;

	for (uint64_t *s = zhashx_first(p->their_vec); s;
	     s = zhashx_next(p->their_vec)) {
		uint8_t author[WIRE_KEY_BYTES];

		if (wire_unhex(zhashx_cursor(p->their_vec), author,
			       sizeof(author)) < 0 ||
		    !store_feed(node->store, author))
			n++;
	}
	return n;
}

/* Whether p may hold one more entry for an author we hold no feed of;
 * counted is for s_count_unknown once per message. */
static bool s_unknown_ok(node_t *node, peer_t *p, bool *counted)
{
	if (p->vec_unknown >= NODE_MAX_VEC_UNKNOWN && !*counted) {
		/* some became known since (pulled): the count only drifts
		 * up; once per message */
		p->vec_unknown = s_count_unknown(node, p);
		*counted = true;
	}
	if (p->vec_unknown >= NODE_MAX_VEC_UNKNOWN)
		return false;
	p->vec_unknown++;
	return true;
}

void repl_take_entries(node_t *node, peer_t *p, const wire_vec_t *v,
		       size_t n, bool asked)
{
	bool over = false, counted = false;

	for (size_t i = 0; i < n; i++) {
		char hex[2 * WIRE_KEY_BYTES + 1];
		uint64_t ours = s_our_seq(node, v[i].author);
		bool known = store_feed(node->store, v[i].author) != NULL;

		wire_hex(v[i].author, WIRE_KEY_BYTES, hex);
		if (known && v[i].seq <= ours && !s_pending(node, p, hex)) {
			/* nothing to pull, nothing of ours to weigh it
			 * against: not kept */
			if (strcmp(hex, node->hex) == 0 &&
			    p->own_sent < v[i].seq)
				p->own_sent = v[i].seq;
			zhashx_delete(p->their_vec, hex);
			continue;
		}
		if (!known && !zhashx_lookup(p->their_vec, hex) &&
		    !s_unknown_ok(node, p, &counted)) {
			over = true;
			continue;
		}
		s_vec_set(p->their_vec, hex, v[i].seq);
		if (v[i].seq > ours)
			s_pull_note(node, hex);
	}
	if (over && asked)
		p->digest_soon = true; /* the rest once these are pulled */
	else if (over)
		node_garbage(node, p->curve, "vector names too many unknown"
			     " authors");
}

void repl_on_vector(node_t *node, peer_t *p, const wire_msg_t *m)
{
	/* it speaks of those feeds: it has them from elsewhere, or will
	 * pull them; we push it none of them (the push tree) */
	for (size_t i = 0; i < m->n_vec && zhashx_size(p->push_to); i++) {
		char hex[2 * WIRE_KEY_BYTES + 1];

		wire_hex(m->vec[i].author, WIRE_KEY_BYTES, hex);
		zhashx_delete(p->push_to, hex);
	}
	repl_take_entries(node, p, m->vec, m->n_vec, false);
}

/* Drop p's claim on author hex (it did not deliver): the entry, and p's
 * word for that author for NODE_DISTRUST_MS. */
static void s_distrust(node_t *node, peer_t *p, const char *hex)
{
	uint8_t author[WIRE_KEY_BYTES];
	distrust_t *d;

	if (wire_unhex(hex, author, sizeof(author)) < 0)
		return;
	if (zhashx_lookup(p->their_vec, hex)) {
		if (!store_feed(node->store, author) && p->vec_unknown)
			p->vec_unknown--;
		zhashx_delete(p->their_vec, hex);
	}
	d = keymap_get(p->distrust, author);
	if (!d) {
		if (keymap_size(p->distrust) >= NODE_MAX_DISTRUST) {
			node_garbage(node, p->curve, "too many claims not"
				     " delivered");
			return;
		}
		d = keymap_put(p->distrust, author, NULL);
	}
	d->until_ms = node_now() + NODE_DISTRUST_MS;
}

static bool s_distrusted(peer_t *p, const char *hex, int64_t now)
{
	uint8_t author[WIRE_KEY_BYTES];
	distrust_t *d;

	if (!keymap_size(p->distrust) ||
	    wire_unhex(hex, author, sizeof(author)) < 0)
		return false;
	d = keymap_get(p->distrust, author);
	if (!d)
		return false;
	if (d->until_ms > now)
		return true;
	keymap_delete(p->distrust, author);
	return false;
}

void repl_distrust_expire(peer_t *p, int64_t now)
{
	/* from the end: a delete moves the last element into the hole,
	 * one already looked at */
	for (size_t i = keymap_size(p->distrust); i-- > 0;) {
		distrust_t *d = keymap_at(p->distrust, i);

		if (d->until_ms <= now)
			keymap_delete(p->distrust, d->author);
	}
}

/* ---- pulling ------------------------------------------------------------- */

/* p served a pull of u at the rate asked: gained records since the want */
static void s_served(peer_t *p, const upstream_t *u, const char *hex,
		     uint64_t gained, int64_t now)
{
	int64_t ms = now - u->started_ms;
	uint8_t author[WIRE_KEY_BYTES];
	/* records a second, over at least a second: one record at once
	 * (a trickle's range of one) is not a peer that delivers */
	uint64_t rate = gained * 1000 / (uint64_t)(ms > 1000 ? ms : 1000);

	if (rate * NODE_WANT_TIMEOUT_MS < NODE_PULL_MIN_RECORDS * 1000)
		return;
	p->last_delivered_ms = now;
	p->serve_rate = rate;
	if (keymap_size(p->distrust) &&
	    wire_unhex(hex, author, sizeof(author)) == 0)
		keymap_delete(p->distrust, author); /* it delivers after all */
}

/* Whether p lately served a pull at the rate asked (its range, or its due
 * records by the deadline): such a peer is asked before one that only
 * claims, or trickles, whatever it claims. */
static bool s_delivers(const peer_t *p, int64_t now)
{
	return p->last_delivered_ms &&
	       now - p->last_delivered_ms < NODE_DELIVERED_MS;
}

/* The peer claiming most of author hex past have, asked in this order:
 * the author itself (its word on its own feed is the one that counts),
 * then peers that delivered lately, then the rest; never one with its
 * wants in flight full. One whose claim on it was not delivered lately
 * is asked only when no other peer claims more than we have (a stopped
 * peer come back may be the only one with its feed), ranked below all,
 * so that any other claim takes the feed from it. */
static int s_rank(const peer_t *p, const char *hex, int64_t now)
{
	return strcmp(p->hex, hex) == 0 ? 2 : s_delivers(p, now);
}

static peer_t *s_best_upstream(node_t *node, const char *hex, uint64_t have,
			       int *ret_rank, bool *ret_busy)
{
	peer_t *best = NULL, *last = NULL;
	uint64_t best_seq = have, last_seq = have;
	int best_rank = -1;
	int64_t now = node_now();
	uint8_t author[WIRE_KEY_BYTES];
	peer_t *a = wire_unhex(hex, author, sizeof(author)) == 0 ?
			    peer_find(node, author) : NULL;

	/* the author in session with us: its word on its own feed is the
	 * only one, a relay claiming more is lying or ahead of the author's
	 * own vector, which comes (or its records do, pushed). But not once
	 * the author failed to deliver it (a node starved of CPU while a
	 * network forms): its claim is dropped then, and it does not say it
	 * again (it told us once), so a relay's word, from a digest's
	 * answer, must do */
	if (a && a->state == PEER_ACTIVE && !s_distrusted(a, hex, now) &&
	    repl_their_seq(a, hex) > have) {
		*ret_rank = 2;
		if (a->pulls_out < NODE_MAX_PULLS_PER_PEER)
			return a;
		*ret_busy = true;
		return NULL;
	}
	for (size_t i = 0; i < node->n_peers; i++) {
		peer_t *p = node->peers[i];
		uint64_t s;
		int rank;

		if (p->state != PEER_ACTIVE)
			continue;
		s = repl_their_seq(p, hex);
		if (s <= have)
			continue;
		if (p->pulls_out >= NODE_MAX_PULLS_PER_PEER) {
			*ret_busy = true;
			continue;
		}
		if (s_distrusted(p, hex, now)) {
			if (s > last_seq)
				last = p, last_seq = s;
			continue;
		}
		rank = s_rank(p, hex, now);
		/* among those that deliver, the faster lately */
		if (rank > best_rank ||
		    (rank == best_rank && rank == 1 &&
		     p->serve_rate > best->serve_rate) ||
		    (rank == best_rank && (rank != 1 ||
					   p->serve_rate == best->serve_rate) &&
		     s > best_seq)) {
			best = p;
			best_seq = s;
			best_rank = rank;
		}
	}
	if (!best && last) {
		*ret_rank = -1;
		return last;
	}
	*ret_rank = best_rank;
	return best;
}

/* Whether a peer other than p, not distrusted for author hex, claims at
 * least as much of it as p does. */
static bool s_alternative(node_t *node, peer_t *p, const char *hex,
			  int64_t now)
{
	uint64_t claim = repl_their_seq(p, hex);

	for (size_t i = 0; i < node->n_peers; i++) {
		peer_t *q = node->peers[i];

		if (q != p && q->state == PEER_ACTIVE &&
		    !s_distrusted(q, hex, now) &&
		    repl_their_seq(q, hex) >= claim)
			return true;
	}
	return false;
}

static int s_handle_first_batch(zloop_t *loop, int timer_id, void *arg);

static void s_arm_first_batch(node_t *node, int64_t delay_ms)
{
	if (node->judge_armed || !node->loop)
		return;
	if (node_timer(node, (size_t)(delay_ms > 0 ? delay_ms : 1),
		       s_handle_first_batch) >= 0)
		node->judge_armed = true;
}

/* Whether u's peer may not have read the want yet: no pong to a ping
 * sent after it, for up to the liveness window (what a peer gets to
 * show it is there at all; a loaded one reads late). One that never
 * answered a ping is not waited for so: it may not be reading at all.
 * (Not its round trip as the sign: on one machine that is 0 ms.) */
static bool s_unread(const node_t *node, const upstream_t *u, int64_t now)
{
	const peer_t *p = u->peer;

	return p->read_ms < u->started_ms && p->read_ms > 0 &&
	       now - u->started_ms < node->liveness_ms;
}

/* How long a pull of u's peer may go unanswered before a better placed
 * peer takes it: NODE_PREEMPT_MS, or twice the peer's round trip or its
 * recent time to answer a want when longer (a loaded machine): an
 * answer cannot come sooner, and the range it then sends anyway would
 * come twice. But no longer than NODE_FIRST_RECORDS_MS: a peer that
 * answers slowly on purpose holds a feed back no longer than before. */
static int64_t s_preempt_ms(const peer_t *p)
{
	int64_t ms = p->rtt_ms > 0 ? 2 * (int64_t)p->rtt_ms : 0;

	if (2 * p->answer_ms > ms)
		ms = 2 * p->answer_ms;
	if (ms > NODE_FIRST_RECORDS_MS)
		ms = NODE_FIRST_RECORDS_MS;
	return ms > NODE_PREEMPT_MS ? ms : NODE_PREEMPT_MS;
}

/* Whether p (of rank) takes author hex over from its upstream u in
 * flight; else u ends by progress or by its deadline. A peer that has
 * sent its first batch is serving its range and keeps it (two upstreams
 * would each send it); one ranked below p that has not loses it at
 * once when it answered short (a trickle) or was asked only for want of
 * another (its claim was not delivered lately), and after
 * s_preempt_ms when it has not answered yet (an honest peer about to
 * answer would send its range as well), has read the want or is past
 * the time to (s_unread: a peer behind on its reading answers the want
 * when it gets to it, and its range would come twice), and sent us no
 * records since (it serves our wants in turn as our credit comes back,
 * and would send the range when it gets to this one). Waiting for the
 * first batch's judgement would cost every replication that
 * deadline. */
static bool s_takes_over(const node_t *node, const char *hex,
			 const upstream_t *u, const peer_t *p, int rank,
			 bool *ret_fault)
{
	int64_t now = node_now();
	int cur;

	if (u->peer == p || !u->peer || u->got >= u->need)
		return false;
	cur = s_distrusted(u->peer, hex, now) ? -1 : s_rank(u->peer, hex, now);
	if (rank <= cur)
		return false;
	*ret_fault = cur < 0 || u->got > 0;
	return *ret_fault || (now - u->started_ms >= s_preempt_ms(u->peer) &&
			      !s_unread(node, u, now) &&
			      u->peer->records_rx_ms < u->started_ms);
}

/* u's peer has not shown it read the want: a ping now, whose pong will.
 * Not while one is open: a ping sent again drops the open one's pong
 * (one nonce), and pulls starting often would keep any pong from
 * counting; once it is in, the next judging pings again if need be. */
static void s_ask_read(node_t *node, const upstream_t *u)
{
	peer_t *p = u->peer;

	if (p && p->read_ms < u->started_ms && !p->ping_open)
		peer_ping(node, p);
}

/* u leaves its peer before its range is in (stalled, moved, or out of
 * patience): the peer is told to send no more of it, so what it had not
 * sent yet does not come beside the range asked of the next peer. What
 * is on its way comes all the same. */
static bool s_pull_stop(node_t *node, const char *hex, const upstream_t *u)
{
	peer_t *p = u->peer;
	uint8_t author[WIRE_KEY_BYTES];
	uint8_t *b = NULL;
	size_t len = 0;

	if (!p || p->state != PEER_ACTIVE ||
	    !(p->features & MSG_FEATURE_WANT_STOP) ||
	    wire_unhex(hex, author, sizeof(author)) < 0 ||
	    s_our_seq(node, author) >= u->until)
		return false;
	if (wire_want(author, u->from, 0, &b, &len) != 0 ||
	    node_send(node, p, b, len) != 0)
		return false;
	node->wants_stop_sent++;
	return true;
}

/* How long u's peer may take to read what we send now: twice how far
 * behind on its reading it has shown itself to be (its round trip, its
 * time to answer a want lately, the age of a ping it has not answered
 * yet, or of u's want when it has neither answered it nor shown it read
 * it), and no less than the time a want has to be answered
 * (NODE_WANT_TIMEOUT_MS): a loaded peer falls further behind at times.
 * At most the liveness: a peer silent that long loses its session, and
 * with it the pull (repl_forget_peer); one slow on purpose holds a feed
 * back that much longer, once per distrust of it for that feed. */
static int64_t s_handover_ms(const node_t *node, const upstream_t *u,
			     int64_t now)
{
	const peer_t *p = u->peer;
	int64_t lag = p->rtt_ms > 0 ? p->rtt_ms : 0, ms;

	if (p->answer_ms > lag)
		lag = p->answer_ms;
	if (!u->got && p->read_ms < u->started_ms &&
	    now - u->started_ms > lag)
		lag = now - u->started_ms;
	if (p->n_ping_old && now - p->ping_old_ms[0] > lag)
		lag = now - p->ping_old_ms[0];
	else if (p->ping_open && now - p->ping_sent_ms > lag)
		lag = now - p->ping_sent_ms;
	ms = 2 * lag > NODE_WANT_TIMEOUT_MS ? 2 * lag : NODE_WANT_TIMEOUT_MS;
	return ms < node->liveness_ms ? ms : node->liveness_ms;
}

/*
 * u leaves its peer before its range is in (stalled, or taken over):
 * the peer is told to stop and pinged. It answers a want as it reads it,
 * so a peer behind on its reading sends the range's first records after
 * we gave up on it, and what it sent before it read the stop comes
 * before the pong (a link keeps order). Until that pong, the range in,
 * or the time it may take (s_handover_ms, again while its records still
 * come, up to the liveness), no other peer is asked: it would send those
 * records again. Whether u waits so; if not, the caller ends it.
 */
static bool s_hand_over(node_t *node, const char *hex, upstream_t *u)
{
	int64_t now = node_now();

	/* a peer that never answered a ping would not answer this one */
	if (!u->peer || !u->peer->read_ms || !s_pull_stop(node, hex, u))
		return false;
	u->stop_ms = now;
	u->handover_got = u->got;
	u->handover_ms = now + s_handover_ms(node, u, now);
	peer_ping(node, u->peer); /* its pong shows it read the stop */
	u->first_batch_ms = 0;
	node->handovers++;
	return true;
}

void repl_on_read(node_t *node, peer_t *p)
{
	zlistx_t *keys;
	size_t n = 0;

	for (upstream_t *u = zhashx_first(node->upstream); u;
	     u = zhashx_next(node->upstream))
		n += u->peer == p && u->handover_ms && p->read_ms >= u->stop_ms;
	if (!n)
		return;
	keys = zhashx_keys(node->upstream);
	for (char *k = zlistx_first(keys); k; k = zlistx_next(keys)) {
		upstream_t *u = zhashx_lookup(node->upstream, k);

		if (u && u->peer == p && u->handover_ms &&
		    p->read_ms >= u->stop_ms) {
			node->handovers_read++;
			s_upstream_end(node, k, u, true);
		}
	}
	zlistx_destroy(&keys);
	repl_pull_all(node);
}

static bool s_prune(node_t *node, peer_t *p, const uint8_t *author);

/* A pull of a batch of a feed whose records came by push (a burst
 * goes by pulls): the peers that may push it to us one record at a
 * time are told our head, which stops their pushes (repl_on_vector);
 * those would bring records of the range asked of p again. Not p, nor
 * the author (its pushes of its own feed keep in step with its vector). */
static void s_prune_pushers(node_t *node, peer_t *p, const uint8_t *author)
{
	const vec_mine_t *e = repl_vec_get(node, author);

	if (!e || !e->pushed)
		return;
	for (size_t i = 0; i < node->n_peers; i++) {
		peer_t *q = node->peers[i];

		if (q != p && q->state == PEER_ACTIVE &&
		    s_prune(node, q, author))
			node->pushers_pruned++;
	}
}

static void s_pull(node_t *node, const uint8_t *author, const char *hex)
{
	upstream_t *u = zhashx_lookup(node->upstream, hex);
	const store_feed_t *f = store_feed(node->store, author);
	uint64_t have = f ? f->seq : 0, claim;
	uint8_t *b = NULL;
	size_t len = 0;
	peer_t *p;
	int rank;
	bool fault = false, busy = false;

	if ((f && f->flagged) || (u && u->handover_ms) ||
	    memcmp(author, node->key.pk, WIRE_KEY_BYTES) == 0)
		return;
	p = s_best_upstream(node, hex, have, &rank, &busy);
	if (!p && busy && !u) {
		/* claimed by peers whose wants in flight are full: looked
		 * at again as those end, not only by the round */
		if (zhashx_size(node->pull_wait) < NODE_MAX_PULL_TODO)
			zhashx_insert(node->pull_wait, hex, (void *)s_mark);
		return;
	}
	if (!p)
		return;
	if (u && !s_takes_over(node, hex, u, p, rank, &fault))
		return;
	if (u) {
		log_debug("upstream %.12s of %.12s taken over by %.12s after"
			  " %" PRIu64 " records", u->peer->hex, hex, p->hex,
			  u->got);
		peer_t *was = u->peer;

		node->pulls_taken_over++;
		node->pulls_preempted += !fault;
		/* ended or handed over first: a distrust past its cap bans
		 * the peer, which ends its upstreams */
		bool wait = s_hand_over(node, hex, u);

		if (!wait)
			s_upstream_end(node, hex, u, false);
		if (fault) /* a trickle, or a claim again not delivered */
			s_distrust(node, was, hex);
		if (wait)
			return; /* p is asked once was has read the stop */
	}
	node->pulls_started++;
	u = xzalloc(sizeof(*u));
	zhashx_insert(node->upstream, hex, u);
	u->peer = p;
	p->pulls_out++;
	u->from = have + 1;
	u->started_ms = node_now();
	u->deadline_ms = u->started_ms + NODE_FIRST_RECORDS_MS;
	u->first_batch_ms = u->started_ms + NODE_FIRST_BATCH_MS;
	s_arm_first_batch(node, NODE_FIRST_BATCH_MS);
	claim = repl_their_seq(p, hex) - have;
	u->need = claim < NODE_PULL_MIN_RECORDS ? claim : NODE_PULL_MIN_RECORDS;
	u->until = have + (claim < NODE_WANT_RECORDS ? claim :
						      NODE_WANT_RECORDS);
	/* no more than it claims: a peer serves what it holds when the want
	 * comes, often more than its vector said, and the pull ends at the
	 * claim (s_progress), so the rest would come while the next want,
	 * to it or another peer, asks for the same records */
	if (wire_want(author, have + 1, claim < NODE_WANT_RECORDS ?
		      claim : NODE_WANT_RECORDS, &b, &len) == 0)
		node_send(node, p, b, len);
	if (claim > 1)
		s_prune_pushers(node, p, author);
}

/* Every author some peer has more of, into the authors to look at. */
static void s_note_all(node_t *node)
{
	for (size_t i = 0; i < node->n_peers; i++) {
		peer_t *p = node->peers[i];

		if (p->state != PEER_ACTIVE)
			continue;
		for (uint64_t *s = zhashx_first(p->their_vec); s;
		     s = zhashx_next(p->their_vec)) {
			const char *hex = zhashx_cursor(p->their_vec);
			uint8_t author[WIRE_KEY_BYTES];

			if (wire_unhex(hex, author, sizeof(author)) == 0 &&
			    *s > s_our_seq(node, author))
				s_pull_note(node, hex);
		}
	}
}

/* Pull up to max authors of todo; how many were looked at. */
static size_t s_pull_some(node_t *node, zhashx_t *todo, size_t max)
{
	static char keys[NODE_PULL_PER_TURN][2 * WIRE_KEY_BYTES + 1];
	size_t n = 0;

	/* taken out first: pulling may note authors again */
	for (void *v = zhashx_first(todo); v && n < max; v = zhashx_next(todo))
		snprintf(keys[n++], sizeof(keys[0]), "%s",
			 (const char *)zhashx_cursor(todo));
	for (size_t i = 0; i < n; i++) {
		uint8_t author[WIRE_KEY_BYTES];

		zhashx_delete(todo, keys[i]);
		if (wire_unhex(keys[i], author, sizeof(author)) == 0)
			s_pull(node, author, keys[i]);
	}
	return n;
}

/* Pull the authors noted, at most NODE_PULL_PER_TURN a call, feeds we
 * hold first, one upstream per author; pull_dirty (the round, a peer
 * gone) looks at all again. */
void repl_pull_all(node_t *node)
{
	size_t n;

	if (node->pull_dirty) {
		node->pull_dirty = false;
		s_note_all(node);
	}
	while (node->pull_retry && zhashx_first(node->pull_wait)) {
		s_pull_note(node, zhashx_cursor(node->pull_wait));
		zhashx_delete(node->pull_wait, zhashx_cursor(node->pull_wait));
		node->pull_retry--;
	}
	if (!zhashx_size(node->pull_wait))
		node->pull_retry = 0;
	n = s_pull_some(node, node->pull_known, NODE_PULL_PER_TURN);
	if (n < NODE_PULL_PER_TURN)
		s_pull_some(node, node->pull_new, NODE_PULL_PER_TURN - n);
}

/* ---- serving --------------------------------------------------------------- */

typedef struct {
	wire_bytes_t recs[WIRE_MAX_BATCH_RECORDS];
	uint8_t *copies[WIRE_MAX_BATCH_RECORDS];
	size_t n, bytes;
	uint64_t last_seq;
	bool tamper;
} s_batch_t;

static int s_collect(void *arg, uint64_t seq, const uint8_t *bytes, size_t len)
{
	s_batch_t *b = arg;
	uint8_t *c = xmalloc(len ? len : 1);

	memcpy(c, bytes, len);
	if (b->tamper && len)
		c[len / 2] ^= 0x01; /* testing aid: a relay that lies */
	b->copies[b->n] = c;
	b->recs[b->n++] = (wire_bytes_t){ c, len };
	b->bytes += len;
	b->last_seq = seq;
	return 0;
}

static void s_batch_free(s_batch_t *b)
{
	for (size_t i = 0; i < b->n; i++)
		free(b->copies[i]);
	b->n = 0;
}

static bool s_can_send(peer_t *p)
{
	return p->credit > 0 && p->fl_count < NODE_MAX_INFLIGHT &&
	       p->inflight_bytes < NODE_MAX_PENDING_BYTES;
}

static void s_inflight_push(peer_t *p, size_t recs, size_t bytes)
{
	size_t i = (p->fl_head + p->fl_count) % NODE_MAX_INFLIGHT;

	p->fl_recs[i] = (uint32_t)recs;
	p->fl_bytes[i] = (uint32_t)bytes;
	p->fl_count++;
	p->inflight_bytes += bytes;
	p->credit -= (int64_t)recs;
}

static int s_send_batch(node_t *node, peer_t *p, s_batch_t *b)
{
	uint8_t *msg = NULL;
	size_t len = 0;
	int rc = wire_records(b->recs, b->n, &msg, &len);

	if (rc == 0)
		rc = node_send(node, p, msg, len);
	if (rc == 0) {
		s_inflight_push(p, b->n, b->bytes);
		p->records_tx += b->n;
	}
	return rc;
}

/* Serve one queued want as far as credit allows; true when finished. */
static bool s_serve_want(node_t *node, peer_t *p, struct pending_want *w)
{
	static s_batch_t b;

	while (w->left && s_can_send(p)) {
		size_t max = WIRE_MAX_BATCH_RECORDS;
		int n;

		if ((uint64_t)max > w->left)
			max = (size_t)w->left;
		if ((int64_t)max > p->credit)
			max = (size_t)p->credit;
		b.n = 0;
		b.bytes = 0;
		b.tamper = node->tamper;
		n = store_records(node->store, w->author, w->next, max,
				  WIRE_MAX_BATCH_BYTES, s_collect, &b);
		if (n <= 0)
			return true; /* we have nothing more */
		if (s_send_batch(node, p, &b) < 0) {
			s_batch_free(&b);
			node->wants_unsent++;
			return true; /* queue full: the puller will ask again */
		}
		w->next = b.last_seq + 1;
		w->left -= (uint64_t)n;
		if (memcmp(w->author, node->key.pk, WIRE_KEY_BYTES) == 0 &&
		    p->own_sent < b.last_seq)
			p->own_sent = b.last_seq;
		s_batch_free(&b);
	}
	return w->left == 0;
}

/*
 * The push tree. A peer that pulled a feed it held some of (not one it
 * catches up on whole) from us to our head takes the
 * records of that feed we take alone (one at a time) as we take them,
 * pushed (s_push_new): the peer it pulls from is its parent, and news of
 * such a record goes down that tree at once, while vector entries on the
 * other links wait (s_lazy). It stays so until it tells us a head of that
 * feed (a vector entry: it has it from elsewhere, s_prune), we take a
 * batch of it (a burst goes by pulls), or the session ends. Our own feed
 * is pushed to every peer in step (repl_pushed_own).
 */
static void s_subscribe(node_t *node, peer_t *p, const struct pending_want *w)
{
	char hex[2 * WIRE_KEY_BYTES + 1];

	if (!(p->features & MSG_FEATURE_PUSH) || !w->follows ||
	    w->next - 1 != s_our_seq(node, w->author) ||
	    memcmp(w->author, node->key.pk, WIRE_KEY_BYTES) == 0)
		return;
	wire_hex(w->author, WIRE_KEY_BYTES, hex);
	if (!zhashx_lookup(p->push_to, hex) &&
	    zhashx_size(p->push_to) >= NODE_MAX_PUSH_FEEDS)
		return; /* it hears of the rest by vector */
	s_vec_set(p->push_to, hex, w->next - 1);
}

static void s_serve(node_t *node, peer_t *p)
{
	size_t keep = 0;

	for (size_t i = 0; i < p->n_wants; i++) {
		if (!s_serve_want(node, p, &p->wants[i]))
			p->wants[keep++] = p->wants[i];
		else
			s_subscribe(node, p, &p->wants[i]);
	}
	p->n_wants = keep;
}

/* Push author's record seq (the one we just took, alone) to p. */
static void s_push_one(node_t *node, peer_t *p, const uint8_t *author,
		       uint64_t seq, uint64_t *held)
{
	static s_batch_t b;

	b.n = 0;
	b.bytes = 0;
	b.tamper = node->tamper;
	if (store_records(node->store, author, seq, 1, WIRE_MAX_BATCH_BYTES,
			  s_collect, &b) != 1)
		return;
	if (s_send_batch(node, p, &b) == 0)
		*held = seq;
	s_batch_free(&b);
}

/* We took added records of author from from: alone, pushed to the peers
 * that pulled that feed from us and hold all before it; a batch (a
 * burst), to none, and they pull it (they may have another source by
 * then: two streams of one range would each send it). */
static void s_push_new(node_t *node, peer_t *from, const uint8_t *author,
		       size_t added)
{
	uint64_t ours = s_our_seq(node, author);
	char hex[2 * WIRE_KEY_BYTES + 1];

	wire_hex(author, WIRE_KEY_BYTES, hex);
	for (size_t i = 0; i < node->n_peers; i++) {
		peer_t *p = node->peers[i];
		uint64_t *held = zhashx_lookup(p->push_to, hex);
		bool busy = false;

		if (!held)
			continue;
		if (p == from) { /* it holds what it sent */
			*held = ours;
			continue;
		}
		for (size_t k = 0; k < p->n_wants; k++)
			busy |= memcmp(p->wants[k].author, author,
				       WIRE_KEY_BYTES) == 0;
		if (added != 1 || *held + 1 != ours || busy ||
		    p->state != PEER_ACTIVE || !s_can_send(p)) {
			zhashx_delete(p->push_to, hex); /* it pulls */
			continue;
		}
		s_push_one(node, p, author, ours, held);
	}
}

/* p asked another peer for the rest of its last want of author: what is
 * not sent yet of it is dropped (not subscribed: it did not reach our
 * head by us). */
static void s_want_stop(node_t *node, peer_t *p, const uint8_t *author)
{
	for (size_t i = 0; i < p->n_wants; i++) {
		if (memcmp(p->wants[i].author, author, WIRE_KEY_BYTES) != 0)
			continue;
		node->wants_stopped += p->wants[i].left;
		p->wants[i] = p->wants[--p->n_wants];
		return;
	}
}

void repl_on_want(node_t *node, peer_t *p, const wire_msg_t *m)
{
	const store_feed_t *f = store_feed(node->store, m->author);
	struct pending_want *w = NULL;

	if (m->max == 0) {
		s_want_stop(node, p, m->author);
		return;
	}
	if (!f || f->flagged || m->from == 0 || m->from > f->seq) {
		node->wants_unheld++;
		return;
	}
	for (size_t i = 0; i < p->n_wants; i++)
		if (memcmp(p->wants[i].author, m->author, WIRE_KEY_BYTES) == 0)
			w = &p->wants[i];
	if (w && w->left)
		node->wants_again++;
	if (!w) {
		if (p->n_wants == NODE_MAX_WANTS)
			return; /* it asks for too much at once */
		w = &p->wants[p->n_wants++];
		memcpy(w->author, m->author, WIRE_KEY_BYTES);
	}
	w->next = m->from;
	/* a feed it held some of, not one it catches up on whole (a new
	 * node): pushed the next records */
	w->follows = m->from > 1;
	w->left = m->max < NODE_WANT_RECORDS * 2 ? m->max : NODE_WANT_RECORDS * 2;
	s_serve(node, p);
	for (size_t i = 0; i < p->n_wants; i++)
		if (memcmp(p->wants[i].author, m->author, WIRE_KEY_BYTES) == 0)
			node->wants_queued++;
}

void repl_on_credit(node_t *node, peer_t *p, const wire_msg_t *m)
{
	uint64_t n = m->max;

	/* credit returns batches in the order we sent them */
	while (n && p->fl_count) {
		uint32_t *r = &p->fl_recs[p->fl_head];
		uint32_t take = n < *r ? (uint32_t)n : *r;

		*r -= take;
		n -= take;
		p->credit += take;
		if (*r == 0) {
			p->inflight_bytes -= p->fl_bytes[p->fl_head];
			p->fl_head = (p->fl_head + 1) % NODE_MAX_INFLIGHT;
			p->fl_count--;
		}
	}
	if (p->credit > NODE_CREDIT_MAX)
		p->credit = NODE_CREDIT_MAX;
	s_serve(node, p);
}

void repl_pushed_own(node_t *node, uint64_t seq, const uint8_t *bytes,
		     size_t len)
{
	wire_bytes_t one = { bytes, len };

	repl_vec_sync(node, node->key.pk);
	node->vec_dirty = true;
	for (size_t i = 0; i < node->n_peers; i++) {
		peer_t *p = node->peers[i];
		uint8_t *msg = NULL;
		size_t mlen = 0;
		uint64_t held = repl_their_seq(p, node->hex);

		if (held < p->own_sent)
			held = p->own_sent;
		if (p->state != PEER_ACTIVE || !s_can_send(p) ||
		    held + 1 != seq)
			continue;
		if (wire_records(&one, 1, &msg, &mlen) == 0 &&
		    node_send(node, p, msg, mlen) == 0) {
			s_inflight_push(p, 1, len);
			p->records_tx++;
			/* the record is its own announcement (a peer
			 * that cannot store it pulls it later): no vector
			 * entry for it, and the next record goes straight
			 * to it too, without waiting for its vector */
			p->own_sent = seq;
		}
	}
	/* our own record: the peers it was not pushed to hear of it at
	 * once (no peer can have it before us) */
	s_send_vectors_now(node);
}

/* ---- equivocation evidence ------------------------------------------------ */

/* Evidence travels as a records message of exactly two records by one
 * author at one seq with different ids: something an honest batch never
 * holds. Both signatures prove the author signed both, so a node flags it
 * even without that author's feed up to there. */
static void s_send_pair(node_t *node, peer_t *p, const uint8_t *a,
			size_t a_len, const uint8_t *b, size_t b_len)
{
	wire_bytes_t two[2] = { { a, a_len }, { b, b_len } };
	uint8_t *msg = NULL;
	size_t len = 0;

	if (p->state != PEER_ACTIVE || !s_can_send(p))
		return;
	if (wire_records(two, 2, &msg, &len) == 0 &&
	    node_send(node, p, msg, len) == 0)
		s_inflight_push(p, 2, a_len + b_len);
}

static void s_forward_pair(node_t *node, peer_t *from, const uint8_t *a,
			   size_t a_len, const uint8_t *b, size_t b_len)
{
	for (size_t i = 0; i < node->n_peers; i++)
		if (node->peers[i] != from)
			s_send_pair(node, node->peers[i], a, a_len, b, b_len);
}

typedef struct {
	node_t *node;
	peer_t *to;
} s_pair_to_t;

static int s_pair_to_peer(void *arg, const uint8_t *a, size_t a_len,
			  const uint8_t *b, size_t b_len)
{
	s_pair_to_t *t = arg;

	s_send_pair(t->node, t->to, a, a_len, b, b_len);
	return 0;
}

static int s_held_at(void *arg, uint64_t seq, const uint8_t *b, size_t len)
{
	wire_bytes_t *held = arg;

	held->p = xmalloc(len);
	memcpy((uint8_t *)held->p, b, len);
	held->len = len;
	return 1;
}

/* A new session: the peer learns every equivocation we know of. */
static void s_send_evidence(node_t *node, peer_t *p)
{
	s_pair_to_t t = { node, p };

	store_evidence_pairs(node->store, NODE_MAX_EVIDENCE_SENT,
			     s_pair_to_peer, &t);
}

/* We just found evidence ourselves: tell every other peer. */
static void s_spread_evidence(node_t *node, peer_t *from,
			      const wire_bytes_t *ev)
{
	wire_bytes_t held = { NULL, 0 };
	wire_record_t r;

	if (wire_record_verify(ev->p, ev->len, &r) < 0)
		return;
	store_records(node->store, r.author, r.seq, 1, WIRE_MAX_BATCH_BYTES,
		      s_held_at, &held);
	if (held.p)
		s_forward_pair(node, from, held.p, held.len, ev->p, ev->len);
	free((void *)held.p);
}

/* True when m was an evidence pair (taken or not); false: a batch. */
static bool s_take_pair(node_t *node, peer_t *p, const wire_msg_t *m)
{
	wire_record_t a, b;
	store_rec_t sa, sb;
	char hex[2 * WIRE_KEY_BYTES + 1];
	int rc;

	if (m->n_items != 2 ||
	    wire_record_verify(m->items[0].p, m->items[0].len, &a) < 0 ||
	    wire_record_verify(m->items[1].p, m->items[1].len, &b) < 0 ||
	    memcmp(a.author, b.author, WIRE_KEY_BYTES) != 0 ||
	    a.seq != b.seq || memcmp(a.id, b.id, WIRE_ID_BYTES) == 0)
		return false;
	sa = wire_store_rec(&a, m->items[0].p, m->items[0].len);
	sb = wire_store_rec(&b, m->items[1].p, m->items[1].len);
	if (store_begin(node->store) < 0)
		return true;
	rc = store_put_evidence_pair(node->store, &sa, &sb);
	if (store_commit(node->store) < 0 || rc <= 0)
		return true; /* known already: stop here, no echo */
	wire_hex(a.author, WIRE_KEY_BYTES, hex);
	log_warn("author %.12s equivocated at seq %" PRIu64 " (evidence from"
		 " peer %.12s): evidence kept, author flagged", hex, a.seq,
		 p->hex);
	repl_vec_sync(node, a.author); /* flagged: out of our vector */
	s_forward_pair(node, p, m->items[0].p, m->items[0].len,
		       m->items[1].p, m->items[1].len);
	return true;
}

/* ---- receiving records ----------------------------------------------------- */

/* A feed we hold, p's own, or one we asked p for: anything else would
 * let a peer make us keep any number of feeds it signs itself. */
static bool s_solicited(node_t *node, peer_t *p, const uint8_t *author)
{
	char hex[2 * WIRE_KEY_BYTES + 1];
	upstream_t *u;

	if (store_feed(node->store, author) ||
	    memcmp(author, p->id, WIRE_KEY_BYTES) == 0)
		return true;
	wire_hex(author, WIRE_KEY_BYTES, hex);
	u = zhashx_lookup(node->upstream, hex);
	return u && u->peer == p;
}

static int s_put_one(node_t *node, peer_t *p, const wire_bytes_t *item,
		     uint8_t *ret_author, int *ret_kind, uint64_t *ret_seq)
{
	wire_record_t r;
	store_rec_t sr;
	int rc = wire_record_verify(item->p, item->len, &r);

	if (rc < 0) {
		node_garbage(node, p->curve, "record rejected (does not"
			     " verify)");
		return rc;
	}
	memcpy(ret_author, r.author, WIRE_KEY_BYTES);
	*ret_kind = r.kind;
	*ret_seq = r.seq;
	if (!s_solicited(node, p, r.author))
		return STORE_GAP; /* not asked for: not stored */
	sr = wire_store_rec(&r, item->p, item->len);
	rc = store_put_record(node->store, &sr);
	if (rc == STORE_EQUIVOCATION) {
		char hex[2 * WIRE_KEY_BYTES + 1];

		wire_hex(r.author, WIRE_KEY_BYTES, hex);
		log_warn("author %.12s equivocated at seq %" PRIu64 " (from"
			 " peer %.12s): evidence kept, author flagged", hex,
			 r.seq, p->hex);
	} else if (rc == STORE_BROKEN_CHAIN) {
		node_garbage(node, p->curve, "record does not chain");
	}
	return rc;
}

/* We took records of author from p: by push unless we pull that feed
 * from p (s_lazy_pick). Before s_progress, which may end the pull. */
static void s_took(node_t *node, peer_t *p, const uint8_t *author)
{
	char hex[2 * WIRE_KEY_BYTES + 1];
	upstream_t *u;
	vec_mine_t *e;

	wire_hex(author, WIRE_KEY_BYTES, hex);
	e = repl_vec_get(node, author);
	u = zhashx_lookup(node->upstream, hex);
	if (e)
		e->pushed = !(u && u->peer == p);
}

/* Records of author from p: its upstream is done once the range is in or
 * p has no more; the next want goes out from repl_pull_all. */
static void s_progress(node_t *node, peer_t *p, const uint8_t *author,
		       size_t added)
{
	char hex[2 * WIRE_KEY_BYTES + 1];
	uint64_t ours = s_our_seq(node, author);
	upstream_t *u;

	wire_hex(author, WIRE_KEY_BYTES, hex);
	u = zhashx_lookup(node->upstream, hex);
	if (!u || u->peer != p)
		return;
	if (u->handover_ms) { /* sent before it read the stop */
		u->got += added;
		if (ours >= u->until)
			s_upstream_end(node, hex, u, true);
		return;
	}
	if (!u->got && added) {
		/* it answers: the rest by rate; and its time to answer a
		 * want, smoothed (s_preempt_ms, s_waits) */
		int64_t ms = node_now() - u->started_ms;

		p->answer_ms = p->answer_ms ? (3 * p->answer_ms + ms) / 4 : ms;
		u->deadline_ms = u->started_ms + NODE_WANT_TIMEOUT_MS;
	}
	u->got += added;
	/* the range asked is in, or all it holds: a claim raised since
	 * is the next want's */
	if (ours >= u->until || ours >= repl_their_seq(p, hex)) {
		s_served(p, u, hex, ours + 1 - u->from, node_now());
		s_upstream_end(node, hex, u, true);
	}
}

/*
 * p pushed us records of author that we held: it is our parent in the
 * push tree of that feed, and we have them from elsewhere now. Our head
 * of that feed tells it to stop (repl_on_vector). Not to the author,
 * which pushes its records to every peer in step, nor to the peer we
 * pull that feed from. Whether it was told.
 */
static bool s_prune(node_t *node, peer_t *p, const uint8_t *author)
{
	char hex[2 * WIRE_KEY_BYTES + 1];
	uint64_t ours = s_our_seq(node, author);
	upstream_t *u;
	wire_vec_t v;
	uint8_t *b = NULL;
	size_t len = 0;

	wire_hex(author, WIRE_KEY_BYTES, hex);
	u = zhashx_lookup(node->upstream, hex);
	if (!ours || strcmp(hex, p->hex) == 0 || (u && u->peer == p) ||
	    !(p->features & MSG_FEATURE_PUSH))
		return false;
	memcpy(v.author, author, WIRE_KEY_BYTES);
	v.seq = ours;
	return wire_vector(&v, 1, &b, &len) == 0 &&
	       node_send(node, p, b, len) == 0;
}

/*
 * p sent us author's records up to top, signed: it holds them. Our vector
 * does not announce what it holds back to it; and a record its author or
 * a relay pushed that we could not store (a gap, a full disk) stands for
 * the vector entry it no longer sends with it: a claim, pulled (a relay
 * stores a chain whole, so it holds what it sends).
 */
static void s_sender_holds(node_t *node, peer_t *p, const uint8_t *author,
			   uint64_t top)
{
	char hex[2 * WIRE_KEY_BYTES + 1];
	uint64_t ours = s_our_seq(node, author);

	wire_hex(author, WIRE_KEY_BYTES, hex);
	if (ours && s_pending(node, p, hex))
		s_vec_raise(p->their_vec, hex, ours < top ? ours : top);
	if (top <= ours || (!ours && strcmp(hex, p->hex) != 0))
		return; /* nothing to pull; or a feed we lack: no claim */
	s_vec_raise(p->their_vec, hex, top);
	s_pull_note(node, hex);
}

void repl_on_records(node_t *node, peer_t *p, const wire_msg_t *m)
{
	size_t added = 0;
	uint8_t *b = NULL;
	size_t len = 0;
	uint8_t last_author[WIRE_KEY_BYTES];
	size_t ev[NODE_MAX_EVIDENCE_BATCH], n_ev = 0;
	/* run records added: they go to the results index once committed,
	 * already verified here */
	wire_bytes_t runs[WIRE_MAX_BATCH_RECORDS];
	size_t n_runs = 0;
	bool any = false;
	uint64_t top = 0; /* the highest seq that verified */
	size_t dups = 0;
	uint64_t dup_seq[WIRE_MAX_BATCH_RECORDS]; /* those held already */

	node->records_rx_items += m->n_items;
	if (s_take_pair(node, p, m))
		goto credit;
	if (store_begin(node->store) < 0)
		goto credit; /* the peer's window must not leak */
	for (size_t i = 0; i < m->n_items; i++) {
		int kind = 0;
		uint64_t seq = 0;
		int rc = s_put_one(node, p, &m->items[i], last_author, &kind,
				   &seq);

		if (seq > top)
			top = seq;
		if (rc == STORE_ADDED) {
			added++;
			any = true;
			if (kind == WIRE_KIND_RUN && n_runs < WIRE_MAX_BATCH_RECORDS)
				runs[n_runs++] = m->items[i];
		} else if (rc == STORE_EQUIVOCATION &&
			   n_ev < NODE_MAX_EVIDENCE_BATCH) {
			ev[n_ev++] = i;
		} else if (rc == STORE_DUPLICATE) {
			if (dups < WIRE_MAX_BATCH_RECORDS)
				dup_seq[dups] = seq;
			dups++;
		} else if (proto_is_errno(rc)) {
			break; /* store error */
		}
	}
	if (store_commit(node->store) < 0)
		added = n_ev = n_runs = dups = 0;
	if (dups || added) { /* before s_progress may end the pull */
		char hex[WIRE_KEY_BYTES * 2 + 1];
		upstream_t *u;

		wire_hex(last_author, WIRE_KEY_BYTES, hex);
		u = zhashx_lookup(node->upstream, hex);
		if (u && u->peer == p) {
			node->dup_pulled += dups;
			for (size_t i = 0; i < dups &&
					   i < WIRE_MAX_BATCH_RECORDS; i++)
				node->dup_stale += dup_seq[i] < u->from;
		} else {
			node->dup_other += dups;
		}
		if (u && u->peer != p && strcmp(hex, p->hex) == 0)
			node->beside_author += added;
		else if (u && u->peer != p)
			node->beside_relay += added;
	}
	for (size_t i = 0; i < n_ev; i++)
		s_spread_evidence(node, p, &m->items[ev[i]]);
	if (n_runs) /* into the results index (node/jobs/jobs.h) */
		jobs_on_stored(node->jobs, runs, n_runs);
	p->records_rx += added;
	if (added || dups)
		p->records_rx_ms = node_now();
	node->records_in += added;
	if (added) {
		node->vec_dirty = true;
		node->last_record_ms = node_wall_ms();
	}
	if (top) /* one author a batch: added, or flagged */
		repl_vec_sync(node, last_author);
	if (added)
		s_took(node, p, last_author);
	if (any)
		s_progress(node, p, last_author, added); /* one author a batch */
	if (top)
		s_sender_holds(node, p, last_author, top);
	if (dups && !added)
		s_prune(node, p, last_author);
credit:
	if (wire_credit(m->n_items, &b, &len) == 0)
		node_send(node, p, b, len);
	if (added)
		s_push_new(node, p, last_author, added);
}

/* ---- timers ---------------------------------------------------------------- */

static peer_t *s_random_active(node_t *node)
{
	size_t up = 0, k;

	for (size_t i = 0; i < node->n_peers; i++)
		up += node->peers[i]->state == PEER_ACTIVE;
	if (!up)
		return NULL;
	k = randombytes_uniform((uint32_t)up);
	for (size_t i = 0; i < node->n_peers; i++)
		if (node->peers[i]->state == PEER_ACTIVE && k-- == 0)
			return node->peers[i];
	return NULL;
}

/* u (of author k) loses the feed: it did not deliver at the rate asked,
 * so its claim is dropped and the next best one asked. */
static void s_stalled(node_t *node, const char *k, upstream_t *u,
		      uint64_t gained, uint64_t due)
{
	peer_t *p = u->peer;

	log_debug("upstream %.12s stalled for %.12s (%" PRIu64 " of %" PRIu64
		  " records), switching", p->hex, k, gained, due);
	node->pulls_stalled++;
	node->pulls_stalled_read += p->read_ms >= u->started_ms;
	node->pulls_stalled_unponged += p->read_ms == 0;
	node->pulls_stalled_patience +=
		node_now() - u->started_ms >= NODE_PULL_PATIENCE_MS;
	/* ended or handed over first: a distrust past its cap bans the
	 * peer, which ends its upstreams */
	if (!s_hand_over(node, k, u))
		s_upstream_end(node, k, u, true);
	s_distrust(node, p, k);
}

/* Whether u, with no records by its deadline, waits for its peer: that
 * need not be holding the feed back when it said nothing at all since
 * the want (no records, no pong: not running, starved of CPU or
 * stopped; asking another peer would only have the range sent twice,
 * and its session ends if it stays silent past the liveness), has not
 * shown it read the want (s_unread: what it said meanwhile may have
 * crossed the want, and a peer behind on its reading answers the want
 * when it gets to it, so the range would come twice; s_judge pings it,
 * and once its pong is in, it is judged), sent us records since (it
 * serves wants in turn as our credit comes back: ours comes), has
 * lately taken longer than this to answer a want (a loaded machine:
 * four times its time, s_progress), or is the only peer claiming as
 * much (dropping its claim would only wait for a digest to tell it
 * again). At most NODE_PULL_PATIENCE_MS. */
static bool s_waits(node_t *node, const char *k, const upstream_t *u,
		    int64_t now)
{
	const peer_t *p = u->peer;

	return p->last_seen_ms < u->started_ms || s_unread(node, u, now) ||
	       p->records_rx_ms >= u->started_ms ||
	       now - u->started_ms < 4 * p->answer_ms ||
	       !s_alternative(node, u->peer, k, now);
}

/* Whether a stall verdict on u waits: peers' messages wait unread here
 * (this node is behind on its reading, on a loaded machine), and the
 * records u's peer sent may be among them; the range would then come
 * twice. Until they are read, or the pull's patience is out. */
static bool s_judge_later(node_t *node, const upstream_t *u, int64_t now)
{
	if (now - u->started_ms >= NODE_PULL_PATIENCE_MS ||
	    !node_input_waiting(node))
		return false;
	node->pulls_judged_later++;
	return true;
}

/* Judge the upstream u of author k by now. */
static void s_judge(node_t *node, const char *k, upstream_t *u, int64_t now)
{
	uint8_t author[WIRE_KEY_BYTES];
	uint64_t ours, gained, due;

	if (u->handover_ms) { /* handed over: its pong not in yet */
		if (now < u->handover_ms)
			return;
		if (u->got > u->handover_got &&
		    now - u->stop_ms < node->liveness_ms) {
			/* what it sent before the stop still comes */
			u->handover_got = u->got;
			u->handover_ms = now + s_handover_ms(node, u, now);
			return;
		}
		node->handovers_timed++;
		s_upstream_end(node, k, u, true);
		return;
	}
	/* what we gained since the want, from it or from anyone (an
	 * author's own push): not held against it */
	ours = wire_unhex(k, author, sizeof(author)) == 0 ?
		       s_our_seq(node, author) : 0;
	gained = ours + 1 > u->from ? ours + 1 - u->from : 0;
	if (ours >= u->until) {
		/* the range is in, some of it from others (pushed): not a
		 * stall, however long it took */
		if (u->peer)
			s_served(u->peer, u, k, gained, now);
		s_upstream_end(node, k, u, true);
		return;
	}
	if (u->first_batch_ms && now >= u->first_batch_ms) {
		u->first_batch_ms = 0;
		/* short of its first records while another peer has as
		 * much: that one is asked, if this one answered with less
		 * (a trickle) or was asked only for want of another (it did
		 * not deliver before) */
		if (u->peer && gained < u->need &&
		    (u->got || s_distrusted(u->peer, k, now)) &&
		    s_alternative(node, u->peer, k, now)) {
			if (s_judge_later(node, u, now)) {
				u->first_batch_ms = now + NODE_FIRST_BATCH_MS;
				s_arm_first_batch(node, NODE_FIRST_BATCH_MS);
				return;
			}
			node->pulls_stalled_first++;
			s_stalled(node, k, u, gained, u->need);
			return;
		}
	}
	if (u->deadline_ms > now && !u->got) {
		/* no answer yet: a better placed peer may take it, once
		 * this one has read the want (s_takes_over) */
		if (now - u->started_ms >= NODE_PREEMPT_MS) {
			s_ask_read(node, u);
			s_pull_note(node, k);
		}
		return;
	}
	if (!u->got && u->peer && now - u->started_ms < NODE_PULL_PATIENCE_MS &&
	    s_waits(node, k, u, now)) {
		if (!u->waited)
			node->pulls_waited++;
		u->waited = true;
		s_ask_read(node, u);
		u->deadline_ms = now + NODE_FIRST_RECORDS_MS / 2;
		return;
	}
	/* once its first records are in, due pro rata of the time since
	 * the want: a trickle loses the feed early */
	due = u->need;
	if (u->deadline_ms > now)
		due = u->need * (uint64_t)(now - u->started_ms) /
		      NODE_WANT_TIMEOUT_MS;
	if (u->deadline_ms > now && gained >= due)
		return;
	if (u->peer && gained < due) {
		if (!s_judge_later(node, u, now)) /* else at the next tick */
			s_stalled(node, k, u, gained, due);
		return;
	}
	/* its range still coming at the rate (as our credit returns, on a
	 * loaded machine slower than the deadline): it goes on, while it
	 * sends as much again each deadline. A want now would ask it for
	 * the records in flight again */
	if (u->peer && ours < u->until && u->got >= u->got_mark + u->need &&
	    now - u->started_ms < NODE_PULL_PATIENCE_MS) {
		u->got_mark = u->got;
		u->deadline_ms = now + NODE_WANT_TIMEOUT_MS;
		return;
	}
	if (u->peer)
		s_served(u->peer, u, k, gained, now); /* at the rate */
	if (!s_hand_over(node, k, u))
		s_upstream_end(node, k, u, true);
}

/* At most one entry per author in flight: NODE_MAX_PULLS_PER_PEER per
 * peer. Every upstream, or (first_only) those whose first batch is due;
 * the time of the next first batch due after now, or 0. */
static int64_t s_judge_all(node_t *node, int64_t now, bool first_only)
{
	zlistx_t *keys = zhashx_keys(node->upstream);
	int64_t next = 0;

	for (char *k = zlistx_first(keys); k; k = zlistx_next(keys)) {
		upstream_t *u = zhashx_lookup(node->upstream, k);

		if (!u || (first_only && !u->first_batch_ms))
			continue;
		if (!first_only || u->first_batch_ms <= now)
			s_judge(node, k, u, now);
		u = zhashx_lookup(node->upstream, k);
		if (u && u->first_batch_ms &&
		    (!next || u->first_batch_ms < next))
			next = u->first_batch_ms;
	}
	zlistx_destroy(&keys);
	return next;
}

void repl_stalled(node_t *node, int64_t late)
{
	for (upstream_t *u = zhashx_first(node->upstream); u;
	     u = zhashx_next(node->upstream)) {
		u->started_ms += late;
		u->deadline_ms += late;
		if (u->first_batch_ms)
			u->first_batch_ms += late;
		if (u->handover_ms) /* its pong may wait unread here */
			u->handover_ms += late;
	}
}

/* A first batch due: judged then, not at the next tick. */
static int s_handle_first_batch(zloop_t *loop, int timer_id, void *arg)
{
	node_t *node = arg;
	int64_t now = node_now();
	int64_t next;

	node->judge_armed = false;
	peer_note_stall(node, now); /* before judging anyone's pace */
	next = s_judge_all(node, now, true);
	if (next)
		s_arm_first_batch(node, next - now);
	repl_pull_all(node);
	return 0;
}

/* Peers whose answer to our digest named more authors than we take:
 * a digest again once most of those we took are pulled. */
static void s_digest_soon(node_t *node)
{
	for (size_t i = 0; i < node->n_peers; i++) {
		peer_t *p = node->peers[i];

		if (!p->digest_soon || p->state != PEER_ACTIVE)
			continue;
		p->vec_unknown = s_count_unknown(node, p);
		if (p->vec_unknown < NODE_MAX_VEC_UNKNOWN / 2) {
			p->digest_soon = false;
			p->resync = true;
		}
	}
}

void repl_tick(node_t *node)
{
	int64_t now = node_now();

	s_judge_all(node, now, false);
	for (size_t i = 0; i < node->n_peers; i++) {
		peer_t *p = node->peers[i];

		if (p->digest_at_ms && now >= p->digest_at_ms &&
		    p->state == PEER_ACTIVE) {
			p->digest_at_ms = 0; /* a resumed session's digest */
			p->resync = true;
			node->vec_dirty = true;
		}
	}
	if (!node->next_full_ms) /* a session's start reconciles itself */
		node->next_full_ms = now + NODE_FULL_VECTOR_MS;
	if (now >= node->next_full_ms) {
		/* the safety net: changes are sent as they happen and a
		 * vector that could not be queued is reconciled, but a
		 * message lost with a connection would leave a peer behind
		 * until that author writes again; so, every round, one peer
		 * at random hears our digest (~0.7 KB, whatever the number
		 * of feeds), and the ranges that differ are exchanged; a
		 * peer without digests hears our whole vector (the number
		 * of feeds x ~40 B) */
		peer_t *p = s_random_active(node);

		if (p) {
			p->resync = true;
			node->vec_dirty = true;
		}
		node->next_full_ms = now + NODE_FULL_VECTOR_MS +
				     randombytes_uniform(NODE_FULL_VECTOR_MS / 4);
	}
	if (now >= node->next_round_ms) {
		/* the round: changed vector entries (a path that forgot to
		 * mark them), pull retries, expired requests */
		repl_vec_sweep(node, NODE_ROUND_SWEEP_FEEDS);
		s_digest_soon(node);
		node->vec_dirty = true;
		node->pull_dirty = true;
		store_expire_requests(node->store, node_wall_ms());
		if (node->req_retry_ms &&
		    now - node->req_retry_ms > NODE_REQ_RETRY_MS)
			node->req_retry_ms = 0;
		/* not once: a peer that sent it lately does not yet again */
		if (node->req_retry_ms) {
			for (size_t i = 0; i < node->n_peers; i++)
				if (node->peers[i]->state == PEER_ACTIVE)
					repl_send_request_ids(node,
							      node->peers[i]);
		}
		node->next_round_ms = now + NODE_ROUND_MIN_MS +
				      randombytes_uniform(NODE_ROUND_JITTER_MS);
	}
	for (size_t i = 0; i < node->n_peers; i++)
		if (node->peers[i]->n_req_todo)
			repl_pump_requests(node, node->peers[i]);
	repl_send_vectors(node);
	repl_pull_all(node);
}
