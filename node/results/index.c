/*
 * index: the results index, derived from `run` records.
 *
 * Layout: the DDL, then the string/path interning cache, then the
 * indexer object (prepared statements) and the row writers, then the
 * one-shot results_index_record() for the node's hook.
 *
 * Compactness matters (a million cases should stay near 100 bytes each
 * with the signed record itself): case and metric rows live in WITHOUT
 * ROWID tables keyed (run, path) with small integers only; paths,
 * suite names, messages and units are interned; an empty message or unit
 * is NULL (no bytes).
 */
#include "node/results/index.h"
#include "node/results/results.h"

#include "node/store/wire.h"

#include "proto/error.h"
#include "proto/mem.h"
#include "proto/types.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char s_ddl[] =
	"CREATE TABLE IF NOT EXISTS res_runs("
	" id INTEGER PRIMARY KEY, rec BLOB NOT NULL UNIQUE,"
	" author BLOB NOT NULL, seq INTEGER NOT NULL, ts_ms INTEGER NOT NULL,"
	" request BLOB, lab TEXT NOT NULL, board TEXT NOT NULL,"
	" arch TEXT NOT NULL, tree TEXT NOT NULL, branch TEXT NOT NULL,"
	" git_commit TEXT NOT NULL, config TEXT NOT NULL,"
	" compiler TEXT NOT NULL, describe TEXT NOT NULL,"
	" build INTEGER NOT NULL, status INTEGER NOT NULL,"
	" start_ms INTEGER NOT NULL, end_ms INTEGER NOT NULL, logs TEXT);"
	"CREATE INDEX IF NOT EXISTS res_runs_commit ON res_runs(git_commit);"
	"CREATE TABLE IF NOT EXISTS res_strs("
	" id INTEGER PRIMARY KEY, s TEXT NOT NULL UNIQUE);"
	"CREATE TABLE IF NOT EXISTS res_paths("
	" id INTEGER PRIMARY KEY, suite INTEGER NOT NULL, path TEXT NOT NULL,"
	" UNIQUE(suite, path));"
	"CREATE TABLE IF NOT EXISTS res_suites("
	" run INTEGER NOT NULL, suite INTEGER NOT NULL, version TEXT,"
	" status INTEGER NOT NULL, duration_ms INTEGER NOT NULL,"
	" start_ms INTEGER NOT NULL, end_ms INTEGER NOT NULL,"
	" n_pass INTEGER, n_fail INTEGER, n_error INTEGER, n_skip INTEGER,"
	" n_miss INTEGER, n_done INTEGER, logs TEXT, reason TEXT,"
	" PRIMARY KEY(run, suite)) WITHOUT ROWID;"
	"CREATE TABLE IF NOT EXISTS res_cases("
	" run INTEGER NOT NULL, path INTEGER NOT NULL, status INTEGER NOT NULL,"
	" duration_ms INTEGER NOT NULL, msg INTEGER,"
	" PRIMARY KEY(run, path)) WITHOUT ROWID;"
	"CREATE INDEX IF NOT EXISTS res_cases_path ON res_cases(path);"
	"CREATE TABLE IF NOT EXISTS res_metrics("
	" run INTEGER NOT NULL, path INTEGER NOT NULL, value REAL NOT NULL,"
	" unit INTEGER, better INTEGER NOT NULL,"
	" PRIMARY KEY(run, path)) WITHOUT ROWID;"
	"CREATE INDEX IF NOT EXISTS res_metrics_path ON res_metrics(path);";

static int s_sqlerr(int rc)
{
	switch (rc) {
	case SQLITE_OK:
	case SQLITE_DONE:
	case SQLITE_ROW:
		return 0;
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return -EBUSY;
	case SQLITE_FULL:
		return -ENOSPC;
	case SQLITE_READONLY:
		return -EROFS;
	case SQLITE_CORRUPT:
	case SQLITE_NOTADB:
		return -EBADMSG;
	default:
		return -EIO;
	}
}

/* An index made before suites kept a reason gets the column: the runs
 * it holds had none to keep. */
static int s_add_reason(sqlite3 *db)
{
	sqlite3_stmt *st;

	if (sqlite3_prepare_v2(db, "SELECT reason FROM res_suites LIMIT 0",
			       -1, &st, NULL) == SQLITE_OK) {
		sqlite3_finalize(st);
		return 0;
	}
	return s_sqlerr(sqlite3_exec(db, "ALTER TABLE res_suites ADD COLUMN"
				     " reason TEXT", NULL, NULL, NULL));
}

