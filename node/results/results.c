/*
 * results: opening the store for result commands, keeping the index in
 * step with the records (catch-up, reindex), and `store check`: every
 * record verified over its stored bytes and every feed's hash chain.
 */
#include "node/results/results.h"
#include "node/results/index.h"

#include "node/store/store.h"
#include "node/store/wire.h"

#include "proto/error.h"
#include "proto/mem.h"
#include "proto/types.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define RESULTS_BUSY_MS 5000
#define RESULTS_BATCH 200 /* records per transaction when rebuilding */

int results_open(const char *home, bool rw, sqlite3 **ret_db)
{
	char *path = xasprintf("%s/store.db", home);
	int flags = rw ? SQLITE_OPEN_READWRITE : SQLITE_OPEN_READONLY;
	struct stat st;
	sqlite3 *db = NULL;
	int rc;

	if (stat(path, &st) < 0) {
		rc = -errno;
		free(path);
		return rc;
	}
	rc = sqlite3_open_v2(path, &db, flags | SQLITE_OPEN_NOMUTEX, NULL);
	free(path);
	if (rc != SQLITE_OK) {
		sqlite3_close(db);
		return rc == SQLITE_CANTOPEN ? -EACCES : -EIO;
	}
	sqlite3_busy_timeout(db, RESULTS_BUSY_MS);
	if (rw)
		sqlite3_exec(db, "PRAGMA journal_mode=WAL", NULL, NULL, NULL);
	*ret_db = db;
	return 0;
}

static bool s_has_table(sqlite3 *db, const char *name)
{
	sqlite3_stmt *st;
	bool found = false;

	if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE"
			       " type = 'table' AND name = ?1", -1, &st,
			       NULL) != SQLITE_OK)
		return false;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	found = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return found;
}

typedef struct {
	sqlite3 *db;
	index_t *ix;
	int n, in_batch;
} s_catch_t;

static bool s_indexed(void *arg, const uint8_t *id)
{
	s_catch_t *c = arg;

	return index_has_run(c->ix, id);
}

static int s_index_one(void *arg, uint64_t seq, const uint8_t *bytes,
		       size_t len)
{
	s_catch_t *c = arg;
	int r = index_put(c->ix, bytes, len);

	if (r == 1) {
		c->n++;
	} else if (proto_is_errno(r)) {
		c->n = r;
		return 1;
	}
	if (++c->in_batch == RESULTS_BATCH) {
		sqlite3_exec(c->db, "COMMIT; BEGIN IMMEDIATE", NULL, NULL,
			     NULL);
		c->in_batch = 0;
	}
	return 0;
}

/*
 * Index the run records the index lacks (their bytes are read only for
 * those), committing every RESULTS_BATCH records. Records that do not
 * verify are skipped (store check reports them). Returns the number
 * indexed or -errno.
 */
static int s_index_missing(sqlite3 *db)
{
	s_catch_t c = { .db = db };
	int rc = index_new(db, &c.ix);

	if (rc < 0)
		return rc;
	sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
	rc = store_db_records_of_kind(db, RECORD_RUN, s_indexed, s_index_one,
				      &c);
	if (rc < 0 && c.n >= 0)
		c.n = rc;
	if (sqlite3_exec(db, c.n < 0 ? "ROLLBACK" : "COMMIT", NULL, NULL,
			 NULL) != SQLITE_OK && c.n >= 0)
		c.n = -EIO;
	index_destroy(&c.ix);
	return c.n;
}

int results_catch_up(sqlite3 *db)
{
	int rc;

	if (!store_db_exists(db))
		return 0;
	rc = results_schema(db);
	if (rc < 0)
		return rc;
	return s_index_missing(db);
}

bool results_has_index(sqlite3 *db)
{
	return s_has_table(db, "res_runs");
}

/* Run records the index lacks (0 when in step), or -errno. */
static int64_t s_lag(sqlite3 *db)
{
	sqlite3_stmt *st;
	int64_t runs, n = -EIO;

	if (!store_db_exists(db))
		return 0;
	runs = store_db_count_kind(db, RECORD_RUN);
	/* no index yet: behind only if there are run records to index */
	if (runs < 0 || !s_has_table(db, "res_runs"))
		return runs;
	/* an index older than suite reasons: the catch-up adds the column */
	if (sqlite3_prepare_v2(db, "SELECT reason FROM res_suites LIMIT 0",
			       -1, &st, NULL) != SQLITE_OK)
		return 1;
	sqlite3_finalize(st);
	if (sqlite3_prepare_v2(db, "SELECT count(*) FROM res_runs", -1, &st,
			       NULL) != SQLITE_OK)
		return -EIO;
	if (sqlite3_step(st) == SQLITE_ROW)
		n = runs - sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return n;
}

int results_reindex(sqlite3 *db)
{
	int rc = index_drop(db);

	if (rc < 0)
		return rc;
	return results_catch_up(db);
}

/* Exposed through results_cli.c: whether the index needs a catch-up. */
int results_lag(sqlite3 *db);
int results_lag(sqlite3 *db)
{
	int64_t n = s_lag(db);

	return n < 0 ? (int)n : n > 0;
}

/* ---- check ---- */

