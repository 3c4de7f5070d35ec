/*
 * sim_net: the simulated network — the overlay as nodes make it, links
 * with latency, loss and order, sessions that end and start again as
 * nodes go offline and come back, and pings.
 *
 * Topology (node_peer.c): node i names one or two random earlier nodes
 * as seeds; then, as peer exchange does, every node dials peers while it
 * has fewer than max_peers, and a node admits dialers up to
 * NODE_INBOUND_FACTOR x max_peers. Peer exchange offers peers of peers;
 * the model picks among all nodes, which makes the same degrees with a
 * little more randomness.
 *
 * Pings (node_peer.c: s_tick_one): at each NODE_TICK_MS tick a node pings
 * a peer it has heard nothing from for NODE_PING_MS since its last ping
 * or since the last message, or whose ping is unanswered that long; the
 * peer answers with a pong. A link's pings are replayed exactly by that
 * rule between the messages that cross it (sim_pings_until), at each
 * end's own tick phase, rather than as events: they are never lost.
 */
#include "node/sim/sim_int.h"

#include "proto/mem.h"

#include <stdlib.h>
#include <string.h>

/* ---- topology ---------------------------------------------------------- */

static bool s_linked(const sim_t *s, uint32_t x, uint32_t y)
{
	const sim_node_t *n = &s->nodes[x];

	for (uint32_t i = 0; i < n->deg; i++)
		if (sim_peer(&s->links[n->links[i]],
			     sim_end_of(&s->links[n->links[i]], x)) == y)
			return true;
	return false;
}

static void s_link(sim_t *s, uint32_t x, uint32_t y)
{
	sim_link_t *l;

	if (s->n_links == s->a_links) {
		s->a_links = s->a_links ? s->a_links * 2 : 1024;
		s->links =
			xreallocarray(s->links, s->a_links, sizeof(*s->links));
	}
	l = &s->links[s->n_links];
	memset(l, 0, sizeof(*l));
	l->n[0] = x;
	l->n[1] = y;
	l->lat_ms = s->p.lat_min_ms +
		    sim_uniform(s, s->p.lat_max_ms - s->p.lat_min_ms + 1);
	l->up = true;
	for (int e = 0; e < 2; e++) {
		sim_node_t *n = &s->nodes[l->n[e]];

		n->links =
			xreallocarray(n->links, n->deg + 1, sizeof(*n->links));
		n->links[n->deg++] = s->n_links;
		l->end[e].active = true;
		l->end[e].ping_at = l->end[e].pong_at = -1;
		/* links have been up a while: each end pinged at some
		 * moment of the last interval */
		l->end[e].seen_ms = -(int64_t)sim_uniform(s, NODE_PING_MS);
		l->end[e].ping_ms = l->end[e].seen_ms;
	}
	s->nodes[x].dialled++;
	s->n_links++;
}

void sim_topology(sim_t *s)
{
	uint32_t n = s->p.nodes, cap = s->p.max_peers * NODE_INBOUND_FACTOR;
	uint32_t *order = xcalloc(n, sizeof(*order));

	for (uint32_t i = 1; i < n; i++) {
		uint32_t seeds = i > 1 ? 1 + sim_uniform(s, 2) : 1;

		for (uint32_t k = 0; k < seeds; k++) {
			uint32_t y = sim_uniform(s, i);

			if (!s_linked(s, i, y) && s->nodes[y].deg < cap)
				s_link(s, i, y);
		}
	}
	for (uint32_t i = 0; i < n; i++)
		order[i] = i;
	for (uint32_t i = n - 1; i > 0; i--) {
		uint32_t j = sim_uniform(s, i + 1), t = order[i];

		order[i] = order[j];
		order[j] = t;
	}
	for (uint32_t k = 0; k < n; k++) {
		uint32_t x = order[k];

		for (int tries = 0;
		     s->nodes[x].deg < s->p.max_peers && tries < 64; tries++) {
			uint32_t y = sim_uniform(s, n);

			if (y != x && !s_linked(s, x, y) &&
			    s->nodes[y].deg < cap)
				s_link(s, x, y);
		}
	}
	free(order);
}

