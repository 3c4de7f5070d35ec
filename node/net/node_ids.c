/*
 * node_ids: which node a CURVE key belongs to, for the lines the node logs
 * about connections it refuses.
 *
 * A node id is an Ed25519 public key and its CURVE key the Curve25519 form
 * of it; that conversion drops the sign of x, so a CURVE key alone names
 * two possible ids and the ZAP handler cannot say which one a stranger
 * holds. What the node can say is which id it already knows with that
 * key: a peer's (it said hello), one on the trust list, or the author of
 * a feed the node holds (replicated through other peers). The map is kept
 * here (z85 -> hex), filled from the trust list at setup and from the
 * store's feeds when a lookup misses and feeds were added since the last
 * look; it never grows past NODE_MAX_IDS.
 */
#include "node/net/node_int.h"

#include "proto/mem.h"

#include <stdlib.h>
#include <string.h>

static void s_free_str(void **item)
{
	free(*item);
	*item = NULL;
}

static void s_ids_init(node_t *node)
{
	if (node->ids)
		return;
	node->ids = zhashx_new();
	zhashx_set_destructor(node->ids, s_free_str);
	node->ids_done = zhashx_new(); /* hex -> a static "": converted */
}

void node_ids_add(node_t *node, const uint8_t id[WIRE_KEY_BYTES])
{
	char hex[2 * WIRE_KEY_BYTES + 1], z85[WIRE_Z85_LEN + 1];

	s_ids_init(node);
	wire_hex(id, WIRE_KEY_BYTES, hex);
	if (zhashx_lookup(node->ids_done, hex) ||
	    zhashx_size(node->ids) >= NODE_MAX_IDS)
		return;
	zhashx_insert(node->ids_done, hex, (void *)"");
	/* a key that is no curve point has no CURVE form: nobody holds it */
	if (wire_curve_public(id, z85) < 0)
		return;
	zhashx_update(node->ids, z85, xstrdup(hex));
}

/* The authors of feeds added since the last scan. */
static void s_ids_scan_feeds(node_t *node)
{
	size_t n = store_feed_count(node->store);

	if (n == node->ids_feeds)
		return;
	for (size_t i = 0; i < n; i++)
		node_ids_add(node, store_feed_at(node->store, i)->author);
	node->ids_feeds = n;
}

const char *node_id_of_curve(node_t *node, const char *z85)
{
	peer_t *p = zhashx_lookup(node->by_curve, z85);
	const char *hex;

	if (p)
		return p->hex;
	s_ids_init(node);
	hex = zhashx_lookup(node->ids, z85);
	if (hex || !node->store)
		return hex;
	s_ids_scan_feeds(node);
	return zhashx_lookup(node->ids, z85);
}

void node_ids_destroy(node_t *node)
{
	zhashx_destroy(&node->ids);
	zhashx_destroy(&node->ids_done);
}
