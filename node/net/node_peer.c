/*
 * node_peer: the peer table. A peer is another node, known by its Ed25519
 * id; we talk to it through our DEALER connected to its ROUTER, and hear
 * from it on our ROUTER, where its CURVE key (User-Id) says who it is.
 *
 * States: CONNECTING (dealer up, our hello sent) -> ACTIVE (its hello,
 * carrying a signed descriptor whose id converts to the CURVE key it
 * authenticated with) -> DOWN (silent past the liveness window; retried
 * with exponential backoff and jitter). A hello from an ACTIVE peer means
 * it restarted: its session state is reset and we answer with ours,
 * marked as an answer (MSG_HELLO_ANSWER), which resets the session on
 * its side too but is not answered: two hellos that cross while both
 * sides are ACTIVE would otherwise be answered back and forth for ever.
 */
#include "node/net/node_int.h"

#include "proto/log.h"
#include "proto/mem.h"

#include <errno.h>
#include <string.h>

static bool s_endpoint_ok(const char *ep)
{
	return ep && strncmp(ep, "tcp://", 6) == 0 && strlen(ep) < 256 &&
	       !strpbrk(ep, " \t\r\n");
}

static void s_drop(node_t *node, size_t i)
{
	peer_t *p = node->peers[i];

	if (p->state == PEER_ACTIVE)
		node->peers_gen++;
	repl_forget_peer(node, p);
	zhashx_delete(node->by_curve, p->curve);
	peer_free(&node->peers[i]);
	memmove(&node->peers[i], &node->peers[i + 1],
		(node->n_peers - i - 1) * sizeof(*node->peers));
	node->n_peers--;
}

/* Full table: drop a peer we learned of that is not up (never a seed), so
 * unreachable or made-up peers cannot keep real ones out. */
static bool s_evict_one(node_t *node)
{
	for (size_t i = 0; i < node->n_peers; i++) {
		peer_t *p = node->peers[i];

		if (p->seed || p->state == PEER_ACTIVE)
			continue;
		log_debug("peer %.12s dropped from a full table", p->hex);
		s_drop(node, i);
		return true;
	}
	return false;
}

/* Full table of live peers and a newcomer dials us (it may know no one
 * else): drop the best connected peer that is not our seed, as long as it
 * told us of NODE_EVICT_MIN_PEERS others, so it stays in the overlay. */
static bool s_evict_crowded(node_t *node)
{
	size_t best = node->n_peers, most = NODE_EVICT_MIN_PEERS - 1;
	stranger_t *s;

	/* bounded, so nodes pushing each other out cannot churn the
	 * overlay; a refused newcomer retries its seed with backoff */
	if (node->last_evict_ms &&
	    node_now() - node->last_evict_ms < NODE_EVICT_MS)
		return false;
	for (size_t i = 0; i < node->n_peers; i++) {
		peer_t *p = node->peers[i];

		if (!p->seed && p->state == PEER_ACTIVE &&
		    p->their_peers > most) {
			best = i;
			most = p->their_peers;
		}
	}
	if (best == node->n_peers)
		return false;
	log_info("peer %.12s (%s, %zu peers) makes room for a newcomer",
		 node->peers[best]->hex, node->peers[best]->lab, most);
	s = node_stranger(node, node->peers[best]->curve);
	if (s) /* its redial must not push out someone else in turn */
		s->evicted_ms = node_now();
	s_drop(node, best);
	node->last_evict_ms = node_now();
	return true;
}

/*
 * How many peers we keep. max_peers bounds the peers we dial of our own
 * accord (peer exchange, restore, beacon hints); a node that dials us is
 * admitted up to NODE_INBOUND_FACTOR times that. Without the headroom a
 * node whose table filled through peer exchange would turn away the
 * newcomers that name it as their seed, and the overlay would split.
 */
static size_t s_cap(node_t *node, bool inbound)
{
	size_t cap = (size_t)node->max_peers;

	if (inbound)
		cap *= NODE_INBOUND_FACTOR;
	return cap < NODE_MAX_PEERS_HARD ? cap : NODE_MAX_PEERS_HARD;
}

static peer_t *s_add(node_t *node, const uint8_t *id, const char *endpoint,
		     bool seed, bool inbound, bool may_evict)
{
	peer_t *p;

	if (memcmp(id, node->key.pk, WIRE_KEY_BYTES) == 0 ||
	    !s_endpoint_ok(endpoint))
		return NULL;
	p = peer_find(node, id);
	if (p)
		return p;
	if (!seed && node->n_peers >= s_cap(node, inbound) &&
	    !s_evict_one(node) && !(may_evict && s_evict_crowded(node)))
		return NULL;
	return peer_new(node, id, endpoint, seed);
}

