/*
 * sim_repl: a node's replication, request flooding and safety net as
 * the simulator runs them. Each rule is modelled on the node's code and
 * names the function it comes from; the simulator calls the node's own
 * encoders for every message (sim_wire.c) and node/net/digest.c for the
 * digests, but not node_repl.c itself, which is tied to zloop, zhashx
 * and SQLite.
 *
 * What differs from node_repl.c, on purpose:
 * - the safety net is the range digest (the node's whole vector to one
 *   random peer every NODE_FULL_VECTOR_MS..+1/4, which the digest
 *   replaces; and on a new session instead of the whole vector, at once
 *   for one new session per NODE_RESUME_DIGEST_MS, as the node): the
 *   digest goes to one random peer; the peer answers with a vector of all
 *   its entries in the ranges that differ (vector-repair); the first side
 *   answers with its entries there that are ahead of those;
 * - per-peer vector state is bounded: a peer is taken to hold what we
 *   hold when its session starts, until a digest or vector says more;
 * - credit is counted (its messages) but never runs out: at these rates
 *   a peer never has NODE_CREDIT_INITIAL records in flight;
 * - s_author_tells reads the author's sessions as they are, where the
 *   node reads the author's last peers message (sent within
 *   NODE_PEERS_EVERY_MS of a change);
 * - an entry is looked at for a vector when it changes (ours rose, or a
 *   peer said it holds less), not at every round: the node's round
 *   re-reads all its feeds, which finds nothing new unless a session
 *   changed; the model looks at all of them again only on the node that
 *   comes back, so an entry held back for a peer because its author
 *   told it, whose author then went offline, waits for the digest;
 * - a resumed session starts from what we sent the peer (sent), where the
 *   node starts from what its pongs acknowledged: changes sent into a
 *   link about to drop are told again by the node, in the model only
 *   by the digest that follows; and a node that comes back has
 *   restarted (it remembers no session; its peers do).
 *
 * Layout: per-node lists; vectors; pulling; serving and receiving
 * records; requests; the digest; timers.
 */
#include "node/sim/sim_int.h"

#include "proto/mem.h"

#include <stdlib.h>
#include <string.h>

/* ---- per-node lists ------------------------------------------------------ */

static void s_push(uint32_t **v, uint32_t *n, uint32_t *alloc, uint32_t x)
{
	for (uint32_t i = 0; i < *n; i++)
		if ((*v)[i] == x)
			return;
	if (*n == *alloc) {
		*alloc = *alloc ? *alloc * 2 : 8;
		*v = xreallocarray(*v, *alloc, sizeof(**v));
	}
	(*v)[(*n)++] = x;
}

static sim_end_t *s_my(sim_t *s, uint32_t link, uint32_t node)
{
	return &s->links[link].end[sim_end_of(&s->links[link], node)];
}

/* a's entry may need telling to some peer; vec: node->vec_dirty too */
static void s_dirty(sim_t *s, uint32_t node, uint32_t a, bool vec)
{
	sim_node_t *n = &s->nodes[node];

	if (!n->is_dirty[a]) {
		n->is_dirty[a] = true;
		if (n->n_dirty == n->a_dirty) {
			n->a_dirty = n->a_dirty ? n->a_dirty * 2 : 16;
			n->dirty = xreallocarray(n->dirty, n->a_dirty,
						 sizeof(*n->dirty));
		}
		n->dirty[n->n_dirty++] = a;
	}
	if (vec)
		n->vec_dirty = true;
}

void sim_repl_mark_all_dirty(sim_t *s, uint32_t node)
{
	for (uint32_t a = 0; a < s->n_active; a++)
		s_dirty(s, node, a, true);
}

/* s_pull_note, and the authors s_note_all looks at again each round */
static void s_note(sim_t *s, uint32_t node, uint32_t a)
{
	sim_node_t *n = &s->nodes[node];

	s_push(&n->notes, &n->n_notes, &n->a_notes, a);
	s_push(&n->claims, &n->n_claims, &n->a_claims, a);
}

static bool s_distrusted(sim_end_t *d, uint32_t a, int64_t now)
{
	for (uint32_t i = 0; i < d->n_distrust; i++)
		if (d->distrust[i].a == a) {
			if (d->distrust[i].until > now)
				return true;
			d->distrust[i] = d->distrust[--d->n_distrust];
			return false;
		}
	return false;
}

/* node_repl.c: s_distrust — the claim dropped, its word not taken */
static void s_distrust(sim_t *s, sim_end_t *d, uint32_t a)
{
	uint32_t i;

	d->their[a] = 0;
	for (i = 0; i < d->n_distrust && d->distrust[i].a != a; i++)
		;
	if (i == d->n_distrust) {
		d->distrust = xreallocarray(d->distrust, d->n_distrust + 1,
					    sizeof(*d->distrust));
		d->n_distrust++;
	}
	d->distrust[i] = (struct sim_distrust){a, s->now + NODE_DISTRUST_MS};
}

/* ---- vectors ------------------------------------------------------------- */

/* node_repl.c: s_author_tells — a's author is our peer and has p (the
 * other end of link) as a peer: it tells p itself */
static bool s_author_tells(sim_t *s, uint32_t node, uint32_t a, uint32_t link)
{
	uint32_t author = s->feeds[a].node;
	uint32_t p =
		sim_peer(&s->links[link], sim_end_of(&s->links[link], node));
	const sim_node_t *an = &s->nodes[author];
	bool ours = false, theirs = false;

	if (author == p || author == node)
		return false;
	for (uint32_t i = 0; i < an->deg; i++) {
		const sim_link_t *l = &s->links[an->links[i]];
		uint32_t q = sim_peer(l, sim_end_of(l, author));

		if (q == node && l->end[sim_end_of(l, node)].active)
			ours = true;
		if (q == p && l->end[sim_end_of(l, author)].active)
			theirs = true;
	}
	return ours && theirs;
}