/* Room for cap active authors in every per-author array. */
void sim_grow_active(sim_t *s, uint32_t cap)
{
	uint32_t old = s->a_active;

	if (cap <= old)
		return;
	s->feeds = xreallocarray(s->feeds, cap, sizeof(*s->feeds));
	s->lazy_cnt = xreallocarray(s->lazy_cnt, cap, sizeof(*s->lazy_cnt));
	memset(s->lazy_cnt + old, 0, (cap - old) * sizeof(*s->lazy_cnt));
	for (uint32_t i = 0; i < s->p.nodes; i++) {
		sim_node_t *n = &s->nodes[i];

		n->have = xreallocarray(n->have, cap, sizeof(*n->have));
		n->is_dirty =
			xreallocarray(n->is_dirty, cap, sizeof(*n->is_dirty));
		n->step = xreallocarray(n->step, cap, sizeof(*n->step));
		n->is_lazy =
			xreallocarray(n->is_lazy, cap, sizeof(*n->is_lazy));
		n->pushed = xreallocarray(n->pushed, cap, sizeof(*n->pushed));
		memset(n->pushed + old, 0, (cap - old) * sizeof(bool));
		memset(n->have + old, 0, (cap - old) * sizeof(*n->have));
		memset(n->is_dirty + old, 0, (cap - old) * sizeof(bool));
		memset(n->step + old, 0, (cap - old) * sizeof(*n->step));
		memset(n->is_lazy + old, 0, (cap - old) * sizeof(bool));
	}
	for (uint32_t i = 0; i < s->n_links; i++)
		for (int e = 0; e < 2; e++) {
			sim_end_t *d = &s->links[i].end[e];

			d->their =
				xreallocarray(d->their, cap, sizeof(*d->their));
			d->sent = xreallocarray(d->sent, cap, sizeof(*d->sent));
			d->push_to = xreallocarray(d->push_to, cap,
						   sizeof(*d->push_to));
			memset(d->their + old, 0, (cap - old) * 2);
			memset(d->sent + old, 0, (cap - old) * 2);
			memset(d->push_to + old, 0, (cap - old) * 2);
		}
	s->a_active = cap;
}

/* ---- messages ----------------------------------------------------------- */

sim_msg_t *sim_msg_new(int kind)
{
	sim_msg_t *m = xzalloc(sizeof(*m));

	m->kind = kind;
	return m;
}

void sim_msg_free(sim_msg_t *m)
{
	if (!m)
		return;
	free(m->ea);
	free(m->ed);
	free(m->dg);
	free(m->reqs);
	free(m->bytes);
	free(m);
}

void sim_count(sim_t *s, uint32_t node, int kind, size_t len, bool tx)
{
	if (!s->measuring)
		return;
	if (tx) {
		s->nodes[node].tx[kind] += len;
		s->r->msgs[kind]++;
		s->r->bytes[kind] += len;
	} else {
		s->nodes[node].rx[kind] += len;
	}
}

/* Lost with a connection, as TCP loses them: what the safety net is for.
 * Pings, pongs, hellos, peers and credit are not (a lost credit would
 * only end the session, which churn models). */
bool sim_lossy(int kind)
{
	return kind != SIM_PING && kind != SIM_PONG && kind != SIM_HELLO &&
	       kind != SIM_PEERS && kind != SIM_CREDIT;
}

