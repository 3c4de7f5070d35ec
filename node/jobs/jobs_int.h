/*
 * jobs_int: state shared by jobs.c, jobs_accept.c, exec.c and
 * blob_fetch.c.
 */
#ifndef LABMESH_NODE_JOBS_INT_H
#define LABMESH_NODE_JOBS_INT_H

#include "node/jobs/jobs.h"
#include "node/store/store.h"
#include "node/store/wire.h"

#include "proto/lease.h"
#include "proto/request.h"
#include "suites/catalog.h"

#include <czmq.h>
#include <sodium.h>
#include <sqlite3.h>
#include <sys/types.h>
/* czmq pulls in syslog.h, whose LOG_INFO/LOG_DEBUG macros would shadow
 * proto/log.h's levels */
#undef LOG_INFO
#undef LOG_DEBUG
#include "proto/log.h"

/* The tick: this often while work is under way (a job, a fetch, a lease,
 * a health check, a session ending), JOBS_IDLE_TICK_MS otherwise, so that
 * an idle lab's node is woken five times less; what starts work calls
 * jobs_wake (jobs.c: s_set_tick) */
#define JOBS_TICK_MS 200
#define JOBS_IDLE_TICK_MS 1000
#define JOBS_MAX_ATTEMPTS 2          /* a job interrupted once is re-run */
#define JOBS_MAX_QUEUED 4096         /* jobs waiting in the whole lab */
#define JOBS_KILL_GRACE_MS 3000      /* SIGTERM, then SIGKILL */
#define JOBS_MAX_LINE 8192           /* one line from an executor */
#define JOBS_MAX_REFUSAL 320         /* why a board was refused (bytes) */
#define JOBS_MAX_SILENT 4096         /* silent answers kept (table silent) */
#define JOBS_FETCH_TIMEOUT_MS (10 * 60 * 1000) /* a whole blob */
#define JOBS_CHUNK_TIMEOUT_MS 5000   /* one chunk from one peer */
#define JOBS_MAX_FETCHES 64          /* blobs fetched at once */
#define JOBS_MAX_WAITERS 4           /* peers waiting on one fetch */
#define JOBS_QUOTA_WINDOW_MS (24LL * 3600 * 1000)
/* A running job says it is alive at least this often (its last event
 * again), so a submitter can tell a long build from a lab gone silent. */
#define JOBS_ALIVE_MS (60 * 1000)

/* A request's time (uint64 ms, at most PROTO_MAX_TIME_MS once decoded) as
 * SQLite's and the clock's int64: clamped, never wrapped by a cast. */
static inline int64_t jobs_time_ms(uint64_t ms)
{
	return ms > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)ms;
}

/* Job states in jobs.db are enum job_state (proto/record.h). */

typedef struct {
	int64_t job;        /* jobs.db rowid; 0: slot free */
	pid_t pid;          /* executor (its process group) */
	int fd;             /* its progress pipe; -1 at EOF */
	buf_t line;         /* a partial line */
	char *run_path;     /* the signed run record it wrote */
	char *error;        /* why it could not run, from its X line */
	uint8_t request_id[32];
	uint8_t run_key[32]; /* the executor's one-off key (wire_job_key) */
	bool cancelled;
	int64_t kill_at_ms; /* SIGKILL when still alive */
	int last_state;
	/* the last event published, repeated every JOBS_ALIVE_MS */
	int64_t said_ms, state_ms;
	unsigned said_idx, said_count;
	char said_suite[PROTO_MAX_NAME + 1], said_text[160];
	/* a trusted lab's build of the same kernel, booted instead of
	 * building (jobs_prebuilt.c) */
	bool pre_checked, has_pre, pre_has_initrd;
	uint8_t pre_kernel[32], pre_initrd[32];
	char pre_lab[PROTO_MAX_NAME + 1], pre_run[65], pre_compiler[128];
	int64_t since_ms;    /* wall clock, when the job took the board */
	char *maint_reason;  /* in maintenance, why (jobs_maint.c); or NULL */
	int64_t maint_until; /* wall clock ms it ends by itself; 0: never */
	/* a lease holding the board (jobs_lease.c) */
	bool lease_on;
	uint8_t lease_id[32], lease_holder[32];
	int64_t lease_until; /* wall clock ms */
	uint64_t lease_seq;  /* the holder's last operation taken */
	pid_t sess_pid;      /* the lease session (its process group), 0 */
	int sess_fd;         /* its socket (SOCK_SEQPACKET); -1 */
	int lock_fd;         /* the board's lock while a job or lease holds
			      * it (board_lock); -1 */
	bool lock_said;      /* "held by a local run" logged */
	int64_t sess_kill_ms; /* ended: SIGKILL when still alive then */
	/* its health check (jobs_health.c) */
	pid_t health_pid;       /* a check running (its process group), 0 */
	int health_fd;          /* its stdout; -1 */
	int64_t health_next_ms, health_kill_ms; /* jobs_now() */
	bool health_late;       /* killed for its time */
	int health_fails;       /* in a row */
	char *health_down;      /* offline: why; NULL: healthy */
} jobs_slot_t;