static void s_send_entries(sim_t *s, uint32_t node, uint32_t link, int kind,
			   uint32_t *ea, uint16_t *ed, uint32_t n,
			   uint64_t mask, bool back)
{
	sim_msg_t *m = sim_msg_new(kind);

	m->ea = ea;
	m->ed = ed;
	m->n = n;
	m->mask = mask;
	m->back = back;
	sim_send(s, link, sim_end_of(&s->links[link], node), m,
		 sim_wire_vector(s, node, ea, ed, n, mask));
}

/* node_repl.c: s_lazy — a record of a feed we held, taken alone, waits
 * for the lazy timer (its parent in the push tree pushes it) */
static bool s_lazy(sim_t *s, uint32_t node, uint32_t a)
{
	sim_node_t *n = &s->nodes[node];

	if (n->lazy_now || n->step[a] != 1 || n->have[a] < 2 ||
	    s->feeds[a].node == node)
		return false;
	if (!n->is_lazy[a]) {
		n->is_lazy[a] = true;
		s_push(&n->lazy, &n->n_lazy, &n->a_lazy, a);
	}
	return true;
}

/* node_repl.c: s_send_vector — entries changed since we told the peer,
 * unless it holds as much (said so, or we pushed it), hears it from the
 * author, or waits for the lazy timer */
static void s_send_vector(sim_t *s, uint32_t node, uint32_t link)
{
	sim_node_t *n = &s->nodes[node];
	sim_end_t *d = s_my(s, link, node);
	uint32_t *ea = xcalloc(n->n_dirty + 1, sizeof(*ea)), k = 0;
	uint16_t *ed = xcalloc(n->n_dirty + 1, sizeof(*ed));

	for (uint32_t i = 0; i < n->n_dirty; i++) {
		uint32_t a = n->dirty[i];
		uint16_t h = n->have[a];

		if (d->sent[a] == h || d->their[a] >= h || d->push_to[a] >= h ||
		    s_author_tells(s, node, a, link) || s_lazy(s, node, a))
			continue;
		d->sent[a] = h;
		/* node_repl.c: s_lazy_pick — at the lazy timer, each peer
		 * waiting for an entry that came by push hears it with
		 * probability NODE_LAZY_FANOUT / their number */
		if (n->lazy_now && n->pushed[a] &&
		    s->lazy_cnt[a] > NODE_LAZY_FANOUT &&
		    sim_uniform(s, s->lazy_cnt[a]) >= NODE_LAZY_FANOUT)
			continue;
		ea[k] = a;
		ed[k++] = h;
	}
	if (!k) {
		free(ea);
		free(ed);
		return;
	}
	s_send_entries(s, node, link, SIM_VECTOR, ea, ed, k, 0, false);
}

/* node_repl.c: s_send_vectors_now */
static void s_send_vectors_now(sim_t *s, uint32_t node)
{
	sim_node_t *n = &s->nodes[node];

	if (!n->vec_dirty)
		return;
	n->vec_dirty = false;
	for (uint32_t i = 0; i < n->deg; i++)
		if (s_my(s, n->links[i], node)->active)
			s_send_vector(s, node, n->links[i]);
	for (uint32_t i = 0; i < n->n_dirty; i++)
		n->is_dirty[n->dirty[i]] = false;
	n->n_dirty = 0;
	/* node_repl.c: s_arm_lazy */
	if (n->n_lazy && !n->lazy_armed) {
		n->lazy_armed = true;
		sim_at(s,
		       s->now + NODE_LAZY_MS / 2 +
			       sim_uniform(s, NODE_LAZY_MS / 2),
		       EV_LAZY, node, 0, NULL);
	}
}

/* node_repl.c: s_lazy_count — the peers that wait for a's entry: those
 * not told it, that do not hold as much and do not hear it from its
 * author */
static uint32_t s_lazy_count(sim_t *s, uint32_t node, uint32_t a)
{
	sim_node_t *n = &s->nodes[node];
	uint16_t h = n->have[a];
	uint32_t c = 0;

	for (uint32_t i = 0; i < n->deg; i++) {
		uint32_t link = n->links[i];
		sim_end_t *d = s_my(s, link, node);

		if (d->active && d->sent[a] != h && d->their[a] < h &&
		    d->push_to[a] < h && !s_author_tells(s, node, a, link))
			c++;
	}
	return c;
}

/* node_repl.c: s_handle_lazy — the entries held back, to a few of the
 * peers that wait for each (s_lazy_pick) */
void sim_repl_lazy(sim_t *s, uint32_t node)
{
	sim_node_t *n = &s->nodes[node];
	uint32_t k = n->n_lazy;

	n->lazy_armed = false;
	for (uint32_t i = 0; i < k; i++) {
		n->is_lazy[n->lazy[i]] = false;
		s_dirty(s, node, n->lazy[i], true);
	}
	n->n_lazy = 0;
	if (!n->online)
		return;
	for (uint32_t i = 0; i < k; i++)
		s->lazy_cnt[n->lazy[i]] = s_lazy_count(s, node, n->lazy[i]);
	n->lazy_now = true;
	s_send_vectors_now(s, node);
	n->lazy_now = false;
	for (uint32_t i = 0; i < k; i++)
		s->lazy_cnt[n->lazy[i]] = 0;
}

/* node_repl.c: repl_send_vectors — a random while, up to
 * NODE_ANNOUNCE_MS, after the first change */
