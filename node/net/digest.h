/*
 * digest: a summary of a vector (author -> highest contiguous seq) in
 * DIGEST_BUCKETS ranges of the author key space, so two nodes find which
 * ranges of their feeds differ by exchanging a fixed-size digest rather
 * than whole vectors. Pure code: no sockets, no store; the node
 * (node_repl.c) and the network simulator both use it.
 *
 * A range is the authors whose first key byte, shifted right by
 * DIGEST_SHIFT, is its index. Its digest is the count of entries and the
 * XOR of a 64-bit keyed hash of each (author, seq), so raising one
 * author's seq is two XORs and the digest never needs a rescan.
 */
#ifndef LABMESH_NODE_NET_DIGEST_H
#define LABMESH_NODE_NET_DIGEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DIGEST_KEY_BYTES 32
#define DIGEST_BUCKETS 64
#define DIGEST_SHIFT 2 /* 256 first-byte values / 64 ranges */

typedef struct {
	uint64_t hash[DIGEST_BUCKETS];
	uint32_t count[DIGEST_BUCKETS];
} digest_t;

/* The range of author. */
unsigned digest_bucket(const uint8_t author[DIGEST_KEY_BYTES]);
/* The 64-bit hash of one entry. */
uint64_t digest_entry(const uint8_t author[DIGEST_KEY_BYTES], uint64_t seq);
void digest_clear(digest_t *d);
/* Author's entry goes from old_seq (0: none) to new_seq (0: none). */
void digest_update(digest_t *d, const uint8_t author[DIGEST_KEY_BYTES],
		   uint64_t old_seq, uint64_t new_seq);
/* Bit i set: range i differs between a and b. */
uint64_t digest_diff(const digest_t *a, const digest_t *b);
bool digest_in(uint64_t mask, const uint8_t author[DIGEST_KEY_BYTES]);

#endif
