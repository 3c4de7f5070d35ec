/*
 * process-lifecycle: fork, exec, wait, exit codes, zombies and orphans,
 * printed as TAP.
 *
 * The helper re-executes itself (/proc/self/exe, else argv[0]) for the exec
 * cases, so it needs nothing on the board but itself. All waits are bounded
 * by alarm() in the children.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define PLAN 11
#define MANY_CHILDREN 32

static int s_n;
static char s_self[4096];

static void s_ok(int ok, const char *name)
{
	printf("%sok %d - %s\n", ok ? "" : "not ", ++s_n, name);
	fflush(stdout);
}

/* Run a child that exits with `code`; return its wait status. */
static int s_exit_status(int code)
{
	int st = -1;
	pid_t pid = fork();

	if (pid == 0)
		_exit(code);
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return -1;
	return st;
}

/* fork + exec self with arguments; return the wait status. */
static int s_spawn(char *const argv[])
{
	int st = -1;
	pid_t pid = fork();

	if (pid == 0) {
		execv(argv[0], argv);
		_exit(errno == ENOENT ? 126 : 125);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return -1;
	return st;
}

static void t_exit_codes(void)
{
	static const int codes[] = { 0, 1, 42, 255 };
	int st, ok = 1;
	size_t i;

	for (i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
		st = s_exit_status(codes[i]);
		ok &= st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == codes[i];
	}
	s_ok(ok, "exit_codes_roundtrip");
	st = s_exit_status(256 + 3);
	s_ok(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 3, "exit_code_truncated_to_8_bits");
}

static void t_exec(void)
{
	char *ok_argv[] = { s_self, "--exit", "37", NULL };
	char *bad_argv[] = { "/nonexistent/labmesh-no-such-binary", NULL };
	int st;

	st = s_spawn(ok_argv);
	s_ok(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 37, "exec_runs_new_image");
	st = s_spawn(bad_argv);
	s_ok(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 126, "exec_missing_is_enoent");
}

static void t_cloexec(void)
{
	char num1[16], num2[16];
	char *a1[] = { s_self, "--fd-open", num1, NULL };
	char *a2[] = { s_self, "--fd-open", num2, NULL };
	int keep = open("/dev/null", O_RDONLY);
	int drop = open("/dev/null", O_RDONLY | O_CLOEXEC);
	int s1, s2;

	snprintf(num1, sizeof(num1), "%d", keep);
	snprintf(num2, sizeof(num2), "%d", drop);
	s1 = s_spawn(a1);
	s2 = s_spawn(a2);
	close(keep);
	close(drop);
	s_ok(keep >= 0 && drop >= 0 && WIFEXITED(s1) && WEXITSTATUS(s1) == 0 &&
		     WIFEXITED(s2) && WEXITSTATUS(s2) == 1,
	     "exec_keeps_fds_closes_cloexec");
}

static void t_signalled(void)
{
	int st = -1;
	pid_t pid = fork();

	if (pid == 0) {
		signal(SIGABRT, SIG_DFL);
		abort();
	}
	if (pid > 0)
		waitpid(pid, &st, 0);
	s_ok(st >= 0 && WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT, "wait_reports_signal");
}

static char s_state_of(pid_t pid)
{
	char path[64], buf[512], *p;
	int fd, n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : 0;
}

static void t_zombie(void)
{
	int fd[2], st, i, nohang;
	char state = 0, c;
	pid_t pid;

	if (pipe(fd) < 0) {
		s_ok(0, "wnohang_on_running_child");
		s_ok(0, "exited_child_is_zombie_until_reaped");
		return;
	}
	pid = fork();
	if (pid == 0) {
		close(fd[1]);
		alarm(10);
		if (read(fd[0], &c, 1) < 0)
			_exit(2);
		_exit(0);
	}
	close(fd[0]);
	nohang = waitpid(pid, &st, WNOHANG);
	s_ok(nohang == 0, "wnohang_on_running_child");
	close(fd[1]); /* child reads EOF and exits */
	for (i = 0; i < 200 && state != 'Z'; i++) {
		usleep(10000);
		state = s_state_of(pid);
	}
	waitpid(pid, &st, 0);
	s_ok(state == 'Z' && kill(pid, 0) < 0 && errno == ESRCH,
	     "exited_child_is_zombie_until_reaped");
}

static void t_orphan(void)
{
	int fd[2], st;
	pid_t mid, gc = 0, newppid = 0;

	/* we become the reaper of our orphaned descendants */
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) < 0 || pipe(fd) < 0) {
		s_ok(0, "orphan_reparented_to_subreaper");
		return;
	}
	mid = fork();
	if (mid == 0) {
		pid_t me = getpid(), g = fork();

		if (g == 0) {
			pid_t self = getpid(), pp;
			int i;

			/* wait (bounded) for our parent to exit and the kernel to re-parent us */
			for (i = 0; i < 500 && getppid() == me; i++)
				usleep(10000);
			pp = getppid();
			if (write(fd[1], &self, sizeof(self)) < 0 || write(fd[1], &pp, sizeof(pp)) < 0)
				_exit(3);
			_exit(0);
		}
		_exit(g > 0 ? 0 : 1);
	}
	close(fd[1]);
	waitpid(mid, &st, 0);
	if (read(fd[0], &gc, sizeof(gc)) != sizeof(gc) ||
	    read(fd[0], &newppid, sizeof(newppid)) != sizeof(newppid))
		gc = 0;
	close(fd[0]);
	s_ok(gc > 0 && newppid == getpid() && waitpid(gc, &st, 0) == gc,
	     "orphan_reparented_to_subreaper");
	prctl(PR_SET_CHILD_SUBREAPER, 0);
}

