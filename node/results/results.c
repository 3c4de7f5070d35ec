/*
 * results: opening the store for result commands, keeping the index in
 * step with the records (catch-up, reindex), and `store check`: every
 * record verified over its stored bytes and every feed's hash chain.
 */
#include "node/results/results.h"
#include "node/results/index.h"

#include "proto/error.h"
#include "proto/mem.h"
#include "proto/record.h"
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

/*
 * Index each record that the SELECT sql yields, committing every
 * RESULTS_BATCH records. Records that do not verify are skipped (store
 * check reports them). Returns the number indexed or -errno.
 */
static int s_index_select(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	index_t *ix;
	int rc, n = 0, in_batch = 0;

	rc = index_new(db, &ix);
	if (rc < 0)
		return rc;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		index_destroy(&ix);
		return -EIO;
	}
	sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int r = index_put(ix, sqlite3_column_blob(st, 0),
				  (size_t)sqlite3_column_bytes(st, 0));

		if (r == 1)
			n++;
		else if (proto_is_errno(r)) {
			n = r;
			break;
		}
		if (++in_batch == RESULTS_BATCH) {
			sqlite3_exec(db, "COMMIT; BEGIN IMMEDIATE", NULL, NULL,
				     NULL);
			in_batch = 0;
		}
	}
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		n = -EIO;
	sqlite3_finalize(st);
	if (sqlite3_exec(db, n < 0 ? "ROLLBACK" : "COMMIT", NULL, NULL,
			 NULL) != SQLITE_OK && n >= 0)
		n = -EIO;
	index_destroy(&ix);
	return n;
}

int results_catch_up(sqlite3 *db)
{
	int rc;

	if (!s_has_table(db, "records"))
		return 0;
	rc = results_schema(db);
	if (rc < 0)
		return rc;
	/* bytes are read only for run records not yet indexed */
	return s_index_select(db,
		"SELECT bytes FROM records WHERE kind = 5 AND id NOT IN"
		" (SELECT rec FROM res_runs) ORDER BY author, seq");
}

/* Run records the index lacks (0 when in step), or -errno. */
static int64_t s_lag(sqlite3 *db)
{
	sqlite3_stmt *st;
	int64_t n = -EIO;

	if (!s_has_table(db, "records"))
		return 0;
	/* no index yet: behind only if there are run records to index */
	if (sqlite3_prepare_v2(db, s_has_table(db, "res_runs") ?
			       "SELECT (SELECT count(*) FROM records WHERE"
			       " kind = 5) - (SELECT count(*) FROM res_runs)" :
			       "SELECT count(*) FROM records WHERE kind = 5",
			       -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
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

static void s_check_row(s_check_t *c, sqlite3_stmt *st)
{
	const uint8_t *id = sqlite3_column_blob(st, 0);
	const uint8_t *author = sqlite3_column_blob(st, 1);
	uint64_t seq = (uint64_t)sqlite3_column_int64(st, 2);
	const uint8_t *bytes = sqlite3_column_blob(st, 3);
	size_t len = (size_t)sqlite3_column_bytes(st, 3);
	static const uint8_t zero[32];
	record_t *rec = NULL;
	int rc;

	if (sqlite3_column_bytes(st, 0) != 32 ||
	    sqlite3_column_bytes(st, 1) != 32) {
		fprintf(c->out, "records row: malformed id or author\n");
		c->problems++;
		return;
	}
	if (!c->have_author || memcmp(c->author, author, 32) != 0) {
		memcpy(c->author, author, 32);
		c->have_author = true;
		c->seq = 0;
		memset(c->last_id, 0, 32);
	}
	if (seq != c->seq + 1)
		s_problem(c, id, "%s", "feed gap: seq not contiguous", seq);
	rc = record_decode(bytes, len, &rec);
	if (rc < 0) {
		s_problem(c, id, "does not verify: %s", proto_strerror(rc),
			  seq);
	} else if (memcmp(rec->head.id, id, 32) != 0) {
		s_problem(c, id, "%s", "stored id is not the hash of its bytes",
			  seq);
	} else if (memcmp(rec->head.author, author, 32) != 0 ||
		   rec->head.seq != seq) {
		s_problem(c, id, "%s", "author or seq differ from the row", seq);
	} else if (seq == c->seq + 1 &&
		   memcmp(rec->head.has_prev ? rec->head.prev_id : zero,
			  c->last_id, 32) != 0) {
		s_problem(c, id, "%s", "broken hash chain: prev_id is not the"
			  " id of the record before", seq);
	}
	record_destroy(&rec);
	c->seq = seq;
	memcpy(c->last_id, id, 32);
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
static void s_check_feeds(sqlite3 *db, s_check_t *c)
{
	sqlite3_stmt *st;

	if (!s_has_table(db, "feeds") ||
	    sqlite3_prepare_v2(db, "SELECT f.author, f.seq, f.head, r.id FROM"
			       " feeds f LEFT JOIN records r ON r.author ="
			       " f.author AND r.seq = f.seq ORDER BY f.author",
			       -1, &st, NULL) != SQLITE_OK)
		return;
	while (sqlite3_step(st) == SQLITE_ROW) {
		const void *head = sqlite3_column_blob(st, 2);
		const void *id = sqlite3_column_blob(st, 3);
		char ahex[65] = "?";

		if (sqlite3_column_bytes(st, 0) == 32)
			proto_hex(sqlite3_column_blob(st, 0), 32, ahex);
		/* an author known only from forwarded equivocation evidence:
		 * flagged, nothing of its feed held */
		if (sqlite3_column_int64(st, 1) == 0 && !id &&
		    sqlite3_column_bytes(st, 2) == 32 &&
		    s_all_zero(head, 32))
			continue;
		if (!id || sqlite3_column_bytes(st, 2) != 32 ||
		    sqlite3_column_bytes(st, 3) != 32 || memcmp(head, id, 32)) {
			fprintf(c->out, "feed %.12s: head at seq %lld is not"
				" the stored record\n", ahex,
				(long long)sqlite3_column_int64(st, 1));
			c->problems++;
		}
	}
	sqlite3_finalize(st);
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
static void s_note_flagged(sqlite3 *db, FILE *out)
{
	sqlite3_stmt *st;
	char hex[65];

	if (!s_has_table(db, "feeds") ||
	    sqlite3_prepare_v2(db, "SELECT author FROM feeds WHERE flagged"
			       " ORDER BY author", -1, &st, NULL) != SQLITE_OK)
		return;
	while (sqlite3_step(st) == SQLITE_ROW)
		if (sqlite3_column_bytes(st, 0) == 32) {
			proto_hex(sqlite3_column_blob(st, 0), 32, hex);
			fprintf(out, "note: feed %.12s is flagged: equivocation"
				" evidence held\n", hex);
		}
	sqlite3_finalize(st);
}

int results_check(sqlite3 *db, FILE *out)
{
	s_check_t c = { .out = out };
	sqlite3_stmt *st;
	int rc;

	s_check_sqlite(db, &c);
	if (!s_has_table(db, "records"))
		return c.problems;
	if (sqlite3_prepare_v2(db, "SELECT id, author, seq, bytes FROM records"
			       " ORDER BY author, seq", -1, &st,
			       NULL) != SQLITE_OK)
		return -EIO;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		s_check_row(&c, st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		fprintf(out, "store: read failed: %s\n", sqlite3_errstr(rc));
		c.problems++;
	}
	s_check_feeds(db, &c);
	s_note_flagged(db, out);
	return c.problems;
}
