/*
 * fork-exec: process creation rate, printed as metric lines.
 *
 * fork + _exit + wait (address-space duplication and teardown), and
 * fork + exec of this same static binary + wait (plus loading an ELF).
 * The binary re-executes itself via /proc/self/exe (else argv[0]) with
 * --child, so nothing else is needed on the board. Rounds are bounded in
 * count and time; rates are per second.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define BUDGET_S 0.8
#define MAX_ROUNDS 100000

static char s_self[4096];

static double s_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* one child per round; returns rounds per second, or -1 */
static double s_rate(int do_exec)
{
	char *argv[] = { s_self, "--child", NULL };
	long rounds = 0;
	double t0 = s_now(), dt;
	int st;
	pid_t pid;

	do {
		pid = fork();
		if (pid < 0)
			return -1;
		if (pid == 0) {
			if (do_exec)
				execv(s_self, argv);
			_exit(do_exec ? 127 : 0);
		}
		if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
			return -1;
		rounds++;
	} while ((dt = s_now() - t0) < BUDGET_S && rounds < MAX_ROUNDS);
	return rounds / dt;
}

int main(int argc, char **argv)
{
	ssize_t n;
	double r;

	if (argc == 2 && strcmp(argv[1], "--child") == 0)
		return 0;
	n = readlink("/proc/self/exe", s_self, sizeof(s_self) - 1);
	if (n > 0)
		s_self[n] = 0;
	else
		snprintf(s_self, sizeof(s_self), "%s", argv[0]);
	r = s_rate(0);
	if (r > 0)
		printf("fork_exit %.1f ops/s\n", r);
	else
		printf("# fork+exit+wait failed\n");
	r = s_rate(1);
	if (r > 0)
		printf("fork_exec %.1f ops/s\n", r);
	else
		printf("# fork+exec+wait failed\n");
	return 0;
}
