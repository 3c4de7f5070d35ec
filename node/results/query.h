/*
 * query: answers over the results index — the matrix for a commit, the
 * list of cases, compare (regressions between two commits), history of
 * one test. Every answer is deterministic: it depends only on the records
 * (never on local row ids or arrival order), so any node holding the same
 * records prints byte-identical output.
 *
 * Where several runs of one board cover the same suite or path (a re-run),
 * the latest run counts: the one with the latest end time, ties broken by
 * the record id.
 */
#ifndef LABMESH_NODE_QUERY_H
#define LABMESH_NODE_QUERY_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define QUERY_MAX_ARG 1024 /* longest filter value accepted */

/* Filters shared by query, compare, history and export. NULL: any. */
typedef struct {
	const char *commit;  /* hex prefix of the kernel commit */
	const char *branch;  /* exact */
	const char *tree;    /* exact tree URL */
	const char *board;   /* exact */
	const char *lab;     /* exact */
	const char *arch;    /* exact */
	const char *suite;   /* exact suite name */
	const char *path;    /* glob (* ? [) or segment prefix of suite.path */
	const char *run;     /* hex prefix of a run record id */
	const char *request; /* hex prefix of a request id */
	uint32_t status_mask; /* bit 1 << PROTO_*; 0: every status */
	bool has_since;
	int64_t since_ms;     /* runs that ended at or after this */
} query_filter_t;

/*
 * Parse --since: a duration back from now_ms ("30m", "12h", "7d", "2w")
 * or a UTC date "YYYY-MM-DD" or "YYYY-MM-DDTHH:MM[:SS][Z]". 0 / -EINVAL.
 */
int query_parse_since(const char *s, int64_t now_ms, int64_t *ret_ms);
/*
 * Parse compare's threshold: a percent, "12.5" or "12.5%", finite and not
 * negative. 0 / -EINVAL; *ret_pct is written only on success.
 */
int query_parse_threshold(const char *s, double *ret_pct);
/* Parse --status: "FAIL" or "FAIL,ERROR" (any case) into a mask. */
int query_parse_status(const char *s, uint32_t *ret_mask);
/* Whether path (suite.path) matches pattern as --path does. */
bool query_path_match(const char *pattern, const char *path);

/*
 * The matrix: boards (with lab and arch) x suites for one commit, cells
 * of PASS/FAIL/SKIP counts. The commit is f->commit (a prefix that must
 * select one commit) or the only commit the filters select. Returns 0, or
 * -ENOENT (no runs), -EINVAL (zero or several commits; err says which),
 * -errno. err (errsz bytes) gets a one-line reason on failure.
 */
int query_matrix(sqlite3 *db, const query_filter_t *f, bool json, FILE *out,
		 char *err, size_t errsz);

/* One line (or JSON object) per case of the selected runs. 0 or -errno. */
int query_list(sqlite3 *db, const query_filter_t *f, bool json, FILE *out,
	       char *err, size_t errsz);

/*
 * Compare BASE and NEW (each a commit prefix, a run id prefix or a request
 * id prefix, tried in that order) per board and path: regressions
 * (PASS/DONE -> FAIL/ERROR), fixes, new and vanished tests, and metrics
 * that moved more than threshold_pct percent in their bad direction.
 * Returns the number of regressions (tests and metrics; 0 = none) or
 * -ENOENT / -EINVAL / -errno with err set.
 */
int query_compare(sqlite3 *db, const char *base, const char *new_,
		  const query_filter_t *f, double threshold_pct, bool json,
		  FILE *out, char *err, size_t errsz);

/*
 * History of one path (exact suite.path, or a --path style pattern): its
 * status, duration and metric value in every selected run, newest first.
 * Returns 0, -ENOENT (no such path), -errno.
 */
int query_history(sqlite3 *db, const char *path, const query_filter_t *f,
		  bool json, FILE *out, char *err, size_t errsz);

#endif
