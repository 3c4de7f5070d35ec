/*
 * jobs: the lab side of test requests, inside the node.
 *
 * For every new valid request (jobs_on_request) the lab checks
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
 * Modules: jobs.c (database, the queue, scheduling, cancels, control
 * commands, read-only queries), jobs_accept.c (the decision on each
 * request: policy, selector, quota, accept/decline), exec.c (children, their pipes, results, restart recovery),
 * blob_fetch.c (blob transfer between nodes), exec_child.c (the executor
 * process itself), jobs_reload.c (the lab file read again while the node
 * runs), jobs_health.c (boards' health checks: offline after three
 * failures, back when one passes).
 */
#ifndef LABMESH_NODE_JOBS_H
#define LABMESH_NODE_JOBS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "labs/lab.h"
#include "node/results/reqview.h"
#include "node/store/store.h"
#include "proto/buf.h"

typedef struct jobs jobs_t;
typedef struct _zloop_t zloop_t; /* czmq */
struct msg;
struct record;

/* A peer as the jobs side sees it; the strings are borrowed for the call. */
typedef struct {
	const char *curve; /* its CURVE key (Z85): the handle to send to */
	const char *hex;   /* its node id in hex, for logs */
	bool lease;        /* it takes lease messages (MSG_FEATURE_LEASE) */
	bool blob_relay;   /* it takes blob-get with hops (a relay ask) */
} jobs_peer_t;

/*
 * What the jobs side needs of the node that runs it, filled in by the
 * daemon. Every pointer is borrowed and must outlive the jobs_t; every
 * callback gets arg.
 *   append_record  sign, store and push a record of the node's own feed
 *                  (tmpl as node_append_record takes it); 0 or < 0
 *   send           send a message to the peer of that CURVE key; takes
 *                  the bytes (frees them); 0 or -errno (-ENOTCONN: gone)
 *   n_peers, peer  the node's peers in a stable order: peer() fills *ret
 *                  and says whether its session is up
 *   set_board      a board's state (enum board_state) and queue length,
 *                  for the advert; 0 or -errno
 *   board_state    the state the node holds for board i of cfg
 *   garbage        count a bad message against the peer of that key
 *   log_budget     whether one more line about outside traffic may be
 *                  logged now
 */
typedef struct {
	const char *home;
	const lab_config_t *cfg;
	const uint8_t *node_id; /* the node's id, 32 bytes */
	store_t *store;         /* requests held; the node's own feed */
	void *arg;
	int (*append_record)(void *arg, const struct record *tmpl);
	int (*send)(void *arg, const char *curve, uint8_t *bytes, size_t len);
	size_t (*n_peers)(void *arg);
	bool (*peer)(void *arg, size_t i, jobs_peer_t *ret);
	int (*set_board)(void *arg, const char *board, int state,
			 uint32_t queue);
	int (*board_state)(void *arg, size_t i);
	/* optional: the advert notes of board i of cfg, given before each
	 * set_board (borrowed for the call; NULL when none): maintenance
	 * "UNTIL_MS REASON", busy "REQUEST SUBMITTER SINCE_MS" */
	void (*set_board_notes)(void *arg, size_t i, const char *maint,
				const char *busy);
	/* optional: the lease note of board i, "LEASE HOLDER UNTIL_MS
	 * [NAME]" (NULL: not leased), given before each set_board */
	void (*set_board_lease)(void *arg, size_t i, const char *lease);
	/* optional: why board i is offline by its health check (NULL: it
	 * is not), given before each set_board */
	void (*set_board_health)(void *arg, size_t i, const char *why);
	/* the node's key pair, to sign lease replies (borrowed) */
	const struct key_pair *key;
	void (*garbage)(void *arg, const char *curve, const char *what);
	bool (*log_budget)(void *arg);
	/* optional: take a signed request of ours as if submitted here
	 * (stored, flooded, decided on); 1 new, 0 known, < 0 refused */
	int (*submit_request)(void *arg, const uint8_t *bytes, size_t len);
} jobs_ctx_t;

/* Open HOME/jobs.db and load the suite catalog; ctx is copied. 0 or
 * -errno with a one-line *ret_err (caller frees). */
int jobs_new(const jobs_ctx_t *ctx, jobs_t **ret, char **ret_err);
/* Recover jobs interrupted by a crash, set up timers on loop (borrowed,
 * must outlive the jobs_t). */
