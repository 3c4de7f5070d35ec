/*
 * store_cases: store.h's contract as test cases (store_cases.h).
 */
#include "node/tests/store_cases.h"
#include "proto/tests/check.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void store_fake(fake_t *f, uint8_t author, uint64_t seq, uint8_t variant,
		const uint8_t *prev)
{
	memset(f, 0, sizeof(*f));
	memset(f->author, author, 32);
	f->id[0] = author;
	memcpy(f->id + 1, &seq, sizeof(seq));
	f->id[9] = variant;
	f->id[10] = 0x5a;
	if (prev)
		memcpy(f->prev, prev, 32);
	memcpy(f->bytes, f->id, 32);
	f->r = (store_rec_t){ .id = f->id, .author = f->author,
			      .prev_id = f->prev, .seq = seq, .kind = 1,
			      .ts_ms = (int64_t)seq, .bytes = f->bytes,
			      .len = sizeof(f->bytes) };
}

static int s_count_fn(void *arg, uint64_t seq, const uint8_t *b, size_t len)
{
	uint64_t *expect = arg;

	CHECK(seq == *expect);
	CHECK(len == 40);
	(*expect)++;
	return 0;
}

void store_case_feed(store_t *s)
{
	fake_t a[11], x;
	uint64_t next = 3;

	CHECK(store_begin(s) == 0);
	for (uint64_t i = 1; i <= 10; i++) {
		store_fake(&a[i], 1, i, 0, i > 1 ? a[i - 1].id : NULL);
		CHECK(store_put_record(s, &a[i].r) == STORE_ADDED);
	}
	CHECK(store_commit(s) == 0);
	CHECK(store_feed(s, a[1].author)->seq == 10);
	CHECK(memcmp(store_feed(s, a[1].author)->head, a[10].id, 32) == 0);
	/* duplicate, gap, broken chain */
	CHECK(store_put_record(s, &a[4].r) == STORE_DUPLICATE);
	CHECK(store_put_record(s, &a[10].r) == STORE_DUPLICATE);
	store_fake(&x, 1, 12, 0, a[10].id);
	CHECK(store_put_record(s, &x.r) == STORE_GAP);
	store_fake(&x, 1, 11, 0, a[9].id);
	CHECK(store_put_record(s, &x.r) == STORE_BROKEN_CHAIN);
	store_fake(&x, 2, 2, 0, NULL);
	CHECK(store_put_record(s, &x.r) == STORE_GAP);
	store_fake(&x, 2, 1, 0, a[1].id);
	CHECK(store_put_record(s, &x.r) == STORE_BROKEN_CHAIN);
	CHECK(store_feed(s, x.author) == NULL);
	CHECK(store_records(s, a[1].author, 3, 5, 1 << 20, s_count_fn,
			    &next) == 5);
	CHECK(next == 8);
	next = 1;
	CHECK(store_records(s, a[1].author, 1, 100, 100, s_count_fn, &next) ==
	      2);
	/* equivocation: same (author, seq), another id */
	store_fake(&x, 1, 5, 7, a[4].id);
	CHECK(store_put_record(s, &x.r) == STORE_EQUIVOCATION);
	CHECK(store_feed(s, a[1].author)->flagged);
	CHECK(store_evidence_count(s) == 1);
	store_fake(&x, 1, 11, 0, a[10].id);
	CHECK(store_put_record(s, &x.r) == STORE_FLAGGED);
	CHECK(store_record_count(s) == 10);
}

static int s_pair_fn(void *arg, const uint8_t *a, size_t a_len,
		     const uint8_t *b, size_t b_len)
{
	int *n = arg;

	CHECK(a_len == 40 && b_len == 40);
	CHECK(a[0] == b[0] && memcmp(a + 1, b + 1, 8) == 0); /* author, seq */
	CHECK(memcmp(a, b, 32) != 0);
	(*n)++;
	return 0;
}

/* Forwarded evidence: two records of one author at one seq. */
void store_case_pairs(store_t *s)
{
	fake_t p, q, f[4];
	int n = 0;

	/* an author we hold nothing of */
	store_fake(&p, 3, 4, 1, NULL);
	store_fake(&q, 3, 4, 2, NULL);
	CHECK(store_put_evidence_pair(s, &p.r, &q.r) == 1);
	CHECK(store_put_evidence_pair(s, &p.r, &q.r) == 0);
	CHECK(store_put_evidence_pair(s, &q.r, &p.r) == 0);
	CHECK(store_feed(s, p.author) && store_feed(s, p.author)->flagged);
	CHECK(store_feed(s, p.author)->seq == 0);
	CHECK(store_evidence_count(s) == 3);
	/* an author whose feed we hold: the held record stays in it */
	for (uint64_t i = 1; i <= 3; i++) {
		store_fake(&f[i], 4, i, 0, i > 1 ? f[i - 1].id : NULL);
		CHECK(store_put_record(s, &f[i].r) == STORE_ADDED);
	}
	store_fake(&q, 4, 2, 9, f[1].id);
	CHECK(store_put_evidence_pair(s, &f[2].r, &q.r) == 1);
	CHECK(store_put_evidence_pair(s, &q.r, &f[2].r) == 0);
	CHECK(store_feed(s, q.author)->flagged);
	CHECK(store_feed(s, q.author)->seq == 3);
	CHECK(store_evidence_count(s) == 4);
	CHECK(store_record_count(s) == 13);
	/* not a pair */
	CHECK(store_put_evidence_pair(s, &f[2].r, &f[3].r) == -EINVAL);
	CHECK(store_put_evidence_pair(s, &f[2].r, &f[2].r) == -EINVAL);
	CHECK(store_put_evidence_pair(s, &f[2].r, &p.r) == -EINVAL);
	CHECK(store_evidence_pairs(s, 100, s_pair_fn, &n) == 4);
	CHECK(n == 4);
	n = 0;
	CHECK(store_evidence_pairs(s, 2, s_pair_fn, &n) == 2 && n == 2);
}

void store_case_requests(store_t *s)
{
	uint8_t id[32] = { 9 }, id2[32] = { 8 }, *b = NULL;
	size_t len = 0;

	CHECK(store_put_request(s, id, (const uint8_t *)"req", 3, 5000) == 1);
	CHECK(store_put_request(s, id, (const uint8_t *)"req", 3, 5000) == 0);
	CHECK(store_put_request(s, id2, (const uint8_t *)"old", 3, 10) == 1);
	CHECK(store_has_request(s, id));
	CHECK(store_get_request(s, id, &b, &len) == 0 && len == 3 &&
	      memcmp(b, "req", 3) == 0);
	free(b);
	CHECK(store_expire_requests(s, 100) == 0);
	CHECK(!store_has_request(s, id2));
	CHECK(store_has_request(s, id));
}
