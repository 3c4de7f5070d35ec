/*
 * jobs: the lab side of test requests, inside the node.
 *
 * For every new valid request (the node's request hook) the lab checks
 * expiry, a replayed nonce, its policy (submitters, per-board submitters,
 * quota, whose source it builds) and the board selector, then publishes a
 * signed `accept` (the boards chosen) or `decline` (the reason), and
 * queues one job per chosen board in HOME/jobs.db. One job runs per board
 * at a time, highest priority first; each runs in a child process (the
 * executor, `labmesh exec-job`) that boots the board, runs the suites and
 * reports progress over a pipe; the node publishes `event` records as the
 * job advances and one `run` record at the end. Artifact kernels are
 * fetched as blobs from peers first (blob-get / blob-data). Signed cancels
 * from the submitter stop a request's jobs and flood to peers.
 *
 * Modules: jobs.c (database, requests, policy, scheduling, control
 * commands), exec.c (children, their pipes, results, restart recovery),
 * blob_fetch.c (blob transfer between nodes), exec_child.c (the executor
 * process itself).
 */
#ifndef LABMESH_NODE_JOBS_H
#define LABMESH_NODE_JOBS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto/buf.h"

typedef struct jobs jobs_t;
struct node;
struct peer;
struct msg;

/* Open HOME/jobs.db and load the suite catalog; 0 or -errno with a
 * one-line *ret_err (caller frees). */
int jobs_new(struct node *node, jobs_t **ret, char **ret_err);
/* Recover jobs interrupted by a crash, set up timers on the node's loop. */
void jobs_start(jobs_t *j);
/* Kill running executors (process groups) and close. */
void jobs_destroy(jobs_t **p);

/* Messages the daemon does not handle itself: blob-get, blob-data,
 * cancel. m is a decoded proto message from an authenticated peer. */
void jobs_on_message(jobs_t *j, struct peer *p, const struct msg *m);

/* Run records just stored from a peer (committed, verified by the
 * caller) go into the results index. items are proto_bytes_t. */
void jobs_on_stored(jobs_t *j, const void *items, size_t n);

/* Control commands of the jobs side ("cancel", "blob-fetch", "jobs").
 * Returns false when name is not one of them. */
bool jobs_ctl(jobs_t *j, const char *name, const uint8_t *const *args,
	      const size_t *lens, size_t n_args, bool json, buf_t *out,
	      bool *ret_failed);

/* The executor child: `labmesh exec-job` (node/jobs/exec_child.c). */
int cmd_exec_job(int argc, char **argv);

#endif