static void s_send_vectors(sim_t *s, uint32_t node)
{
	sim_node_t *n = &s->nodes[node];

	if (!n->vec_dirty || n->vec_armed)
		return;
	n->vec_armed = true;
	sim_at(s, s->now + 1 + sim_uniform(s, NODE_ANNOUNCE_MS), EV_ANNOUNCE,
	       node, 0, NULL);
}

void sim_repl_announce(sim_t *s, uint32_t node)
{
	s->nodes[node].vec_armed = false;
	if (s->nodes[node].online)
		s_send_vectors_now(s, node);
}

/* node_repl.c: repl_on_vector (vector and vector-repair alike) */
static void s_on_entries(sim_t *s, uint32_t node, uint32_t link,
			 const sim_msg_t *m)
{
	sim_node_t *n = &s->nodes[node];
	sim_end_t *d = s_my(s, link, node);

	for (uint32_t i = 0; i < m->n; i++) {
		uint32_t a = m->ea[i];

		d->push_to[a] = 0; /* it has it elsewhere: no pushes */
		d->their[a] = m->ed[i];
		if (m->ed[i] > n->have[a])
			s_note(s, node, a);
		else if (m->ed[i] < n->have[a])
			s_dirty(s, node, a, false); /* told at the next */
	}
}

/* ---- pulling ------------------------------------------------------------- */

static sim_up_t *s_up_of(sim_node_t *n, uint32_t a)
{
	for (uint32_t i = 0; i < n->n_ups; i++)
		if (n->ups[i].a == a)
			return &n->ups[i];
	return NULL;
}

/* node_repl.c: s_upstream_end */
static void s_up_end(sim_t *s, uint32_t node, sim_up_t *u, bool again)
{
	sim_node_t *n = &s->nodes[node];
	uint32_t a = u->a;

	*u = n->ups[--n->n_ups];
	if (again)
		s_note(s, node, a);
}

static bool s_delivers(const sim_end_t *d, int64_t now)
{
	return d->last_delivered_ms &&
	       now - d->last_delivered_ms < NODE_DELIVERED_MS;
}

/* node_repl.c: s_rank */
static int s_rank(sim_t *s, uint32_t link, uint32_t node, uint32_t a)
{
	const sim_link_t *l = &s->links[link];

	if (sim_peer(l, sim_end_of(l, node)) == s->feeds[a].node)
		return 2;
	return s_delivers(&l->end[sim_end_of(l, node)], s->now);
}

/* node_repl.c: s_best_upstream — the author alone when it is our peer
 * and claims more, unless it failed to deliver that feed; else who
 * delivers, then the highest claim; a distrusted one last */
static uint32_t s_best(sim_t *s, uint32_t node, uint32_t a, int *ret_rank)
{
	sim_node_t *n = &s->nodes[node];
	uint32_t best = UINT32_MAX, last = UINT32_MAX;
	uint16_t have = n->have[a], best_seq = have, last_seq = have;
	int best_rank = -1;

	for (uint32_t i = 0; i < n->deg; i++) {
		const sim_link_t *l = &s->links[n->links[i]];
		const sim_end_t *d = &l->end[sim_end_of(l, node)];

		if (d->active &&
		    sim_peer(l, sim_end_of(l, node)) == s->feeds[a].node &&
		    !s_distrusted(s_my(s, n->links[i], node), a, s->now) &&
		    d->their[a] > have) {
			*ret_rank = 2;
			return n->links[i];
		}
	}
	for (uint32_t i = 0; i < n->deg; i++) {
		sim_end_t *d = s_my(s, n->links[i], node);
		int rank;

		if (!d->active || d->their[a] <= have)
			continue;
		if (s_distrusted(d, a, s->now)) {
			if (d->their[a] > last_seq)
				last = n->links[i], last_seq = d->their[a];
			continue;
		}
		rank = s_delivers(d, s->now);
		if (rank > best_rank ||
		    (rank == best_rank && rank == 1 &&
		     d->serve_rate > s_my(s, best, node)->serve_rate) ||
		    (rank == best_rank &&
		     (rank != 1 ||
		      d->serve_rate == s_my(s, best, node)->serve_rate) &&
		     d->their[a] > best_seq)) {
			best = n->links[i];
			best_seq = d->their[a];
			best_rank = rank;
		}
	}
	if (best == UINT32_MAX && last != UINT32_MAX) {
		*ret_rank = -1;
		return last;
	}
	*ret_rank = best_rank;
	return best;
}

/* node_repl.c: s_takes_over */
static bool s_takes_over(sim_t *s, uint32_t node, const sim_up_t *u,
			 uint32_t link, int rank, bool *ret_fault)
{
	sim_end_t *cur_d = s_my(s, u->link, node);
	int cur;

	if (u->link == link || u->got >= u->need)
		return false;
	cur = s_distrusted(cur_d, u->a, s->now)
		      ? -1
		      : s_rank(s, u->link, node, u->a);
	if (rank <= cur)
		return false;
	*ret_fault = cur < 0 || u->got > 0;
	return *ret_fault || s->now - u->started_ms >= NODE_PREEMPT_MS;
}

static void s_arm_tick(sim_t *s, uint32_t node)
{
	sim_node_t *n = &s->nodes[node];
	int64_t ph = n->phase_ms, k;

	if (n->tick_armed)
		return;
	n->tick_armed = true;
	k = (s->now - ph) / NODE_TICK_MS + 1;
	sim_at(s, ph + k * NODE_TICK_MS, EV_TICK, node, 0, NULL);
}

