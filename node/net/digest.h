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
/* Its sub-range in that range: the next 6 bits of the key (the first
 * byte's low 2, the second's high 4), so a range of a large vector is
 * compared by DIGEST_BUCKETS sub-ranges before its entries are sent. */
unsigned digest_sub(const uint8_t author[DIGEST_KEY_BYTES]);
/* Add the entry (author, seq) to d by sub-range (d: one range's). */
void digest_sub_add(digest_t *d, const uint8_t author[DIGEST_KEY_BYTES],
		    uint64_t seq);
/* The 64-bit hash of one entry. */
uint64_t digest_entry(const uint8_t author[DIGEST_KEY_BYTES], uint64_t seq);
void digest_clear(digest_t *d);
/* Author's entry goes from old_seq (0: none) to new_seq (0: none). */
void digest_update(digest_t *d, const uint8_t author[DIGEST_KEY_BYTES],
		   uint64_t old_seq, uint64_t new_seq);
/* Bit i set: range i differs between a and b. */
uint64_t digest_diff(const digest_t *a, const digest_t *b);
bool digest_in(uint64_t mask, const uint8_t author[DIGEST_KEY_BYTES]);

/*
 * The answer to a digest in pieces: n entries sorted by author (so by
 * range; bucket[i] the range of entry i, every one in mask) cut into
 * pieces of at most max entries (max >= 1), in order, each with the mask
 * of the ranges whose entries end in it; every range of mask is in
 * exactly one piece's mask (an empty one in the first piece after the
 * ranges before it), and a range of more than max entries is cut, its
 * bit with its last piece. fn(arg, from, count, piece_mask) is called
 * per piece, at least once; a negative return stops and is returned;
 * else 0.
 */
typedef int digest_piece_fn(void *arg, size_t from, size_t count,
			    uint64_t mask);
int digest_pieces(const uint8_t *bucket, size_t n, uint64_t mask, size_t max,
		  digest_piece_fn *fn, void *arg);

#endif