peer_t *peer_add(node_t *node, const uint8_t *id, const char *endpoint,
		 bool seed)
{
	return s_add(node, id, endpoint, seed, false, false);
}

static void s_send_hello(node_t *node, peer_t *p, bool answer)
{
	uint8_t *b = NULL;
	size_t len = 0;

	if (wire_hello(node->desc, node->desc_len, !node->no_digest, answer,
		       &b, &len) == 0)
		node_send(node, p, b, len);
	p->last_hello_ms = node_now();
}

void peer_connect(node_t *node, peer_t *p)
{
	zsock_destroy(&p->dealer);
	p->dealer = zsock_new(ZMQ_DEALER);
	if (!p->dealer)
		return;
	/* keys were made or checked by us: czmq asserts on bad ones */
	zsock_set_curve_serverkey(p->dealer, p->curve);
	zsock_set_curve_publickey(p->dealer, node->key.curve_pk);
	zsock_set_curve_secretkey(p->dealer, node->key.curve_sk);
	zsock_set_maxmsgsize(p->dealer, WIRE_MAX_MSG);
	zsock_set_sndhwm(p->dealer, NODE_SNDHWM);
	zsock_set_linger(p->dealer, 0);
	zsock_set_reconnect_ivl(p->dealer, 200);
	zsock_set_reconnect_ivl_max(p->dealer, 5000);
	if (zsock_connect(p->dealer, "%s", p->endpoint) < 0) {
		log_warn("peer %.12s: cannot connect to %s", p->hex,
			 p->endpoint);
		zsock_destroy(&p->dealer);
		p->state = PEER_DOWN;
		p->next_try_ms = node_now() + NODE_BACKOFF_MAX_MS;
		return;
	}
	p->state = PEER_CONNECTING;
	p->last_seen_ms = p->live_ms = node_now();
	s_send_hello(node, p, false);
}

static size_t s_active(node_t *node)
{
	size_t up = 0;

	for (size_t i = 0; i < node->n_peers; i++)
		up += node->peers[i]->state == PEER_ACTIVE;
	return up;
}

void peer_down(node_t *node, peer_t *p, const char *why)
{
	int64_t now = node_now();

	if (p->state == PEER_ACTIVE) {
		log_info("peer %.12s (%s) gone: %s", p->hex, p->lab, why);
		node->peers_gen++;
	}
	p->peers_sent_ms = 0;
	zsock_destroy(&p->dealer);
	repl_forget_peer(node, p);
	p->state = PEER_DOWN;
	p->rtt_ms = -1;
	p->backoff_ms = p->backoff_ms ? p->backoff_ms * 2 : NODE_BACKOFF_MIN_MS;
	/* a seed is our way in: a full node makes room for newcomers now
	 * and then, so a node with no other peer keeps knocking; one with
	 * peers waits as for any other (each knock on a full seed may
	 * push one of its peers out) */
	bool knock = p->seed && s_active(node) == 0;

	if (p->backoff_ms > NODE_BACKOFF_MAX_MS ||
	    (knock && p->backoff_ms > NODE_SEED_BACKOFF_MAX_MS))
		p->backoff_ms = knock ? NODE_SEED_BACKOFF_MAX_MS :
					NODE_BACKOFF_MAX_MS;
	p->next_try_ms = now + p->backoff_ms +
			 (int64_t)randombytes_uniform((uint32_t)p->backoff_ms / 2 + 1);
}

/* Take id out of the *n ids (WIRE_KEY_BYTES each) at ids; whether it
 * was there. */
static bool s_drop_id(uint8_t (*ids)[WIRE_KEY_BYTES], size_t *n,
		      const uint8_t *id)
{
	for (size_t i = 0; i < *n; i++)
		if (memcmp(ids[i], id, WIRE_KEY_BYTES) == 0) {
			memmove(ids[i], ids[i + 1],
				(*n - i - 1) * WIRE_KEY_BYTES);
			(*n)--;
			return true;
		}
	return false;
}

/* p's descriptor changed: the peers that heard of p hear of it again,
 * as one that joined (peer_send_peers) */
