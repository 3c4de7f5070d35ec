/*
 * context-switch: pipe ping-pong between two processes, as metric lines.
 *
 * Parent and child pass one byte back and forth over two pipes; each
 * round trip is two wake-ups and two context switches. Reported in
 * microseconds per switch, both with the two processes pinned to one CPU
 * (pure switch cost) and unpinned (cross-CPU wake-ups, IPIs). Rounds are
 * bounded in count and time; the child dies with its parent's pipe.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define BUDGET_S 0.5
#define MAX_ROUNDS 2000000
#define CHECK_EVERY 256

static double s_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int s_pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

/* us per switch, or -1; pin_cpu < 0: no pinning */
static double s_pingpong(int pin_cpu)
{
	int up[2], down[2], st;
	long rounds = 0;
	double t0, dt = 0;
	char c = 'x';
	pid_t pid;

	if (pipe(up) < 0 || pipe(down) < 0)
		return -1;
	if (pin_cpu >= 0 && s_pin(pin_cpu) < 0)
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		close(up[0]);
		close(down[1]);
		alarm(30);
		while (read(down[0], &c, 1) == 1)
			if (write(up[1], &c, 1) != 1)
				break;
		_exit(0);
	}
	close(up[1]);
	close(down[0]);
	t0 = s_now();
	while (rounds < MAX_ROUNDS) {
		if (write(down[1], &c, 1) != 1 || read(up[0], &c, 1) != 1) {
			rounds = 0;
			break;
		}
		if (++rounds % CHECK_EVERY == 0 && (dt = s_now() - t0) >= BUDGET_S)
			break;
	}
	dt = s_now() - t0;
	close(down[1]); /* child reads EOF and exits */
	close(up[0]);
	waitpid(pid, &st, 0);
	if (pin_cpu >= 0) {
		cpu_set_t all;
		int i;
		CPU_ZERO(&all);
		for (i = 0; i < CPU_SETSIZE; i++)
			CPU_SET(i, &all);
		sched_setaffinity(0, sizeof(all), &all);
	}
	return rounds > 0 ? dt / (2.0 * rounds) * 1e6 : -1;
}

int main(void)
{
	cpu_set_t set;
	double us;
	int cpu = -1, i;

	signal(SIGPIPE, SIG_IGN);
	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		for (i = 0; i < CPU_SETSIZE && cpu < 0; i++)
			if (CPU_ISSET(i, &set))
				cpu = i;
	us = cpu >= 0 ? s_pingpong(cpu) : -1;
	if (us > 0)
		printf("pipe_switch_same_cpu %.3f us\n", us);
	else
		printf("# pinned ping-pong failed\n");
	us = s_pingpong(-1);
	if (us > 0)
		printf("pipe_switch %.3f us\n", us);
	else
		printf("# ping-pong failed\n");
	return 0;
}
