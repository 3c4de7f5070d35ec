/*
 * bench-serial: what framing costs on a serial console, against the raw
 * console in the same run. On the QEMU test board (scripts/mkboard) when it
 * can be built, else on a shell behind a pty.
 *
 *   round trip: a framed `true` (markers, subshell, exit status) against
 *     an unframed `echo TOKEN` typed and waited for. Target: the framing
 *     costs at most 2 more console round trips (ratio <= 3).
 *   put: a 1 MiB random file (base64 blocks + sha256 check) against N raw
 *     bytes typed into `head -c N >/dev/null`. Target: ratio >= 0.5.
 *   get: a plain figure.
 */
#include "transports/tests/serial_fixture.h"
#include "transports/backend.h"
#include "transports/qemu.h"
#include "transports/serial.h"

#include "proto/buf.h"
#include "proto/mem.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BENCH_ROUNDS 200
#define BENCH_FILE (1024 * 1024)
#define BENCH_LINE 3000

static long long s_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static int s_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double s_pct(double *v, int n, double p)
{
	int i = (int)(p * (n - 1) + 0.5);

	qsort(v, (size_t)n, sizeof(*v), s_cmp);
	return v[i < n ? i : n - 1];
}

static void s_row(const char *figure, double value, const char *unit,
		  double baseline, const char *target, bool met)
{
	if (baseline > 0)
		printf("{\"figure\": \"%s\", \"value\": %.3f, \"unit\": \"%s\", "
		       "\"baseline\": %.3f, \"ratio\": %.3f, \"target\": \"%s\", "
		       "\"met\": %s}\n",
		       figure, value, unit, baseline, value / baseline, target,
		       met ? "true" : "false");
	else
		printf("{\"figure\": \"%s\", \"value\": %.3f, \"unit\": \"%s\"}\n",
		       figure, value, unit);
	fflush(stdout);
}

static void s_roundtrips(transport_t *t, const char *where)
{
	double framed[BENCH_ROUNDS], raw[BENCH_ROUNDS];
	char fig[128];
	int st;

	for (int i = 0; i < BENCH_ROUNDS; i++) {
		char tok[32];
		long long t0;

		snprintf(tok, sizeof(tok), "rt%dx%d", i, (int)getpid());
		t0 = s_now_us();
		if (serial_raw_line(t, tok, 10000) < 0) {
			fprintf(stderr, "bench-serial: raw line: %s\n", transport_error(t));
			return;
		}
		raw[i] = (s_now_us() - t0) / 1000.0;
		t0 = s_now_us();
		if (transport_run(t, "true", 10000, NULL, NULL, &st) < 0 || st != 0) {
			fprintf(stderr, "bench-serial: run: %s\n", transport_error(t));
			return;
		}
		framed[i] = (s_now_us() - t0) / 1000.0;
	}
	double fm = s_pct(framed, BENCH_ROUNDS, 0.5), rm = s_pct(raw, BENCH_ROUNDS, 0.5);
	double fp = s_pct(framed, BENCH_ROUNDS, 0.99), rp = s_pct(raw, BENCH_ROUNDS, 0.99);

	snprintf(fig, sizeof(fig), "serial %s: framed command round trip, median", where);
	s_row(fig, fm, "ms", rm, "ratio <= 3", fm / rm <= 3);
	snprintf(fig, sizeof(fig), "serial %s: framed command round trip, p99", where);
	s_row(fig, fp, "ms", rp, "ratio <= 3", fp / rp <= 3);
}

static int s_random_file(const char *path, size_t n)
{
	unsigned char *p = xmalloc(n);
	int fd, r = 0;
	unsigned x = 2463534242u;

	for (size_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		p[i] = (unsigned char)x;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, p, n) != (ssize_t)n)
		r = -1;
	if (fd >= 0)
		close(fd);
	free(p);
	return r;
}

