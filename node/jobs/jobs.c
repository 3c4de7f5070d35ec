/*
 * jobs: the queue in HOME/jobs.db and what runs it — the database and
 * its records (events, job states, board adverts), queueing accepted
 * requests, scheduling one job per board by priority (and waiting for
 * its kernel blobs), cancels, messages from peers, the control commands
 * of the jobs side, read-only queries for other sub-modules, and life
 * (new, start, destroy). The decision on each request (policy, selector,
 * quota, accept/decline) is jobs_accept.c.
 *
 * jobs.db:
 *   requests(id PK, submitter, bytes, expires_ms)    accepted requests
 *   nonces(submitter, nonce, expires_ms)             replay protection
 *   jobs(id PK, request_id, board, submitter, state, priority, attempts,
 *        created_ms, updated_ms, expires_ms, pid, text)
 *   cancels(request_id PK, submitter, bytes)         signed cancels seen
 */
#include "node/jobs/confirm.h"
#include "node/jobs/jobs_int.h"

#include "node/store/blob.h"
#include "node/results/results.h"
#include "proto/json.h"
#include "proto/mem.h"
#include "proto/msg.h"
#include "transports/transport.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int64_t jobs_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t jobs_wall_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static const char s_schema[] =
	"PRAGMA journal_mode=WAL;"
	/* WAL with NORMAL survives a killed node (what crash safety is
	 * about here); the signed records themselves are in store.db, FULL */
	"PRAGMA synchronous=NORMAL;"
	"CREATE TABLE IF NOT EXISTS requests(id BLOB PRIMARY KEY,"
	" submitter BLOB NOT NULL, bytes BLOB NOT NULL, expires_ms INT);"
	"CREATE TABLE IF NOT EXISTS nonces(submitter BLOB, nonce BLOB,"
	" expires_ms INT, PRIMARY KEY(submitter, nonce));"
	"CREATE TABLE IF NOT EXISTS jobs(id INTEGER PRIMARY KEY,"
	" request_id BLOB NOT NULL, board TEXT NOT NULL, submitter BLOB,"
	" state INT NOT NULL, priority INT NOT NULL, attempts INT DEFAULT 0,"
	" created_ms INT, updated_ms INT, expires_ms INT, pid INT DEFAULT 0,"
	" text TEXT DEFAULT '', UNIQUE(request_id, board));"
	"CREATE INDEX IF NOT EXISTS jobs_board ON jobs(board, state);"
	"CREATE TABLE IF NOT EXISTS cancels(request_id BLOB PRIMARY KEY,"
	" submitter BLOB, bytes BLOB);"
	"CREATE TABLE IF NOT EXISTS maintenance(board TEXT PRIMARY KEY,"
	" reason TEXT NOT NULL, since_ms INT, until_ms INT);"
	/* why this lab kept silent on a request (jobs_accept.c), the
	 * latest JOBS_MAX_SILENT, for the local `status` to show */
	"CREATE TABLE IF NOT EXISTS silent(request_id BLOB PRIMARY KEY,"
	" author BLOB NOT NULL, lab TEXT NOT NULL, reason INT NOT NULL,"
	" text TEXT NOT NULL, at_ms INT);";

int jobs_db_exec(jobs_t *j, const char *sql)
{
	char *err = NULL;

	if (sqlite3_exec(j->db, sql, NULL, NULL, &err) != SQLITE_OK) {
		log_error("jobs.db: %s", err ? err : "?");
		sqlite3_free(err);
		return -EIO;
	}
	return 0;
}

sqlite3_stmt *jobs_prep(jobs_t *j, const char *sql)
{
	sqlite3_stmt *st = NULL;

	if (sqlite3_prepare_v2(j->db, sql, -1, &st, NULL) != SQLITE_OK) {
		log_error("jobs.db: %s", sqlite3_errmsg(j->db));
		return NULL;
	}
	return st;
}

/* ---- records ------------------------------------------------------------ */

int jobs_publish_event(jobs_t *j, const uint8_t *req_id, const char *board,
		       int state, uint32_t idx, uint32_t count,
		       const char *suite, const char *text)
{
	record_t t = { .head.kind = RECORD_EVENT };
	int rc;

	t.event.has_request = req_id != NULL;
	if (req_id)
		memcpy(t.event.request_id, req_id, 32);
	t.event.board = board;
	t.event.state = state;
	t.event.suite_index = state == JOB_RUNNING ? idx : 0;
	t.event.suite_count = count;
	t.event.suite = state == JOB_RUNNING && suite ? suite : "";
	t.event.text = text ? text : "";
	rc = j->ctx.append_record(j->ctx.arg, &t);
	if (rc < 0)
		log_error("event record for %s: %s", board, wire_strerror(rc));
	return rc;
}

