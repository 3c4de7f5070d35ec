/*
 * jobs_cli: what `labmesh submit`, `status`, `cancel` and `log` share —
 * finding a request and its records in the local store, and following a
 * request to its end (cmd_submit_wait.c).
 */
#ifndef LABMESH_NODE_JOBS_CLI_H
#define LABMESH_NODE_JOBS_CLI_H

#include "node/cli/cli.h"

#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define SUBMIT_POLL_MS 250
#define SUBMIT_DEFAULT_WAIT_MS (6LL * 3600 * 1000)
/* a lab silent this long after the submit (an advert of a lab that is
 * gone) is not waited for once everyone else is done */
#define SUBMIT_ANSWER_GRACE_MS (60 * 1000)

/* The full id of a request held in the local store from a hex prefix
 * (at least 8 digits). 0, -ENOENT, -EINVAL (ambiguous, or too short). */
int submit_find_request(const char *home, const char *prefix,
			uint8_t ret_id[32]);

/*
 * Show where request id stands (once, or following it until every lab
 * answered and every accepted board finished, with live progress), then
 * the result matrix. Returns the exit status: 0 when every board that
 * took it passed.
 */
int submit_follow(const cli_t *cli, const uint8_t id[32], bool follow,
		  int64_t timeout_ms);

/*
 * What `labmesh status REQUEST --json` prints for request id, read through
 * db (a connection to HOME/store.db; the dashboard's is read-only),
 * written to out. 0 or -EIO.
 */
int submit_status_json(sqlite3 *db, const uint8_t id[32], FILE *out);

#endif
