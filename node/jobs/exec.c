/*
 * exec: the node's side of executors. A job runs in a child process,
 * `labmesh exec-job` (exec_child.c), in its own process group and with a
 * parent-death signal, so killing the node kills the job and everything
 * it started. The child tells its progress on a pipe, one line each:
 *
 *   E <state> <index> <count> <suite|-> <text...>   an event to publish
 *   R <path>                                         the signed run record
 *
 * The node turns E lines into `event` records and, when the child has
 * exited, appends the run record to its own feed (re-signed as the next
 * record of the feed) and indexes it for queries. The child never sees
 * the node's key: it signs its run record with a one-off key whose seed
 * the node hands it on descriptor 3 (EXEC_KEY_FD), and the node takes a
 * run record only when that job's key signed it.
 *
 * Restart: a job found in a running state in jobs.db was interrupted. Its
 * process group is killed if it survived, an ERROR event says so, and the
 * job is queued again once (JOBS_MAX_ATTEMPTS); after that it ends ERROR.
 */
#include "node/jobs/builds.h"
#include "node/jobs/confirm.h"
#include "node/jobs/jobs_int.h"

#include "node/jobs/exec_child.h"
#include "node/results/results.h"
#include "node/store/file.h"
#include "proto/mem.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static sqlite3_stmt *s_prep(jobs_t *j, const char *sql)
{
	sqlite3_stmt *st = NULL;

	if (sqlite3_prepare_v2(j->db, sql, -1, &st, NULL) != SQLITE_OK)
		return NULL;
	return st;
}

static char *s_job_dir(jobs_t *j, int64_t job)
{
	return xasprintf("%s/work/jobs/%" PRId64, j->home, job);
}

static void s_mkdir_p(const char *path)
{
	char *p = xstrdup(path);

	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		mkdir(p, 0700);
		*s = '/';
	}
	mkdir(p, 0700);
	free(p);
}

static int s_handle_pipe(zloop_t *loop, zmq_pollitem_t *item, void *arg);

static void s_child(jobs_t *j, int wfd, int keyfd, pid_t parent,
		    const char *dir, const char *board)
{
	const char *cfg = j->ctx.cfg->path;

	setpgid(0, 0);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(127);
	if (dup2(wfd, STDOUT_FILENO) < 0)
		_exit(127);
	/* dup2 onto itself keeps close-on-exec: clear it by hand */
	if (keyfd == EXEC_KEY_FD ? fcntl(keyfd, F_SETFD, 0) < 0 :
				   dup2(keyfd, EXEC_KEY_FD) < 0)
		_exit(127);
	if (!cfg || strcmp(cfg, "(default)") == 0)
		cfg = "";
	execl(j->self_exe, "labmesh", "exec-job", "--home", j->home,
	      "--config", cfg, "--board", board, "--dir", dir, "--key-fd",
	      EXEC_KEY_FD_STR, (char *)NULL);
	_exit(127);
}

/* A pipe holding the seed of a fresh one-off key for the executor; its
 * public half in ret_pk. The read end in *ret_fd; 0 or -errno. */
static int s_key_pipe(uint8_t *ret_pk, int *ret_fd)
{
	uint8_t seed[32];
	int fds[2], rc = wire_job_key(seed, ret_pk);

	if (rc < 0)
		return rc;
	if (pipe2(fds, O_CLOEXEC) < 0) {
		sodium_memzero(seed, sizeof(seed));
		return -errno;
	}
	/* 32 bytes always fit in an empty pipe */
	rc = write(fds[1], seed, sizeof(seed)) == sizeof(seed) ? 0 : -EIO;
	sodium_memzero(seed, sizeof(seed));
	close(fds[1]);
	if (rc < 0) {
		close(fds[0]);
		return rc;
	}
	*ret_fd = fds[0];
	return 0;
}

/* Every start names its request and submitter, for an operator reading
 * the log of a busy board. */
static void s_log_start(jobs_t *j, int64_t job, const char *board,
			const uint8_t *req_id, pid_t pid)
{
	sqlite3_stmt *st = s_prep(j, "SELECT submitter FROM jobs WHERE id=?");
	char rhex[2 * WIRE_ID_BYTES + 1], shex[2 * WIRE_KEY_BYTES + 1] = "?";
	const char *name;

	wire_hex(req_id, WIRE_ID_BYTES, rhex);
	if (st) {
		sqlite3_bind_int64(st, 1, job);
		if (sqlite3_step(st) == SQLITE_ROW &&
		    sqlite3_column_bytes(st, 0) == WIRE_KEY_BYTES)
			wire_hex(sqlite3_column_blob(st, 0), WIRE_KEY_BYTES,
				 shex);
		sqlite3_finalize(st);
	}
	name = lab_submitter_name(j->ctx.cfg, shex);
	log_info("job %" PRId64 " on %s: request %.12s from submitter %.12s%s%s%s,"
		 " executor %d started", job, board, rhex, shex,
		 name ? " (" : "", name ? name : "", name ? ")" : "", (int)pid);
}

