/*
 * rerun: the results side of confirming a regression by re-running it.
 * The jobs side (node/jobs/confirm.c) starts the re-runs and publishes
 * the verdict; what a run regressed, how re-runs came out and what that
 * says are answered here, from the results index alone, so that other
 * code (bisection steps, reports) can call the same logic:
 *
 *   rerun_regressions  the tests a run failed that passed in the
 *                      previous run of the same test on the same board
 *   rerun_tally        one test's outcomes in the runs of some requests,
 *                      split between the board under question and the
 *                      other boards
 *   rerun_judge        the verdict a tally gives (confirmed, flaky or
 *                      board-specific)
 */
#ifndef LABMESH_NODE_RERUN_H
#define LABMESH_NODE_RERUN_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Called with each regressed test ("suite.path"; borrowed for the call);
 * a non-zero return stops. */
typedef int (*rerun_path_fn)(void *arg, const char *path);

/*
 * The tests the run record run_id (32 bytes, indexed) failed (FAIL or
 * ERROR) whose previous result on the same lab and board (the latest
 * earlier run, by end time then record id, that ran the test) was PASS
 * or DONE, in path order. With all_failed, every failed test of the run
 * instead. 0, -ENOENT (the run is not indexed) or -EIO.
 */
int rerun_regressions(sqlite3 *db, const uint8_t *run_id, bool all_failed,
		      rerun_path_fn fn, void *arg);

typedef struct {
	uint32_t runs, passes;	     /* on the board under question */
	uint32_t other_runs, other_passes; /* on every other board */
} rerun_tally_t;

/*
 * Add to *t the outcomes of path ("suite.path") in the indexed runs of
 * the n requests reqs (32 bytes each): PASS and DONE pass, FAIL and
 * ERROR fail, anything else (SKIP, a run that did not reach the test) is
 * not counted. Runs of lab/board go to runs/passes, the rest to
 * other_runs/other_passes; counts stop at PROTO_MAX_RERUNS. 0 or -EIO.
 */
int rerun_tally(sqlite3 *db, const uint8_t (*reqs)[32], size_t n,
		const char *lab, const char *board, const char *path,
		rerun_tally_t *t);

/*
 * The verdict of a tally (enum verdict_kind), or 0 when there is nothing
 * to judge (no re-run reached the test):
 *   every re-run failed (here and elsewhere)             confirmed
 *   every re-run here failed, every other board passed   board-specific
 *   otherwise (some re-run here passed, or a mixture)    flaky
 */
int rerun_judge(const rerun_tally_t *t);

#endif
