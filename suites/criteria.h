/*
 * criteria: Fuego's pass criteria over a parsed suite result — max_fail,
 * min_pass, must_pass, fail_ok (known failures with a reason) and metric
 * thresholds (lt/le/gt/ge/range) — from the suite's defaults (suite.yaml)
 * and a board's override (the lab config), the override winning field by
 * field: max_fail and min_pass when set (>= 0), must_pass when the board
 * gives a list, fail_ok case by case, metric rules metric by metric.
 *
 * Case paths in rules are below the suite ("set.case"); a rule naming a set
 * covers every case under it.
 */
#ifndef LABMESH_SUITES_CRITERIA_H
#define LABMESH_SUITES_CRITERIA_H

#include "labs/lab.h"
#include "suites/result.h"

#define CRITERIA_MAX_NAMED 8 /* failing cases named in a reason */

/*
 * Decide res->status: a SKIP or ERROR from the parser stays; otherwise PASS
 * or FAIL with a reason naming what failed ("FAIL: 2 cases failed
 * (max_fail 0): fs-tmpfs.rename, fs-tmpfs.fsync"). Failing cases accepted
 * by fail_ok are marked known (counted as passed) and their message says
 * "known failure: <reason>". Parser notes stay after the verdict. Either
 * criteria may be NULL.
 */
void suite_criteria_apply(suite_result_t *res, const lab_criteria_t *suite_crit,
			  const lab_criteria_t *board_crit);

/* The board's override for a suite, or NULL (borrowed). */
const lab_criteria_t *suite_criteria_for_board(const lab_board_t *board,
					       const char *suite);

#endif
