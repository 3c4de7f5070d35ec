/*
 * test_digest: range digests of a vector — the same entries in any order
 * give the same digest, a raised seq changes exactly its range, undoing
 * it restores the digest, and the ranges cover the key space.
 */
#include "proto/tests/check.h"
#include "node/net/digest.h"

#include <sodium.h>
#include <string.h>

int check_failures;

#define N 500

int main(void)
{
	static uint8_t authors[N][DIGEST_KEY_BYTES];
	digest_t a, b;
	uint64_t mask;

	CHECK(sodium_init() >= 0);
	for (int i = 0; i < N; i++)
		randombytes_buf(authors[i], DIGEST_KEY_BYTES);
	digest_clear(&a);
	digest_clear(&b);
	for (int i = 0; i < N; i++)
		digest_update(&a, authors[i], 0, (uint64_t)i + 1);
	for (int i = N - 1; i >= 0; i--) { /* other order, via a detour */
		digest_update(&b, authors[i], 0, 7);
		digest_update(&b, authors[i], 7, (uint64_t)i + 1);
	}
	CHECK(digest_diff(&a, &b) == 0);
	CHECK(memcmp(&a, &b, sizeof(a)) == 0);

	digest_update(&b, authors[3], 4, 5);
	mask = digest_diff(&a, &b);
	CHECK(mask == (uint64_t)1 << digest_bucket(authors[3]));
	CHECK(digest_in(mask, authors[3]));
	for (int i = 0; i < N; i++)
		if (digest_bucket(authors[i]) != digest_bucket(authors[3]))
			CHECK(!digest_in(mask, authors[i]));
	digest_update(&b, authors[3], 5, 4);
	CHECK(digest_diff(&a, &b) == 0);

	/* an entry dropped: its range's count and hash differ */
	digest_update(&b, authors[9], 10, 0);
	CHECK(digest_diff(&a, &b) == (uint64_t)1 << digest_bucket(authors[9]));

	/* the ranges cover every first byte, in order */
	for (unsigned v = 0; v < 256; v++) {
		uint8_t k[DIGEST_KEY_BYTES] = {(uint8_t)v};

		CHECK(digest_bucket(k) < DIGEST_BUCKETS);
		CHECK(digest_bucket(k) == v * DIGEST_BUCKETS / 256);
	}
	CHECK(digest_entry(authors[0], 1) != digest_entry(authors[0], 2));
	return check_failures ? 1 : 0;
}
