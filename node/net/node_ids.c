/*
 * node_ids: which node a CURVE key belongs to, for the lines the node logs
 * about connections it refuses.
 *
 * A node id is an Ed25519 public key and its CURVE key the Curve25519 form
 * of it; that conversion drops the sign of x, so a CURVE key alone names
 * two possible ids and the ZAP handler cannot say which one a stranger
 * holds. What the node can say is which id it already knows with that
 * key: a peer's (it said hello), one on the trust list, or the author of
 * a feed the node holds (replicated through other peers). The ids are
 * kept here, 68 bytes each (an id and its CURVE key, sorted by id, and
 * their order by CURVE key), filled from the trust list at setup and from
 * the store's feeds when a lookup misses and feeds were added since the
 * last look; never more than NODE_MAX_IDS.
 */
#include "node/net/node_int.h"

#include "proto/mem.h"

#include <sodium.h>
#include <stdlib.h>
#include <string.h>

struct node_ids {
	struct node_id {
		uint8_t id[WIRE_KEY_BYTES];
		uint8_t curve[WIRE_KEY_BYTES];
	} *v;
	uint32_t *by_curve; /* indexes of v in order of curve */
	size_t n, cap;
	size_t n_sorted; /* v[0..n_sorted) is sorted, by_curve made */
	size_t feeds;    /* the store's feeds at the last scan */
	char hex[2 * WIRE_KEY_BYTES + 1];
};

static int s_by_id(const void *a, const void *b)
{
	return memcmp(((const struct node_id *)a)->id,
		      ((const struct node_id *)b)->id, WIRE_KEY_BYTES);
}

static const struct node_id *s_sort_v; /* for the by_curve order: qsort
					 * and bsearch take no arg */

static int s_by_curve(const void *a, const void *b)
{
	return memcmp(s_sort_v[*(const uint32_t *)a].curve,
		      s_sort_v[*(const uint32_t *)b].curve, WIRE_KEY_BYTES);
}

static struct node_ids *s_ids(node_t *node)
{
	if (!node->ids)
		node->ids = xzalloc(sizeof(*node->ids));
	return node->ids;
}

static int s_id_key(const void *key, const void *e)
{
	return memcmp(key, ((const struct node_id *)e)->id, WIRE_KEY_BYTES);
}

static int s_curve_key(const void *key, const void *i)
{
	return memcmp(key, s_sort_v[*(const uint32_t *)i].curve,
		      WIRE_KEY_BYTES);
}

/* Whether id is among the sorted ones. */
static bool s_known(const struct node_ids *t, const uint8_t *id)
{
	return t->n_sorted &&
	       bsearch(id, t->v, t->n_sorted, sizeof(*t->v), s_id_key);
}

/* Sort what was added since the last sort, drop the twice added, and
 * order all by CURVE key. */
static void s_sort(struct node_ids *t)
{
	size_t keep = 0;

	if (t->n_sorted == t->n)
		return;
	qsort(t->v, t->n, sizeof(*t->v), s_by_id);
	for (size_t i = 0; i < t->n; i++)
		if (keep == 0 || memcmp(t->v[keep - 1].id, t->v[i].id,
					WIRE_KEY_BYTES) != 0)
			t->v[keep++] = t->v[i];
	t->n = t->n_sorted = keep;
	t->by_curve = xreallocarray(t->by_curve, t->cap ? t->cap : 1,
				    sizeof(*t->by_curve));
	for (size_t i = 0; i < t->n; i++)
		t->by_curve[i] = (uint32_t)i;
	s_sort_v = t->v;
	qsort(t->by_curve, t->n, sizeof(*t->by_curve), s_by_curve);
	s_sort_v = NULL;
}

static void s_add(struct node_ids *t, const uint8_t *id)
{
	struct node_id e;

	if (t->n >= NODE_MAX_IDS || s_known(t, id))
		return;
	/* a key that is no curve point has no CURVE form: nobody holds it */
	if (crypto_sign_ed25519_pk_to_curve25519(e.curve, id) != 0)
		return;
	memcpy(e.id, id, WIRE_KEY_BYTES);
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 16;
		t->v = xreallocarray(t->v, t->cap, sizeof(*t->v));
	}
	t->v[t->n++] = e;
}

void node_ids_add(node_t *node, const uint8_t id[WIRE_KEY_BYTES])
{
	struct node_ids *t = s_ids(node);

	s_add(t, id);
	s_sort(t);
}

/* The authors of feeds added since the last scan. */
static void s_ids_scan_feeds(node_t *node, struct node_ids *t)
{
	size_t n = store_feed_count(node->store);

	if (n == t->feeds)
		return;
	for (size_t i = 0; i < n; i++)
		s_add(t, store_feed_at(node->store, i)->author);
	s_sort(t);
	t->feeds = n;
}

static const char *s_lookup(struct node_ids *t, const uint8_t *curve)
{
	const uint32_t *i;

	if (!t->n)
		return NULL;
	s_sort_v = t->v;
	i = bsearch(curve, t->by_curve, t->n, sizeof(*t->by_curve),
		    s_curve_key);
	s_sort_v = NULL;
	if (!i)
		return NULL;
	wire_hex(t->v[*i].id, WIRE_KEY_BYTES, t->hex);
	return t->hex;
}

const char *node_id_of_curve(node_t *node, const char *z85)
{
	peer_t *p = zhashx_lookup(node->by_curve, z85);
	struct node_ids *t;
	uint8_t curve[WIRE_KEY_BYTES];
	const char *hex;

	if (p)
		return p->hex;
	if (strlen(z85) != WIRE_Z85_LEN || !zmq_z85_decode(curve, z85))
		return NULL;
	t = s_ids(node);
	hex = s_lookup(t, curve);
	if (hex || !node->store)
		return hex;
	s_ids_scan_feeds(node, t);
	return s_lookup(t, curve);
}

size_t node_ids_count(node_t *node)
{
	return node->ids ? node->ids->n : 0;
}

void node_ids_destroy(node_t *node)
{
	if (!node->ids)
		return;
	free(node->ids->v);
	free(node->ids->by_curve);
	free(node->ids);
	node->ids = NULL;
}
