/*
 * jobs_health: the health checks of boards (a board's `health` in the
 * lab file). While a board is idle (no job, no lease, not in
 * maintenance) its check runs every interval in a child process,
 * `labmesh health-check` (cmd_health_check, below), which runs the
 * operator's command through the board's transport or on the lab's
 * machine. LAB_HEALTH_FAILS failures in a row take the board offline:
 * its advert says so with the reason (note "health.I"), requests are
 * declined for it and its queue waits; the first check that passes
 * puts it back. A queued job waits for a check that runs (the two
 * would share the board's console).
 *
 * Layout: the node's side (start, reap, tick); the child.
 */
#include "node/jobs/jobs_int.h"

#include "proto/mem.h"
#include "transports/transport.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define HEALTH_MAX_WHY 200   /* bytes of a failed check's reason */
#define HEALTH_GRACE_S 10    /* past the command's timeout and the
			      * transport's connect timeout: killed */

/* ---- the node's side ------------------------------------------------- */

static void s_child(jobs_t *j, int fd, pid_t parent, const char *board)
{
	const char *cfg = j->ctx.cfg->path;

	setpgid(0, 0);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(127);
	if (dup2(fd, STDOUT_FILENO) < 0)
		_exit(127);
	if (!cfg || strcmp(cfg, "(default)") == 0)
		cfg = "";
	execl(j->self_exe, "labmesh", "health-check", "--home", j->home,
	      "--config", cfg, "--board", board, (char *)NULL);
	_exit(127);
}

static void s_start(jobs_t *j, size_t bi)
{
	const lab_board_t *b = &j->ctx.cfg->boards[bi];
	jobs_slot_t *s = &j->slots[bi];
	pid_t parent = getpid(), pid;
	int fds[2];

	s->health_next_ms = jobs_now() + (int64_t)b->health_interval_s * 1000;
	if (!j->self_exe || pipe2(fds, O_CLOEXEC) < 0)
		return;
	pid = fork();
	if (pid == 0)
		s_child(j, fds[1], parent, b->name);
	close(fds[1]);
	if (pid < 0) {
		close(fds[0]);
		return;
	}
	setpgid(pid, pid);
	fcntl(fds[0], F_SETFL, O_NONBLOCK);
	s->health_pid = pid;
	s->health_fd = fds[0];
	s->health_kill_ms = jobs_now() +
			    (int64_t)(b->health_timeout_s +
				      b->transport.connect_timeout_s +
				      HEALTH_GRACE_S) * 1000;
}

/* The verdict of a check: passed, or failed with why. */
static void s_verdict(jobs_t *j, size_t bi, bool ok, const char *why)
{
	jobs_slot_t *s = &j->slots[bi];
	const char *name = j->ctx.cfg->boards[bi].name;

	if (ok) {
		s->health_fails = 0;
		if (!s->health_down)
			return;
		log_info("board %s: its health check passes again: online",
			 name);
		free(s->health_down);
		s->health_down = NULL;
		jobs_update_board(j, bi);
		return;
	}
	if (s->health_fails < INT32_MAX)
		s->health_fails++;
	log_info("board %s: health check failed (%d in a row): %s", name,
		 s->health_fails, why);
	if (s->health_fails < LAB_HEALTH_FAILS)
		return;
	free(s->health_down);
	s->health_down = xasprintf("health check failed %d times: %s",
				   s->health_fails, why);
	if (s->health_fails == LAB_HEALTH_FAILS)
		log_warn("board %s: offline: %s", name, s->health_down);
	jobs_update_board(j, bi);
}

/* A check that ended (or ran out of time): its verdict. */
static void s_reap(jobs_t *j, size_t bi)
{
	jobs_slot_t *s = &j->slots[bi];
	char why[HEALTH_MAX_WHY + 1] = "";
	int st = 0;
	pid_t r = waitpid(s->health_pid, &st, WNOHANG);
	ssize_t n;

	if (r == 0) {
		if (jobs_now() >= s->health_kill_ms) {
			kill(-s->health_pid, SIGKILL);
			s->health_kill_ms = INT64_MAX; /* said once */
			s->health_late = true;
		}
		return;
	}
	n = read(s->health_fd, why, HEALTH_MAX_WHY);
	why[n > 0 ? n : 0] = '\0';
	why[strcspn(why, "\n")] = '\0';
	close(s->health_fd);
	s->health_fd = -1;
	s->health_pid = 0;
	if (s->health_late)
		snprintf(why, sizeof(why), "no answer in time");
	else if (r < 0 || !WIFEXITED(st) || (WEXITSTATUS(st) != 0 && !*why))
		snprintf(why, sizeof(why), "the check could not run");
	s_verdict(j, bi, r > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0 &&
			 !s->health_late, why);
	s->health_late = false;
}

