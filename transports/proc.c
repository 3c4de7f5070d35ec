/*
 * proc: fork/exec one host program in its own session and stream its
 * output. Layout: spec helpers, PATH lookup and environment building (in
 * the parent: only async-signal-safe calls happen between fork and exec,
 * so this is safe in a threaded node), the child side, the poll loop, and
 * the timeout kill.
 */
#include "transports/proc.h"

#include "proto/buf.h"
#include "proto/mem.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PROC_READ_CHUNK (64 * 1024)

extern char **environ;

void proc_spec_init(proc_spec_t *s)
{
	memset(s, 0, sizeof(*s));
	s->stdin_fd = -1;
}

int proc_arg(proc_spec_t *s, const char *a)
{
	if (s->argc >= PROC_MAX_ARGS)
		return -E2BIG;
	s->argv[s->argc++] = a;
	s->argv[s->argc] = NULL;
	return 0;
}

int proc_env(proc_spec_t *s, const char *name_value)
{
	if (s->envc >= PROC_MAX_ENV || !strchr(name_value, '='))
		return -E2BIG;
	s->env[s->envc++] = name_value;
	s->env[s->envc] = NULL;
	return 0;
}

char *proc_shell_quote(const char *s)
{
	buf_t b;

	buf_init(&b, 0);
	buf_putc(&b, '\'');
	for (; *s; s++) {
		if (*s == '\'')
			buf_puts(&b, "'\\''");
		else
			buf_putc(&b, *s);
	}
	buf_putc(&b, '\'');
	return buf_steal(&b);
}

/* The program's path: argv[0] itself if it has a '/', else the first
 * executable match in PATH. The caller frees. */
static char *s_which(const char *prog)
{
	const char *path = getenv("PATH");
	const char *p, *end;

	if (strchr(prog, '/'))
		return access(prog, X_OK) == 0 ? xstrdup(prog) : NULL;
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (p = path; *p; p = *end ? end + 1 : end) {
		char *cand;

		end = strchrnul(p, ':');
		if (end == p)
			continue;
		cand = xasprintf("%.*s/%s", (int)(end - p), p, prog);
		if (access(cand, X_OK) == 0)
			return cand;
		free(cand);
	}
	return NULL;
}

/* environ with the spec's entries added or replacing same-named ones. */
static char **s_build_env(const proc_spec_t *s)
{
	size_t n = 0, k = 0;
	char **env;

	while (environ && environ[n])
		n++;
	env = xcalloc(n + s->envc + 1, sizeof(*env));
	for (size_t i = 0; i < n; i++) {
		bool replaced = false;

		for (size_t j = 0; j < s->envc; j++) {
			size_t len = strchr(s->env[j], '=') - s->env[j] + 1;

			if (strncmp(environ[i], s->env[j], len) == 0)
				replaced = true;
		}
		if (!replaced)
			env[k++] = environ[i];
	}
	for (size_t j = 0; j < s->envc; j++)
		env[k++] = (char *)s->env[j];
	env[k] = NULL;
	return env;
}

/* In the child: only async-signal-safe calls. */
static void __attribute__((noreturn))
s_child(const char *path, const proc_spec_t *s, char **env, int in, int out,
	int errfd)
{
	sigset_t none;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, SIG_DFL);
	setsid();
	if (dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(errfd, 2) < 0)
		_exit(126);
	/* Nothing of ours leaks into the command, even fds opened without
	 * O_CLOEXEC by a library. */
	if (syscall(SYS_close_range, 3U, ~0U, 0U) < 0)
		for (int fd = 3; fd < 1024; fd++)
			close(fd);
	if (s->cwd && chdir(s->cwd) < 0)
		_exit(126);
	execve(path, (char *const *)s->argv, env);
	_exit(127);
}

static long long s_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Read what is there on one pipe; false at EOF or error. */
static bool s_drain(int fd, enum transport_stream st, const proc_spec_t *s,
		    char *buf)
{
	ssize_t n = read(fd, buf, PROC_READ_CHUNK);

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return true;
	if (n <= 0)
		return false;
	if (s->fn)
		s->fn(s->arg, st, buf, (size_t)n);
	return true;
}

