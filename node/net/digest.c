/*
 * digest: range digests of a vector; see digest.h.
 */
#include "node/net/digest.h"

#include <sodium.h>
#include <string.h>

/* A fixed key: the hash need not be secret (a peer lying in its digest
 * only costs itself a round), only the same on every node. */
static const uint8_t s_key[crypto_shorthash_KEYBYTES] = "labmesh digest1";

_Static_assert(DIGEST_BUCKETS == 1 << (8 - DIGEST_SHIFT),
	       "a range is a value of the key's first bits");
_Static_assert(DIGEST_BUCKETS == 64, "a mask of ranges is a uint64_t");

unsigned digest_bucket(const uint8_t author[DIGEST_KEY_BYTES])
{
	return (unsigned)(author[0] >> DIGEST_SHIFT);
}

unsigned digest_sub(const uint8_t author[DIGEST_KEY_BYTES])
{
	return (unsigned)((author[0] & ((1u << DIGEST_SHIFT) - 1))
			  << (6 - DIGEST_SHIFT) |
			  author[1] >> (8 - (6 - DIGEST_SHIFT)));
}

void digest_sub_add(digest_t *d, const uint8_t author[DIGEST_KEY_BYTES],
		    uint64_t seq)
{
	unsigned s = digest_sub(author);

	d->hash[s] ^= digest_entry(author, seq);
	d->count[s]++;
}

uint64_t digest_entry(const uint8_t author[DIGEST_KEY_BYTES], uint64_t seq)
{
	uint8_t in[DIGEST_KEY_BYTES + 8], out[crypto_shorthash_BYTES];
	uint64_t h = 0;

	memcpy(in, author, DIGEST_KEY_BYTES);
	for (int i = 0; i < 8; i++)
		in[DIGEST_KEY_BYTES + i] = (uint8_t)(seq >> (8 * i));
	crypto_shorthash(out, in, sizeof(in), s_key);
	for (int i = 0; i < 8; i++)
		h |= (uint64_t)out[i] << (8 * i);
	return h;
}

void digest_clear(digest_t *d)
{
	memset(d, 0, sizeof(*d));
}

void digest_update(digest_t *d, const uint8_t author[DIGEST_KEY_BYTES],
		   uint64_t old_seq, uint64_t new_seq)
{
	unsigned b = digest_bucket(author);

	if (old_seq == new_seq)
		return;
	if (old_seq) {
		d->hash[b] ^= digest_entry(author, old_seq);
		d->count[b]--;
	}
	if (new_seq) {
		d->hash[b] ^= digest_entry(author, new_seq);
		d->count[b]++;
	}
}

uint64_t digest_diff(const digest_t *a, const digest_t *b)
{
	uint64_t mask = 0;

	for (unsigned i = 0; i < DIGEST_BUCKETS; i++)
		if (a->hash[i] != b->hash[i] || a->count[i] != b->count[i])
			mask |= (uint64_t)1 << i;
	return mask;
}

bool digest_in(uint64_t mask, const uint8_t author[DIGEST_KEY_BYTES])
{
	return (mask >> digest_bucket(author)) & 1;
}

int digest_pieces(const uint8_t *bucket, size_t n, uint64_t mask, size_t max,
		  digest_piece_fn *fn, void *arg)
{
	size_t at = 0, from = 0;
	uint64_t cur = 0;
	int rc = 0;

	for (unsigned r = 0; r < DIGEST_BUCKETS && rc >= 0; r++) {
		size_t end = at;

		if (!((mask >> r) & 1))
			continue;
		while (end < n && bucket[end] == r)
			end++;
		if (end - from > max && at > from) {
			/* the ranges so far, whole, before this one */
			rc = fn(arg, from, at - from, cur);
			from = at;
			cur = 0;
		}
		while (rc >= 0 && end - from > max) {
			rc = fn(arg, from, max, 0); /* a range too large */
			from += max;
		}
		cur |= (uint64_t)1 << r;
		at = end;
	}
	if (rc >= 0)
		rc = fn(arg, from, at - from, cur);
	return rc < 0 ? rc : 0;
}