int results_schema(sqlite3 *db)
{
	int rc = s_sqlerr(sqlite3_exec(db, s_ddl, NULL, NULL, NULL));

	return rc < 0 ? rc : s_add_reason(db);
}

int index_drop(sqlite3 *db)
{
	return s_sqlerr(sqlite3_exec(db,
		"DROP TABLE IF EXISTS res_cases;"
		"DROP TABLE IF EXISTS res_metrics;"
		"DROP TABLE IF EXISTS res_suites;"
		"DROP TABLE IF EXISTS res_paths;"
		"DROP TABLE IF EXISTS res_strs;"
		"DROP TABLE IF EXISTS res_runs;", NULL, NULL, NULL));
}

/* ---- interning cache: (tag, text) -> row id ---- */

typedef struct {
	int64_t tag; /* 0: res_strs; else the suite id of a res_paths row */
	char *s;
	int64_t id;
} s_entry_t;

typedef struct {
	s_entry_t *e;
	size_t n, size; /* size: power of two */
} s_cache_t;

static uint64_t s_hash(int64_t tag, const char *s)
{
	uint64_t h = 1469598103934665603ULL ^ (uint64_t)tag;

	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 1099511628211ULL;
	return h;
}

static s_entry_t *s_cache_find(s_cache_t *c, int64_t tag, const char *s)
{
	size_t mask, i;

	if (!c->size)
		return NULL;
	mask = c->size - 1;
	for (i = s_hash(tag, s) & mask; c->e[i].s; i = (i + 1) & mask)
		if (c->e[i].tag == tag && strcmp(c->e[i].s, s) == 0)
			return &c->e[i];
	return NULL;
}

static void s_cache_slot(s_cache_t *c, int64_t tag, char *s, int64_t id)
{
	size_t mask = c->size - 1;
	size_t i = s_hash(tag, s) & mask;

	while (c->e[i].s)
		i = (i + 1) & mask;
	c->e[i] = (s_entry_t){ .tag = tag, .s = s, .id = id };
}

static void s_cache_add(s_cache_t *c, int64_t tag, const char *s, int64_t id)
{
	if ((c->n + 1) * 2 > c->size) {
		s_entry_t *old = c->e;
		size_t old_size = c->size;

		c->size = c->size ? c->size * 2 : 1024;
		c->e = xcalloc(c->size, sizeof(*c->e));
		for (size_t i = 0; i < old_size; i++)
			if (old[i].s)
				s_cache_slot(c, old[i].tag, old[i].s,
					     old[i].id);
		free(old);
	}
	s_cache_slot(c, tag, xstrdup(s), id);
	c->n++;
}

static void s_cache_free(s_cache_t *c)
{
	for (size_t i = 0; i < c->size; i++)
		free(c->e[i].s);
	free(c->e);
	memset(c, 0, sizeof(*c));
}

/* ---- the indexer ---- */

enum {
	Q_HAS_RUN = 0,
	Q_STR_GET,
	Q_STR_ADD,
	Q_PATH_GET,
	Q_PATH_ADD,
	Q_RUN_ADD,
	Q_SUITE_ADD,
	Q_CASE_ADD,
	Q_METRIC_ADD,
	Q_COUNT
};

static const char *const s_sql[Q_COUNT] = {
	[Q_HAS_RUN] = "SELECT 1 FROM res_runs WHERE rec = ?1",
	[Q_STR_GET] = "SELECT id FROM res_strs WHERE s = ?1",
	[Q_STR_ADD] = "INSERT INTO res_strs(s) VALUES(?1)",
	[Q_PATH_GET] = "SELECT id FROM res_paths WHERE suite = ?1 AND path = ?2",
	[Q_PATH_ADD] = "INSERT INTO res_paths(suite, path) VALUES(?1, ?2)",
	[Q_RUN_ADD] = "INSERT INTO res_runs(rec, author, seq, ts_ms, request,"
		      " lab, board, arch, tree, branch, git_commit, config,"
		      " compiler, describe, build, status, start_ms, end_ms,"
		      " logs) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10,"
		      " ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19)",
	[Q_SUITE_ADD] = "INSERT OR IGNORE INTO res_suites(run, suite, version,"
			" status, duration_ms, start_ms, end_ms, n_pass, n_fail,"
			" n_error, n_skip, n_miss, n_done, logs, reason)"
			" VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11,"
			" ?12, ?13, ?14, ?15)",
	[Q_CASE_ADD] = "INSERT OR IGNORE INTO res_cases(run, path, status,"
		       " duration_ms, msg) VALUES(?1, ?2, ?3, ?4, ?5)",
	[Q_METRIC_ADD] = "INSERT OR IGNORE INTO res_metrics(run, path, value,"
			 " unit, better) VALUES(?1, ?2, ?3, ?4, ?5)",
};