/* Kill the group: SIGTERM, a grace while still draining, then SIGKILL. */
static int s_kill_group(pid_t pid, struct pollfd *pfd, const proc_spec_t *s,
			char *buf)
{
	long long deadline = s_now_ms() + PROC_KILL_GRACE_MS;
	int status;

	kill(-pid, SIGTERM);
	while (s_now_ms() < deadline) {
		if (waitpid(pid, &status, WNOHANG) == pid) {
			/* The leader is gone; finish off anything left in
			 * its group. */
			kill(-pid, SIGKILL);
			return 0;
		}
		if (poll(pfd, 2, 20) > 0) {
			for (int i = 0; i < 2; i++)
				if (pfd[i].fd >= 0 && pfd[i].revents &&
				    !s_drain(pfd[i].fd, i + 1, s, buf))
					pfd[i].fd = -1;
		}
	}
	kill(-pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return 0;
}

static int s_loop(pid_t pid, struct pollfd *pfd, const proc_spec_t *s)
{
	long long deadline = s->timeout_ms > 0 ? s_now_ms() + s->timeout_ms : 0;
	char *buf = xmalloc(PROC_READ_CHUNK);
	int r = 0;

	while (pfd[0].fd >= 0 || pfd[1].fd >= 0) {
		int wait_ms = -1, n;

		if (deadline) {
			long long left = deadline - s_now_ms();

			if (left <= 0) {
				s_kill_group(pid, pfd, s, buf);
				r = -ETIMEDOUT;
				break;
			}
			wait_ms = left > INT_MAX ? INT_MAX : (int)left;
		}
		n = poll(pfd, 2, wait_ms);
		if (n < 0 && errno != EINTR) {
			r = -errno;
			break;
		}
		for (int i = 0; n > 0 && i < 2; i++)
			if (pfd[i].fd >= 0 && pfd[i].revents &&
			    !s_drain(pfd[i].fd, i + 1, s, buf))
				pfd[i].fd = -1;
	}
	free(buf);
	return r;
}

static int s_status(pid_t pid, bool keep_group, int *ret_status)
{
	int status;

	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR)
			return -errno;
	}
	if (WIFEXITED(status))
		*ret_status = WEXITSTATUS(status);
	else if (WIFSIGNALED(status))
		*ret_status = 128 + WTERMSIG(status);
	else
		*ret_status = 255;
	/* Stragglers in the group would outlive the command otherwise. */
	if (!keep_group)
		kill(-pid, SIGKILL);
	return 0;
}

int proc_run(const proc_spec_t *s, int *ret_status, char *err, size_t errsz)
{
	int out[2] = { -1, -1 }, er[2] = { -1, -1 }, in = -1;
	struct pollfd pfd[2];
	char *path = NULL, **env = NULL;
	pid_t pid;
	int r, status = 0;

	if (s->argc == 0)
		return -EINVAL;
	path = s_which(s->argv[0]);
	if (!path) {
		snprintf(err, errsz, "%s: not found", s->argv[0]);
		return -ENOENT;
	}
	in = s->stdin_fd >= 0 ? s->stdin_fd : open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (in < 0 || pipe2(out, O_CLOEXEC) < 0 || pipe2(er, O_CLOEXEC) < 0) {
		r = -errno;
		snprintf(err, errsz, "pipe: %s", strerror(errno));
		goto out_fds;
	}
	env = s_build_env(s);
	pid = fork();
	if (pid < 0) {
		r = -errno;
		snprintf(err, errsz, "fork: %s", strerror(errno));
		goto out_fds;
	}
	if (pid == 0)
		s_child(path, s, env, in, out[1], er[1]);
	close(out[1]);
	close(er[1]);
	out[1] = er[1] = -1;
	pfd[0] = (struct pollfd){ .fd = out[0], .events = POLLIN };
	pfd[1] = (struct pollfd){ .fd = er[0], .events = POLLIN };
	r = s_loop(pid, pfd, s);
	if (r == -ETIMEDOUT) {
		snprintf(err, errsz, "%s: timed out after %d ms, killed",
			 s->argv[0], s->timeout_ms);
		goto out_fds;
	}
	if (r < 0) {
		kill(-pid, SIGKILL);
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		snprintf(err, errsz, "poll: %s", strerror(-r));
		goto out_fds;
	}
	r = s_status(pid, s->keep_group, &status);
	if (r == 0)
		*ret_status = status;
out_fds:
	for (int i = 0; i < 2; i++) {
		if (out[i] >= 0)
			close(out[i]);
		if (er[i] >= 0)
			close(er[i]);
	}
	if (in >= 0 && in != s->stdin_fd)
		close(in);
	free(env);
	free(path);
	return r;
}