int exec_start(jobs_t *j, size_t bi, int64_t job, const uint8_t *req_id,
	       const uint8_t *bytes, size_t len)
{
	jobs_slot_t *s = &j->slots[bi];
	const char *board = j->ctx.cfg->boards[bi].name;
	char *dir = s_job_dir(j, job), *path = xasprintf("%s/request", dir);
	sqlite3_stmt *st;
	pid_t parent = getpid(), pid;
	int fds[2], keyfd = -1, rc;

	s_mkdir_p(dir);
	rc = file_write(path, bytes, len);
	free(path);
	if (rc == 0 && s->has_pre)
		rc = jobs_prebuilt_write(s, dir);
	if (rc == 0)
		rc = s_key_pipe(s->run_key, &keyfd);
	if (rc < 0 || !j->self_exe || pipe2(fds, O_CLOEXEC) < 0) {
		if (keyfd >= 0)
			close(keyfd);
		free(dir);
		return rc < 0 ? rc : -EIO;
	}
	pid = fork();
	if (pid == 0)
		s_child(j, fds[1], keyfd, parent, dir, board);
	rc = pid < 0 ? -errno : 0; /* before close() may change errno */
	free(dir);
	close(fds[1]);
	close(keyfd);
	if (rc < 0) {
		close(fds[0]);
		return rc;
	}
	setpgid(pid, pid); /* both sides: no race with a kill of the group */
	fcntl(fds[0], F_SETFL, O_NONBLOCK);
	s->pid = pid;
	s->fd = fds[0];
	s->kill_at_ms = 0;
	buf_reset(&s->line);
	free(s->run_path);
	s->run_path = NULL;
	s->last_state = JOB_QUEUED;
	s->said_ms = 0;
	st = s_prep(j, "UPDATE jobs SET pid=?, attempts=attempts+1,"
		    " state=?, updated_ms=? WHERE id=?");
	if (st) {
		sqlite3_bind_int64(st, 1, pid);
		sqlite3_bind_int(st, 2, JOB_BOOTING);
		sqlite3_bind_int64(st, 3, jobs_wall_ms());
		sqlite3_bind_int64(st, 4, job);
		sqlite3_step(st);
		sqlite3_finalize(st);
	}
	zmq_pollitem_t it = { .socket = NULL, .fd = s->fd, .events = ZMQ_POLLIN };
	zloop_poller(j->loop, &it, s_handle_pipe, j);
	s_log_start(j, job, board, req_id, pid);
	return 0;
}

/* One line from the executor of slot s. */
static void s_on_line(jobs_t *j, size_t bi, char *line)
{
	jobs_slot_t *s = &j->slots[bi];
	const char *board = j->ctx.cfg->boards[bi].name;
	char suite[PROTO_MAX_NAME + 1] = "";
	unsigned state, idx, count;
	int off = 0;

	if (line[0] == 'R' && line[1] == ' ') {
		free(s->run_path);
		s->run_path = xstrdup(line + 2);
		return;
	}
	if (line[0] == 'X' && line[1] == ' ') {
		free(s->error);
		s->error = xstrndup(line + 2, 512);
		return;
	}
	if (sscanf(line, "E %u %u %u %64s %n", &state, &idx, &count, suite,
		   &off) < 4 || off == 0 || state < JOB_FETCHING ||
	    state > JOB_RUNNING || s->cancelled)
		return;
	if (strcmp(suite, "-") == 0)
		suite[0] = '\0';
	if (s->last_state != (int)state || s->said_idx != idx)
		s->state_ms = jobs_now();
	s->said_ms = jobs_now();
	s->said_idx = idx;
	s->said_count = count;
	snprintf(s->said_suite, sizeof(s->said_suite), "%s", suite);
	snprintf(s->said_text, sizeof(s->said_text), "%s", line + off);
	s->last_state = (int)state;
	jobs_set_state(j, s->job, (int)state, line + off);
	jobs_publish_event(j, s->request_id, board, (int)state, idx, count,
			   suite, line + off);
}

static void s_finish(jobs_t *j, size_t bi, int wstatus);

/* Reap the executor of slot bi if it exits within ms; then finish the
 * job and start the next. */