struct index {
	sqlite3 *db;
	sqlite3_stmt *q[Q_COUNT];
	s_cache_t cache;
};

int index_new(sqlite3 *db, index_t **ret_ix)
{
	index_t *ix;
	int rc = results_schema(db);

	if (rc < 0)
		return rc;
	ix = xzalloc(sizeof(*ix));
	ix->db = db;
	for (int i = 0; i < Q_COUNT; i++) {
		rc = sqlite3_prepare_v3(db, s_sql[i], -1,
					SQLITE_PREPARE_PERSISTENT, &ix->q[i],
					NULL);
		if (rc != SQLITE_OK) {
			index_destroy(&ix);
			return s_sqlerr(rc);
		}
	}
	*ret_ix = ix;
	return 0;
}

void index_destroy(index_t **p)
{
	index_t *ix = *p;

	if (!ix)
		return;
	for (int i = 0; i < Q_COUNT; i++)
		sqlite3_finalize(ix->q[i]);
	s_cache_free(&ix->cache);
	free(ix);
	*p = NULL;
}

static int s_done(sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return rc == SQLITE_DONE ? 0 : s_sqlerr(rc);
}

/* The id of interned (tag, s): from the cache, the table, or added. */
static int64_t s_intern(index_t *ix, int64_t tag, const char *s)
{
	s_entry_t *e = s_cache_find(&ix->cache, tag, s);
	bool path = tag != 0;
	sqlite3_stmt *get = ix->q[path ? Q_PATH_GET : Q_STR_GET];
	sqlite3_stmt *add = ix->q[path ? Q_PATH_ADD : Q_STR_ADD];
	int64_t id = -EIO;
	int n = 1;

	if (e)
		return e->id;
	if (path)
		sqlite3_bind_int64(get, n++, tag);
	sqlite3_bind_text(get, n, s, -1, SQLITE_STATIC);
	if (sqlite3_step(get) == SQLITE_ROW)
		id = sqlite3_column_int64(get, 0);
	sqlite3_reset(get);
	sqlite3_clear_bindings(get);
	if (id < 0) {
		n = 1;
		if (path)
			sqlite3_bind_int64(add, n++, tag);
		sqlite3_bind_text(add, n, s, -1, SQLITE_STATIC);
		if (s_done(add) < 0)
			return -EIO;
		id = sqlite3_last_insert_rowid(ix->db);
	}
	s_cache_add(&ix->cache, tag, s, id);
	return id;
}

/* "name hex\n" per log, or NULL when there are none; caller frees. */
static char *s_logs_text(const run_log_t *logs, size_t n)
{
	char hex[65];
	char *t = NULL;
	size_t len = 0;

	if (!n)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		size_t add = strlen(logs[i].name) + 1 + 64 + 1;

		proto_hex(logs[i].blob_id, 32, hex);
		t = xrealloc(t, len + add + 1);
		len += (size_t)snprintf(t + len, add + 1, "%s %s\n",
					logs[i].name, hex);
	}
	return t;
}

static void s_bind_text_or_null(sqlite3_stmt *st, int i, const char *s)
{
	if (s && *s)
		sqlite3_bind_text(st, i, s, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, i);
}