/* node_repl.c: s_pull */
static void s_pull(sim_t *s, uint32_t node, uint32_t a)
{
	sim_node_t *n = &s->nodes[node];
	sim_up_t *u = s_up_of(n, a);
	uint32_t link, claim;
	bool fault = false;
	sim_msg_t *m;
	int rank;

	if (s->feeds[a].node == node)
		return;
	link = s_best(s, node, a, &rank);
	if (link == UINT32_MAX)
		return;
	if (u && !s_takes_over(s, node, u, link, rank, &fault))
		return;
	if (u) {
		uint32_t was = u->link;

		s_up_end(s, node, u, false);
		if (fault)
			s_distrust(s, s_my(s, was, node), a);
	}
	if (n->n_ups == n->a_ups) {
		n->a_ups = n->a_ups ? n->a_ups * 2 : 8;
		n->ups = xreallocarray(n->ups, n->a_ups, sizeof(*n->ups));
	}
	u = &n->ups[n->n_ups++];
	claim = s_my(s, link, node)->their[a] - n->have[a];
	*u = (sim_up_t){.a = a,
			.link = link,
			.from = n->have[a] + 1,
			.started_ms = s->now,
			.deadline_ms = s->now + NODE_FIRST_RECORDS_MS,
			.first_batch_ms = s->now + NODE_FIRST_BATCH_MS,
			.need = claim < NODE_PULL_MIN_RECORDS
					? claim
					: NODE_PULL_MIN_RECORDS};
	sim_at(s, s->now + NODE_FIRST_BATCH_MS, EV_FIRST_BATCH, node, 0, NULL);
	s_arm_tick(s, node);
	m = sim_msg_new(SIM_WANT);
	m->a = a;
	m->from = u->from;
	/* no more than it claims */
	m->count = claim < NODE_WANT_RECORDS ? claim : NODE_WANT_RECORDS;
	sim_send(s, link, sim_end_of(&s->links[link], node), m,
		 sim_wire_want(s, a, sim_seq(s, a, u->from)));
}

/* node_repl.c: repl_pull_all */
static void s_pull_all(sim_t *s, uint32_t node)
{
	sim_node_t *n = &s->nodes[node];

	while (n->n_notes && n->online)
		s_pull(s, node, n->notes[--n->n_notes]);
}

/* What node.c does after each message: repl_send_vectors, pull_all */
static void s_after(sim_t *s, uint32_t node)
{
	s_send_vectors(s, node);
	s_pull_all(s, node);
}

/* ---- serving and receiving records --------------------------------------- */

/* node_repl.c: repl_on_want and s_serve_want, WIRE_MAX_BATCH_RECORDS and
 * WIRE_MAX_BATCH_BYTES a batch */
static void s_on_want(sim_t *s, uint32_t node, uint32_t link,
		      const sim_msg_t *m)
{
	uint16_t have = s->nodes[node].have[m->a];
	uint32_t left = m->count, next = m->from;
	const sim_feed_t *f = &s->feeds[m->a];
	int e = sim_end_of(&s->links[link], node);

	while (next <= have && left) {
		uint32_t upto = next, bytes = 0;
		sim_msg_t *r;

		while (upto <= have && upto - next < WIRE_MAX_BATCH_RECORDS &&
		       upto - next < left &&
		       bytes + sim_wire_record(f->kinds[upto - 1]) <=
			       WIRE_MAX_BATCH_BYTES)
			bytes += sim_wire_record(f->kinds[upto++ - 1]);
		r = sim_msg_new(SIM_RECORDS);
		r->a = m->a;
		r->from = next;
		r->upto = upto - 1;
		sim_send(s, link, e, r, sim_wire_records(f, next, upto - 1));
		left -= upto - next;
		next = upto;
	}
	if (f->node == node && s->links[link].end[e].own_sent < next - 1)
		s->links[link].end[e].own_sent = (uint16_t)(next - 1);
	/* node_repl.c: s_subscribe — a feed it held some of, to our head */
	if (f->node != node && m->from > 1 && next > m->from &&
	    next - 1 == have)
		s->links[link].end[e].push_to[m->a] = have;
}

/* node_repl.c: s_served */
static void s_served(sim_t *s, sim_end_t *d, const sim_up_t *u, uint32_t gained)
{
	int64_t ms = s->now - u->started_ms;
	uint64_t rate =
		(uint64_t)gained * 1000 / (uint64_t)(ms > 1000 ? ms : 1000);

	if (rate * NODE_WANT_TIMEOUT_MS < NODE_PULL_MIN_RECORDS * 1000)
		return;
	d->last_delivered_ms = s->now;
	d->serve_rate = rate;
	for (uint32_t i = 0; i < d->n_distrust; i++)
		if (d->distrust[i].a == u->a)
			d->distrust[i] = d->distrust[--d->n_distrust];
}

/* node_repl.c: s_progress */
static void s_progress(sim_t *s, uint32_t node, uint32_t link, uint32_t a,
		       uint32_t added)
{
	sim_node_t *n = &s->nodes[node];
	sim_up_t *u = s_up_of(n, a);
	sim_end_t *d = s_my(s, link, node);

	if (!u || u->link != link)
		return;
	if (!u->got && added)
		u->deadline_ms = u->started_ms + NODE_WANT_TIMEOUT_MS;
	u->got += added;
	if (n->have[a] + 1u >= u->from + (uint32_t)NODE_WANT_RECORDS ||
	    n->have[a] >= d->their[a]) {
		s_served(s, d, u, n->have[a] + 1u - u->from);
		s_up_end(s, node, u, true);
	}
}

/* node_repl.c: s_prune — pushed records we held: our head tells the
 * parent to stop; not to the author nor to our upstream */