static bool s_reap(jobs_t *j, size_t bi, int ms)
{
	jobs_slot_t *s = &j->slots[bi];
	int wstatus = 0;

	for (int t = 0; t <= ms; t++) {
		pid_t r = waitpid(s->pid, &wstatus, WNOHANG);

		if (r == s->pid || (r < 0 && errno == ECHILD)) {
			kill(-s->pid, SIGKILL); /* anything it left */
			s_finish(j, bi, wstatus);
			jobs_schedule(j);
			return true;
		}
		if (t < ms)
			usleep(1000);
	}
	return false;
}

static void s_read_pipe(jobs_t *j, size_t bi)
{
	jobs_slot_t *s = &j->slots[bi];
	char chunk[4096];
	ssize_t n;

	while ((n = read(s->fd, chunk, sizeof(chunk))) > 0) {
		for (ssize_t i = 0; i < n; i++) {
			if (chunk[i] != '\n') {
				buf_putc(&s->line, chunk[i]); /* capped */
				continue;
			}
			s_on_line(j, bi, (char *)buf_str(&s->line));
			buf_reset(&s->line);
		}
	}
	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
		zmq_pollitem_t it = { .socket = NULL, .fd = s->fd };

		zloop_poller_end(j->loop, &it);
		close(s->fd);
		s->fd = -1;
		s_reap(j, bi, 100); /* it is exiting: finish without the tick */
	}
}

static int s_handle_pipe(zloop_t *loop, zmq_pollitem_t *item, void *arg)
{
	jobs_t *j = arg;

	for (size_t i = 0; i < j->ctx.cfg->n_boards; i++)
		if (j->slots[i].job && j->slots[i].fd == item->fd)
			s_read_pipe(j, i);
	return 0;
}

/* Append the executor's run record to our feed; its status or -errno. */
static int s_publish_run(jobs_t *j, jobs_slot_t *s, char *text, size_t tsz)
{
	const char *path = s->run_path;
	uint8_t *bytes = NULL, *own = NULL;
	size_t len = 0, own_len = 0;
	record_t *rec = NULL;
	FILE *f = fopen(path, "rbe");
	int rc = -EIO;

	if (!f)
		return -errno;
	bytes = xmalloc(PROTO_MAX_RECORD);
	len = fread(bytes, 1, PROTO_MAX_RECORD, f);
	fclose(f);
	/* only the word of the executor we started counts: its job's key */
	if (len > 0)
		rc = wire_run_open(bytes, len, s->run_key, &rec);
	if (rc == 0)
		rc = j->ctx.append_record(j->ctx.arg, rec);
	if (rc == 0) {
		snprintf(text, tsz, "%s", proto_status_name(rec->run.status));
		rc = rec->run.status;
		if (j->store_db &&
		    store_latest_own(j->ctx.store, j->ctx.node_id,
				     RECORD_RUN, &own, &own_len) == 0 &&
		    results_index_record(j->store_db, own, own_len) >= 0) {
			proto_id(own, own_len, rec->head.id);
			confirm_on_own_run(j, rec);
		}
	}
	record_destroy(&rec);
	free(own);
	free(bytes);
	return rc;
}

/* A job's folder goes when the job ends: its logs are blobs by then and
 * its kernel build is kept in the build storage, not there. */
static void s_remove_dir(jobs_t *j, int64_t job)
{
	char *dir = s_job_dir(j, job);
	int rc = builds_rmtree(dir);

	if (rc < 0)
		log_warn("job %" PRId64 ": cannot remove %s: %s", job, dir,
			 strerror(-rc));
	free(dir);
}

/* The child is gone and its pipe drained: close the job. */
static void s_finish(jobs_t *j, size_t bi, int wstatus)
{
	jobs_slot_t *s = &j->slots[bi];
	const char *board = j->ctx.cfg->boards[bi].name;
	char text[256] = "";
	int state = JOB_DONE, rc = -ENOENT;

	if (s->cancelled) {
		state = JOB_CANCELLED;
		snprintf(text, sizeof(text), "cancelled by the submitter");
	} else {
		if (s->run_path)
			rc = s_publish_run(j, s, text, sizeof(text));
		if (rc >= 0 && s->error) {
			/* a run record says what was tried; the job failed */
			state = JOB_ERROR;
			snprintf(text, sizeof(text), "%s", s->error);
		}
		if (rc < 0) {
			state = JOB_ERROR;
			if (WIFSIGNALED(wstatus))
				snprintf(text, sizeof(text), "executor killed by"
					 " signal %d", WTERMSIG(wstatus));
			else
				snprintf(text, sizeof(text), "executor failed"
					 " (exit %d) without a result",
					 WEXITSTATUS(wstatus));
		}
	}
	jobs_set_state(j, s->job, state, text);
	jobs_publish_event(j, s->request_id, board, state, 0, 0, NULL, text);
	log_info("job %" PRId64 " on %s: %s %s", s->job, board,
		 job_state_name(state), text);
	free(s->run_path);
	s->run_path = NULL;
	free(s->error);
	s->error = NULL;
	s_remove_dir(j, s->job);
	s->job = 0;
	s->pid = 0;
	jobs_update_board(j, bi);
}

