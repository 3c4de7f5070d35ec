/*
 * node_session: the node's and a peer's objects and a peer's liveness
 * messages — the node's tables of peers and pulls, making and freeing a
 * peer_t with its replication tables, finding one by id, and
 * pings and pongs (a pong says the peer read everything sent before its
 * ping: the windows of requests and vector changes it acknowledges, and
 * that it read a want, node_repl.c: s_unread). Apart from node_peer.c's
 * table and connections, so that the simulator (node/sim/sim_real.c)
 * runs these as the node does.
 */
#include "node/net/node_int.h"

#include "proto/mem.h"

#include <string.h>

static void s_free_box(void **item)
{
	free(*item);
	*item = NULL;
}

void node_tables_new(node_t *node)
{
	node->by_curve = zhashx_new();
	node->lazy_count = zhashx_new();
	node->strangers = zhashx_new();
	zhashx_set_destructor(node->strangers, s_free_box);
	node->upstream = zhashx_new();
	zhashx_set_destructor(node->upstream, s_free_box);
	node->pull_known = zhashx_new(); /* items: a static "" */
	node->pull_new = zhashx_new();
	node->pull_wait = zhashx_new();
}

void node_tables_destroy(node_t *node)
{
	for (size_t i = 0; i < node->n_peers; i++)
		peer_free(&node->peers[i]);
	free(node->peers);
	node->peers = NULL;
	node->n_peers = 0;
	zhashx_destroy(&node->by_curve);
	zhashx_destroy(&node->lazy_count);
	zhashx_destroy(&node->strangers);
	zhashx_destroy(&node->upstream);
	repl_vec_destroy(node);
	zhashx_destroy(&node->pull_known);
	zhashx_destroy(&node->pull_new);
	zhashx_destroy(&node->pull_wait);
}

peer_t *peer_find(node_t *node, const uint8_t *id)
{
	for (size_t i = 0; i < node->n_peers; i++)
		if (memcmp(node->peers[i]->id, id, WIRE_KEY_BYTES) == 0)
			return node->peers[i];
	return NULL;
}

peer_t *peer_new(node_t *node, const uint8_t *id, const char *endpoint,
		 bool seed)
{
	peer_t *p = xzalloc(sizeof(*p));

	memcpy(p->id, id, WIRE_KEY_BYTES);
	wire_hex(id, WIRE_KEY_BYTES, p->hex);
	if (wire_curve_public(id, p->curve) < 0) {
		free(p);
		return NULL;
	}
	p->endpoint = xstrdup(endpoint);
	p->seed = seed;
	p->rtt_ms = -1;
	p->state = PEER_DOWN;
	p->their_vec = zhashx_new();
	zhashx_set_destructor(p->their_vec, s_free_box);
	p->skip = zhashx_new(); /* items: a static mark */
	p->lazy = zhashx_new(); /* items: a static mark */
	p->push_to = zhashx_new();
	zhashx_set_destructor(p->push_to, s_free_box);
	repl_forget_requests(p); /* makes req_known */
	p->distrust = keymap_new(sizeof(distrust_t));
	node->peers = xreallocarray(node->peers, node->n_peers + 1,
				    sizeof(*node->peers));
	node->peers[node->n_peers++] = p;
	zhashx_insert(node->by_curve, p->curve, p);
	return p;
}

void peer_free(peer_t **pp)
{
	peer_t *p = *pp;

	if (!p)
		return;
	zsock_destroy(&p->dealer);
	zhashx_destroy(&p->their_vec);
	zhashx_destroy(&p->skip);
	zhashx_destroy(&p->lazy);
	zhashx_destroy(&p->push_to);
	keymap_destroy(&p->req_known);
	keymap_destroy(&p->distrust);
	free(p->req_todo);
	free(p->endpoint);
	free(p->desc);
	free(p);
	*pp = NULL;
}

void peer_ping(node_t *node, peer_t *p)
{
	uint8_t *b = NULL;
	size_t len = 0;

	if (p->ping_open && p->ping_sent_ms) {
		if (p->n_ping_old == NODE_PINGS_KEPT) {
			memmove(p->ping_old_nonce, p->ping_old_nonce + 1,
				(NODE_PINGS_KEPT - 1) * sizeof(uint64_t));
			memmove(p->ping_old_ms, p->ping_old_ms + 1,
				(NODE_PINGS_KEPT - 1) * sizeof(int64_t));
			p->n_ping_old--;
		}
		p->ping_old_nonce[p->n_ping_old] = p->ping_nonce;
		p->ping_old_ms[p->n_ping_old++] = p->ping_sent_ms;
	}
	p->ping_nonce = randombytes_random();
	p->ping_sent_ms = node_now();
	/* queued after every request sent so far: its pong acknowledges them */
	p->ask_at_ping = p->ask_sent;
	p->told_at_ping = p->told;
	p->ping_open = true;
	if (wire_ping(p->ping_nonce, false, &b, &len) == 0)
		node_send(node, p, b, len);
}

/* A pong to our ping sent at sent_ms: p read all we sent before it (a
 * link keeps order), and it is reachable both ways. */
static void s_ponged(node_t *node, peer_t *p, int64_t sent_ms)
{
	size_t keep = 0;

	if (sent_ms > p->read_ms)
		p->read_ms = sent_ms;
	for (size_t i = 0; i < p->n_ping_old; i++) {
		if (p->ping_old_ms[i] <= sent_ms)
			continue; /* older ones' pongs say no more */
		p->ping_old_nonce[keep] = p->ping_old_nonce[i];
		p->ping_old_ms[keep++] = p->ping_old_ms[i];
	}
	p->n_ping_old = keep;
	repl_on_read(node, p);
	if (p->rtt_ms < 0) {
		/* reachable both ways: now worth remembering and telling
		 * others about */
		node->peers_gen++;
		store_put_peer(node->store, p->id, p->endpoint, p->desc,
			       p->desc_len, node_now());
	}
	p->rtt_ms = (int)(node_now() - sent_ms);
}

void peer_on_ping(node_t *node, peer_t *p, const wire_msg_t *m)
{
	uint8_t *b = NULL;
	size_t len = 0;

	if (!m->pong) {
		if (wire_ping(m->nonce, true, &b, &len) == 0)
			node_send(node, p, b, len);
	} else if (m->nonce == p->ping_nonce && p->ping_sent_ms) {
		s_ponged(node, p, p->ping_sent_ms);
		if (p->ping_open) {
			p->ping_open = false;
			p->ask_acked = p->ask_at_ping;
			p->told_acked = p->told_at_ping;
			repl_pump_requests(node, p);
		}
	} else {
		for (size_t i = 0; i < p->n_ping_old; i++)
			if (m->nonce == p->ping_old_nonce[i]) {
				s_ponged(node, p, p->ping_old_ms[i]);
				break;
			}
	}
}