static void s_untell(node_t *node, const peer_t *p)
{
	for (size_t t = 0; t < node->n_peers; t++)
		if (s_drop_id(node->peers[t]->told_ids,
			      &node->peers[t]->n_told_ids, p->id))
			node->peers_gen++;
}

static void s_take_desc(node_t *node, peer_t *p, const wire_desc_t *d,
			const wire_bytes_t *b)
{
	if (p->desc && (p->desc_len != b->len ||
			memcmp(p->desc, b->p, b->len) != 0))
		s_untell(node, p);
	free(p->desc);
	p->desc = xmalloc(b->len);
	memcpy(p->desc, b->p, b->len);
	p->desc_len = b->len;
	snprintf(p->lab, sizeof(p->lab), "%s", d->lab);
	if (!p->seed && strcmp(p->endpoint, d->endpoint) != 0) {
		free(p->endpoint);
		p->endpoint = xstrdup(d->endpoint);
	}
}

static void s_activate(node_t *node, peer_t *p, const wire_msg_t *m,
		       const wire_desc_t *d)
{
	enum peer_state was = p->state;

	s_take_desc(node, p, d, &m->desc);
	if (was == PEER_ACTIVE) {
		/* it restarted or lost us: a new session on both sides. An
		 * answer to our hello restarts ours, and is not answered */
		bool answer = m->msg->hello.features & MSG_HELLO_ANSWER;

		log_debug("peer %.12s: %s in session: a new one", p->hex,
			  answer ? "hello answering ours" : "hello");
		repl_forget_peer(node, p);
		if (p->dealer && !answer)
			s_send_hello(node, p, true);
	}
	if (!p->dealer)
		peer_connect(node, p);
	p->state = PEER_ACTIVE;
	p->backoff_ms = 0;
	p->last_seen_ms = p->live_ms = node_now();
	if (was != PEER_ACTIVE)
		log_info("peer %.12s (%s) at %s up", p->hex, p->lab,
			 p->endpoint);
	node->peers_gen++;
	p->peers_sent_ms = 0; /* a new session: our table at once */
	repl_on_active(node, p);
	peer_ping(node, p); /* a pong proves its endpoint works both ways */
}

void peer_on_hello(node_t *node, const char *curve, const wire_msg_t *m)
{
	stranger_t *s = node_stranger(node, curve);
	char z85[WIRE_Z85_LEN + 1];
	wire_desc_t d;
	peer_t *p;
	int rc;

	p = zhashx_lookup(node->by_curve, curve);
	/* hellos are signature checks: bounded. Not the one a known peer
	 * sends while we have no session with it (it restarted, or answers
	 * our rehello): it makes it ACTIVE, after which it counts again, so
	 * a peer that restarts often is not shut out for the minute */
	if (s && (!p || p->state == PEER_ACTIVE) &&
	    !node_rate_ok(&s->hello_window_ms, &s->hello_count,
			  NODE_MAX_HELLO_PER_MIN)) {
		node_garbage(node, curve, "too many hellos");
		return;
	}
	rc = wire_desc_verify(m->desc.p, m->desc.len, &d);
	if (rc < 0) {
		node_garbage(node, curve, "bad node descriptor");
		return;
	}
	if (wire_curve_public(d.id, z85) < 0 || strcmp(z85, curve) != 0) {
		node_garbage(node, curve, "descriptor is not for its CURVE key");
		return;
	}
	p = s_add(node, d.id, d.endpoint, false, true,
		  !s || !s->evicted_ms ||
			  node_now() - s->evicted_ms >= NODE_EVICTED_MS);
	if (!p) {
		log_debug("hello from %.12s ignored: peer table full", curve);
		return;
	}
	/* a hello from a peer in session restarts it: its vectors, wants,
	 * pulls and requests are sent again, so restarts are budgeted */
	if (p->state == PEER_ACTIVE &&
	    !node_rate_ok(&p->reset_window_ms, &p->reset_count,
			  NODE_MAX_RESET_PER_MIN)) {
		node_garbage(node, curve, "too many session restarts");
		return;
	}
	p->features = m->msg->hello.features & ~(uint64_t)MSG_HELLO_ANSWER;
	s_activate(node, p, m, &d);
}

/* Its hello was lost (dropped by the hello rate limit, or sent while we
 * were not listening) but it took ours: it talks as if a session were up
 * and would go on doing so while we wait for a hello that never comes,
 * each side timing out in turn. Our hello makes it start a new session,
 * which it answers with its own. At most one per NODE_REHELLO_MS. */