/* A peer that asked us for a chunk of a blob we are still fetching: it
 * is answered once we hold the blob, verified (blob_fetch.c's relay). */
typedef struct {
	char curve[WIRE_Z85_LEN + 1];
	uint64_t offset;
	uint32_t length;
} jobs_waiter_t;

typedef struct {
	uint8_t id[32];
	bool active;
	int64_t offset, total; /* total -1: not known yet */
	size_t peer_i;          /* peers tried in turn */
	size_t tries;           /* peers asked this round */
	char curve[WIRE_Z85_LEN + 1]; /* who we asked */
	int64_t chunk_deadline_ms, deadline_ms;
	size_t round_asked, round_nak; /* asks this round; "not held" */
	bool failed;
	int64_t retry_ms; /* failed: a new ask starts over from then */
	bool asked; /* over the control socket, not for a job */
	bool relay; /* only for the peers waiting on it, not for us */
	uint32_t hops; /* sent in our blob-gets (wire_blob_get) */
	bool round_got; /* a chunk came this round */
	jobs_waiter_t wait[JOBS_MAX_WAITERS];
	size_t n_wait;
} jobs_fetch_t;

typedef struct jobs_relay jobs_relay_t; /* lease_relay.c */

struct jobs {
	jobs_ctx_t ctx;     /* the node that runs us */
	jobs_relay_t *relay;
	zloop_t *loop;      /* the node's, from jobs_start */
	sqlite3 *db;       /* HOME/jobs.db */
	sqlite3 *store_db; /* HOME/store.db, for the results index */
	catalog_t *catalog;
	jobs_slot_t *slots; /* one per board of the lab */
	jobs_fetch_t fetches[JOBS_MAX_FETCHES];
	int timer;
	size_t tick_ms; /* the timer's period: JOBS_TICK_MS or idle */
	char *self_exe;
	char *home; /* the node's home, absolute (executors chdir) */
	int64_t confirm_next_ms; /* confirm.c's next look (monotonic) */
};

/* jobs_maint.c: boards taken out of service by the operator, kept in
 * jobs.db's maintenance table. */
#define JOBS_MAX_REASON 100 /* bytes of a maintenance reason */
/* Read the table into the slots (at start). */
void jobs_maint_load(jobs_t *j);
/* End the maintenance of boards whose time is up (from the tick). */
void jobs_maint_tick(jobs_t *j);
/* Whether board bi is in maintenance now; ends one whose time is up. */
bool jobs_maint_active(jobs_t *j, size_t bi);
/* The advert notes of board bi: maintenance and who holds it (caller
 * frees; NULL when there is none). */
char *jobs_maint_note(jobs_t *j, size_t bi);
char *jobs_busy_note(jobs_t *j, size_t bi);
/* The control commands "maintenance LAB BOARD REASON UNTIL_MS" and
 * "online LAB BOARD"; false when name is neither. */
