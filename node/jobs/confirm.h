/*
 * confirm: a regression confirmed by the network. When a run of this
 * lab's own board fails a test that passed in the board's previous run
 * (or when asked: `labmesh confirm RUN|REQUEST`), the node re-runs the
 * failing suites on that board policy.confirm.reruns times and once on
 * every other board of the same arch the network advertises, then signs
 * one `verdict` record per regressed test: confirmed, flaky (with how
 * many re-runs passed) or board-specific. The judging itself is
 * results/rerun.h (rerun_tally, rerun_judge), callable on its own.
 * State lives in jobs.db (tables confirms, confirm_reqs).
 */
#ifndef LABMESH_NODE_CONFIRM_H
#define LABMESH_NODE_CONFIRM_H

#include <stdbool.h>
#include <stdint.h>

#include "proto/buf.h"
#include "proto/record.h"

typedef struct jobs jobs_t;

/* Create the tables. 0 or -EIO. */
int confirm_init(jobs_t *j);
/* Note the run record run_id (32 bytes) for confirmation; the tick
 * starts it. asked: by an operator (every failed test when none
 * regressed; a lab whose reruns is 0 still confirms). 0 or -EIO. */
int confirm_ask(jobs_t *j, const uint8_t *run_id, bool asked);
/* A run of our own just published: noted when it failed, confirmation
 * is on (policy.confirm.reruns > 0) and it is not itself a re-run. */
void confirm_on_own_run(jobs_t *j, const record_t *run);
/* Whether request_id is one of our re-run requests. */
bool confirm_is_rerun(jobs_t *j, const uint8_t *request_id);
/* From the jobs tick: start noted confirmations, judge settled ones. */
void confirm_tick(jobs_t *j);
/* The control commands "confirm PREFIX" (a run or request id) and
 * "confirms" (the table); false when name is neither. */
bool confirm_ctl(jobs_t *j, const char *name, const uint8_t *const *args,
		 const size_t *lens, size_t n_args, bool json, buf_t *out,
		 bool *ret_failed);

#endif