static int s_put_case(index_t *ix, int64_t run, int64_t suite,
		      const run_case_t *c, int64_t counts[PROTO_STATUS_MAX + 1])
{
	sqlite3_stmt *st = ix->q[Q_CASE_ADD];
	int64_t path = s_intern(ix, suite, c->path);
	int64_t msg = 0;
	int rc;

	if (path < 0)
		return (int)path;
	if (c->message && *c->message) {
		msg = s_intern(ix, 0, c->message);
		if (msg < 0)
			return (int)msg;
	}
	sqlite3_bind_int64(st, 1, run);
	sqlite3_bind_int64(st, 2, path);
	sqlite3_bind_int(st, 3, (int)c->status);
	sqlite3_bind_int64(st, 4, c->duration_ms > INT64_MAX ? INT64_MAX :
				  (int64_t)c->duration_ms);
	if (msg)
		sqlite3_bind_int64(st, 5, msg);
	else
		sqlite3_bind_null(st, 5);
	rc = s_done(st);
	/* a path repeated within a suite: the first one counts */
	if (rc == 0 && sqlite3_changes(ix->db) > 0 &&
	    c->status >= 1 && c->status <= PROTO_STATUS_MAX)
		counts[c->status]++;
	return rc;
}

static int s_put_metric(index_t *ix, int64_t run, int64_t suite,
			const run_metric_t *m)
{
	sqlite3_stmt *st = ix->q[Q_METRIC_ADD];
	int64_t path = s_intern(ix, suite, m->name);
	int64_t unit = 0;

	if (path < 0)
		return (int)path;
	if (m->unit && *m->unit) {
		unit = s_intern(ix, 0, m->unit);
		if (unit < 0)
			return (int)unit;
	}
	sqlite3_bind_int64(st, 1, run);
	sqlite3_bind_int64(st, 2, path);
	sqlite3_bind_double(st, 3, m->value);
	if (unit)
		sqlite3_bind_int64(st, 4, unit);
	else
		sqlite3_bind_null(st, 4);
	sqlite3_bind_int(st, 5, (int)m->better);
	return s_done(st);
}

static int s_put_suite(index_t *ix, int64_t run, const run_suite_t *s)
{
	sqlite3_stmt *st = ix->q[Q_SUITE_ADD];
	int64_t counts[PROTO_STATUS_MAX + 1] = { 0 };
	int64_t suite = s_intern(ix, 0, s->name);
	char *logs;
	int rc = 0;

	if (suite < 0)
		return (int)suite;
	for (size_t i = 0; i < s->n_cases && rc == 0; i++)
		rc = s_put_case(ix, run, suite, &s->cases[i], counts);
	for (size_t i = 0; i < s->n_metrics && rc == 0; i++)
		rc = s_put_metric(ix, run, suite, &s->metrics[i]);
	if (rc < 0)
		return rc;
	logs = s_logs_text(s->logs, s->n_logs);
	sqlite3_bind_int64(st, 1, run);
	sqlite3_bind_int64(st, 2, suite);
	s_bind_text_or_null(st, 3, s->version);
	sqlite3_bind_int(st, 4, (int)s->status);
	sqlite3_bind_int64(st, 5, (int64_t)(s->duration_ms & INT64_MAX));
	sqlite3_bind_int64(st, 6, (int64_t)(s->start_ms & INT64_MAX));
	sqlite3_bind_int64(st, 7, (int64_t)(s->end_ms & INT64_MAX));
	sqlite3_bind_int64(st, 8, counts[PROTO_PASS]);
	sqlite3_bind_int64(st, 9, counts[PROTO_FAIL]);
	sqlite3_bind_int64(st, 10, counts[PROTO_ERROR]);
	sqlite3_bind_int64(st, 11, counts[PROTO_SKIP]);
	sqlite3_bind_int64(st, 12, counts[PROTO_MISS]);
	sqlite3_bind_int64(st, 13, counts[PROTO_DONE]);
	s_bind_text_or_null(st, 14, logs);
	s_bind_text_or_null(st, 15, s->reason);
	rc = s_done(st);
	free(logs);
	return rc;
}

/* The run's span: earliest suite start, latest suite end (else ts). */
static void s_span(const record_t *rec, int64_t *start, int64_t *end)
{
	const record_run_t *r = &rec->run;
	uint64_t lo = UINT64_MAX, hi = 0;

	for (size_t i = 0; i < r->n_suites; i++) {
		if (r->suites[i].start_ms < lo)
			lo = r->suites[i].start_ms;
		if (r->suites[i].end_ms > hi)
			hi = r->suites[i].end_ms;
	}
	if (!r->n_suites)
		lo = hi = rec->head.ts_ms;
	*start = (int64_t)(lo & INT64_MAX);
	*end = (int64_t)(hi & INT64_MAX);
}