bool jobs_maint_ctl(jobs_t *j, const char *name, const uint8_t *const *args,
		    const size_t *lens, size_t n_args, buf_t *out,
		    bool *ret_failed);
/* jobs_known.c: the `known` command, a signed known-failure mark. */
bool jobs_known_ctl(jobs_t *j, const char *name, const uint8_t *const *args,
		    const size_t *lens, size_t n_args, buf_t *out,
		    bool *ret_failed);

/* jobs_accept.c: a signed decline of id (a request, or a lease take)
 * with reason and text, logged as "WHAT <id> VERB: text" within the log
 * budget. */
int jobs_decline(jobs_t *j, const uint8_t id[32], int reason,
		 const char *text, const char *what, const char *verb);

/* jobs_lease.c: boards held by a submitter's lease (table leases). */
#define JOBS_LEASE_SKEW_MS (10 * 60 * 1000) /* a take's stamp vs our clock */
void jobs_lease_load(jobs_t *j);
/* Whether board bi is held by a lease (starting a waiting one when it is
 * free): s_pick then starts no job. */
bool jobs_lease_hold(jobs_t *j, size_t bi);
void jobs_lease_tick(jobs_t *j);
/* Keep the sequence number of board bi's lease's last operation taken
 * (jobs.db): after a restart, none at or below it is taken again. */
void jobs_lease_save_seq(jobs_t *j, size_t bi);
/* The advert's lease note of board bi (caller frees), or NULL. */
char *jobs_lease_note(jobs_t *j, size_t bi);
/* A signed take/renew/release from anywhere (from: the peer's CURVE key,
 * NULL when local): floods it on when new, acts on it when it names this
 * lab. 1 new, 0 known, -errno. */
int jobs_lease_take(jobs_t *j, const char *from, const uint8_t *bytes,
		    size_t len);
/* "lease-send BYTES", "revoke LAB BOARD", "lease-use BYTES NODE_HEX",
 * "lease-poll OP_HEX"; false when name is none of them. */
bool jobs_lease_ctl(jobs_t *j, const char *name, const uint8_t *const *args,
		    const size_t *lens, size_t n_args, buf_t *out,
		    bool *ret_failed);
void jobs_lease_destroy(jobs_t *j);

/* lease_relay.c: lease operations and replies between nodes, and the
 * lease session children. */
#define RELAY_MAX_ROUTES 1024     /* operations remembered, to route back */
#define RELAY_ROUTE_MS (15 * 60 * 1000) /* an operation's route lives */
#define RELAY_MAX_BOXES 64        /* local operations awaiting replies */
#define RELAY_MAX_QUEUED 256      /* replies held for one local operation */
#define RELAY_BYTES_PER_S (8 * 1024 * 1024) /* relayed per peer */
#define RELAY_MAX_PEERS 64        /* peers with a rate window */
void lease_relay_new(jobs_t *j);
/* Whether id was seen before (and remember it). */
bool lease_relay_seen(jobs_t *j, const uint8_t id[32]);
void lease_relay_destroy(jobs_t *j);
void lease_relay_on_message(jobs_t *j, const jobs_peer_t *p, const struct msg *m);
/* A local operation (the CLI's): 0 sent (its replies wait for
 * lease_relay_poll), or -errno with *ret_why. */
int lease_relay_use(jobs_t *j, const uint8_t *bytes, size_t len,
	      const uint8_t node[32], const char **ret_why);
/* The next reply of local operation op_id: 1 with *ret (caller frees),
 * 0 none yet, -ENOENT unknown. */
int lease_relay_poll(jobs_t *j, const uint8_t op_id[32], uint8_t **ret,
	       size_t *ret_len);
/* Lease operation l (bytes, len: as signed) arrived for this lab, its
 * route back remembered; answers it, starting the board's session when
 * needed. */