static void s_prune(sim_t *s, uint32_t node, uint32_t link, uint32_t a)
{
	sim_node_t *n = &s->nodes[node];
	sim_up_t *u = s_up_of(n, a);
	uint32_t *ea;
	uint16_t *ed;

	if (!n->have[a] ||
	    sim_peer(&s->links[link], sim_end_of(&s->links[link], node)) ==
		    s->feeds[a].node ||
	    (u && u->link == link))
		return;
	ea = xcalloc(1, sizeof(*ea));
	ed = xcalloc(1, sizeof(*ed));
	ea[0] = a;
	ed[0] = n->have[a];
	s_send_entries(s, node, link, SIM_VECTOR, ea, ed, 1, 0, false);
}

/* node_repl.c: s_push_new — a record taken alone, pushed to the peers in
 * step that pulled the feed from us; a batch, to none (they pull) */
static void s_push_new(sim_t *s, uint32_t node, uint32_t from, uint32_t a,
		       uint32_t added)
{
	sim_node_t *n = &s->nodes[node];
	uint16_t h = n->have[a];

	for (uint32_t i = 0; i < n->deg; i++) {
		uint32_t link = n->links[i];
		sim_end_t *e = s_my(s, link, node);
		sim_msg_t *m;

		if (!e->push_to[a])
			continue;
		if (link == from) {
			e->push_to[a] = h;
			continue;
		}
		if (added != 1 || e->push_to[a] + 1u != h || !e->active) {
			e->push_to[a] = 0;
			continue;
		}
		m = sim_msg_new(SIM_RECORDS);
		m->a = a;
		m->from = m->upto = h;
		sim_send(s, link, sim_end_of(&s->links[link], node), m,
			 sim_wire_records(&s->feeds[a], h, h));
		e->push_to[a] = h;
	}
}

/* node_repl.c: repl_on_records with s_sender_holds: stored only when it
 * extends the feed; credit back for every batch; a record taken alone
 * pushed down the push tree, pushed records we held prune it */
static void s_on_records(sim_t *s, uint32_t node, uint32_t link,
			 const sim_msg_t *m)
{
	sim_node_t *n = &s->nodes[node];
	sim_end_t *d = s_my(s, link, node);
	uint32_t a = m->a, added = 0, dups = 0;
	uint16_t old = n->have[a];
	sim_msg_t *c = sim_msg_new(SIM_CREDIT);

	for (uint32_t x = m->from; x <= m->upto; x++) {
		if (x == n->have[a] + 1u) {
			n->have[a]++;
			added++;
		} else if (x <= n->have[a]) {
			s->r->duplicates++;
			dups++;
		}
	}
	c->count = m->upto - m->from + 1;
	sim_send(s, link, sim_end_of(&s->links[link], node), c,
		 sim_wire_credit(c->count));
	if (added) {
		digest_update(&n->dg, s->nodes[s->feeds[a].node].key,
			      sim_seq(s, a, old), sim_seq(s, a, n->have[a]));
		sim_up_t *u = s_up_of(n, a);

		s->r->deliveries += added;
		n->step[a] = (uint16_t)added;
		/* node_repl.c: s_took */
		n->pushed[a] = !(u && u->link == link);
		s_dirty(s, node, a, true);
		s_progress(s, node, link, a, added);
	}
	if (d->sent[a] < (m->upto < n->have[a] ? m->upto : n->have[a]))
		d->sent[a] =
			(uint16_t)(m->upto < n->have[a] ? m->upto : n->have[a]);
	if (m->upto > n->have[a] &&
	    (n->have[a] ||
	     sim_peer(&s->links[link], sim_end_of(&s->links[link], node)) ==
		     s->feeds[a].node)) {
		if (d->their[a] < m->upto)
			d->their[a] = (uint16_t)m->upto;
		s_note(s, node, a);
	}
	if (dups && !added)
		s_prune(s, node, link, a);
	if (added)
		s_push_new(s, node, link, a, added);
}

/* A record of our own (node_feed.c, node_repl.c: repl_pushed_own): pushed
 * to each peer in step with us, then the others hear our vector at once */
void sim_repl_write(sim_t *s, uint32_t node, int kind)
{
	sim_node_t *n = &s->nodes[node];
	uint32_t a = sim_active_of(s, node);
	sim_feed_t *f = &s->feeds[a];
	uint16_t d;

	if (f->n == f->alloc) {
		f->alloc = f->alloc ? f->alloc * 2 : 16;
		f->kinds = xrealloc(f->kinds, f->alloc);
	}
	f->kinds[f->n++] = (uint8_t)kind;
	d = ++n->have[a];
	n->step[a] = 1;
	n->pushed[a] = false;
	digest_update(&n->dg, n->key, sim_seq(s, a, d - 1), sim_seq(s, a, d));
	s_dirty(s, node, a, true);
	for (uint32_t i = 0; i < n->deg; i++) {
		sim_end_t *e = s_my(s, n->links[i], node);
		uint16_t held =
			e->their[a] > e->own_sent ? e->their[a] : e->own_sent;
		sim_msg_t *m;

		if (!e->active || held + 1u != d)
			continue;
		m = sim_msg_new(SIM_RECORDS);
		m->a = a;
		m->from = m->upto = d;
		sim_send(s, n->links[i],
			 sim_end_of(&s->links[n->links[i]], node), m,
			 sim_wire_records(f, d, d));
		e->own_sent = d;
		e->sent[a] = d;
	}
	s_send_vectors_now(s, node);
}

/* ---- requests (node_flood.c) --------------------------------------------- */

static bool s_bit(const uint8_t *map, uint32_t i)
{
	return (map[i / 8] >> (i % 8)) & 1;
}

