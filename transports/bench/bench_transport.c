/*
 * bench-transport: what a command and a file cost through the local and
 * ssh transports, each against a raw baseline measured in the same run.
 *   local round trip (200 x `true`)  vs fork/exec/wait of /bin/true
 *   ssh round trip (200 x `true`)    vs bare `ssh -o ControlPath=... host true`
 *                                       over the same master
 *   (each round trip alternates with one of its baseline)
 *   ssh put of 16 MiB                vs `cat > file` through the same master
 * The ssh figures use a private sshd on 127.0.0.1:22202 (the test's
 * fixture); without root they are skipped. One JSON object per line.
 */
#include "transports/tests/sshd_fixture.h"
#include "transports/transport.h"

#include "proto/mem.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define BENCH_PORT 22202
#define BENCH_ROUNDS 200
#define BENCH_WARMUP 10
#define BENCH_PUT_BYTES (16 * 1024 * 1024)
#define BENCH_PUT_ROUNDS 9

static double s_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int s_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Sorts v; the q-quantile. */
static double s_quantile(double *v, size_t n, double q)
{
	size_t i;

	qsort(v, n, sizeof(*v), s_cmp);
	i = (size_t)(q * (double)(n - 1) + 0.5);
	return v[i < n ? i : n - 1];
}

static void s_figure(const char *name, double value, const char *unit,
		     double baseline, bool lower_is_better, double target)
{
	double ratio = lower_is_better ? baseline / value : value / baseline;

	printf("{\"figure\": \"%s\", \"value\": %.4f, \"unit\": \"%s\", "
	       "\"baseline\": %.4f, \"ratio\": %.3f, \"target\": \"ratio >= %.2f\", "
	       "\"met\": %s}\n",
	       name, value, unit, baseline, ratio, target,
	       ratio >= target ? "true" : "false");
	fflush(stdout);
}

/* fork/exec argv with stdio on /dev/null (stdin from in_path if given);
 * seconds taken, or -1. */
static double s_spawn(char *const argv[], const char *in_path)
{
	double t0 = s_now();
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		int nul = open("/dev/null", O_RDWR);
		int in = in_path ? open(in_path, O_RDONLY) : nul;

		dup2(in, 0);
		dup2(nul, 1);
		dup2(nul, 2);
		execvp(argv[0], argv);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0)
		return -1;
	return s_now() - t0;
}

/*
 * Median and p99, in ms, of BENCH_ROUNDS `true` through t and of the same
 * through the baseline argv. The rounds alternate (t, baseline, t, ...),
 * so a load that comes and goes on a shared machine falls on both alike;
 * measured one after the other, a busy minute in one phase once read as
 * a ratio of 0.52 and a quiet one as 1.40.
 */
static int s_paired_rounds(transport_t *t, char *const argv[], double *ret_med,
			   double *ret_p99, double *ret_bmed, double *ret_bp99)
{
	double v[BENCH_ROUNDS], bv[BENCH_ROUNDS];
	int st;

	for (int i = 0; i < BENCH_WARMUP; i++)
		if (transport_run(t, "true", 10000, NULL, NULL, &st) < 0 ||
		    s_spawn(argv, NULL) < 0)
			return -1;
	for (int i = 0; i < BENCH_ROUNDS; i++) {
		double t0 = s_now();

		if (transport_run(t, "true", 10000, NULL, NULL, &st) < 0 || st != 0)
			return -1;
		v[i] = (s_now() - t0) * 1000;
		bv[i] = s_spawn(argv, NULL) * 1000;
		if (bv[i] < 0)
			return -1;
	}
	*ret_med = s_quantile(v, BENCH_ROUNDS, 0.5);
	*ret_p99 = s_quantile(v, BENCH_ROUNDS, 0.99);
	*ret_bmed = s_quantile(bv, BENCH_ROUNDS, 0.5);
	*ret_bp99 = s_quantile(bv, BENCH_ROUNDS, 0.99);
	return 0;
}

static void bench_local(void)
{
	lab_board_t b = { .name = "host" };
	char *argv[] = { "/bin/true", NULL };
	transport_t *t = NULL;
	char *err = NULL;
	double med, p99, bmed, bp99;

	b.transport.type = LAB_TRANSPORT_LOCAL;
	if (transport_open(&b, NULL, &t, &err) < 0) {
		fprintf(stderr, "bench-transport: local: %s\n", err);
		free(err);
		return;
	}
	if (s_paired_rounds(t, argv, &med, &p99, &bmed, &bp99) == 0) {
		s_figure("local round trip median", med, "ms", bmed, true, 0.5);
		s_figure("local round trip p99", p99, "ms", bp99, true, 0.5);
	} else
		fprintf(stderr, "bench-transport: local round trips failed\n");
	transport_close(&t);
}