void peer_rehello(node_t *node, peer_t *p)
{
	if (!p->dealer || p->state == PEER_ACTIVE ||
	    node_now() - p->last_hello_ms < NODE_REHELLO_MS)
		return;
	log_debug("peer %.12s talks without a session: hello again", p->hex);
	s_send_hello(node, p, false);
}

/* Whether id is one of the n ids (WIRE_KEY_BYTES each) at ids. */
static bool s_has_id(const void *ids, size_t n, const uint8_t *id)
{
	for (size_t i = 0; i < n; i++)
		if (memcmp((const uint8_t *)ids + i * WIRE_KEY_BYTES, id,
			   WIRE_KEY_BYTES) == 0)
			return true;
	return false;
}

/* A peers message (its table) or a peers-delta (what joined it and what
 * left it since its last message). */
void peer_on_peers(node_t *node, peer_t *from, const wire_msg_t *m)
{
	size_t n = m->n_items < WIRE_MAX_DESCS ? m->n_items : WIRE_MAX_DESCS;
	/* from a random place in the list, so that nodes hearing the same
	 * list do not all dial the same first few */
	size_t start = n ? randombytes_uniform((uint32_t)n) : 0;

	if (m->type == WIRE_PEERS_DELTA) {
		/* what left its table since its last message; the rest
		 * joined (below) */
		for (size_t g = 0; g < m->n_gone; g++)
			s_drop_id(from->their_ids, &from->n_their_ids,
				  m->gone + g * WIRE_KEY_BYTES);
		from->their_peers = from->their_peers > m->n_gone ?
					    from->their_peers - m->n_gone :
					    0;
		from->their_peers += m->n_items;
		if (from->their_peers > PROTO_MAX_PEERS)
			from->their_peers = PROTO_MAX_PEERS;
	} else {
		from->their_peers = m->n_items;
		from->n_their_ids = 0;
	}
	for (size_t k = 0; k < n; k++) {
		size_t i = (start + k) % n;
		wire_desc_t d;
		char z85[WIRE_Z85_LEN + 1];
		peer_t *p;

		if (wire_desc_verify(m->items[i].p, m->items[i].len, &d) < 0) {
			node_garbage(node, from->curve, "bad descriptor in peers");
			return;
		}
		if (!s_has_id(from->their_ids, from->n_their_ids, d.id) &&
		    from->n_their_ids < WIRE_MAX_DESCS)
			memcpy(from->their_ids[from->n_their_ids++], d.id,
			       WIRE_KEY_BYTES);
		if (peer_find(node, d.id) ||
		    memcmp(d.id, node->key.pk, WIRE_KEY_BYTES) == 0)
			continue;
		if (node->trust && (wire_curve_public(d.id, z85) < 0 ||
				    !zhashx_lookup(node->trust, z85)))
			continue;
		if (node->n_peers >= s_cap(node, false))
			return; /* full: those that dial us still get in */
		p = peer_add(node, d.id, d.endpoint, false);
		if (!p)
			return;
		log_info("learned peer %.12s (%s) at %s from %.12s", p->hex,
			 d.lab, d.endpoint, from->hex);
		snprintf(p->lab, sizeof(p->lab), "%s", d.lab);
		peer_connect(node, p);
	}
}

/* Our table for to: the peers that answered a ping (a made-up endpoint
 * is never passed on) but to itself; their ids beside. */
static size_t s_table(node_t *node, peer_t *to, wire_bytes_t *descs,
		      uint8_t (*ids)[WIRE_KEY_BYTES])
{
	size_t n = 0;

	for (size_t i = 0; i < node->n_peers && n < WIRE_MAX_DESCS; i++) {
		peer_t *p = node->peers[i];

		if (p != to && p->state == PEER_ACTIVE && p->desc &&
		    p->rtt_ms >= 0) {
			descs[n] = (wire_bytes_t){ p->desc, p->desc_len };
			memcpy(ids[n++], p->id, WIRE_KEY_BYTES);
		}
	}
	return n;
}

/* What joined our table (descs, from the front of those given) and
 * left it (gone) since to last heard; 0 when the whole table is smaller
 * (an empty one is not: it is not sent), or to takes no delta. */
