/*
 * tcp-throughput: TCP throughput over 127.0.0.1, as metric lines.
 *
 * A forked receiver accepts on a kernel-chosen port (port 0) and counts
 * bytes; the sender writes for BUDGET_S seconds with 128 KiB writes, then
 * with 1 KiB writes (per-call overhead). The receiver reports what it got
 * and the time from first to last byte over a pipe. SKIPs when lo is down.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define BUDGET_S 0.6
#define BIG (128 * 1024)

static double s_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int s_lo_up(void)
{
	FILE *f = fopen("/sys/class/net/lo/flags", "r");
	unsigned int flags = 0;
	int n;

	if (!f)
		return 1;
	n = fscanf(f, "%x", &flags);
	fclose(f);
	return n == 1 && (flags & 1);
}

/* MB/s received with writes of `chunk` bytes, or -1 */
static double s_run(size_t chunk)
{
	static char buf[BIG];
	struct sockaddr_in a;
	socklen_t al = sizeof(a);
	int ls, c, rep[2], st;
	double res[2] = { 0, 0 }, t0;
	pid_t pid;

	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ls = socket(AF_INET, SOCK_STREAM, 0);
	if (ls < 0 || bind(ls, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(ls, 1) < 0 ||
	    getsockname(ls, (struct sockaddr *)&a, &al) < 0 || pipe(rep) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		int s;
		double first = 0, bytes = 0;
		ssize_t r;

		alarm(30);
		s = accept(ls, NULL, NULL);
		while (s >= 0 && (r = read(s, buf, sizeof(buf))) > 0) {
			if (bytes == 0)
				first = s_now();
			bytes += r;
		}
		res[0] = bytes;
		res[1] = s_now() - first;
		_exit(write(rep[1], res, sizeof(res)) == sizeof(res) ? 0 : 1);
	}
	close(rep[1]);
	c = pid > 0 ? socket(AF_INET, SOCK_STREAM, 0) : -1;
	if (c >= 0 && connect(c, (struct sockaddr *)&a, sizeof(a)) == 0) {
		memset(buf, 'L', sizeof(buf));
		t0 = s_now();
		while (s_now() - t0 < BUDGET_S)
			for (int k = 0; k < 16; k++)
				if (write(c, buf, chunk) < 0)
					goto done;
	}
done:
	if (c >= 0)
		close(c);
	close(ls);
	if (pid > 0)
		waitpid(pid, &st, 0);
	if (read(rep[0], res, sizeof(res)) != sizeof(res) || res[1] <= 0)
		res[0] = -1;
	close(rep[0]);
	return res[0] > 0 ? res[0] / res[1] / 1e6 : -1;
}

int main(void)
{
	double r;

	signal(SIGPIPE, SIG_IGN);
	if (!s_lo_up()) {
		printf("skip: loopback interface lo is down\n");
		return 0;
	}
	r = s_run(BIG);
	if (r > 0)
		printf("stream_128k %.1f MB/s\n", r);
	else
		printf("# 128 KiB stream failed\n");
	r = s_run(1024);
	if (r > 0)
		printf("stream_1k %.1f MB/s\n", r);
	else
		printf("# 1 KiB stream failed\n");
	return 0;
}
