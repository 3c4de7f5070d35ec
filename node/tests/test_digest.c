/*
 * test_digest: range digests of a vector — the same entries in any order
 * give the same digest, a raised seq changes exactly its range, undoing
 * it restores the digest, and the ranges cover the key space; an answer
 * cut in pieces holds every entry once, each range's bit once, with its
 * last entry, and no piece over the cap.
 */
#include "proto/tests/check.h"
#include "node/net/digest.h"

#include <sodium.h>
#include <string.h>

int check_failures;

#define N 500

/* What the pieces of an answer said: entries in order, bits once. */
typedef struct {
	const uint8_t *bucket;
	size_t n, next, max, pieces;
	uint64_t seen;
	bool bad;
} s_plan_t;

static int s_piece(void *arg, size_t from, size_t count, uint64_t mask)
{
	s_plan_t *t = arg;

	t->pieces++;
	if (from != t->next || count > t->max || (mask & t->seen))
		t->bad = true;
	t->next = from + count;
	t->seen |= mask;
	for (unsigned r = 0; r < DIGEST_BUCKETS; r++) {
		if (!((mask >> r) & 1))
			continue;
		/* the range ends in this piece: nothing of it after */
		for (size_t i = t->next; i < t->n; i++)
			if (t->bucket[i] == r)
				t->bad = true;
	}
	return 0;
}

static void s_plan(const uint8_t *bucket, size_t n, uint64_t mask,
		   size_t max, size_t want_pieces)
{
	s_plan_t t = { bucket, n, 0, max, 0, 0, false };

	CHECK(digest_pieces(bucket, n, mask, max, s_piece, &t) == 0);
	CHECK(!t.bad && t.next == n && t.seen == mask);
	CHECK(t.pieces == want_pieces);
}

static int s_stop(void *arg, size_t from, size_t count, uint64_t mask)
{
	(void)from;
	(void)count;
	(void)mask;
	return ++*(int *)arg == 2 ? -11 : 0;
}

static void test_pieces(void)
{
	/* ranges 1 (3 entries), 2 (empty), 5 (10), 9 (1), 40 (empty) */
	static const uint8_t b[] = { 1, 1, 1, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 9 };
	uint64_t mask = (1ull << 1) | (1ull << 2) | (1ull << 5) | (1ull << 9) |
			(1ull << 40);
	int calls = 0;

	s_plan(b, sizeof(b), mask, 1024, 1);  /* all in one */
	s_plan(b, sizeof(b), mask, 4, 4);     /* {1,2}, 5 cut 4+4, 2 of 5 {5,9,40} */
	s_plan(b, 3, (1ull << 1), 3, 1);      /* exactly the cap */
	s_plan(b, 0, (1ull << 63) | 1, 4, 1); /* nothing held: bits only */
	s_plan(b, 3, (1ull << 1), 1, 3);      /* one entry a piece */
	CHECK(digest_pieces(b, sizeof(b), mask, 4, s_stop, &calls) == -11);
	CHECK(calls == 2);
}

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
	test_pieces();
	return check_failures ? 1 : 0;
}