static int s_delta(node_t *node, peer_t *to, wire_bytes_t *descs,
		   uint8_t (*ids)[WIRE_KEY_BYTES], size_t n,
		   uint8_t (*gone)[WIRE_KEY_BYTES], size_t *n_add,
		   size_t *n_gone, bool *same)
{
	size_t add = 0, full = 0, cost = 0;

	*n_gone = 0;
	for (size_t i = 0; i < n; i++) {
		full += descs[i].len;
		if (!s_has_id(to->told_ids, to->n_told_ids, ids[i])) {
			cost += descs[i].len;
			wire_bytes_t d = descs[add];
			uint8_t id[WIRE_KEY_BYTES];

			/* joined ones to the front, in order */
			memcpy(id, ids[add], WIRE_KEY_BYTES);
			descs[add] = descs[i];
			memcpy(ids[add], ids[i], WIRE_KEY_BYTES);
			descs[i] = d;
			memcpy(ids[i], id, WIRE_KEY_BYTES);
			add++;
		}
	}
	for (size_t i = 0; i < to->n_told_ids; i++)
		if (!s_has_id(ids, n, to->told_ids[i])) {
			memcpy(gone[(*n_gone)++], to->told_ids[i],
			       WIRE_KEY_BYTES);
			cost += WIRE_KEY_BYTES + 2;
		}
	*n_add = add;
	*same = !add && !*n_gone;
	if (!to->peers_sent_ms || node->no_digest ||
	    !(to->features & MSG_FEATURE_PEERS_DELTA))
		return 0;
	return !n || cost < full;
}

/* Our table to each peer whose session is new, and what changed in it
 * to the others, at most once per NODE_PEERS_EVERY_MS. */
void peer_send_peers(node_t *node)
{
	wire_bytes_t descs[WIRE_MAX_DESCS];
	uint8_t ids[WIRE_MAX_DESCS][WIRE_KEY_BYTES];
	uint8_t gone[WIRE_MAX_DESCS][WIRE_KEY_BYTES];
	int64_t now = node_now();

	for (size_t t = 0; t < node->n_peers; t++) {
		peer_t *to = node->peers[t];
		size_t n, n_add, n_gone;
		uint8_t *b = NULL;
		size_t len = 0;
		bool same;
		int rc;

		if (to->state != PEER_ACTIVE ||
		    (to->peers_sent_ms &&
		     (to->peers_sent_gen == node->peers_gen ||
		      now - to->peers_sent_ms < NODE_PEERS_EVERY_MS)))
			continue;
		n = s_table(node, to, descs, ids);
		/* an empty table is not sent: the first peer it gains is
		 * news to this one at once */
		if (!n && !to->peers_sent_ms)
			continue;
		if (s_delta(node, to, descs, ids, n, gone, &n_add, &n_gone,
			    &same))
			rc = same ? 0 :
				    wire_peers_delta(descs, n_add,
						     (const void *)gone, n_gone,
						     &b, &len);
		else
			rc = n ? wire_peers(descs, n, &b, &len) : 0;
		if (rc < 0)
			continue;
		if (b)
			node_send(node, to, b, len);
		to->peers_sent_ms = now;
		to->peers_sent_gen = node->peers_gen;
		memcpy(to->told_ids, ids, n * WIRE_KEY_BYTES);
		to->n_told_ids = n;
	}
}

static void s_tick_one(node_t *node, peer_t *p, int64_t now, bool judge,
		       const char *why, bool full)
{
	int64_t ping_ms = NODE_PING_OF(node->liveness_ms);

	switch (p->state) {
	case PEER_DOWN:
		/* a seed is not needed by a node with max_peers others */
		if (now >= p->next_try_ms && !(p->seed && full))
			peer_connect(node, p);
		break;
	case PEER_CONNECTING:
		if (judge && now - p->live_ms > node->liveness_ms)
			peer_down(node, p, "no answer");
		else if (p->seed && s_active(node) == 0 &&
			 now - p->last_hello_ms >= NODE_REHELLO_MS)
			/* knocking: a full seed ignores a hello when it
			 * made room for another newcomer within the second,
			 * and we know no one else; waiting out the liveness
			 * window (up to minutes) would leave us alone */
			s_send_hello(node, p, false);
		break;
	case PEER_ACTIVE:
		if (judge && now - p->live_ms > node->liveness_ms) {
			peer_down(node, p, why);
			break;
		}
		/* anything heard from it proves it alive: ping only a
		 * peer silent for a while, so an idle link carries about
		 * one ping and one pong per interval, not two of each */
		if (now - (p->ping_sent_ms > p->last_seen_ms ?
			   p->ping_sent_ms : p->last_seen_ms) >= ping_ms ||
		    (p->ping_open && now - p->ping_sent_ms >= ping_ms))
			peer_ping(node, p);
		break;
	}
}

