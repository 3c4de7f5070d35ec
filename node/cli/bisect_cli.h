/*
 * bisect_cli: `labmesh bisect` (cmd_bisect.c drives a bisection through
 * the network; bisect_step.c runs one step; bisect_state.c keeps its state as signed bisect records in
 * the node's feed, finds them again to resume, and shows them).
 *
 * A bisection's state is its list of steps, each a commit tried on a
 * board and its verdict. The node publishes a bisect record after each
 * change, so a restarted node (or a second run of the same command) reads
 * where it stands from its store and goes on from there.
 */
#ifndef LABMESH_NODE_BISECT_CLI_H
#define LABMESH_NODE_BISECT_CLI_H

#include "node/cli/cli.h"
#include "proto/caps.h"
#include "proto/keys.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct {
	char commit[41];
	int verdict; /* enum bisect_verdict */
	bool has_request;
	uint8_t request[32];
	char lab[PROTO_MAX_NAME + 1];
	char board[PROTO_MAX_NAME + 1];
	bool has_run;
	uint8_t run[32];
} bisect_step_state_t;

typedef struct {
	/* what was asked */
	const char *url, *branch, *test, *config, *arch, *board, *key;
	char good[41], bad[41];
	char suite[PROTO_MAX_NAME + 1];
	const char *path; /* the case within the suite; NULL: the suite */
	int64_t silence_ms, step_ms;
	/* what follows from it */
	char *repo;		/* a local repository of the tree */
	char (*commits)[41];	/* good..bad, oldest first; the last is bad */
	size_t n;
	uint8_t id[32];		/* the bisection's id */
	key_pair_t kp;		/* the submitter's */
	/* where it stands */
	bisect_step_state_t steps[PROTO_MAX_BISECT_STEPS];
	size_t n_steps;
	int state; /* enum bisect_state */
	char first_bad[41];
	char text[512];
} bisect_t;

/* Send commit to a board for b (the one that showed the failure while
 * its lab answers, else another) and publish the step as pending: 0,
 * -ENOENT when no board fits (b->text says so), or -errno (printed). */
int bisect_submit(const cli_t *cli, bisect_t *b, const char *commit);
/* Wait for the verdict of b's last (pending) step and set it: 0, or
 * -ENOTCONN when the node stopped (printed). */
int bisect_wait(const cli_t *cli, bisect_t *b);
/* How many steps lab (any, if NULL) lost in b (of commit, if given). */
size_t bisect_lost(const bisect_t *b, const char *lab, const char *commit);

/* Fill b's steps and state from the latest bisect record of b->id in
 * HOME's store: 1 when found, 0 when none, -errno. */
int bisect_load(const char *home, bisect_t *b);
/* Sign b as it stands and have the node publish it: 0, or -errno (the
 * reason printed). */
int bisect_publish(const cli_t *cli, const bisect_t *b);
/* `labmesh bisect --show ID`: the exit status. */
int bisect_show(const cli_t *cli, const char *prefix);
/* `labmesh bisect --list`: the latest record of every bisection in the
 * store; the exit status. */
int bisect_list(const cli_t *cli);

#endif
