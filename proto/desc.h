/*
 * desc: the signed node descriptor, how a node introduces itself (hello)
 * and how peers learn of each other (peer exchange).
 *
 * Wire form, an array of 8:
 *   [version, node_id, lab, endpoints, software, ts_ms, epoch, sig]
 *   version    uint, DESC_VERSION
 *   node_id    bin 32, the node's Ed25519 public key
 *   lab        str, name syntax
 *   endpoints  [str...], 0..PROTO_MAX_ENDPOINTS, endpoint syntax
 *              (tcp://HOST:PORT) each; empty: not reachable inbound
 *   software   str, text, PROTO_MAX_SHORT ("labmesh 0.1.0")
 *   ts_ms      uint, when it was signed
 *   epoch      uint >= 1; a node raises it whenever its descriptor
 *              changes; peers keep the highest (ts_ms breaks no ties)
 *   sig        bin 64, Ed25519 by node_id over DESC_SIG_PREFIX (NUL
 *              included) || the bytes from the array header up to sig
 * id = BLAKE2b-256 of the whole encoded descriptor.
 */
#ifndef LABMESH_PROTO_DESC_H
#define LABMESH_PROTO_DESC_H

#include <stddef.h>
#include <stdint.h>

#include "proto/arena.h"
#include "proto/keys.h"
#include "proto/caps.h"

#define DESC_VERSION 1
#define DESC_SIG_PREFIX "labmesh-node-v1"

typedef struct node_desc {
	uint32_t version;
	uint8_t node_id[32];
	const char *lab;
	const char *const *endpoints;
	size_t n_endpoints;
	const char *software;
	uint64_t ts_ms;
	uint64_t epoch;
	uint8_t sig[64]; /* decoded only */
	uint8_t id[32];  /* decoded only */
	arena_t *arena;  /* private */
} node_desc_t;

/*
 * Encode and sign d (node_id = key->pk; version, sig, id ignored).
 * Returns 0 with bytes in *ret_data (caller frees), or PROTO_E_*.
 */
int desc_sign(const node_desc_t *d, const key_pair_t *key,
	      uint8_t **ret_data, size_t *ret_len, uint8_t ret_id[32]);
/* Full strict decode + re-encode check + signature + id. */
int desc_decode(const void *data, size_t len, node_desc_t **ret_desc);
void desc_destroy(node_desc_t **p);
/* The bytes of a decoded descriptor again (node_id, sig as decoded). */
int desc_encode(const node_desc_t *d, uint8_t **ret_data, size_t *ret_len);

#endif