static void s_files(transport_t *t, const char *where)
{
	char src[] = "/tmp/bench-serial-XXXXXX", back[64], fig[128], *cmd;
	buf_t raw;
	long long t0;
	double put_s, get_s, raw_s;
	int fd = mkstemp(src), st = -1, r;

	if (fd < 0)
		return;
	close(fd);
	snprintf(back, sizeof(back), "%s.back", src);
	if (s_random_file(src, BENCH_FILE) < 0)
		goto out;
	/* raw: the same number of bytes, typed as lines, thrown away */
	buf_init(&raw, 0);
	while (raw.len < BENCH_FILE) {
		for (int i = 0; i < BENCH_LINE && raw.len < BENCH_FILE - 1; i++)
			buf_putc(&raw, 'A' + i % 26);
		buf_putc(&raw, '\n');
	}
	cmd = xasprintf("head -c %zu >/dev/null", raw.len);
	t0 = s_now_us();
	r = serial_run_ex(t, cmd, 300000, NULL, NULL, true, (const char *)raw.data,
			  raw.len, &st);
	raw_s = (s_now_us() - t0) / 1e6;
	free(cmd);
	buf_free(&raw);
	if (r < 0 || st != 0) {
		fprintf(stderr, "bench-serial: raw write: %s\n", transport_error(t));
		goto out;
	}
	t0 = s_now_us();
	if (transport_put(t, src, "/tmp/bench-serial.bin") < 0) {
		fprintf(stderr, "bench-serial: put: %s\n", transport_error(t));
		goto out;
	}
	put_s = (s_now_us() - t0) / 1e6;
	t0 = s_now_us();
	if (transport_get(t, "/tmp/bench-serial.bin", back) < 0) {
		fprintf(stderr, "bench-serial: get: %s\n", transport_error(t));
		goto out;
	}
	get_s = (s_now_us() - t0) / 1e6;
	transport_run(t, "rm -f /tmp/bench-serial.bin", 10000, NULL, NULL, &st);
	double kput = BENCH_FILE / 1024.0 / put_s, kraw = BENCH_FILE / 1024.0 / raw_s;

	snprintf(fig, sizeof(fig), "serial %s: put 1 MiB throughput", where);
	s_row(fig, kput, "KiB/s", kraw, "ratio >= 0.5", kput / kraw >= 0.5);
	snprintf(fig, sizeof(fig), "serial %s: get 1 MiB throughput", where);
	s_row(fig, BENCH_FILE / 1024.0 / get_s, "KiB/s", 0, NULL, true);
out:
	unlink(src);
	unlink(back);
}

static int s_board_dir(char *kernel, char *initrd, size_t sz)
{
	const char *root = getenv("LABMESH_ROOT");
	char *cmd = xasprintf("%s/scripts/mkboard --print-dir 2>/dev/null", root ? root : ".");
	char dir[400] = "";
	FILE *p = popen(cmd, "r");
	int ok;

	free(cmd);
	ok = p && fgets(dir, sizeof(dir), p);
	if (p && pclose(p) != 0)
		ok = 0;
	if (!ok)
		return -1;
	dir[strcspn(dir, "\n")] = '\0';
	snprintf(kernel, sz, "%s/vmlinuz", dir);
	snprintf(initrd, sz, "%s/initrd.img", dir);
	return 0;
}

static int s_bench_qemu(void)
{
	static char kernel[512], initrd[512];
	lab_board_t b = { 0 };
	board_t *bo = NULL;
	char *err = NULL;

	if (s_board_dir(kernel, initrd, sizeof(kernel)) < 0)
		return -1;
	b.name = "bench-qemu";
	b.arch = "x86_64";
	b.transport.type = LAB_TRANSPORT_SERIAL;
	b.transport.serial_kind = LAB_SERIAL_QEMU;
	b.boot.method = LAB_BOOT_QEMU;
	b.boot.kernel = kernel;
	b.boot.initrd = initrd;
	b.boot.memory_mb = 256;
	if (board_open(&b, NULL, NULL, &bo, &err) < 0) {
		fprintf(stderr, "bench-serial: qemu: %s\n", err ? err : "?");
		free(err);
		return -1;
	}
	s_row("serial qemu x86_64: boot to shell", qemu_boot_ms(bo) / 1000.0, "s", 0,
	      NULL, true);
	s_roundtrips(board_transport(bo), "qemu");
	s_files(board_transport(bo), "qemu");
	board_close(&bo);
	return 0;
}

static void s_bench_pty(void)
{
	char *argv[] = { "/bin/sh", "-i", NULL };
	lab_board_t b = { 0 };
	transport_t *t = NULL;
	pid_t pid;
	int m;

	b.name = "bench-pty";
	b.transport.type = LAB_TRANSPORT_SERIAL;
	b.transport.serial_kind = LAB_SERIAL_PTY;
	if (fixture_pty_shell(argv, &m, &pid) < 0 || fixture_transport_fd(&b, m, &t) < 0) {
		fprintf(stderr, "bench-serial: no pty shell\n");
		return;
	}
	s_roundtrips(t, "pty");
	s_files(t, "pty");
	transport_close(&t);
	close(m);
	fixture_kill(pid);
}

int main(int argc, char **argv)
{
	signal(SIGPIPE, SIG_IGN);
	if (argc > 1 && !strcmp(argv[1], "--pty")) {
		s_bench_pty();
		return 0;
	}
	if (s_bench_qemu() < 0) {
		fprintf(stderr, "bench-serial: QEMU board unavailable, measuring a pty\n");
		s_bench_pty();
	}
	return 0;
}