void lease_use(jobs_t *j, const lease_t *l, const uint8_t *bytes, size_t len);
/* Answer op_id with a signed reply along its route. */
void lease_relay_reply(jobs_t *j, const uint8_t op_id[32], uint64_t index,
		 bool final, int64_t status, const void *data, size_t len);
/* Session of board bi: start (0 or -errno), stop (SIGTERM, then SIGKILL
 * from the tick), and pass it one operation. */
int sess_start(jobs_t *j, size_t bi);
void sess_stop(jobs_t *j, size_t bi);
int sess_send(jobs_t *j, size_t bi, const lease_t *l);
void sess_tick(jobs_t *j);
/* Whether a session's process is still being stopped. */
bool sess_dying(void);

/* The lease session child: `labmesh lease-session` (lease_child.c). */
#define SESS_MAX_FRAME (LEASE_MAX_DATA + PROTO_MAX_TEXT + 64)

/* jobs_health.c: boards' health checks, run while they are idle. */
void jobs_health_tick(jobs_t *j);
/* Whether board bi waits for its check, or is offline by it. */
bool jobs_health_holds(jobs_t *j, size_t bi);
/* Kill a running check and forget the board's health (slot freed). */
void jobs_health_stop(jobs_slot_t *s);

/* jobs.c */
int64_t jobs_now(void);     /* monotonic ms */
int64_t jobs_wall_ms(void); /* wall clock ms */
/* A statement on jobs.db (caller finalizes), or NULL (logged). */
sqlite3_stmt *jobs_prep(jobs_t *j, const char *sql);
/* Queue one job per board for an accepted request, in one transaction.
 * 0 or -EIO. */
int jobs_queue(jobs_t *j, const request_t *req, const uint8_t *bytes,
	       size_t len, const char **boards, size_t n);
/* Whether the submitter of req cancelled it (a cancel seen first). */
bool jobs_cancelled(jobs_t *j, const request_t *req);
int jobs_publish_event(jobs_t *j, const uint8_t *req_id, const char *board,
		       int state, uint32_t idx, uint32_t count,
		       const char *suite, const char *text);
int jobs_set_state(jobs_t *j, int64_t job, int state, const char *text);
void jobs_update_board(jobs_t *j, size_t bi);
/* Work started: the tick at JOBS_TICK_MS again. */
void jobs_wake(jobs_t *j);
/* Take board bi's lock (held until it is idle again); false when a
 * local `labmesh run` holds it. */
bool jobs_lock_board(jobs_t *j, size_t bi);
/* Start the next job on every idle board. */
void jobs_schedule(jobs_t *j);
int jobs_db_exec(jobs_t *j, const char *sql);

/* exec.c */
int exec_start(jobs_t *j, size_t bi, int64_t job, const uint8_t *req_id,
	       const uint8_t *bytes, size_t len);
void exec_tick(jobs_t *j);

/* Look for a trusted build of slot bi's git request (once per job): sets
 * the slot's has_pre and pre_* when there is one. */
void jobs_prebuilt_find(jobs_t *j, size_t bi, const request_t *req);
/* Write D/prebuilt for the executor; 0 or -errno. */
int jobs_prebuilt_write(const jobs_slot_t *s, const char *dir);
void exec_recover(jobs_t *j);
void exec_kill(jobs_t *j, size_t bi, bool cancel);
void exec_stop_all(jobs_t *j);

/* blob_fetch.c */
/* 1 when held, 0 when a fetch is under way, -errno when it failed. */
int fetch_blob(jobs_t *j, const uint8_t id[32]);
/* The same for a blob asked over the control socket; -EBUSY when such
 * asks already hold their share of the fetches. */
int fetch_blob_asked(jobs_t *j, const uint8_t id[32]);
void fetch_tick(jobs_t *j);
void fetch_on_get(jobs_t *j, const jobs_peer_t *p, const struct msg *m);
void fetch_on_data(jobs_t *j, const jobs_peer_t *p, const struct msg *m);

#endif
