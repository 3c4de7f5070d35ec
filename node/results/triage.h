/*
 * triage: what maintainers said about failures, read from the store's
 * signed records: known marks (`known` records, `labmesh known add`) and
 * confirmation verdicts (`verdict` records the confirming lab writes).
 * compare, report, export and the dashboard look regressions up here.
 *
 * Known marks: the latest mark of an author for one (path, board glob,
 * arch) replaces that author's earlier ones; a mark applies while now is
 * before its expires_ms (a drop is a mark that expires at its own time).
 * A mark's path is a suite or a segment prefix of suite.path, as --path
 * takes it; its board a glob ("" any), its arch exact ("" any).
 *
 * Verdicts: the latest (by time, then id) verdict about one (run, path).
 * Everything is loaded once per call of a query and held in a triage_t.
 */
#ifndef LABMESH_NODE_TRIAGE_H
#define LABMESH_NODE_TRIAGE_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct {
	char author[65];   /* hex of the marking node's id */
	char id[65];       /* hex of the mark's record id */
	char *path, *board, *arch, *link, *text;
	int64_t ts_ms, expires_ms;
	uint64_t seq;
} triage_known_t;

typedef struct {
	uint8_t run_id[32];
	char id[65];      /* hex of the verdict's record id */
	char *lab, *board, *path, *text;
	int verdict;      /* enum verdict_kind */
	uint32_t runs, passes, other_runs, other_passes;
	int64_t ts_ms;
} triage_verdict_t;

typedef struct {
	triage_known_t *known;	   /* current marks (and, with all, the rest) */
	size_t n_known;
	triage_verdict_t *verdicts;
	size_t n_verdicts;
} triage_t;

/*
 * Load the marks and verdicts of db (a store connection). Marks expired
 * at now_ms are left out unless all. Records that do not decode are
 * passed over. 0 or -EIO; *ret is filled either way (free with
 * triage_free).
 */
int triage_load(sqlite3 *db, int64_t now_ms, bool all, triage_t *ret);
void triage_free(triage_t *t);

/* The first current mark (in path, board, arch, author order) covering path
 * (suite.path) on board of arch at now_ms, or NULL. Borrowed from t. */
const triage_known_t *triage_known_find(const triage_t *t, const char *path,
					const char *board, const char *arch,
					int64_t now_ms);

/* The latest verdict about path in run run_id, or NULL. Borrowed. */
const triage_verdict_t *triage_verdict_find(const triage_t *t,
					    const uint8_t *run_id,
					    const char *path);

/* "flaky (2 of 3 re-runs passed)" and the like, into out (n bytes). */
void triage_verdict_line(const triage_verdict_t *v, char *out, size_t n);

/* `labmesh known list`: the marks of t as a table or a JSON array;
 * expired ones marked so. 0 or -EIO. */
int triage_known_print(const triage_t *t, int64_t now_ms, bool json,
		       FILE *out);

#endif
