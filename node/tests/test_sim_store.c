/*
 * Unit tests of the simulator's shared record pool (node/sim/sim_store.c):
 * the store contract's cases (store_cases.c, as test_store.c runs them on
 * SQLite), then what the pool adds: stores sharing one copy of a record
 * while each holds its own head, store_feed_at's order, a rollback, the
 * order of request ids, and the pool given back with its last store.
 */
#include "proto/tests/check.h"
#include "node/store/store.h"
#include "node/tests/store_cases.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int check_failures;

static int s_seq_fn(void *arg, uint64_t seq, const uint8_t *b, size_t len)
{
	uint64_t *last = arg;

	CHECK(len == 40 && b[0] == 5);
	*last = seq;
	return 0;
}

/* Two stores, one pool: each has only what it was given. */
static void s_test_shared(void)
{
	store_t *a = NULL, *b = NULL;
	fake_t f[6], other;
	uint64_t last = 0;

	CHECK(store_open(":memory:", &a) == 0);
	CHECK(store_open(":memory:", &b) == 0);
	for (uint64_t i = 1; i <= 5; i++) {
		store_fake(&f[i], 5, i, 0, i > 1 ? f[i - 1].id : NULL);
		CHECK(store_put_record(a, &f[i].r) == STORE_ADDED);
	}
	CHECK(store_put_record(b, &f[1].r) == STORE_ADDED);
	CHECK(store_put_record(b, &f[3].r) == STORE_GAP);
	CHECK(store_put_record(b, &f[2].r) == STORE_ADDED);
	CHECK(store_feed(a, f[1].author)->seq == 5);
	CHECK(store_feed(b, f[1].author)->seq == 2);
	CHECK(memcmp(store_feed(b, f[1].author)->head, f[2].id, 32) == 0);
	CHECK(store_records(b, f[1].author, 1, 100, 1 << 20, s_seq_fn,
			    &last) == 2 && last == 2);
	CHECK(store_record_count(a) == 5 && store_record_count(b) == 2);
	/* b extending its feed with another record than the pool holds */
	store_fake(&other, 5, 3, 1, f[2].id);
	CHECK(store_put_record(b, &other.r) == -ENOTSUP);
	CHECK(store_feed(b, f[1].author)->seq == 2);
	/* equivocation in a flags it there only */
	CHECK(store_put_record(a, &other.r) == STORE_EQUIVOCATION);
	CHECK(store_feed(a, f[1].author)->flagged);
	CHECK(!store_feed(b, f[1].author)->flagged);
	CHECK(store_evidence_count(b) == 0);
	store_destroy(&a);
	CHECK(store_put_record(b, &f[3].r) == STORE_ADDED);
	store_destroy(&b);
	CHECK(b == NULL);
}

/* store_feed_at in order of first put; a rollback takes back feeds,
 * heads, records and requests. */
static void s_test_order_rollback(void)
{
	store_t *s = NULL;
	fake_t f[4], g;
	uint8_t id[32] = { 3 };

	CHECK(store_open(":memory:", &s) == 0);
	for (int a = 3; a >= 1; a--) {
		store_fake(&f[a], (uint8_t)(20 + a), 1, 0, NULL);
		CHECK(store_put_record(s, &f[a].r) == STORE_ADDED);
	}
	CHECK(store_feed_count(s) == 3);
	CHECK(store_feed_at(s, 0)->author[0] == 23);
	CHECK(store_feed_at(s, 2)->author[0] == 21);
	CHECK(store_feed_at(s, 3) == NULL);
	CHECK(store_begin(s) == 0);
	store_fake(&g, 21, 2, 0, f[1].id);
	CHECK(store_put_record(s, &g.r) == STORE_ADDED);
	store_fake(&g, 30, 1, 0, NULL);
	CHECK(store_put_record(s, &g.r) == STORE_ADDED);
	CHECK(store_put_request(s, id, (const uint8_t *)"r", 1, 100) == 1);
	store_rollback(s);
	CHECK(store_feed_count(s) == 3);
	CHECK(store_feed(s, g.author) == NULL);
	CHECK(store_feed(s, f[1].author)->seq == 1);
	CHECK(store_record_count(s) == 3);
	CHECK(!store_has_request(s, id));
	/* what the pool kept from the rolled-back put is the same record */
	store_fake(&g, 21, 2, 0, f[1].id);
	CHECK(store_put_record(s, &g.r) == STORE_ADDED);
	store_destroy(&s);
}

typedef struct {
	int64_t last;
	int n;
} ids_t;

static int s_id_fn(void *arg, const uint8_t *id, int64_t expires_ms)
{
	ids_t *t = arg;

	CHECK(t->n == 0 || expires_ms <= t->last);
	t->last = expires_ms;
	t->n++;
	(void)id;
	return 0;
}

/* Request ids latest to expire first, whatever order they came in;
 * expired ones neither named nor kept. */
static void s_test_request_order(void)
{
	store_t *s = NULL;
	ids_t t = { 0, 0 };

	CHECK(store_open(":memory:", &s) == 0);
	for (int k = 0; k < 200; k++) {
		uint8_t id[32] = { 0 };

		id[0] = (uint8_t)k;
		id[1] = 0x77;
		CHECK(store_put_request(s, id, id, 2,
					1000 + (k * 37) % 500) == 1);
	}
	CHECK(store_request_ids(s, 0, 1000, s_id_fn, &t) == 200 && t.n == 200);
	t.n = 0;
	CHECK(store_request_ids(s, 1250, 1000, s_id_fn, &t) == t.n);
	CHECK(t.n > 0 && t.n < 200 && t.last > 1250);
	CHECK(store_expire_requests(s, 1250) == 0);
	t.n = 0;
	CHECK(store_request_ids(s, 0, 1000, s_id_fn, &t) == t.n);
	CHECK(t.n > 0 && t.n < 200 && t.last > 1250);
	store_destroy(&s);
}

int main(void)
{
	store_t *s = NULL;

	CHECK(store_open(":memory:", &s) == 0);
	store_case_feed(s);
	store_case_pairs(s);
	store_case_requests(s);
	CHECK(store_feed_count(s) == 3);
	store_destroy(&s);
	s_test_shared();
	s_test_order_rollback();
	s_test_request_order();
	if (check_failures)
		fprintf(stderr, "%d checks failed\n", check_failures);
	return check_failures ? 1 : 0;
}