int jobs_set_state(jobs_t *j, int64_t job, int state, const char *text)
{
	sqlite3_stmt *st = jobs_prep(j, "UPDATE jobs SET state=?, updated_ms=?,"
				  " text=? WHERE id=?");
	int rc;

	if (!st)
		return -EIO;
	sqlite3_bind_int(st, 1, state);
	sqlite3_bind_int64(st, 2, jobs_wall_ms());
	sqlite3_bind_text(st, 3, text ? text : "", -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 4, job);
	rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -EIO;
	sqlite3_finalize(st);
	return rc;
}

/* Queue length of a board, for the advert: its queued jobs and the
 * leases waiting for it. */
static uint32_t s_queue_len(jobs_t *j, const char *board)
{
	sqlite3_stmt *st = jobs_prep(j, "SELECT (SELECT count(*) FROM jobs"
				  " WHERE board=?1 AND state=?2) + (SELECT"
				  " count(*) FROM leases WHERE board=?1 AND"
				  " state=0)");
	uint32_t n = 0;

	if (!st)
		return 0;
	sqlite3_bind_text(st, 1, board, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 2, JOB_QUEUED);
	if (sqlite3_step(st) == SQLITE_ROW)
		n = (uint32_t)sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return n;
}

bool jobs_lock_board(jobs_t *j, size_t bi)
{
	jobs_slot_t *s = &j->slots[bi];
	const char *name = j->ctx.cfg->boards[bi].name;
	int rc;

	if (s->lock_fd >= 0)
		return true;
	rc = board_lock(j->ctx.home, name, &s->lock_fd);
	if (rc == 0) {
		s->lock_said = false;
		return true;
	}
	if (!s->lock_said)
		log_info("board %s: %s; its queue waits", name, rc == -EBUSY ?
			 "a local 'labmesh run' holds it" : strerror(-rc));
	s->lock_said = true;
	return false;
}

void jobs_update_board(jobs_t *j, size_t bi)
{
	const lab_board_t *b = &j->ctx.cfg->boards[bi];
	int state = j->slots[bi].job || j->slots[bi].lease_on ? BOARD_BUSY
							      : BOARD_IDLE;

	if (state == BOARD_BUSY)
		jobs_wake(j);

	if (state == BOARD_IDLE && j->slots[bi].lock_fd >= 0) {
		close(j->slots[bi].lock_fd); /* the board is free */
		j->slots[bi].lock_fd = -1;
	}

	if (jobs_maint_active(j, bi))
		state = BOARD_MAINTENANCE;
	else if (state == BOARD_IDLE && j->slots[bi].health_down)
		state = BOARD_OFFLINE;
	if (j->ctx.set_board_health)
		j->ctx.set_board_health(j->ctx.arg, bi,
					j->slots[bi].health_down);
	if (j->ctx.set_board_lease) {
		char *lease = jobs_lease_note(j, bi);

		j->ctx.set_board_lease(j->ctx.arg, bi, lease);
		free(lease);
	}
	if (j->ctx.set_board_notes) {
		char *maint = jobs_maint_note(j, bi), *busy = jobs_busy_note(j, bi);

		j->ctx.set_board_notes(j->ctx.arg, bi, maint, busy);
		free(maint);
		free(busy);
	}
	j->ctx.set_board(j->ctx.arg, b->name, state, s_queue_len(j, b->name));
}