typedef struct {
	FILE *out;
	int problems;
	uint8_t author[32];
	bool have_author;
	uint64_t seq;        /* last seq seen of this author */
	uint8_t last_id[32]; /* its id */
} s_check_t;

static void s_problem(s_check_t *c, const uint8_t id[32], const char *fmt,
		      const char *detail, uint64_t seq)
{
	char hex[65], ahex[65];

	proto_hex(id, 32, hex);
	proto_hex(c->author, 32, ahex);
	fprintf(c->out, "record %s: ", hex);
	fprintf(c->out, fmt, detail);
	fprintf(c->out, " (author %.12s, seq %llu)\n", ahex,
		(unsigned long long)seq);
	c->problems++;
}

static int s_check_row(void *arg, const store_row_t *row)
{
	s_check_t *c = arg;
	const uint8_t *id = row->id;
	const uint8_t *author = row->author;
	uint64_t seq = (uint64_t)row->seq;
	wire_record_t h;
	record_t *rec = NULL;
	int rc;

	if (row->id_len != 32 || row->author_len != 32) {
		fprintf(c->out, "records row: malformed id or author\n");
		c->problems++;
		return 0;
	}
	if (!c->have_author || memcmp(c->author, author, 32) != 0) {
		memcpy(c->author, author, 32);
		c->have_author = true;
		c->seq = 0;
		memset(c->last_id, 0, 32);
	}
	if (seq != c->seq + 1)
		s_problem(c, id, "%s", "feed gap: seq not contiguous", seq);
	/* the envelope and signature of every record; the body of the kinds
	 * this version knows (a newer one's kinds are kept unread) */
	rc = wire_record_verify(row->bytes, row->len, &h);
	if (rc == 0 && (rc = wire_record_decode(row->bytes, row->len,
						&rec)) == PROTO_E_KIND)
		rc = 0;
	if (rc < 0) {
		s_problem(c, id, "does not verify: %s", proto_strerror(rc),
			  seq);
	} else if (memcmp(h.id, id, 32) != 0) {
		s_problem(c, id, "%s", "stored id is not the hash of its bytes",
			  seq);
	} else if (memcmp(h.author, author, 32) != 0 || h.seq != seq) {
		s_problem(c, id, "%s", "author or seq differ from the row", seq);
	} else if (seq == c->seq + 1 && memcmp(h.prev_id, c->last_id, 32)) {
		s_problem(c, id, "%s", "broken hash chain: prev_id is not the"
			  " id of the record before", seq);
	}
	record_destroy(&rec);
	c->seq = seq;
	memcpy(c->last_id, id, 32);
	return 0;
}

static bool s_all_zero(const void *p, size_t n)
{
	const unsigned char *b = p;
	unsigned char acc = 0;

	for (size_t i = 0; i < n; i++)
		acc |= b[i];
	return acc == 0;
}

/* Each feed head must be the last record of the author's chain. */
static int s_check_feed(void *arg, const store_feed_row_t *f)
{
	s_check_t *c = arg;
	char ahex[65] = "?";

	if (f->author_len == 32)
		proto_hex(f->author, 32, ahex);
	/* an author known only from forwarded equivocation evidence:
	 * flagged, nothing of its feed held */
	if (f->seq == 0 && !f->held && f->head_len == 32 &&
	    s_all_zero(f->head, 32))
		return 0;
	if (!f->held || f->head_len != 32 || f->held_len != 32 ||
	    memcmp(f->head, f->held, 32)) {
		fprintf(c->out, "feed %.12s: head at seq %lld is not the stored"
			" record\n", ahex, (long long)f->seq);
		c->problems++;
	}
	return 0;
}

/* SQLite's own structure check; each complaint is a problem. */
static void s_check_sqlite(sqlite3 *db, s_check_t *c)
{
	sqlite3_stmt *st;

	if (sqlite3_prepare_v2(db, "PRAGMA quick_check", -1, &st,
			       NULL) != SQLITE_OK)
		return;
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *t = (const char *)sqlite3_column_text(st, 0);

		if (t && strcmp(t, "ok")) {
			fprintf(c->out, "sqlite: %s\n", t);
			c->problems++;
		}
	}
	sqlite3_finalize(st);
}

/* Authors flagged for equivocation: evidence, not damage; noted only. */
static int s_note_flagged(void *arg, const store_feed_row_t *f)
{
	FILE *out = arg;
	char hex[65];

	if (f->flagged && f->author_len == 32) {
		proto_hex(f->author, 32, hex);
		fprintf(out, "note: feed %.12s is flagged: equivocation"
			" evidence held\n", hex);
	}
	return 0;
}

int results_check(sqlite3 *db, FILE *out)
{
	s_check_t c = { .out = out };

	s_check_sqlite(db, &c);
	if (!store_db_exists(db))
		return c.problems;
	if (store_db_rows(db, s_check_row, &c) < 0) {
		fprintf(out, "store: read failed: %s\n",
			sqlite3_errstr(sqlite3_errcode(db)));
		c.problems++;
	}
	store_db_feed_rows(db, s_check_feed, &c);
	store_db_feed_rows(db, s_note_flagged, out);
	return c.problems;
}