static int s_put_run_row(index_t *ix, const record_t *rec)
{
	sqlite3_stmt *st = ix->q[Q_RUN_ADD];
	const record_run_t *r = &rec->run;
	const run_kernel_t *k = &r->kernel;
	int64_t start, end;
	char *logs = s_logs_text(r->logs, r->n_logs);
	int rc;

	s_span(rec, &start, &end);
	sqlite3_bind_blob(st, 1, rec->head.id, 32, SQLITE_STATIC);
	sqlite3_bind_blob(st, 2, rec->head.author, 32, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, (int64_t)(rec->head.seq & INT64_MAX));
	sqlite3_bind_int64(st, 4, (int64_t)(rec->head.ts_ms & INT64_MAX));
	if (r->has_request)
		sqlite3_bind_blob(st, 5, r->request_id, 32, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, 5);
	sqlite3_bind_text(st, 6, r->lab, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 7, r->board, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 8, k->arch ? k->arch : "", -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 9, k->tree_url ? k->tree_url : "", -1,
			  SQLITE_STATIC);
	sqlite3_bind_text(st, 10, k->branch ? k->branch : "", -1,
			  SQLITE_STATIC);
	sqlite3_bind_text(st, 11, k->commit ? k->commit : "", -1,
			  SQLITE_STATIC);
	sqlite3_bind_text(st, 12, k->config ? k->config : "", -1,
			  SQLITE_STATIC);
	sqlite3_bind_text(st, 13, k->compiler ? k->compiler : "", -1,
			  SQLITE_STATIC);
	sqlite3_bind_text(st, 14, k->describe ? k->describe : "", -1,
			  SQLITE_STATIC);
	sqlite3_bind_int(st, 15, (int)k->build);
	sqlite3_bind_int(st, 16, (int)r->status);
	sqlite3_bind_int64(st, 17, start);
	sqlite3_bind_int64(st, 18, end);
	s_bind_text_or_null(st, 19, logs);
	rc = s_done(st);
	free(logs);
	return rc;
}

static bool s_has_run(index_t *ix, const uint8_t id[32])
{
	sqlite3_stmt *st = ix->q[Q_HAS_RUN];
	bool found;

	sqlite3_bind_blob(st, 1, id, 32, SQLITE_STATIC);
	found = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return found;
}

bool index_has_run(index_t *ix, const uint8_t *id)
{
	return s_has_run(ix, id);
}

int index_put_decoded(index_t *ix, const record_t *rec)
{
	int64_t run;
	int rc;

	if (rec->head.kind != RECORD_RUN || s_has_run(ix, rec->head.id))
		return 0;
	rc = sqlite3_exec(ix->db, "SAVEPOINT res_put", NULL, NULL, NULL);
	if (rc != SQLITE_OK)
		return s_sqlerr(rc);
	rc = s_put_run_row(ix, rec);
	run = sqlite3_last_insert_rowid(ix->db);
	for (size_t i = 0; i < rec->run.n_suites && rc == 0; i++)
		rc = s_put_suite(ix, run, &rec->run.suites[i]);
	if (rc < 0) {
		sqlite3_exec(ix->db, "ROLLBACK TO res_put; RELEASE res_put",
			     NULL, NULL, NULL);
		/* interned ids may have been rolled back with it */
		s_cache_free(&ix->cache);
		return rc;
	}
	rc = sqlite3_exec(ix->db, "RELEASE res_put", NULL, NULL, NULL);
	return rc == SQLITE_OK ? 1 : s_sqlerr(rc);
}

int index_put(index_t *ix, const uint8_t *bytes, size_t len)
{
	uint8_t id[PROTO_ID_LEN];
	record_t *rec = NULL;
	int rc;

	/* the cheap check first: whether we hold it already (the id is a
	 * hash of the bytes); then the full decode, with the one signature
	 * check; index_put_decoded skips other kinds */
	proto_id(bytes, len, id);
	if (s_has_run(ix, id))
		return 0;
	rc = wire_record_decode(bytes, len, &rec);
	if (rc < 0)
		return rc;
	rc = index_put_decoded(ix, rec);
	record_destroy(&rec);
	return rc;
}

int results_index_record(sqlite3 *db, const uint8_t *bytes, size_t len)
{
	index_t *ix;
	int rc = index_new(db, &ix);

	if (rc < 0)
		return rc;
	rc = index_put(ix, bytes, len);
	index_destroy(&ix);
	return rc;
}