/* A job that said nothing for JOBS_ALIVE_MS says its last word again,
 * with how long it has been at it. */
static void s_alive(jobs_t *j, size_t bi)
{
	jobs_slot_t *s = &j->slots[bi];
	char text[256];

	if (!s->said_ms || s->cancelled ||
	    jobs_now() - s->said_ms < JOBS_ALIVE_MS)
		return;
	s->said_ms = jobs_now();
	snprintf(text, sizeof(text), "%s (still at it after %lld s)",
		 s->said_text, (long long)((jobs_now() - s->state_ms) / 1000));
	jobs_publish_event(j, s->request_id, j->ctx.cfg->boards[bi].name,
			   s->last_state, s->said_idx, s->said_count,
			   s->said_suite, text);
}

void exec_tick(jobs_t *j)
{
	for (size_t i = 0; i < j->ctx.cfg->n_boards; i++) {
		jobs_slot_t *s = &j->slots[i];

		if (!s->job || !s->pid)
			continue;
		s_alive(j, i);
		if (s->kill_at_ms && jobs_now() >= s->kill_at_ms)
			kill(-s->pid, SIGKILL);
		if (s->fd >= 0)
			continue; /* the pipe first: it holds the result */
		s_reap(j, i, 0);
	}
}

void exec_kill(jobs_t *j, size_t bi, bool cancel)
{
	jobs_slot_t *s = &j->slots[bi];

	if (!s->pid)
		return;
	s->cancelled |= cancel;
	kill(-s->pid, SIGTERM);
	s->kill_at_ms = jobs_now() + JOBS_KILL_GRACE_MS;
}

void exec_stop_all(jobs_t *j)
{
	for (size_t i = 0; i < j->ctx.cfg->n_boards; i++) {
		jobs_slot_t *s = &j->slots[i];

		if (!s->pid)
			continue;
		/* a clean stop is an interruption like a crash: the job is
		 * recovered on the next start */
		kill(-s->pid, SIGKILL);
		waitpid(s->pid, NULL, 0);
		if (s->fd >= 0)
			close(s->fd);
		s->fd = -1;
		s->pid = 0;
		free(s->run_path);
		s->run_path = NULL;
	}
}

/* Kill what an executor of a previous life left, if it is one. */
static void s_kill_leftover(pid_t pid)
{
	char path[64], cmd[256] = "";
	FILE *f;
	size_t n;

	if (pid <= 1)
		return;
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return;
	n = fread(cmd, 1, sizeof(cmd) - 1, f);
	fclose(f);
	for (size_t i = 0; i < n; i++)
		if (!cmd[i])
			cmd[i] = ' ';
	if (strstr(cmd, "exec-job"))
		kill(-pid, SIGKILL);
}

void exec_recover(jobs_t *j)
{
	sqlite3_stmt *st = s_prep(j, "SELECT id, request_id, board, state,"
				  " attempts, pid FROM jobs WHERE state"
				  " BETWEEN ? AND ?");

	if (!st)
		return;
	sqlite3_bind_int(st, 1, JOB_FETCHING);
	sqlite3_bind_int(st, 2, JOB_RUNNING);
	while (sqlite3_step(st) == SQLITE_ROW) {
		int64_t job = sqlite3_column_int64(st, 0);
		uint8_t rid[32];
		char *board = xstrdup((const char *)sqlite3_column_text(st, 2));
		int was = sqlite3_column_int(st, 3);
		int attempts = sqlite3_column_int(st, 4);
		char text[256];
		bool again = attempts < JOBS_MAX_ATTEMPTS;

		memcpy(rid, sqlite3_column_blob(st, 1), 32);
		s_kill_leftover((pid_t)sqlite3_column_int64(st, 5));
		snprintf(text, sizeof(text), "interrupted: the node stopped"
			 " while the job was %s (attempt %d); %s",
			 job_state_name(was), attempts,
			 again ? "queued again" : "giving up");
		jobs_set_state(j, job, again ? JOB_QUEUED : JOB_ERROR, text);
		jobs_publish_event(j, rid, board, JOB_ERROR, 0, 0, NULL, text);
		if (again)
			jobs_publish_event(j, rid, board, JOB_QUEUED, 0, 0, NULL,
					   "queued again after an interruption");
		log_warn("job %" PRId64 " on %s: %s", job, board, text);
		free(board);
	}
	sqlite3_finalize(st);
	for (size_t i = 0; i < j->ctx.cfg->n_boards; i++)
		jobs_update_board(j, i);
}