int jobs_queue(jobs_t *j, const request_t *req, const uint8_t *bytes,
	       size_t len, const char **boards, size_t n)
{
	sqlite3_stmt *st;
	int64_t now = jobs_wall_ms();
	int rc = 0;

	jobs_db_exec(j, "BEGIN IMMEDIATE");
	st = jobs_prep(j, "INSERT OR IGNORE INTO requests VALUES (?, ?, ?, ?)");
	if (!st)
		goto fail;
	sqlite3_bind_blob(st, 1, req->id, 32, SQLITE_STATIC);
	sqlite3_bind_blob(st, 2, req->submitter, 32, SQLITE_STATIC);
	sqlite3_bind_blob(st, 3, bytes, (int)len, SQLITE_STATIC);
	sqlite3_bind_int64(st, 4, jobs_time_ms(req->expires_ms));
	rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -EIO;
	sqlite3_finalize(st);
	st = jobs_prep(j, "INSERT OR IGNORE INTO jobs(request_id, board,"
		    " submitter, state, priority, created_ms, updated_ms,"
		    " expires_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
	if (!st || rc < 0)
		goto fail;
	for (size_t i = 0; i < n && rc == 0; i++) {
		sqlite3_reset(st);
		sqlite3_bind_blob(st, 1, req->id, 32, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, boards[i], -1, SQLITE_STATIC);
		sqlite3_bind_blob(st, 3, req->submitter, 32, SQLITE_STATIC);
		sqlite3_bind_int(st, 4, JOB_QUEUED);
		sqlite3_bind_int(st, 5, (int)req->priority);
		sqlite3_bind_int64(st, 6, now);
		sqlite3_bind_int64(st, 7, now);
		sqlite3_bind_int64(st, 8, jobs_time_ms(req->expires_ms));
		rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -EIO;
	}
	sqlite3_finalize(st);
	if (rc < 0)
		goto fail;
	return jobs_db_exec(j, "COMMIT");
fail:
	jobs_db_exec(j, "ROLLBACK");
	return -EIO;
}

static void s_pick(jobs_t *j, size_t bi);

void jobs_schedule(jobs_t *j)
{
	for (size_t i = 0; i < j->ctx.cfg->n_boards; i++)
		if (!j->slots[i].job)
			s_pick(j, i);
}

/* ---- scheduling ---------------------------------------------------------- */

static int s_load_request(jobs_t *j, const uint8_t *id, request_t **ret,
			  uint8_t **ret_bytes, size_t *ret_len)
{
	sqlite3_stmt *st = jobs_prep(j, "SELECT bytes FROM requests WHERE id=?");
	int rc = -ENOENT;

	if (!st)
		return -EIO;
	sqlite3_bind_blob(st, 1, id, 32, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW) {
		size_t n = (size_t)sqlite3_column_bytes(st, 0);
		uint8_t *b = xmalloc(n ? n : 1);

		memcpy(b, sqlite3_column_blob(st, 0), n);
		rc = wire_request_open(b, n, ret);
		if (rc == 0 && ret_bytes) {
			*ret_bytes = b;
			*ret_len = n;
		} else {
			free(b);
		}
	}
	sqlite3_finalize(st);
	return rc;
}

static void s_finish_queued(jobs_t *j, int64_t job, const uint8_t *req_id,
			    const char *board, int state, const char *text)
{
	jobs_set_state(j, job, state, text);
	jobs_publish_event(j, req_id, board, state, 0, 0, NULL, text);
}

/* The kernel blobs are here (1), being fetched (0), or failed (<0). */
static int s_blobs_ready(jobs_t *j, jobs_slot_t *s, const request_t *req)
{
	int a, b = 1;

	if (s->has_pre) {
		a = fetch_blob(j, s->pre_kernel);
		if (s->pre_has_initrd)
			b = fetch_blob(j, s->pre_initrd);
		if (a < 0 || b < 0) {
			log_info("the build of lab %s (run %.12s) could not be"
				 " fetched: building", s->pre_lab, s->pre_run);
			s->has_pre = false;
			return 1;
		}
		return a && b;
	}
	if (req->kernel.type != REQUEST_KERNEL_ARTIFACT)
		return 1;
	a = fetch_blob(j, req->kernel.kernel_blob);
	if (req->kernel.has_initrd_blob)
		b = fetch_blob(j, req->kernel.initrd_blob);
	if (a < 0 || b < 0)
		return a < 0 ? a : b;
	return a && b;
}

/* Advance the job held by slot bi that waits for its kernel blobs. */
static void s_advance_fetch(jobs_t *j, size_t bi)
{
	jobs_slot_t *s = &j->slots[bi];
	const char *board = j->ctx.cfg->boards[bi].name;
	request_t *req = NULL;
	uint8_t *bytes = NULL;
	size_t len = 0;
	int rc = s_load_request(j, s->request_id, &req, &bytes, &len);

	if (rc == 0 && !s->pre_checked)
		jobs_prebuilt_find(j, bi, req);
	if (rc == 0)
		rc = s_blobs_ready(j, s, req);
	if (rc == 0) {
		if (s->last_state != JOB_FETCHING) {
			char text[160] = "fetching the kernel blobs";

			if (s->has_pre)
				snprintf(text, sizeof(text), "fetching the build"
					 " of lab %s (run %.12s)", s->pre_lab,
					 s->pre_run);
			s->last_state = JOB_FETCHING;
			jobs_publish_event(j, s->request_id, board, JOB_FETCHING,
					   0, (uint32_t)req->n_suites, NULL,
					   text);
		}
		request_destroy(&req);
		return; /* still fetching */
	}
	if (rc < 0) {
		s_finish_queued(j, s->job, s->request_id, board, JOB_ERROR,
				"kernel blobs could not be fetched from any"
				" peer");
		s->job = 0;
		jobs_update_board(j, bi);
	} else if (exec_start(j, bi, s->job, s->request_id, bytes, len) < 0) {
		s_finish_queued(j, s->job, s->request_id, board, JOB_ERROR,
				"cannot start the executor");
		s->job = 0;
		jobs_update_board(j, bi);
	}
	request_destroy(&req);
	free(bytes);
}

/* Take the next queued job for an idle board. */
static void s_pick(jobs_t *j, size_t bi)
{
	const char *board = j->ctx.cfg->boards[bi].name;
	sqlite3_stmt *st = jobs_prep(j, "SELECT id, request_id, expires_ms FROM"
				  " jobs WHERE board=? AND state=? ORDER BY"
				  " priority DESC, id LIMIT 1");
	jobs_slot_t *s = &j->slots[bi];
	int64_t job, expires;
	uint8_t rid[32];

	if (!st)
		return;
	if (jobs_maint_active(j, bi) || jobs_health_holds(j, bi) ||
	    jobs_lease_hold(j, bi)) {
		sqlite3_finalize(st);
		return; /* queued jobs wait until it is online and free */
	}
	sqlite3_bind_text(st, 1, board, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 2, JOB_QUEUED);
	if (sqlite3_step(st) != SQLITE_ROW) {
		sqlite3_finalize(st);
		return;
	}
	job = sqlite3_column_int64(st, 0);
	memcpy(rid, sqlite3_column_blob(st, 1), 32);
	expires = sqlite3_column_int64(st, 2);
	sqlite3_finalize(st);
	if (expires <= jobs_wall_ms()) {
		s_finish_queued(j, job, rid, board, JOB_ERROR,
				"expired before a board was free");
		return;
	}
	if (!jobs_lock_board(j, bi))
		return;
	s->job = job;
	s->since_ms = jobs_wall_ms();
	memcpy(s->request_id, rid, 32);
	s->pid = 0;
	s->cancelled = false;
	s->last_state = JOB_QUEUED;
	s->pre_checked = false;
	s->has_pre = false;
	jobs_set_state(j, job, JOB_FETCHING, "");
	jobs_update_board(j, bi);
	s_advance_fetch(j, bi);
}

/* Work under way that the tick drives. */
static bool s_busy(jobs_t *j)
{
	for (size_t i = 0; i < j->ctx.cfg->n_boards; i++) {
		const jobs_slot_t *s = &j->slots[i];

		if (s->job || s->lease_on || s->health_pid)
			return true;
	}
	for (size_t i = 0; i < JOBS_MAX_FETCHES; i++)
		if (j->fetches[i].active)
			return true;
	return sess_dying();
}

static int s_handle_tick(zloop_t *loop, int timer_id, void *arg);

static void s_set_tick(jobs_t *j, size_t ms)
{
	if (!j->loop || (j->timer >= 0 && j->tick_ms == ms))
		return;
	if (j->timer >= 0)
		zloop_timer_end(j->loop, j->timer);
	j->timer = zloop_timer(j->loop, ms, 0, s_handle_tick, j);
	j->tick_ms = ms;
}

void jobs_wake(jobs_t *j)
{
	s_set_tick(j, JOBS_TICK_MS);
}

static int s_handle_tick(zloop_t *loop, int timer_id, void *arg)
{
	jobs_t *j = arg;

	exec_tick(j);
	fetch_tick(j);
	jobs_maint_tick(j);
	jobs_lease_tick(j);
	jobs_health_tick(j);
	confirm_tick(j);
	for (size_t i = 0; i < j->ctx.cfg->n_boards; i++) {
		if (!j->slots[i].job)
			s_pick(j, i);
		else if (!j->slots[i].pid)
			s_advance_fetch(j, i);
	}
	s_set_tick(j, s_busy(j) ? JOBS_TICK_MS : JOBS_IDLE_TICK_MS);
	return 0;
}

/* ---- cancels ------------------------------------------------------------- */

bool jobs_cancelled(jobs_t *j, const request_t *req)
{
	sqlite3_stmt *st = jobs_prep(j, "SELECT 1 FROM cancels WHERE"
				  " request_id=? AND submitter=?");
	bool yes;

	if (!st)
		return false;
	sqlite3_bind_blob(st, 1, req->id, 32, SQLITE_STATIC);
	sqlite3_bind_blob(st, 2, req->submitter, 32, SQLITE_STATIC);
	yes = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return yes;
}

/* Stop every job of a request here. */
static void s_cancel_jobs(jobs_t *j, const uint8_t *rid)
{
	const lab_config_t *cfg = j->ctx.cfg;
	sqlite3_stmt *st = jobs_prep(j, "SELECT id, board FROM jobs WHERE"
				  " request_id=? AND state=?");

	for (size_t i = 0; i < cfg->n_boards; i++) {
		jobs_slot_t *s = &j->slots[i];

		if (!s->job || memcmp(s->request_id, rid, 32) != 0)
			continue;
		if (s->pid) {
			exec_kill(j, i, true);
		} else {
			s_finish_queued(j, s->job, rid, cfg->boards[i].name,
					JOB_CANCELLED, "cancelled by the"
					" submitter");
			s->job = 0;
			jobs_update_board(j, i);
		}
	}
	if (!st)
		return;
	sqlite3_bind_blob(st, 1, rid, 32, SQLITE_STATIC);
	sqlite3_bind_int(st, 2, JOB_QUEUED);
	while (sqlite3_step(st) == SQLITE_ROW) {
		char *board = xstrdup((const char *)sqlite3_column_text(st, 1));

		s_finish_queued(j, sqlite3_column_int64(st, 0), rid, board,
				JOB_CANCELLED, "cancelled by the submitter");
		free(board);
	}
	sqlite3_finalize(st);
}

/* Pass a cancel taken on to every peer up but the one it came from. */
static void s_flood_cancel(jobs_t *j, const char *from, const uint8_t *bytes,
			   size_t len)
{
	size_t n = j->ctx.n_peers(j->ctx.arg);

	for (size_t i = 0; i < n; i++) {
		jobs_peer_t p;
		uint8_t *out = NULL;
		size_t olen = 0;

		if (!j->ctx.peer(j->ctx.arg, i, &p) ||
		    (from && strcmp(p.curve, from) == 0))
			continue;
		if (wire_cancel(bytes, len, &out, &olen) == 0)
			j->ctx.send(j->ctx.arg, p.curve, out, olen);
	}
}

/* A signed cancel from anywhere (from: the sender's CURVE key, NULL when
 * local): 1 taken, 0 known, -EPERM not the submitter's, or another
 * -errno. Taken cancels flood to peers. */
static int s_take_cancel(jobs_t *j, const char *from, const uint8_t *bytes,
			 size_t len)
{
	request_cancel_t c;
	request_t *req = NULL;
	sqlite3_stmt *st;
	int rc = wire_cancel_open(bytes, len, &c);

	if (rc < 0)
		return rc;
	if (s_load_request(j, c.request_id, &req, NULL, NULL) == 0) {
		bool mine = sodium_memcmp(req->submitter, c.submitter, 32) == 0;

		request_destroy(&req);
		if (!mine)
			return -EPERM;
	} else {
		uint8_t *rb = NULL;
		size_t rl = 0;

		/* not ours: check against the request the node holds */
		if (store_get_request(j->ctx.store, c.request_id, &rb,
				      &rl) == 0 &&
		    wire_request_open(rb, rl, &req) == 0) {
			bool mine = sodium_memcmp(req->submitter, c.submitter,
						  32) == 0;

			request_destroy(&req);
			free(rb);
			if (!mine)
				return -EPERM;
		} else {
			free(rb);
		}
	}
	st = jobs_prep(j, "INSERT OR IGNORE INTO cancels VALUES (?, ?, ?)");
	if (!st)
		return -EIO;
	sqlite3_bind_blob(st, 1, c.request_id, 32, SQLITE_STATIC);
	sqlite3_bind_blob(st, 2, c.submitter, 32, SQLITE_STATIC);
	sqlite3_bind_blob(st, 3, bytes, (int)len, SQLITE_STATIC);
	rc = sqlite3_step(st) == SQLITE_DONE ? sqlite3_changes(j->db) : -EIO;
	sqlite3_finalize(st);
	if (rc != 1)
		return rc;
	s_cancel_jobs(j, c.request_id);
	s_flood_cancel(j, from, bytes, len);
	return 1;
}

void jobs_on_message(jobs_t *j, const jobs_peer_t *p, const msg_t *m)
{
	if (!j)
		return;
	switch (m->type) {
	case MSG_BLOB_GET:
		fetch_on_get(j, p, m);
		break;
	case MSG_BLOB_DATA:
		fetch_on_data(j, p, m);
		break;
	case MSG_CANCEL:
		if (s_take_cancel(j, p->curve, m->cancel.p, m->cancel.len) < 0)
			j->ctx.garbage(j->ctx.arg, p->curve, "bad cancel");
		break;
	case MSG_LEASE:
	case MSG_RELAY:
	case MSG_RELAY_BACK:
		lease_relay_on_message(j, p, m);
		break;
	default:
		break;
	}
}

void jobs_on_stored(jobs_t *j, const void *items, size_t n)
{
	const proto_bytes_t *b = items;

	if (!j || !j->store_db)
		return;
	/* results_index_record ignores what it already holds */
	for (size_t i = 0; i < n; i++)
		results_index_record(j->store_db, b[i].p, b[i].len);
}

/* ---- control commands ---------------------------------------------------- */

static void s_ctl_jobs(jobs_t *j, buf_t *out)
{
	sqlite3_stmt *st = jobs_prep(j, "SELECT id, request_id, board, state,"
				  " priority, attempts, text FROM jobs ORDER BY"
				  " id");
	json_t js;

	json_init(&js, out, JSON_PRETTY);
	json_arr_open(&js);
	while (st && sqlite3_step(st) == SQLITE_ROW) {
		char hex[65];

		wire_hex(sqlite3_column_blob(st, 1), 32, hex);
		json_obj_open(&js);
		json_key_int(&js, "job", sqlite3_column_int64(st, 0));
		json_key_str(&js, "request", hex);
		json_key_str(&js, "board",
			     (const char *)sqlite3_column_text(st, 2));
		json_key_str(&js, "state",
			     job_state_name(sqlite3_column_int(st, 3)));
		json_key_int(&js, "priority", sqlite3_column_int(st, 4));
		json_key_int(&js, "attempts", sqlite3_column_int(st, 5));
		json_key_str(&js, "text",
			     (const char *)sqlite3_column_text(st, 6));
		json_obj_close(&js);
	}
	sqlite3_finalize(st);
	json_arr_close(&js);
	json_finish(&js);
}

static void s_ctl_blob(jobs_t *j, const uint8_t *arg, size_t len, buf_t *out,
		       bool *failed)
{
	char hex[65];
	uint8_t id[32];
	int rc;

	if (len != 64) {
		*failed = true;
		buf_puts(out, "blob-fetch: need a 64-hex blob id");
		return;
	}
	memcpy(hex, arg, 64);
	hex[64] = '\0';
	if (wire_unhex(hex, id, 32) < 0) {
		*failed = true;
		buf_puts(out, "blob-fetch: need a 64-hex blob id");
		return;
	}
	rc = fetch_blob_asked(j, id);
	if (rc == -EBUSY) {
		buf_puts(out, "busy\n"); /* ask again later */
	} else if (rc > 0) {
		char *path = blob_path(j->ctx.home, id);

		buf_printf(out, "have %s\n", path);
		free(path);
	} else if (rc == 0) {
		buf_puts(out, "fetching\n");
	} else {
		*failed = true;
		buf_printf(out, "blob %.12s: not found on any peer", hex);
	}
}

bool jobs_ctl(jobs_t *j, const char *name, const uint8_t *const *args,
	      const size_t *lens, size_t n_args, bool json, buf_t *out,
	      bool *ret_failed)
{
	int rc;

	if (!j)
		return false;
	if (jobs_maint_ctl(j, name, args, lens, n_args, out, ret_failed) ||
	    jobs_known_ctl(j, name, args, lens, n_args, out, ret_failed) ||
	    confirm_ctl(j, name, args, lens, n_args, json, out, ret_failed) ||
	    jobs_lease_ctl(j, name, args, lens, n_args, out, ret_failed))
		return true;
	if (strcmp(name, "jobs") == 0) {
		s_ctl_jobs(j, out);
	} else if (strcmp(name, "blob-fetch") == 0 && n_args == 1) {
		s_ctl_blob(j, args[0], lens[0], out, ret_failed);
	} else if (strcmp(name, "cancel") == 0 && n_args == 1) {
		rc = s_take_cancel(j, NULL, args[0], lens[0]);
		if (rc == -EPERM) {
			*ret_failed = true;
			buf_puts(out, "cancel refused: only the submitter's"
				 " key may cancel a request");
		} else if (rc < 0) {
			*ret_failed = true;
			buf_printf(out, "cancel refused: %s", wire_strerror(rc));
		} else {
			buf_puts(out, rc ? "cancelled\n" : "known\n");
		}
	} else {
		return false;
	}
	return true;
}

/* ---- life ---------------------------------------------------------------- */

/* The catalog, the slots and the paths executors need. */
static void s_init(jobs_t *j)
{
	char *dir = catalog_default_dir(NULL), *err = NULL;
	const lab_config_t *cfg = j->ctx.cfg;

	if (results_open(j->ctx.home, true, &j->store_db) < 0)
		j->store_db = NULL;
	if (!dir || catalog_load(dir, &j->catalog, &err) < 0)
		log_warn("no suite catalog (%s): every request will be"
			 " declined", err ? err : "set LABMESH_SUITES");
	free(dir);
	free(err);
	j->slots = xcalloc(cfg->n_boards + 1, sizeof(*j->slots));
	for (size_t i = 0; i < cfg->n_boards; i++) {
		j->slots[i].fd = -1;
		j->slots[i].lock_fd = -1;
		j->slots[i].health_fd = -1;
		buf_init(&j->slots[i].line, JOBS_MAX_LINE);
	}
	jobs_maint_load(j);
	if (confirm_init(j) < 0)
		log_warn("jobs.db: cannot create the confirmation tables");
	lease_relay_new(j);
	jobs_lease_load(j);
	j->self_exe = realpath("/proc/self/exe", NULL);
	j->home = realpath(j->ctx.home, NULL);
	if (!j->home)
		j->home = xstrdup(j->ctx.home);
}

int jobs_new(const jobs_ctx_t *ctx, jobs_t **ret, char **ret_err)
{
	jobs_t *j = xzalloc(sizeof(*j));
	char *path = xasprintf("%s/jobs.db", ctx->home);

	j->ctx = *ctx;
	j->timer = -1;
	if (sqlite3_open(path, &j->db) != SQLITE_OK) {
		*ret_err = xasprintf("%s: %s", path, sqlite3_errmsg(j->db));
		free(path);
		jobs_destroy(&j);
		return -EIO;
	}
	free(path);
	sqlite3_busy_timeout(j->db, 5000);
	if (jobs_db_exec(j, s_schema) < 0) {
		*ret_err = xstrdup("jobs.db: cannot create the tables");
		jobs_destroy(&j);
		return -EIO;
	}
	s_init(j);
	*ret = j;
	return 0;
}

void jobs_start(jobs_t *j, zloop_t *loop)
{
	if (!j)
		return;
	j->loop = loop;
	exec_recover(j);
	for (size_t i = 0; i < j->ctx.cfg->n_boards; i++)
		if (j->slots[i].maint_reason)
			jobs_update_board(j, i);
	s_set_tick(j, JOBS_TICK_MS);
}

void jobs_destroy(jobs_t **p)
{
	jobs_t *j = *p;

	if (!j)
		return;
	if (j->slots) {
		exec_stop_all(j);
		jobs_lease_destroy(j);
		for (size_t i = 0; i < j->ctx.cfg->n_boards; i++) {
			buf_free(&j->slots[i].line);
			if (j->slots[i].lock_fd >= 0)
				close(j->slots[i].lock_fd);
			free(j->slots[i].maint_reason);
			jobs_health_stop(&j->slots[i]);
		}
	}
	free(j->slots);
	catalog_destroy(&j->catalog);
	sqlite3_close(j->db);
	sqlite3_close(j->store_db);
	free(j->self_exe);
	free(j->home);
	free(j);
	*p = NULL;
}