static void s_req_grow(sim_t *s)
{
	uint32_t cap = s->a_reqs ? s->a_reqs * 2 : 256;
	uint32_t bytes = (cap + 7) / 8, accept = s->p.accept_labs;

	for (uint32_t i = 0; i < s->p.nodes; i++) {
		sim_node_t *n = &s->nodes[i];

		n->reqs = xrealloc(n->reqs, bytes);
		memset(n->reqs + s->req_bytes, 0, bytes - s->req_bytes);
	}
	s->req_t0 = xreallocarray(s->req_t0, cap, sizeof(*s->req_t0));
	s->req_last = xreallocarray(s->req_last, cap, sizeof(*s->req_last));
	s->req_reached = xreallocarray(s->req_reached, cap, sizeof(uint32_t));
	s->req_accepts = xreallocarray(
		s->req_accepts, cap, (accept ? accept : 1) * sizeof(uint32_t));
	s->req_bytes = bytes;
	s->a_reqs = cap;
}

static bool s_accepts(const sim_t *s, uint32_t req, uint32_t node)
{
	const uint32_t *acc = (const uint32_t *)s->req_accepts +
			      (size_t)req * s->p.accept_labs;

	for (uint32_t i = 0; i < s->p.accept_labs; i++)
		if (acc[i] == node)
			return true;
	return false;
}

static void s_send_request(sim_t *s, uint32_t node, uint32_t link, uint32_t req,
			   bool pumped)
{
	sim_msg_t *m = sim_msg_new(SIM_REQUEST);

	m->req = req;
	m->pumped = pumped;
	sim_send(s, link, sim_end_of(&s->links[link], node), m,
		 sim_wire_request());
}

/* node_flood.c: s_take_request, s_forward_request — on first sight,
 * stored, sent to every other peer, and the lab decides: labs that can
 * serve it sign an accept (jobs_accept.c); with every_lab_answers the
 * others sign a decline */
static void s_take_request(sim_t *s, uint32_t node, uint32_t from_link,
			   uint32_t req, bool flooded)
{
	sim_node_t *n = &s->nodes[node];

	if (s_bit(n->reqs, req))
		return;
	n->reqs[req / 8] |= (uint8_t)(1u << (req % 8));
	if (flooded && from_link != UINT32_MAX)
		sim_flood_arrival(s, req);
	for (uint32_t i = 0; i < n->deg; i++)
		if (n->links[i] != from_link &&
		    s_my(s, n->links[i], node)->active)
			s_send_request(s, node, n->links[i], req, false);
	if (s_accepts(s, req, node))
		sim_repl_write(s, node, WIRE_KIND_ACCEPT);
	else if (s->p.every_lab_answers)
		sim_repl_write(s, node, WIRE_KIND_DECLINE);
}

void sim_repl_submit(sim_t *s)
{
	uint32_t req, origin;

	if (!s->writing)
		return;
	if (s->n_reqs == s->a_reqs)
		s_req_grow(s);
	req = s->n_reqs++;
	sim_request_start(s, req);
	do
		origin = sim_uniform(s, s->p.nodes);
	while (!s->nodes[origin].online);
	s_take_request(s, origin, UINT32_MAX, req, true);
}

/* node_flood.c: repl_on_request_ids — send what it lacks of ours */
static void s_on_request_ids(sim_t *s, uint32_t node, uint32_t link,
			     const sim_msg_t *m)
{
	const uint8_t *mine = s->nodes[node].reqs;

	for (uint32_t r = 0; r < s->n_reqs; r++)
		if (s_bit(mine, r) && (r >= m->count || !s_bit(m->reqs, r)))
			s_send_request(s, node, link, r, true);
}

/* node_flood.c: repl_send_request_ids — the ids of unexpired requests:
 * a day's worth (the default expiry is 24 h) besides the window's */
static void s_send_request_ids(sim_t *s, uint32_t node, uint32_t link)
{
	sim_msg_t *m = sim_msg_new(SIM_REQUEST_IDS);
	uint32_t held = (uint32_t)s->p.requests_per_day;

	for (uint32_t r = 0; r < s->n_reqs; r++)
		held += s_bit(s->nodes[node].reqs, r);
	m->reqs = xzalloc(s->req_bytes + 1);
	if (s->req_bytes)
		memcpy(m->reqs, s->nodes[node].reqs, s->req_bytes);
	m->count = s->n_reqs; /* requests the bitmap speaks of */
	sim_send(s, link, sim_end_of(&s->links[link], node), m,
		 sim_wire_request_ids(held));
}

/* ---- the digest ---------------------------------------------------------- */

static void s_send_digest(sim_t *s, uint32_t node, uint32_t link)
{
	sim_msg_t *m = sim_msg_new(SIM_DIGEST);

	m->dg = xmalloc(sizeof(*m->dg));
	*m->dg = s->nodes[node].dg;
	sim_send(s, link, sim_end_of(&s->links[link], node), m,
		 sim_wire_digest(m->dg));
}

/* The entries of node for the active authors in the ranges of mask, in
 * author order; with ahead_of (a list made here, so in the same order),
 * only those ahead of what it listed. */