void sim_send(sim_t *s, uint32_t link, int e, sim_msg_t *m, size_t len)
{
	sim_link_t *l = &s->links[link];
	sim_end_t *d = &l->end[e];
	int64_t t;

	sim_count(s, l->n[e], m->kind, len, true);
	if (!l->up || (sim_lossy(m->kind) && sim_unit(s) < s->p.loss)) {
		if (l->up && s->measuring)
			s->r->lost++;
		sim_msg_free(m);
		return;
	}
	t = s->now + l->lat_ms;
	if (t < d->fifo_ms)
		t = d->fifo_ms; /* one connection: in order */
	d->fifo_ms = t;
	m->len = (uint32_t)len;
	m->link = link;
	m->to = 1 - e;
	m->session = l->session;
	sim_at(s, t, EV_MSG, link, 0, m);
}

bool sim_arrive(sim_t *s, sim_msg_t *m)
{
	sim_link_t *l = &s->links[m->link];

	if (!l->up || m->session != l->session || !l->end[m->to].active)
		return false;
	sim_pings_until(s, l, s->now);
	l->end[m->to].seen_ms = s->now;
	sim_count(s, l->n[m->to], m->kind, m->len, false);
	return true;
}

/* ---- pings --------------------------------------------------------------- */

static int64_t s_next_tick(const sim_t *s, uint32_t node, int64_t at)
{
	int64_t ph = s->nodes[node].phase_ms, k;

	k = at - ph <= 0 ? 0 : (at - ph + NODE_TICK_MS - 1) / NODE_TICK_MS;
	return ph + k * NODE_TICK_MS;
}

/* When end e's node pings next, by s_tick_one's rule. */
static int64_t s_ping_due(const sim_t *s, const sim_link_t *l, int e)
{
	const sim_end_t *d = &l->end[e];
	int64_t last = d->ping_ms > d->seen_ms ? d->ping_ms : d->seen_ms;

	if (d->ping_at >= 0)
		return INT64_MAX; /* its ping is on its way */
	if (d->ping_open)
		last = d->ping_ms;
	return s_next_tick(s, l->n[e], last + NODE_PING_MS);
}

/* The next ping event of the link: a tick's ping, a ping or pong arrival. */
static int64_t s_ping_next(const sim_t *s, const sim_link_t *l, int *ret_e,
			   int *ret_what)
{
	int64_t best = INT64_MAX;

	for (int e = 0; e < 2; e++) {
		int64_t t[3] = {s_ping_due(s, l, e), l->end[e].ping_at,
				l->end[e].pong_at};

		for (int w = 0; w < 3; w++)
			if (t[w] >= 0 && t[w] < best) {
				best = t[w];
				*ret_e = e;
				*ret_what = w;
			}
	}
	return best;
}

void sim_pings_until(sim_t *s, sim_link_t *l, int64_t t)
{
	int e = 0, what = 0;
	int64_t at;

	if (!l->up || !l->end[0].active || !l->end[1].active)
		return;
	while ((at = s_ping_next(s, l, &e, &what)) <= t) {
		sim_end_t *d = &l->end[e], *o = &l->end[1 - e];

		if (what == 0) { /* e pings */
			sim_count(s, l->n[e], SIM_PING, sim_wire_ping(false),
				true);
			d->ping_ms = at;
			d->ping_open = true;
			d->ping_at = at + l->lat_ms;
		} else if (what == 1) { /* e's ping arrives; the pong back */
			sim_count(s, l->n[1 - e], SIM_PING, sim_wire_ping(false),
				false);
			o->seen_ms = at;
			sim_count(s, l->n[1 - e], SIM_PONG, sim_wire_ping(true),
				true);
			d->ping_at = -1;
			d->pong_at = at + l->lat_ms;
		} else { /* the pong reaches e */
			sim_count(s, l->n[e], SIM_PONG, sim_wire_ping(true),
				false);
			d->seen_ms = at;
			d->ping_open = false;
			d->pong_at = -1;
		}
	}
}

/* ---- sessions ------------------------------------------------------------ */

/* When node's table, or what changed in it, is next due to go to end
 * d's peer, or -1 (node_peer.c: peer_send_peers); up: node's sessions.
 * A new session waits while the table it would get is empty. */