static void t_many(void)
{
	pid_t pids[MANY_CHILDREN];
	int i, st, ok = 1, reaped = 0;

	for (i = 0; i < MANY_CHILDREN; i++) {
		pids[i] = fork();
		if (pids[i] == 0)
			_exit(i);
		if (pids[i] < 0)
			ok = 0;
	}
	for (i = 0; i < MANY_CHILDREN; i++) {
		if (pids[i] <= 0)
			continue;
		if (waitpid(pids[i], &st, 0) == pids[i] && WIFEXITED(st) && WEXITSTATUS(st) == i)
			reaped++;
	}
	s_ok(ok && reaped == MANY_CHILDREN && waitpid(-1, &st, WNOHANG) < 0 && errno == ECHILD,
	     "many_children_all_reaped");
}

static void t_pids(void)
{
	int fd[2];
	pid_t parent = getpid(), seen[2] = { 0, 0 }, pid;

	if (pipe(fd) < 0) {
		s_ok(0, "child_pid_and_ppid");
		return;
	}
	pid = fork();
	if (pid == 0) {
		pid_t v[2] = { getpid(), getppid() };
		_exit(write(fd[1], v, sizeof(v)) == sizeof(v) ? 0 : 1);
	}
	close(fd[1]);
	if (read(fd[0], seen, sizeof(seen)) != sizeof(seen))
		seen[0] = 0;
	close(fd[0]);
	waitpid(pid, NULL, 0);
	s_ok(seen[0] == pid && seen[1] == parent && pid != parent, "child_pid_and_ppid");
}

int main(int argc, char **argv)
{
	ssize_t n;

	if (argc == 3 && strcmp(argv[1], "--exit") == 0)
		return atoi(argv[2]);
	if (argc == 3 && strcmp(argv[1], "--fd-open") == 0)
		return fcntl(atoi(argv[2]), F_GETFD) < 0 ? 1 : 0;
	n = readlink("/proc/self/exe", s_self, sizeof(s_self) - 1);
	if (n > 0)
		s_self[n] = 0;
	else
		snprintf(s_self, sizeof(s_self), "%s", argv[0]);
	printf("1..%d\n", PLAN);
	t_exit_codes();
	t_exec();
	t_cloexec();
	t_signalled();
	t_zombie();
	t_orphan();
	t_many();
	t_pids();
	if (s_n != PLAN)
		printf("# plan mismatch: %d cases\n", s_n);
	return 0;
}
