/*
 * query_int: what query.c, query_compare.c, query_history.c and the
 * exporters share: the selected runs (loaded in one canonical order), the
 * path table (id -> suite.path with a text rank and the filter match),
 * and small output helpers.
 */
#ifndef LABMESH_NODE_QUERY_INT_H
#define LABMESH_NODE_QUERY_INT_H

#include "node/results/query.h"

#include "proto/buf.h"
#include "proto/json.h"

#define QUERY_FLUSH_AT (1024 * 1024) /* flush output buffers past this */

typedef struct {
	int64_t id; /* local row id: never printed, never ordered by */
	uint8_t rec[32];
	uint8_t author[32];
	bool has_request;
	uint8_t request[32];
	int64_t seq, ts_ms, start_ms, end_ms;
	int build, status;
	char *lab, *board, *arch, *tree, *branch, *commit, *config, *compiler,
		*describe, *logs;
} qrun_t;

typedef struct {
	qrun_t *r;
	size_t n;
	int32_t *by_id; /* local id -> index in r, or -1 */
	int64_t max_id;
} qruns_t;

/*
 * Runs passing the run-level filters of f, sorted by lab, board, end time
 * (latest first), record id. 0 or -errno.
 */
int qruns_load(sqlite3 *db, const query_filter_t *f, qruns_t *ret);
void qruns_free(qruns_t *rs);
/* Index of the run with local id, or -1. */
int qruns_find(const qruns_t *rs, int64_t id);

typedef struct {
	int64_t max;      /* ids run 1..max */
	char **full;      /* id -> "suite.path" (NULL: no such id) */
	char **suite;     /* id -> suite name (borrowed from names) */
	size_t *plen;     /* id -> offset of the path in full */
	uint32_t *rank;   /* id -> position in text order */
	bool *match;      /* id -> passes f->suite and f->path */
	char **names;     /* suite names by res_strs id (owned), sparse */
	int64_t max_str;
} qpaths_t;

int qpaths_load(sqlite3 *db, const query_filter_t *f, qpaths_t *ret);
void qpaths_free(qpaths_t *p);
/* Whether the filter restricts cases (suite, path or status). */
bool query_case_filtered(const query_filter_t *f);

/* Interned text by res_strs id (messages, units); NULL when unknown.
 * Borrowed from a per-call cache: valid until qstrs_free. */
typedef struct {
	sqlite3_stmt *st;
} qstrs_t;
int qstrs_open(sqlite3 *db, qstrs_t *ret);
char *qstrs_get(qstrs_t *q, int64_t id); /* caller frees; NULL if none */
void qstrs_close(qstrs_t *q);

/* Output: write b to out when it passes QUERY_FLUSH_AT (force: always). */
int query_flush(buf_t *b, FILE *out, bool force);
/* "2026-01-31T12:00:00.000000+00:00" (KCIDB) into out (64 bytes). */
void query_time_rfc3339(int64_t ms, char out[64]);
/* "2026-01-31 12:00" into out (64 bytes). */
void query_time_short(int64_t ms, char out[64]);
/* key: 64 lowercase hex of the 32 bytes at id. */
void query_json_hex(json_t *j, const char *key, const uint8_t *id);
/* Status code to its name ("PASS"...), "?" if out of range. */
const char *query_status_name(int status);
/* A case's duration for people: "12 ms", "3.4 s"; when the case has no
 * time of its own (0), "suite 3.4 s", its suite's, so labelled; "-"
 * when neither is known. out: 32 bytes. */
void query_duration(int64_t case_ms, int64_t suite_ms, char out[32]);
/* Copy s to out as one line: controls become spaces, capped at n. */
void query_one_line(char *out, size_t outsz, const char *s);

/* Does status pass f->status_mask? */
static inline bool query_status_ok(const query_filter_t *f, int status)
{
	return !f->status_mask || (status >= 0 && status < 32 &&
				   (f->status_mask & (1u << status)));
}

#endif