/* Our own stall is not our peers' fault. Called first by the timers
 * that judge peers (the tick, the pulls' first-batch timer): when the
 * tick is overdue by more than NODE_STALL_MS, the process was not running
 * (starved of CPU, or stopped), and the time is credited once. By less
 * than the liveness window: to every peer's liveness clock, so what a
 * peer sent meanwhile, read after the timers (zloop runs timers before
 * readers), is in time. Past it, our peers have ended our sessions on
 * their side, and the silent ones end here too, named for it. Either
 * way, to the deadlines of the pulls in flight (repl_stalled). */
void peer_note_stall(node_t *node, int64_t now)
{
	int64_t late = now - node->tick_last_ms - NODE_TICK_MS;

	if (late <= NODE_STALL_MS)
		return;
	if (late >= node->liveness_ms) {
		log_info("this node did not run for %.1f s: peers silent since end their sessions",
			 (double)late / 1000.0);
		node->long_stall_ms = now;
	} else {
		log_debug("%lld ms without running: not counted as the peers' silence",
			  (long long)late);
		for (size_t i = 0; i < node->n_peers; i++)
			node->peers[i]->live_ms += late;
	}
	repl_stalled(node, late);
	node->tick_last_ms = now - NODE_TICK_MS; /* credited once */
}

/* Whether silence may be judged now, and on what grounds (see
 * peer_note_stall). A tick that finds input waiting unread judges no
 * one, unless input has waited at every tick for a whole liveness
 * window. */
static bool s_may_judge(node_t *node, int64_t now, const char **why)
{
	bool behind = node_input_waiting(node);

	peer_note_stall(node, now);
	*why = node->long_stall_ms && now - node->long_stall_ms < NODE_TICK_MS ?
		       "silent, and this node did not run past the liveness window" :
		       "silent";
	node->tick_last_ms = now;
	if (!behind)
		node->behind_since_ms = 0;
	else if (!node->behind_since_ms)
		node->behind_since_ms = now;
	return !behind || now - node->behind_since_ms >= node->liveness_ms;
}

void peer_tick(node_t *node)
{
	int64_t now = node_now();
	const char *why;
	bool judge = s_may_judge(node, now, &why);
	bool full = s_active(node) >= (size_t)node->max_peers;

	for (size_t i = 0; i < node->n_peers; i++) {
		peer_t *p = node->peers[i];

		s_tick_one(node, p, now, judge, why, full);
		/* a peer we learned of that is down (or dropped us to make
		 * room for a newcomer) is not retried while we have
		 * max_peers others: retrying would push someone else out */
		if (p->state == PEER_DOWN && !p->seed &&
		    s_active(node) >= (size_t)node->max_peers) {
			log_debug("peer %.12s down, not retried", p->hex);
			s_drop(node, i--);
		}
	}
}

int peer_seed(node_t *node)
{
	for (size_t i = 0; i < node->cfg->n_seeds; i++) {
		const lab_seed_t *s = &node->cfg->seeds[i];
		uint8_t id[WIRE_KEY_BYTES];
		peer_t *p;

		if (!s->key || wire_unhex(s->key, id, sizeof(id)) < 0 ||
		    !s_endpoint_ok(s->endpoint)) {
			log_warn("seed %zu: bad key or endpoint, skipped", i + 1);
			continue;
		}
		p = peer_add(node, id, s->endpoint, true);
		if (p)
			p->seed = true;
		if (p && p->state == PEER_DOWN)
			peer_connect(node, p);
	}
	return 0;
}

static int s_restore_one(void *arg, const uint8_t *id, const char *endpoint,
			 const uint8_t *desc, size_t len)
{
	node_t *node = arg;
	wire_desc_t d;
	char z85[WIRE_Z85_LEN + 1];
	peer_t *p;

	if (wire_desc_verify(desc, len, &d) < 0 ||
	    memcmp(d.id, id, WIRE_KEY_BYTES) != 0)
		return 0;
	if (node->trust && (wire_curve_public(d.id, z85) < 0 ||
			    !zhashx_lookup(node->trust, z85)))
		return 0;
	p = peer_add(node, id, endpoint, false);
	if (p && p->state == PEER_DOWN) {
		snprintf(p->lab, sizeof(p->lab), "%s", d.lab);
		peer_connect(node, p);
	}
	return 0;
}

void peer_restore(node_t *node)
{
	store_peers(node->store, (size_t)node->max_peers, s_restore_one, node);
}