static int64_t s_peers_due(const sim_node_t *n, const sim_end_t *d,
			   uint32_t up)
{
	if (!d->active)
		return -1;
	if (d->peers_sent_ms < 0)
		return up > 1 ? 0 : -1;
	if (d->peers_sent_gen != n->peers_gen)
		return d->peers_sent_ms + NODE_PEERS_EVERY_MS;
	return -1;
}

/* node's sessions up */
static uint32_t s_up(const sim_t *s, const sim_node_t *n, uint32_t node)
{
	uint32_t up = 0;

	for (uint32_t i = 0; i < n->deg; i++) {
		const sim_link_t *l = &s->links[n->links[i]];

		up += l->end[sim_end_of(l, node)].active;
	}
	return up;
}

/* An EV_PEERS for node at the first time a peers message is due. */
static void s_peers_arm(sim_t *s, uint32_t node)
{
	sim_node_t *n = &s->nodes[node];
	uint32_t up = s_up(s, n, node);
	int64_t at = -1;

	for (uint32_t i = 0; i < n->deg; i++) {
		sim_link_t *l = &s->links[n->links[i]];
		int64_t due = s_peers_due(n, &l->end[sim_end_of(l, node)], up);

		if (due >= 0 && (at < 0 || due < at))
			at = due;
	}
	if (at < 0)
		return;
	if (at < s->now)
		at = s->now;
	if (n->peers_at >= 0 && n->peers_at <= at)
		return;
	n->peers_at = at;
	sim_at(s, at, EV_PEERS, node, 0, NULL);
}

/* node's table changed: the peer at link joined it or left it; news
 * for its other peers (node_peer.c: node->peers_gen). */
void sim_peers_changed(sim_t *s, uint32_t node, uint32_t link, bool joined)
{
	sim_node_t *n = &s->nodes[node];

	n->peers_gen++;
	for (uint32_t i = 0; i < n->deg; i++) {
		sim_link_t *l = &s->links[n->links[i]];
		sim_end_t *d = &l->end[sim_end_of(l, node)];

		if (n->links[i] == link || !d->active)
			continue;
		if (joined)
			d->peers_add++;
		else
			d->peers_gone++;
	}
	s_peers_arm(s, node);
}

/* The peers messages due (node_peer.c: peer_send_peers): the table, but
 * the peer it goes to, to a new session (an empty one is not sent); to
 * the others what changed, or the table when that is smaller. */
void sim_send_peers(sim_t *s, uint32_t node)
{
	sim_node_t *n = &s->nodes[node];
	uint32_t up;

	if (n->peers_at > s->now)
		return; /* an earlier event, since moved on */
	n->peers_at = -1;
	if (!n->online)
		return;
	up = s_up(s, n, node);
	for (uint32_t i = 0; i < n->deg; i++) {
		sim_link_t *l = &s->links[n->links[i]];
		sim_end_t *d = &l->end[sim_end_of(l, node)];
		int64_t due = s_peers_due(n, d, up);
		size_t full = up > 1 ? sim_wire_peers(up - 1) : 0, len = full;

		if (due < 0 || due > s->now)
			continue;
		if (d->peers_sent_ms >= 0) {
			size_t delta = d->peers_add || d->peers_gone ?
					       sim_wire_peers_delta(
						       d->peers_add,
						       d->peers_gone) :
					       0;

			len = delta < full || !full ? delta : full;
		}
		if (len)
			sim_send(s, n->links[i], sim_end_of(l, node),
				 sim_msg_new(SIM_PEERS), len);
		d->peers_sent_ms = s->now;
		d->peers_sent_gen = n->peers_gen;
		d->peers_add = d->peers_gone = 0;
	}
	s_peers_arm(s, node);
}

