/*
 * results: the results store as maintainers use it. The signed `run`
 * records in store.db are the truth; this module keeps a compact index
 * derived from them in the same database (tables prefixed res_), checks
 * records and feeds, rebuilds the index, and keeps blobs under a budget.
 *
 * Index tables (see index.c for the exact DDL):
 *   res_runs     one row per run record: identity of the kernel, board,
 *                lab, times, build status
 *   res_suites   (run, suite): status, times and per-status case counts
 *   res_strs     interned text: suite names, messages, units
 *   res_paths    interned test/metric paths (suite, path relative to it)
 *   res_cases    (run, path): status, duration, message   WITHOUT ROWID
 *   res_metrics  (run, path): value, unit, better-direction WITHOUT ROWID
 * The index is a cache: results_reindex() drops and rebuilds it from the
 * records and every query answers the same, because no output depends on
 * the local row ids (everything is ordered by values and record ids).
 *
 * Hook for the node: when a record of kind RECORD_RUN is stored (the
 * store returned STORE_ADDED), call results_index_record() on the same
 * connection, inside the same transaction if there is one.
 */
#ifndef LABMESH_NODE_RESULTS_H
#define LABMESH_NODE_RESULTS_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Record kind of run records as stored in records.kind (RECORD_RUN). */
#define RESULTS_KIND_RUN 5
/* Default blob budget for `labmesh store gc`. */
#define RESULTS_GC_DEFAULT_BUDGET (10ULL * 1024 * 1024 * 1024)

/*
 * Create the index tables if missing (idempotent). 0 or -errno.
 */
int results_schema(sqlite3 *db);

/*
 * Index one record given as its exact stored bytes: decoded and verified
 * with the proto decoder; records of other kinds are ignored. Creates the
 * index tables when needed. Returns 1 when a run was indexed, 0 when
 * there was nothing to do (another kind, or already indexed), a negative
 * PROTO_E_* code for bytes that do not verify, or -errno.
 */
int results_index_record(sqlite3 *db, const uint8_t *bytes, size_t len);

/*
 * Open HOME/store.db. rw=false opens read-only (safe while the node runs:
 * WAL). Returns 0 and *ret_db, -ENOENT when there is no store, -errno.
 */
int results_open(const char *home, bool rw, sqlite3 **ret_db);
/* Whether db holds the results index (its tables exist). */
bool results_has_index(sqlite3 *db);

/*
 * Index the run records that are not yet in the index (after records
 * arrived without the hook). Returns the number indexed or -errno.
 */
int results_catch_up(sqlite3 *db);

/*
 * Drop the index and rebuild it from every run record, in batches.
 * Returns the number of runs indexed, or -errno.
 */
int results_reindex(sqlite3 *db);

/*
 * Verify every record (strict decode, signature over the stored bytes, id
 * = the stored id, author and seq as stored) and every feed's hash chain
 * (seq contiguous from 1, prev_id = id of the record before, feed head),
 * after SQLite's own quick_check. Feeds flagged for equivocation are
 * noted ("note: ...") but are not problems.
 * One line per problem goes to out ("record ID: reason"). Returns the
 * number of problems (0: all good) or -errno.
 */
int results_check(sqlite3 *db, FILE *out);

/* ---- listings (results_list.c), for the dashboard ---- */

/* One tested commit: its runs, boards and failed runs (FAIL or ERROR);
 * strings borrowed for the callback's duration. */
typedef struct {
	const char *commit, *branch, *tree;
	int64_t end_ms, runs, boards, failed_runs;
} results_commit_t;
typedef int (*results_commit_fn)(void *arg, const results_commit_t *c);
/* Tested commits, latest run end first, at most max; fn returns non-zero
 * to stop. 0, or -EIO when the index cannot be read (none yet). */
int results_commits(sqlite3 *db, size_t max, results_commit_fn fn,
		    void *arg);

/* One metric path (SUITE.PATH), its unit ("" when none) and how many
 * values are held. */
typedef struct {
	const char *path, *unit;
	int64_t values;
} results_metric_t;
typedef int (*results_metric_fn)(void *arg, const results_metric_t *m);
/* Metric paths in name order, at most max. 0 or -EIO. */
int results_metrics(sqlite3 *db, size_t max, results_metric_fn fn,
		    void *arg);

/*
 * The newest (at most RESULTS_MAX_BUILDS) runs that built tree, commit,
 * config and arch with build status PASS, authored by anyone but
 * not_author (32 bytes): fn(arg, run_id, author) for each, both 32 bytes,
 * borrowed for the call; a non-zero return from fn stops the walk.
 * Returns 0 or -EIO.
 */
#define RESULTS_MAX_BUILDS 16
typedef int (*results_build_fn)(void *arg, const uint8_t *run_id,
				const uint8_t *author);
int results_passed_builds(sqlite3 *db, const char *tree, const char *commit,
			  const char *config, const char *arch,
			  const uint8_t *not_author, results_build_fn fn,
			  void *arg);

/* The median duration (ms) of the measured runs of suite, into *ret_ms
 * (left alone when there is none). 0 or -EIO. */
int results_suite_typical(sqlite3 *db, const char *suite, int64_t *ret_ms);

/* The logs column ("NAME HEX\n" lines; *ret NULL when none) of the run
 * whose id starts with the lower-case hex prefix run, or of its suite
 * named suite (NULL: the whole run), and the lab that ran it (which
 * holds the logs); both the caller's. 0, -ENOENT, -EINVAL when several
 * runs match, -EIO. */
int results_find_logs(sqlite3 *db, const char *run, const char *suite,
		      char **ret, char **ret_lab);

/* ---- blobs ---- */

typedef struct {
	uint64_t files, bytes;     /* held before */
	uint64_t evicted, freed;   /* removed */
	uint64_t kept;             /* would have gone, but a job needs it */
} results_gc_stats_t;

/*
 * Keep the blobs under HOME/blobs/<2 hex>/<64 hex> within budget bytes:
 * remove the least recently used first (last use = the later of atime and
 * mtime, ties by name) until the total fits. Files not named like a blob
 * are left alone. Returns 0 and fills *ret_stats (may be NULL), or -errno.
 */
int results_gc(const char *home, uint64_t budget,
	       results_gc_stats_t *ret_stats);

/*
 * results_gc, but never removing the blobs in keep[0..n_keep) (sorted in
 * place). 0 or -errno.
 */
int results_gc_keep(const char *home, uint64_t budget, uint8_t (*keep)[32],
		    size_t n_keep, results_gc_stats_t *ret_stats);

/*
 * The running node's pass: results_gc_keep, each evicted blob logged at
 * info and the pass summed up in one line. keep[0..n_keep) are the blobs
 * its caller pins (the node: jobs_pinned_blobs, the kernels of unfinished
 * jobs); sorted in place. 0 or -errno.
 */
int results_gc_node(const char *home, uint64_t budget, uint8_t (*keep)[32],
		    size_t n_keep, results_gc_stats_t *ret_stats);


#endif