static uint32_t s_range_entries(sim_t *s, uint32_t node, uint64_t mask,
				const sim_msg_t *ahead_of, uint32_t **ret_a,
				uint16_t **ret_d)
{
	uint32_t k = 0, j = 0;

	*ret_a = xcalloc(s->n_active + 1, sizeof(**ret_a));
	*ret_d = xcalloc(s->n_active + 1, sizeof(**ret_d));
	for (uint32_t a = 0; a < s->n_active; a++) {
		uint16_t h = s->nodes[node].have[a];

		if (!digest_in(mask, s->nodes[s->feeds[a].node].key))
			continue;
		if (ahead_of) {
			while (j < ahead_of->n && ahead_of->ea[j] < a)
				j++;
			if (j < ahead_of->n && ahead_of->ea[j] == a &&
			    ahead_of->ed[j] >= h)
				continue;
		}
		(*ret_a)[k] = a;
		(*ret_d)[k++] = h;
	}
	return k;
}

/* A digest from the peer: our entries of every range that differs. */
static void s_on_digest(sim_t *s, uint32_t node, uint32_t link,
			const sim_msg_t *m)
{
	uint64_t mask = digest_diff(m->dg, &s->nodes[node].dg);
	sim_end_t *d = s_my(s, link, node);
	uint32_t *ea, n;
	uint16_t *ed;

	if (!mask)
		return;
	n = s_range_entries(s, node, mask, NULL, &ea, &ed);
	for (uint32_t i = 0; i < n; i++)
		d->sent[ea[i]] = ed[i];
	s_send_entries(s, node, link, SIM_REPAIR, ea, ed, n, mask, false);
}

/* Its entries of those ranges: note what it has more of, answer with
 * ours that are ahead of its. */
static void s_on_repair(sim_t *s, uint32_t node, uint32_t link,
			const sim_msg_t *m)
{
	sim_end_t *d = s_my(s, link, node);
	uint32_t *ea, n;
	uint16_t *ed;

	s_on_entries(s, node, link, m);
	if (m->back)
		return;
	n = s_range_entries(s, node, m->mask, m, &ea, &ed);
	if (!n) {
		free(ea);
		free(ed);
		return;
	}
	for (uint32_t i = 0; i < n; i++)
		d->sent[ea[i]] = ed[i];
	s_send_entries(s, node, link, SIM_REPAIR, ea, ed, n, 0, true);
}

/* ---- dispatch and sessions ----------------------------------------------- */

void sim_repl_on_msg(sim_t *s, sim_msg_t *m)
{
	uint32_t node = s->links[m->link].n[m->to];

	switch (m->kind) {
	case SIM_VECTOR:
		s_on_entries(s, node, m->link, m);
		break;
	case SIM_REPAIR:
		s_on_repair(s, node, m->link, m);
		break;
	case SIM_WANT:
		s_on_want(s, node, m->link, m);
		break;
	case SIM_RECORDS:
		s_on_records(s, node, m->link, m);
		break;
	case SIM_REQUEST:
		s_take_request(s, node, m->link, m->req, !m->pumped);
		break;
	case SIM_REQUEST_IDS:
		s_on_request_ids(s, node, m->link, m);
		break;
	case SIM_DIGEST:
		s_on_digest(s, node, m->link, m);
		break;
	default:
		break; /* credit, peers: nothing the model needs */
	}
	s_after(s, node);
}

/* A new session (repl_on_active): a digest instead of the whole vector,
 * and our request ids; a resumed one: the changes since the last one as
 * a vector, and the digest later */
void sim_repl_on_active(sim_t *s, uint32_t link, int e)
{
	sim_link_t *l = &s->links[link];
	uint32_t node = l->n[e];

	sim_node_t *n = &s->nodes[node];
	uint32_t arg = l->session << 1 | (uint32_t)e;

	if (l->end[e].resumed) {
		s_send_vector(s, node, link);
		sim_at(s,
		       s->now + NODE_RESUME_DIGEST_MS +
			       sim_uniform(s, NODE_RESUME_DIGEST_MS / 2),
		       EV_RESUME_DIGEST, link, arg, NULL);
	} else if (n->session_digest &&
		   s->now - n->session_digest_ms < NODE_RESUME_DIGEST_MS) {
		/* another new session's digest went just now; our own
		 * head now (node_repl.c: s_send_own_head) */
		if (n->active != SIM_NO_ACTIVE && n->have[n->active]) {
			uint32_t *ea = xcalloc(1, sizeof(*ea));
			uint16_t *ed = xcalloc(1, sizeof(*ed));

			ea[0] = n->active;
			ed[0] = n->have[n->active];
			s_send_entries(s, node, link, SIM_VECTOR, ea, ed, 1, 0,
				       false);
		} else {
			/* a feed that did not grow: nothing to pull */
			sim_send(s, link, e, sim_msg_new(SIM_VECTOR),
				 sim_wire_head(s, node));
		}
		sim_at(s,
		       n->session_digest_ms + NODE_RESUME_DIGEST_MS +
			       sim_uniform(s, NODE_RESUME_DIGEST_MS / 2),
		       EV_RESUME_DIGEST, link, arg, NULL);
	} else {
		s_send_digest(s, node, link);
		n->session_digest = true;
		n->session_digest_ms = s->now;
	}
	s_send_request_ids(s, node, link);
}

/* A resumed session's digest is due (repl_tick's digest_at_ms) */
void sim_repl_resume_digest(sim_t *s, uint32_t link, uint32_t arg)
{
	sim_link_t *l = &s->links[link];
	int e = (int)(arg & 1);

	if (l->up && l->session == arg >> 1 && l->end[e].active)
		s_send_digest(s, l->n[e], link);
}

/* The entries told the peer at link (sent) that are not ours now: looked
 * at for a vector (s_send_vector from the number told) */
void sim_repl_mark_untold(sim_t *s, uint32_t node, uint32_t link)
{
	const sim_end_t *d = s_my(s, link, node);

	for (uint32_t a = 0; a < s->n_active; a++)
		if (d->sent[a] != s->nodes[node].have[a])
			s_dirty(s, node, a, true);
}

