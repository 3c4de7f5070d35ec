/*
 * Unit tests of the store on a temporary SQLite file: the contract's
 * cases (store_cases.c: feed extension, duplicates, gaps, broken chains,
 * equivocation evidence, requests), the vector cache across reopen, requests with expiry, integrity, and the readers
 * over a read-only connection of the caller's own.
 */
#include "proto/tests/check.h"
#include "node/store/store.h"
#include "node/tests/store_cases.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int check_failures;

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
	store_fake(&a, 1, 1, 0, NULL);
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
	store_case_feed(s);
	store_case_pairs(s);
	store_case_requests(s);
	s_test_shrink(s);
	store_destroy(&s);
	CHECK(s == NULL);
	/* the feed cache comes back from the table */
	CHECK(store_open(db, &s) == 0);
	store_fake(&a1, 1, 1, 0, NULL);
	CHECK(store_feed_count(s) == 3);
	CHECK(store_feed(s, a1.author)->seq == 10);
	CHECK(store_feed(s, a1.author)->flagged);
	store_fake(&a1, 3, 4, 1, NULL); /* known only from evidence */
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