void jobs_health_tick(jobs_t *j)
{
	int64_t now = jobs_now();

	for (size_t i = 0; i < j->ctx.cfg->n_boards; i++) {
		jobs_slot_t *s = &j->slots[i];

		if (s->health_pid) {
			s_reap(j, i);
		} else if (!j->ctx.cfg->boards[i].health_cmd) {
			if (s->health_down) /* the check left the file */
				s_verdict(j, i, true, NULL);
		} else if (!s->job && !s->lease_on &&
			   now >= s->health_next_ms &&
			   !jobs_maint_active(j, i)) {
			s_start(j, i);
		}
	}
}

bool jobs_health_holds(jobs_t *j, size_t bi)
{
	return j->slots[bi].health_pid || j->slots[bi].health_down;
}

void jobs_health_stop(jobs_slot_t *s)
{
	if (s->health_pid) {
		kill(-s->health_pid, SIGKILL);
		waitpid(s->health_pid, NULL, 0);
		s->health_pid = 0;
	}
	if (s->health_fd >= 0)
		close(s->health_fd);
	s->health_fd = -1;
	free(s->health_down);
	s->health_down = NULL;
}

/* ---- the child: `labmesh health-check` --------------------------------- */

typedef struct {
	char tail[HEALTH_MAX_WHY + 1]; /* the last line said */
	size_t n;
	bool eol; /* a line ended: the next character starts over */
} s_out_t;

static void s_output(void *arg, enum transport_stream stream,
		     const char *data, size_t len)
{
	s_out_t *o = arg;

	(void)stream;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)data[i];

		if (c == '\n' || c == '\r') {
			o->eol = o->n > 0;
			continue;
		}
		if (o->eol)
			o->n = 0;
		o->eol = false;
		if (o->n >= HEALTH_MAX_WHY - 1)
			continue;
		/* it goes into the advert: plain ASCII only */
		o->tail[o->n++] = c < 0x20 || c > 0x7e ? '?' : (char)c;
		o->tail[o->n] = '\0';
	}
}

/* Run the check of b; 0 passed, else the reason on stdout. */
static int s_check(const lab_board_t *b, const char *dir)
{
	transport_opts_t o = { .workdir = dir };
	lab_board_t host = *b;
	transport_t *t = NULL;
	s_out_t out = { .n = 0 };
	char *err = NULL;
	int status = 0, rc;

	if (b->health_on_host) {
		memset(&host.transport, 0, sizeof(host.transport));
		host.transport.type = LAB_TRANSPORT_LOCAL;
	}
	setenv("LABMESH_BOARD", b->name, 1);
	rc = transport_open(&host, &o, &t, &err);
	if (rc < 0) {
		printf("cannot reach the board: %.150s\n", err ? err : "");
		free(err);
		return 1;
	}
	rc = transport_run(t, b->health_cmd, b->health_timeout_s * 1000,
			   s_output, &out, &status);
	if (rc == -ETIMEDOUT)
		printf("timed out after %d s\n", b->health_timeout_s);
	else if (rc < 0)
		printf("%.150s\n", transport_error(t));
	else if (status != 0)
		printf("exit %d%s%s\n", status, out.n ? ": " : "", out.tail);
	transport_close(&t);
	return rc < 0 || status != 0;
}

int cmd_health_check(int argc, char **argv)
{
	const char *home = NULL, *config = NULL, *board = NULL;
	lab_config_t *cfg = NULL;
	const lab_board_t *b;
	char *err = NULL, *dir;
	int rc;

	for (int i = 1; i + 1 < argc; i += 2) {
		if (strcmp(argv[i], "--home") == 0)
			home = argv[i + 1];
		else if (strcmp(argv[i], "--config") == 0)
			config = argv[i + 1];
		else if (strcmp(argv[i], "--board") == 0)
			board = argv[i + 1];
	}
	if (!home || !board || !config || !*config) {
		fprintf(stderr, "labmesh health-check: started by the node"
			" only\n");
		return 2;
	}
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	signal(SIGPIPE, SIG_IGN);
	if (lab_config_load(config, &cfg, &err) < 0) {
		printf("the lab file: %.150s\n", err ? err : "unreadable");
		free(err);
		return 1;
	}
	b = lab_config_board(cfg, board);
	dir = xasprintf("%s/work", home);
	mkdir(dir, 0700);
	free(dir);
	dir = xasprintf("%s/work/health-%s", home, board);
	mkdir(dir, 0700);
	rc = b && b->health_cmd ? s_check(b, dir) : 1;
	if (!b || !b->health_cmd)
		printf("no health check for board %s\n", board);
	fflush(stdout);
	free(dir);
	lab_config_destroy(&cfg);
	return rc;
}