void jobs_start(jobs_t *j, zloop_t *loop);
/* Kill running executors (process groups) and close. */
void jobs_destroy(jobs_t **p);

/*
 * The lab file read again (the node's reload): cfg (borrowed, must
 * outlive the jobs_t or the next reload) replaces ctx.cfg. Boards keep
 * their running jobs, leases and maintenance by name; a board gone from
 * cfg must be idle. 0, or -EBUSY (a removed board is held) with a
 * one-line *ret_err (caller frees) and nothing changed. Nothing is
 * published until jobs_reload_done, which the node calls once it holds
 * cfg too: the jobs queued for removed boards end, every board's state
 * goes to the advert, queues move on.
 */
int jobs_reload(jobs_t *j, const lab_config_t *cfg, char **ret_err);
void jobs_reload_done(jobs_t *j);

/* A new valid request (local or from a peer), once each: the lab decides
 * and accepts or declines it. bytes are the signed request. */
void jobs_on_request(jobs_t *j, const uint8_t *id, const uint8_t *bytes,
		     size_t len);

/* Messages the daemon does not handle itself: blob-get, blob-data,
 * cancel. m is a decoded proto message from the authenticated peer from. */
void jobs_on_message(jobs_t *j, const jobs_peer_t *from,
		     const struct msg *m);

/* Run records just stored from a peer (committed, verified by the
 * caller) go into the results index. items are proto_bytes_t. */
void jobs_on_stored(jobs_t *j, const void *items, size_t n);

/* Control commands of the jobs side ("cancel", "blob-fetch", "jobs").
 * Returns false when name is not one of them. */
bool jobs_ctl(jobs_t *j, const char *name, const uint8_t *const *args,
	      const size_t *lens, size_t n_args, bool json, buf_t *out,
	      bool *ret_failed);

/*
 * The blobs the jobs of HOME/jobs.db not yet finished (queued to running)
 * need: the kernel and initrd of artifact requests, for the blob gc to
 * keep. Read-only, its own connection (the node's periodic gc and
 * `labmesh store gc` alike). *ret (caller frees) holds *ret_n ids; no
 * jobs.db: none. 0 or -errno (-EIO: unreadable or busy).
 */
int jobs_pinned_blobs(const char *home, uint8_t (**ret)[32], size_t *ret_n);

/* One job of HOME/jobs.db as jobs_list_request gives it (borrowed for
 * the call). */
typedef struct {
	const char *request;  /* 64 hex */
	const char *board;
	int state;            /* enum job_state */
	int64_t priority, attempts, created_ms, updated_ms;
	const char *text;     /* its latest progress line */
} jobs_row_t;

/*
 * This lab's jobs of the requests whose id starts with hex_prefix (hex
 * digits only), in request then board order, at most max, each handed to
 * cb (which returns 0 to go on). Read-only, its own connection. 0,
 * -ENOENT (no jobs.db), -EIO (unreadable or busy).
 */
int jobs_list_request(const char *home, const char *hex_prefix, size_t max,
		      int (*cb)(void *arg, const jobs_row_t *row), void *arg);

/*
 * Why this lab kept silent on request id (a decline it did not sign: the
 * request did not name it), as HOME/jobs.db keeps it: its node id into
 * ret_author, its lab name into lab (lsz bytes), the DECLINE_* reason
 * into *ret_reason and its text into text (tsz bytes). Read-only, its
 * own connection. 0, -ENOENT (none kept, or no jobs.db), -EIO.
 */
int jobs_silent_reason(const char *home, const uint8_t id[32],
		       uint8_t ret_author[32], char *lab, size_t lsz,
		       int *ret_reason, char *text, size_t tsz);
/* The same as a decline of this lab in request id's view v, when the
 * view has no answer of it (`status`, `submit --wait`, the dashboard). */
void jobs_silent_view(const char *home, const uint8_t id[32], reqview_t *v);

/* The executor child: `labmesh exec-job` (node/jobs/exec_child.c). */
int cmd_exec_job(int argc, char **argv);
/* The lease session child: `labmesh lease-session` (lease_child.c). */
int cmd_lease_session(int argc, char **argv);
/* A board's health check: `labmesh health-check` (jobs_health.c). */
int cmd_health_check(int argc, char **argv);

#endif
