/*
 * node beacon: the optional LAN hint. A node broadcasts its id and
 * listen port with czmq's zbeacon; a beacon heard from a key we may peer
 * with starts a connection that still needs CURVE and a signed hello.
 */
#include "node/net/node_int.h"

#include "proto/log.h"

#include <string.h>

/* Beacon payload: magic, our id, our listen port (big endian). */
#define NODE_BEACON_MAGIC "LMB1"
#define NODE_BEACON_LEN (4 + WIRE_KEY_BYTES + 2)

static int s_handle_beacon(zloop_t *loop, zsock_t *reader, void *arg)
{
	node_t *node = arg;
	char *ip = zstr_recv(node->beacon);
	zframe_t *f = ip ? zframe_recv(node->beacon) : NULL;
	const uint8_t *d;
	char ep[96];
	peer_t *p;

	if (!f || zframe_size(f) != NODE_BEACON_LEN ||
	    strlen(ip) > 45 || strpbrk(ip, ":/ "))
		goto out;
	d = zframe_data(f);
	if (memcmp(d + 4, node->key.pk, WIRE_KEY_BYTES) == 0 ||
	    peer_find(node, d + 4))
		goto out;
	if (node->trust) {
		char z85[WIRE_Z85_LEN + 1];

		if (wire_curve_public(d + 4, z85) < 0 ||
		    !zhashx_lookup(node->trust, z85))
			goto out;
	}
	snprintf(ep, sizeof(ep), "tcp://%s:%u", ip,
		 (unsigned)(d[4 + WIRE_KEY_BYTES] << 8 |
			    d[5 + WIRE_KEY_BYTES]));
	p = peer_add(node, d + 4, ep, false);
	if (p && p->state == PEER_DOWN) {
		log_info("beacon hint: node %.12s at %s", p->hex, ep);
		peer_connect(node, p);
	}
out:
	zframe_destroy(&f);
	free(ip);
	return 0;
}

static int s_listen_port(const char *ep)
{
	const char *colon = strrchr(ep, ':');
	long port = colon ? strtol(colon + 1, NULL, 10) : 0;

	return port > 0 && port < 65536 ? (int)port : 0;
}

void node_beacon_start(node_t *node)
{
	uint8_t payload[NODE_BEACON_LEN];
	int port = s_listen_port(node->cfg->listen);
	char *host;

	if (!node->cfg->beacon || !port)
		return;
	/* LAN hint only: peers found this way still need CURVE and hello */
	node->beacon = zactor_new(zbeacon, NULL);
	if (!node->beacon)
		return;
	zsock_send(node->beacon, "si", "CONFIGURE", NODE_BEACON_PORT);
	host = zstr_recv(node->beacon);
	if (!host || !*host) {
		log_warn("LAN beacon: no broadcast interface, beacon off");
		free(host);
		zactor_destroy(&node->beacon);
		return;
	}
	memcpy(payload, NODE_BEACON_MAGIC, 4);
	memcpy(payload + 4, node->key.pk, WIRE_KEY_BYTES);
	payload[4 + WIRE_KEY_BYTES] = (uint8_t)(port >> 8);
	payload[5 + WIRE_KEY_BYTES] = (uint8_t)port;
	zsock_send(node->beacon, "sbi", "PUBLISH", payload,
		   (size_t)NODE_BEACON_LEN, NODE_BEACON_MS);
	zsock_send(node->beacon, "sb", "SUBSCRIBE", NODE_BEACON_MAGIC,
		   (size_t)4);
	zloop_reader(node->loop, (zsock_t *)node->beacon, s_handle_beacon,
		     node);
	log_info("LAN beacon on %s:%d (a hint, never trusted)", host,
		 NODE_BEACON_PORT);
	free(host);
}