static int s_write_file(const char *path, size_t n)
{
	char *p = xmalloc(n);
	int fd, r = 0;

	for (size_t i = 0; i < n; i++)
		p[i] = (char)(i * 2654435761u >> 13);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, p, n) != (ssize_t)n)
		r = -1;
	if (fd >= 0)
		close(fd);
	free(p);
	return r;
}

static void bench_ssh_put(transport_t *t, sshd_fixture_t *f, char *ctl, char *port)
{
	char *src = xasprintf("%s/put.bin", f->dir);
	char *argv[] = { "ssh", "-o", ctl, "-o", "ControlMaster=no", "-p", port,
			 "-l", f->user, "--", "127.0.0.1", "cat > labmesh-bench-raw.bin",
			 NULL };
	double mb = BENCH_PUT_BYTES / 1e6, best = 1e9, bbest = 1e9;
	int st;

	if (s_write_file(src, BENCH_PUT_BYTES) < 0)
		goto out;
	for (int i = 0; i < BENCH_PUT_ROUNDS; i++) {
		double t0 = s_now(), raw;

		if (transport_put(t, src, "labmesh-bench-put.bin") < 0) {
			fprintf(stderr, "bench-transport: put: %s\n", transport_error(t));
			goto out;
		}
		if (s_now() - t0 < best)
			best = s_now() - t0;
		raw = s_spawn(argv, src);
		if (raw < 0) {
			fprintf(stderr, "bench-transport: raw cat failed\n");
			goto out;
		}
		if (raw < bbest)
			bbest = raw;
	}
	s_figure("ssh put 16 MiB throughput", mb / best, "MB/s", mb / bbest, false, 0.9);
	transport_run(t, "rm -f labmesh-bench-put.bin labmesh-bench-raw.bin", 10000,
		      NULL, NULL, &st);
out:
	unlink(src);
	free(src);
}

static void bench_ssh(void)
{
	const char *why = sshd_fixture_unavailable();
	char err[512], *oerr = NULL, *wd, *ctl, port[16];
	transport_opts_t o = { 0 };
	double med, p99, bmed, bp99;
	sshd_fixture_t f;
	transport_t *t = NULL;
	lab_board_t b = { .name = "ssh-bench" };

	if (why) {
		fprintf(stderr, "bench-transport: ssh skipped: %s\n", why);
		return;
	}
	if (sshd_fixture_start(&f, BENCH_PORT, err, sizeof(err)) < 0) {
		fprintf(stderr, "bench-transport: %s\n", err);
		sshd_fixture_stop(&f);
		return;
	}
	wd = xasprintf("%s/w", f.dir);
	o.workdir = wd;
	b.transport.type = LAB_TRANSPORT_SSH;
	b.transport.host = "127.0.0.1";
	b.transport.port = f.port;
	b.transport.user = f.user;
	b.transport.identity = f.identity;
	b.transport.known_hosts = f.known_hosts;
	snprintf(port, sizeof(port), "%d", f.port);
	ctl = xasprintf("ControlPath=%s/ssh-ctl", wd);
	if (transport_open(&b, &o, &t, &oerr) < 0) {
		fprintf(stderr, "bench-transport: ssh: %s\n", oerr);
		free(oerr);
	} else {
		char *argv[] = { "ssh", "-o", ctl, "-o", "ControlMaster=no", "-p", port,
				 "-l", f.user, "--", "127.0.0.1", "true", NULL };

		if (s_paired_rounds(t, argv, &med, &p99, &bmed, &bp99) == 0) {
			s_figure("ssh round trip median", med, "ms", bmed, true, 0.8);
			s_figure("ssh round trip p99", p99, "ms", bp99, true, 0.8);
		} else
			fprintf(stderr, "bench-transport: ssh round trips failed: %s\n",
				transport_error(t));
		bench_ssh_put(t, &f, ctl, port);
		transport_close(&t);
	}
	free(ctl);
	free(wd);
	sshd_fixture_stop(&f);
}

int main(void)
{
	bench_local();
	bench_ssh();
	return 0;
}