/* End e's node sees the session gone (node_peer.c: peer_down). */
static void s_end_down(sim_t *s, uint32_t link, int e)
{
	sim_link_t *l = &s->links[link];

	if (!l->end[e].active)
		return;
	sim_repl_forget(s, link, e);
	l->end[e].active = false;
	sim_peers_changed(s, l->n[e], link, false);
}

void sim_node_down(sim_t *s, uint32_t node)
{
	sim_node_t *n = &s->nodes[node];

	for (uint32_t i = 0; i < n->deg; i++) {
		sim_link_t *l = &s->links[n->links[i]];
		int e = sim_end_of(l, node);

		sim_pings_until(s, l, s->now);
		l->up = false;
		l->session++;
		s_end_down(s, n->links[i], e);
		/* the peer finds out when it has heard nothing for
		 * NODE_LIVENESS_MS, at one of its ticks */
		if (l->end[1 - e].active)
			sim_at(s,
			       s_next_tick(s, l->n[1 - e],
					   s->now + NODE_LIVENESS_MS + 1),
			       EV_DETECT, n->links[i], (uint32_t)(1 - e), NULL);
	}
	n->online = false;
	n->n_ups = n->n_notes = 0;
	n->peers_at = -1;
}

void sim_detect(sim_t *s, uint32_t link, int e)
{
	if (!s->links[link].up)
		s_end_down(s, link, e);
}

/* A session starts (both hellos): state as repl_on_active leaves it,
 * and what the bounded per-peer vector state assumes of a peer it has
 * not heard from: that it holds what we hold, until a digest says. */
void sim_session_up(sim_t *s, uint32_t link)
{
	sim_link_t *l = &s->links[link];

	l->session++;
	l->up = true;
	for (int e = 0; e < 2; e++) {
		sim_end_t *d = &l->end[e];
		sim_node_t *n = &s->nodes[l->n[e]];

		/* a hello from a peer still up: it restarted, reset */
		s_end_down(s, link, e);
		d->resumed = d->ended && s->now - d->ended_ms < NODE_RESUME_MS;
		d->ended = false;
		if (d->resumed) {
			/* repl_on_active: told up to where the last session
			 * left it; its vector unknown (their_vec purged) */
			memset(d->their, 0, s->n_active * sizeof(*d->their));
			sim_repl_mark_untold(s, l->n[e], link);
		} else {
			memcpy(d->their, n->have,
			       s->n_active * sizeof(*d->their));
			memcpy(d->sent, n->have,
			       s->n_active * sizeof(*d->sent));
		}
		d->own_sent = 0;
		memset(d->push_to, 0, s->n_active * sizeof(*d->push_to));
		d->n_distrust = 0;
		d->last_delivered_ms = 0;
		d->seen_ms = s->now + l->lat_ms;
		d->ping_ms = 0;
		d->ping_open = false;
		d->ping_at = d->pong_at = -1;
		d->fifo_ms = s->now;
		d->peers_sent_ms = -1; /* a new session: our table at once */
		d->peers_add = d->peers_gone = 0;
		d->active = true;
		sim_count(s, l->n[e], SIM_HELLO, sim_wire_hello(), true);
		sim_count(s, l->n[1 - e], SIM_HELLO, sim_wire_hello(), false);
	}
	for (int e = 0; e < 2; e++) {
		sim_repl_on_active(s, link, e);
		sim_peers_changed(s, l->n[e], link, true);
	}
}

void sim_node_up(sim_t *s, uint32_t node)
{
	sim_node_t *n = &s->nodes[node];

	n->online = true;
	for (uint32_t i = 0; i < n->deg; i++) {
		sim_link_t *l = &s->links[n->links[i]];

		/* it restarted: what it told its peers is forgotten */
		l->end[sim_end_of(l, node)].ended = false;

		if (s->nodes[sim_peer(l, sim_end_of(l, node))].online)
			sim_session_up(s, n->links[i]);
	}
	sim_repl_mark_all_dirty(s, node);
}