/* node_repl.c: repl_forget_peer — its upstreams end; all looked at again */
void sim_repl_forget(sim_t *s, uint32_t link, int e)
{
	uint32_t node = s->links[link].n[e];
	sim_node_t *n = &s->nodes[node];

	for (uint32_t i = 0; i < n->n_ups;)
		if (n->ups[i].link == link)
			s_up_end(s, node, &n->ups[i], false);
		else
			i++;
	s->links[link].end[e].own_sent = 0;
	s->links[link].end[e].ended = true; /* repl_forget_peer: resume_told */
	s->links[link].end[e].ended_ms = s->now;
	for (uint32_t i = 0; i < n->n_claims; i++)
		s_push(&n->notes, &n->n_notes, &n->a_notes, n->claims[i]);
}

/* ---- timers -------------------------------------------------------------- */

/* node_repl.c: s_alternative */
static bool s_alternative(sim_t *s, uint32_t node, uint32_t link, uint32_t a)
{
	sim_node_t *n = &s->nodes[node];
	uint16_t claim = s_my(s, link, node)->their[a];

	for (uint32_t i = 0; i < n->deg; i++) {
		sim_end_t *d = s_my(s, n->links[i], node);

		if (n->links[i] != link && d->active &&
		    !s_distrusted(d, a, s->now) && d->their[a] >= claim)
			return true;
	}
	return false;
}

/* node_repl.c: s_stalled */
static void s_stalled(sim_t *s, uint32_t node, sim_up_t *u)
{
	uint32_t link = u->link, a = u->a;

	s_up_end(s, node, u, true);
	s_distrust(s, s_my(s, link, node), a);
}

/* node_repl.c: s_judge; false when u ended */
static bool s_judge(sim_t *s, uint32_t node, sim_up_t *u)
{
	uint16_t have = s->nodes[node].have[u->a];
	uint32_t gained = have + 1u > u->from ? have + 1u - u->from : 0, due;

	if (u->first_batch_ms && s->now >= u->first_batch_ms) {
		u->first_batch_ms = 0;
		if (gained < u->need &&
		    (u->got ||
		     s_distrusted(s_my(s, u->link, node), u->a, s->now)) &&
		    s_alternative(s, node, u->link, u->a)) {
			s_stalled(s, node, u);
			return false;
		}
	}
	if (u->deadline_ms > s->now && !u->got) {
		if (s->now - u->started_ms >= NODE_PREEMPT_MS)
			s_note(s, node, u->a);
		return true;
	}
	/* the only peer claiming as much: the pull waits for it (no CPU
	 * here: a peer serving other pulls, or silent, is not modelled) */
	if (!u->got && s->now - u->started_ms < NODE_PULL_PATIENCE_MS &&
	    !s_alternative(s, node, u->link, u->a)) {
		u->deadline_ms = s->now + NODE_FIRST_RECORDS_MS / 2;
		return true;
	}
	due = u->need;
	if (u->deadline_ms > s->now)
		due = (uint32_t)(u->need * (uint64_t)(s->now - u->started_ms) /
				 NODE_WANT_TIMEOUT_MS);
	if (u->deadline_ms > s->now && gained >= due)
		return true;
	if (gained < due) {
		s_stalled(s, node, u);
		return false;
	}
	s_served(s, s_my(s, u->link, node), u, gained);
	s_up_end(s, node, u, true);
	return false;
}

/* repl_tick's s_judge_all (every tick while pulls are out), or the
 * first-batch timer's (first_only) */
void sim_repl_tick(sim_t *s, uint32_t node, bool first_only)
{
	sim_node_t *n = &s->nodes[node];

	if (!first_only)
		n->tick_armed = false;
	if (!n->online)
		return;
	for (uint32_t i = 0; i < n->n_ups;) {
		sim_up_t *u = &n->ups[i];

		if (first_only &&
		    (!u->first_batch_ms || u->first_batch_ms > s->now)) {
			i++;
			continue;
		}
		if (s_judge(s, node, u))
			i++;
	}
	if (n->n_ups)
		s_arm_tick(s, node);
	s_after(s, node);
}

/* repl_tick's round: vec_dirty and pull_dirty (s_note_all over the
 * authors some peer claimed more of) */
void sim_repl_round(sim_t *s, uint32_t node)
{
	sim_node_t *n = &s->nodes[node];

	if (!n->online)
		return;
	if (n->n_dirty)
		n->vec_dirty = true;
	for (uint32_t i = 0; i < n->n_claims;) {
		uint32_t a = n->claims[i];
		bool ahead = false;

		for (uint32_t k = 0; k < n->deg && !ahead; k++) {
			sim_end_t *d = s_my(s, n->links[k], node);

			ahead = d->active && d->their[a] > n->have[a];
		}
		if (ahead) {
			s_push(&n->notes, &n->n_notes, &n->a_notes, a);
			i++;
		} else {
			n->claims[i] = n->claims[--n->n_claims];
		}
	}
	s_after(s, node);
}

/* The safety net: our digest to one random peer (repl_tick's
 * s_random_active) */
void sim_repl_digest(sim_t *s, uint32_t node)
{
	sim_node_t *n = &s->nodes[node];
	uint32_t up = 0, k;

	if (!n->online)
		return;
	for (uint32_t i = 0; i < n->deg; i++)
		up += s_my(s, n->links[i], node)->active;
	if (!up)
		return;
	k = sim_uniform(s, up);
	for (uint32_t i = 0; i < n->deg; i++)
		if (s_my(s, n->links[i], node)->active && k-- == 0) {
			s_send_digest(s, node, n->links[i]);
			return;
		}
}
