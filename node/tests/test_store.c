/*
 * Unit tests of the store on a temporary SQLite file: feed extension,
 * duplicates, gaps, broken chains, equivocation evidence, the vector
 * cache across reopen, requests with expiry, integrity, and the readers
 * over a read-only connection of the caller's own.
 */
#include "proto/tests/check.h"
#include "node/store/store.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int check_failures;

/* A fake record: id derived from (author, seq, variant); bytes = id. */
typedef struct {
	uint8_t id[32], author[32], prev[32], bytes[40];
	store_rec_t r;
} fake_t;

static void s_fake(fake_t *f, uint8_t author, uint64_t seq, uint8_t variant,
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

static void s_test_feed(store_t *s)
{
	fake_t a[11], x;
	uint64_t next = 3;

	CHECK(store_begin(s) == 0);
	for (uint64_t i = 1; i <= 10; i++) {
		s_fake(&a[i], 1, i, 0, i > 1 ? a[i - 1].id : NULL);
		CHECK(store_put_record(s, &a[i].r) == STORE_ADDED);
	}
	CHECK(store_commit(s) == 0);
	CHECK(store_feed(s, a[1].author)->seq == 10);
	CHECK(memcmp(store_feed(s, a[1].author)->head, a[10].id, 32) == 0);
	/* duplicate, gap, broken chain */
	CHECK(store_put_record(s, &a[4].r) == STORE_DUPLICATE);
	CHECK(store_put_record(s, &a[10].r) == STORE_DUPLICATE);
	s_fake(&x, 1, 12, 0, a[10].id);
	CHECK(store_put_record(s, &x.r) == STORE_GAP);
	s_fake(&x, 1, 11, 0, a[9].id);
	CHECK(store_put_record(s, &x.r) == STORE_BROKEN_CHAIN);
	s_fake(&x, 2, 2, 0, NULL);
	CHECK(store_put_record(s, &x.r) == STORE_GAP);
	s_fake(&x, 2, 1, 0, a[1].id);
	CHECK(store_put_record(s, &x.r) == STORE_BROKEN_CHAIN);
	CHECK(store_feed(s, x.author) == NULL);
	CHECK(store_records(s, a[1].author, 3, 5, 1 << 20, s_count_fn,
			    &next) == 5);
	CHECK(next == 8);
	next = 1;
	CHECK(store_records(s, a[1].author, 1, 100, 100, s_count_fn, &next) ==
	      2);
	/* equivocation: same (author, seq), another id */
	s_fake(&x, 1, 5, 7, a[4].id);
	CHECK(store_put_record(s, &x.r) == STORE_EQUIVOCATION);
	CHECK(store_feed(s, a[1].author)->flagged);
	CHECK(store_evidence_count(s) == 1);
	s_fake(&x, 1, 11, 0, a[10].id);
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
static void s_test_pairs(store_t *s)
{
	fake_t p, q, f[4];
	int n = 0;

	/* an author we hold nothing of */
	s_fake(&p, 3, 4, 1, NULL);
	s_fake(&q, 3, 4, 2, NULL);
	CHECK(store_put_evidence_pair(s, &p.r, &q.r) == 1);
	CHECK(store_put_evidence_pair(s, &p.r, &q.r) == 0);
	CHECK(store_put_evidence_pair(s, &q.r, &p.r) == 0);
	CHECK(store_feed(s, p.author) && store_feed(s, p.author)->flagged);
	CHECK(store_feed(s, p.author)->seq == 0);
	CHECK(store_evidence_count(s) == 3);
	/* an author whose feed we hold: the held record stays in it */
	for (uint64_t i = 1; i <= 3; i++) {
		s_fake(&f[i], 4, i, 0, i > 1 ? f[i - 1].id : NULL);
		CHECK(store_put_record(s, &f[i].r) == STORE_ADDED);
	}
	s_fake(&q, 4, 2, 9, f[1].id);
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

static void s_test_requests(store_t *s)
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

/* ---- the readers over another connection (store_read.c) ---- */

static int s_n_fn(void *arg, uint64_t seq, const uint8_t *b, size_t len)
{
	int *n = arg;

	CHECK(len == 40);
	(*n)++;
	return 0;
}

/* An idle store gives its page cache back; one that was written to since
 * the last look keeps it for one more period. */
static void s_test_shrink(store_t *s)
{
	uint8_t id[32] = { 8 }, desc[4] = { 1, 2, 3, 4 };
	fake_t a;
	int n = 0;

	CHECK(store_shrink_idle(s) == 0); /* the writes of the tests above */
	s_fake(&a, 1, 1, 0, NULL);
	CHECK(store_records(s, a.author, 1, 100, 1 << 20, s_n_fn, &n) >= 0);
	CHECK(n == 10);
	CHECK(store_shrink_idle(s) > 0);
	CHECK(store_put_peer(s, id, "tcp://127.0.0.1:1", desc, sizeof(desc),
			     1) >= 0);
	CHECK(store_shrink_idle(s) == 0);
	n = 0; /* and works on, from an empty cache */
	CHECK(store_records(s, a.author, 1, 100, 1 << 20, s_n_fn, &n) >= 0);
	CHECK(n == 10);
}

static bool s_skip_author1(void *arg, const uint8_t *id)
{
	return id[0] == 1;
}

static int s_req_fn(void *arg, const uint8_t *id, const uint8_t *b,
		    size_t len, int64_t expires_ms)
{
	int *n = arg;

	CHECK(id[0] == 9 && len == 3 && expires_ms == 5000);
	(*n)++;
	return 0;
}

static int s_row_fn(void *arg, const store_row_t *r)
{
	int *n = arg;

	CHECK(r->id_len == 32 && r->author_len == 32 && r->len == 40);
	CHECK(memcmp(r->id, r->bytes, 32) == 0);
	(*n)++;
	return 0;
}

static int s_feed_row_fn(void *arg, const store_feed_row_t *f)
{
	int *n = arg;

	CHECK(f->flagged && f->author_len == 32 && f->head_len == 32);
	if (f->seq == 0)
		CHECK(f->held == NULL);
	else
		CHECK(f->held_len == 32 && memcmp(f->head, f->held, 32) == 0);
	(*n)++;
	return 0;
}

static void s_test_readers(const char *path)
{
	store_view_q_t q = { .latest_kind = 1, .kind_lo = 2, .kind_hi = 5,
			     .also = "" };
	uint8_t id[32], *b = NULL;
	sqlite3 *db = NULL;
	size_t len = 0;
	int n = 0;

	CHECK(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) ==
	      SQLITE_OK);
	CHECK(store_db_exists(db));
	CHECK(store_db_count_kind(db, 1) == 13);
	CHECK(store_db_count_kind(db, 2) == 0);
	CHECK(store_db_records_of_kind(db, 1, s_skip_author1, s_n_fn, &n) ==
	      0 && n == 3);
	n = 0;
	CHECK(store_db_find_record(db, 1, "0402000000", s_n_fn, &n) == 0);
	CHECK(n == 1);
	CHECK(store_db_find_record(db, 1, "04", s_n_fn, &n) == -EINVAL);
	CHECK(store_db_find_record(db, 2, "0402000000", s_n_fn, &n) ==
	      -ENOENT);
	n = 0;
	CHECK(store_db_view_records(db, &q, s_n_fn, &n) == 0 && n == 2);
	CHECK(store_db_find_request(db, "09000000", id) == 0 && id[0] == 9);
	CHECK(store_db_find_request(db, "07000000", id) == -ENOENT);
	CHECK(store_db_get_request(db, id, &b, &len) == 0 && len == 3 &&
	      memcmp(b, "req", 3) == 0);
	free(b);
	n = 0;
	CHECK(store_db_requests(db, 10, s_req_fn, &n) == 0 && n == 1);
	n = 0;
	CHECK(store_db_rows(db, s_row_fn, &n) == 0 && n == 13);
	n = 0;
	CHECK(store_db_feed_rows(db, s_feed_row_fn, &n) == 0 && n == 3);
	sqlite3_close(db);
}

int main(void)
{
	char path[] = "/tmp/labmesh-store-XXXXXX";
	char db[64], tmp[80];
	store_t *s = NULL;
	fake_t a1;
	int fd = mkstemp(path);

	/* as a node does: no page cache allocated ahead of use, so what
	 * store_shrink_idle frees goes back to malloc */
	CHECK(sqlite3_config(SQLITE_CONFIG_PAGECACHE, NULL, 0, 0) ==
	      SQLITE_OK);
	CHECK(fd >= 0);
	close(fd);
	snprintf(db, sizeof(db), "%s.db", path);
	CHECK(store_open(db, &s) == 0);
	s_test_feed(s);
	s_test_pairs(s);
	s_test_requests(s);
	s_test_shrink(s);
	store_destroy(&s);
	CHECK(s == NULL);
	/* the feed cache comes back from the table */
	CHECK(store_open(db, &s) == 0);
	s_fake(&a1, 1, 1, 0, NULL);
	CHECK(store_feed_count(s) == 3);
	CHECK(store_feed(s, a1.author)->seq == 10);
	CHECK(store_feed(s, a1.author)->flagged);
	s_fake(&a1, 3, 4, 1, NULL); /* known only from evidence */
	CHECK(store_feed(s, a1.author)->seq == 0);
	CHECK(store_feed(s, a1.author)->flagged);
	CHECK(store_check(s) == 0);
	store_destroy(&s);
	s_test_readers(db);
	unlink(path);
	unlink(db);
	snprintf(tmp, sizeof(tmp), "%s-wal", db);
	unlink(tmp);
	snprintf(tmp, sizeof(tmp), "%s-shm", db);
	unlink(tmp);
	if (check_failures)
		fprintf(stderr, "%d checks failed\n", check_failures);
	return check_failures ? 1 : 0;
}
