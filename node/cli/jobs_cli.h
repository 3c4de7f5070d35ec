/*
 * jobs_cli: what `labmesh submit`, `status`, `cancel` and `log` share:
 * following a request to its end (cmd_submit_wait.c). A request's view
 * and finding a request by id prefix are node/results/reqview.h's.
 */
#ifndef LABMESH_NODE_JOBS_CLI_H
#define LABMESH_NODE_JOBS_CLI_H

#include "node/cli/cli.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define SUBMIT_POLL_MS 250
#define SUBMIT_DEFAULT_WAIT_MS (6LL * 3600 * 1000)
/* a lab the request names, silent this long after the submit (an advert
 * of a lab that is gone), is not waited for once everyone else is done;
 * a request that names no lab and no lab accepted is given up then */
#define SUBMIT_ANSWER_GRACE_MS (60 * 1000)
/* a request that names no lab or board: accepts are awaited this long
 * after the submit, even once every board that took it finished (a lab
 * that cannot serve it says nothing, so no answer tells that all came) */
#define SUBMIT_ACCEPT_WINDOW_MS (10 * 1000)
/* a lab that accepted and then said nothing this long (a running job
 * says it is alive every minute) is not waited for: --silence */
#define SUBMIT_DEFAULT_SILENCE_MS (10 * 60 * 1000)

/*
 * Show where request id stands (once, or following it until every lab it
 * names answered and every accepted board finished, with live progress),
 * then the result matrix. Following ends when every lab that accepted is
 * done or has said nothing new for silence_ms (each such lab is named);
 * a request that names no lab is followed SUBMIT_ACCEPT_WINDOW_MS at
 * least, and given up after SUBMIT_ANSWER_GRACE_MS when no lab accepted.
 * The view adds why this node's own lab kept silent, when it did. Returns
 * the exit status: 0 when every board that took it passed.
 */
int submit_follow(const cli_t *cli, const uint8_t id[32], bool follow,
		  int64_t timeout_ms, int64_t silence_ms);

/* The latest requests in the home's store (mine: submitter, when not
 * NULL, only those of that key), newest first, with where each stands.
 * Returns the exit status. */
int submit_list_requests(const cli_t *cli, const uint8_t *mine);

/* Whether every board that took request id has finished (and at least
 * one did): into *ret_done, with a count of boards. 0 or -errno. */
int submit_request_done(const char *home, const uint8_t id[32],
			bool *ret_done, size_t *ret_boards);

/* The submitter's key from opt (a file), or the default key file: 0, or
 * -errno with the reason printed as "labmesh CMD: ...". */
struct key_pair;
int submit_load_key(const char *cmd, const char *opt, struct key_pair *kp);

#endif
