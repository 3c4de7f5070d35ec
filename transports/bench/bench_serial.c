/*
 * bench-serial: what framing costs on a serial console, against the raw
 * console in the same run. On the QEMU test board (scripts/mkboard) when it
 * can be built, else on a shell behind a pty.
 *
 *   round trip: a framed `true` against an unframed `echo TOKEN` typed
 *     and waited for (one console round trip: a line in, its output back).
 *     Both are measured in alternating blocks (one untimed command, then
 *     BENCH_BLOCK timed ones), so each is timed in its own steady state:
 *     a fork leaves copy-on-write faults to whatever runs next, and
 *     interleaving single commands would charge them to the other side.
 *     Target: the framing costs at most 2 console round trips, i.e.
 *     (framed - raw) / raw <= 2, on the median and on p99. The same for a
 *     command that needs a subshell (`exit 0`) against an unframed
 *     `(echo TOKEN)`: the markers' cost beyond the fork both pay.
 *   put: a 1 MiB random file (checked by sha256 on the target) against
 *     the same number of raw text bytes typed into `cat >/dev/null` (the
 *     reader put uses), as lines and as Ctrl-D-ended reads (put's own
 *     delimiter), the faster of the two as the baseline. BENCH_PUTS such
 *     pairs, put first in every other one; the median and the worst
 *     pair's ratio. Target: ratio >= 0.5. Also the base64 fallback, once.
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

#define BENCH_ROUNDS 200 /* blocks of each kind: p99 is the 10th worst */
#define BENCH_BLOCK 5
#define BENCH_SAMPLES (BENCH_ROUNDS * BENCH_BLOCK)
#define BENCH_PUTS 3
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

/* A figure with a target but no baseline of its own. */
static void s_row_target(const char *figure, double value, const char *unit,
			 const char *target, bool met)
{
	printf("{\"figure\": \"%s\", \"value\": %.3f, \"unit\": \"%s\", "
	       "\"target\": \"%s\", \"met\": %s}\n",
	       figure, value, unit, target, met ? "true" : "false");
	fflush(stdout);
}

enum s_kind { K_RAW, K_RAW_SUB, K_FRAMED, K_FRAMED_SUB, K_KINDS };

/* One command of a kind; its time in ms, or < 0 on failure. */
static double s_one(transport_t *t, enum s_kind k, int i)
{
	char tok[48], line[80];
	long long t0 = s_now_us();
	int st = -1, r;

	snprintf(tok, sizeof(tok), "rt%dk%dx%d", i, (int)k, (int)getpid());
	if (k == K_RAW || k == K_RAW_SUB) {
		snprintf(line, sizeof(line), k == K_RAW ? "echo %s\n" : "(echo %s)\n", tok);
		r = serial_raw_line(t, line, tok, 10000);
	} else {
		r = transport_run(t, k == K_FRAMED ? "true" : "exit 0", 10000, NULL, NULL,
				  &st);
		if (r == 0 && st != 0)
			r = -EIO;
	}
	if (r < 0) {
		fprintf(stderr, "bench-serial: kind %d: %s\n", (int)k, transport_error(t));
		return -1;
	}
	return (s_now_us() - t0) / 1000.0;
}

static void s_rt_rows(const char *where, const char *what, double *framed,
		      double *raw, double *rawsub_or_null)
{
	double fm = s_pct(framed, BENCH_SAMPLES, 0.5), fp = s_pct(framed, BENCH_SAMPLES, 0.99);
	double rm = s_pct(raw, BENCH_SAMPLES, 0.5), rp = s_pct(raw, BENCH_SAMPLES, 0.99);
	double bm = rm, bp = rp, om, op;
	char fig[160];

	if (rawsub_or_null) {
		bm = s_pct(rawsub_or_null, BENCH_SAMPLES, 0.5);
		bp = s_pct(rawsub_or_null, BENCH_SAMPLES, 0.99);
	}
	/* overhead in console round trips: what framing adds, over the raw
	 * echo's round trip */
	om = (fm - bm) / rm;
	op = (fp - bp) / rp;
	snprintf(fig, sizeof(fig), "serial %s: framed %s round trip, median", where, what);
	s_row(fig, fm, "ms", bm, "ratio <= 3", fm / bm <= 3);
	snprintf(fig, sizeof(fig), "serial %s: framed %s round trip, p99", where, what);
	s_row(fig, fp, "ms", bp, "ratio <= 3", fp / bp <= 3);
	snprintf(fig, sizeof(fig), "serial %s: framing overhead, %s, median", where, what);
	s_row_target(fig, om, "console round trips", "value <= 2", om <= 2);
	snprintf(fig, sizeof(fig), "serial %s: framing overhead, %s, p99", where, what);
	s_row_target(fig, op, "console round trips", "value <= 2", op <= 2);
}

static void s_roundtrips(transport_t *t, const char *where)
{
	static double v[K_KINDS][BENCH_SAMPLES];
	char fig[128];

	for (int i = 0; i < BENCH_ROUNDS; i++) {
		for (int k = 0; k < K_KINDS; k++) {
			if (s_one(t, (enum s_kind)k, -1) < 0)
				return;
			for (int j = 0; j < BENCH_BLOCK; j++) {
				double ms = s_one(t, (enum s_kind)k, i * BENCH_BLOCK + j);

				if (ms < 0)
					return;
				v[k][i * BENCH_BLOCK + j] = ms;
			}
		}
	}
	snprintf(fig, sizeof(fig), "serial %s: raw console round trip (echo), median", where);
	s_row(fig, s_pct(v[K_RAW], BENCH_SAMPLES, 0.5), "ms", 0, NULL, true);
	s_rt_rows(where, "command", v[K_FRAMED], v[K_RAW], NULL);
	s_rt_rows(where, "subshell command (exit 0)", v[K_FRAMED_SUB], v[K_RAW],
		  v[K_RAW_SUB]);
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

/* Seconds to type n raw text bytes into cat: as lines of BENCH_LINE, or
 * (chunks) as reads of BENCH_LINE ended by Ctrl-D, put's own delimiter;
 * a Ctrl-D at the start of a read ends it. < 0 on failure. */
static double s_raw_put(transport_t *t, size_t n, bool chunks)
{
	buf_t raw;
	long long t0;
	size_t sent = 0;
	int st = -1, r;

	buf_init(&raw, 0);
	/* every line or read ended, so the last Ctrl-D is an end of file */
	while (sent < n) {
		for (int i = 0; i < BENCH_LINE && sent < n - !chunks; i++, sent++)
			buf_putc(&raw, (char)('A' + i % 26));
		buf_putc(&raw, chunks ? '\004' : '\n');
		sent += !chunks;
	}
	buf_putc(&raw, '\004');
	t0 = s_now_us();
	r = serial_run_ex(t, "cat >/dev/null", 300000, NULL, NULL, true,
			  (const char *)raw.data, raw.len, &st);
	buf_free(&raw);
	if (r < 0 || st != 0) {
		fprintf(stderr, "bench-serial: raw write: %s\n", transport_error(t));
		return -1;
	}
	return (s_now_us() - t0) / 1e6;
}

static double s_timed_put(transport_t *t, const char *src)
{
	long long t0 = s_now_us();

	if (transport_put(t, src, "/tmp/bench-serial.bin") < 0) {
		fprintf(stderr, "bench-serial: put: %s\n", transport_error(t));
		return -1;
	}
	return (s_now_us() - t0) / 1e6;
}

/* One pair: put and the faster of the two raw forms, in an order that
 * alternates so that a drifting load favours neither. Returns false on
 * failure. */
static bool s_put_pair(transport_t *t, const char *src, int i, double *ret_put,
		       double *ret_lines, double *ret_chunks)
{
	if (i % 2 == 0)
		*ret_put = s_timed_put(t, src);
	*ret_lines = s_raw_put(t, BENCH_FILE, false);
	*ret_chunks = s_raw_put(t, BENCH_FILE, true);
	if (i % 2 == 1)
		*ret_put = s_timed_put(t, src);
	return *ret_put > 0 && *ret_lines > 0 && *ret_chunks > 0;
}

static void s_files(transport_t *t, const char *where)
{
	char src[] = "/tmp/bench-serial-XXXXXX", back[64], fig[160];
	double put_s[BENCH_PUTS], lines_s[BENCH_PUTS], chunks_s[BENCH_PUTS];
	double ratio[BENCH_PUTS], raw_s[BENCH_PUTS], b64_s, get_s;
	const double kib = BENCH_FILE / 1024.0;
	long long t0;
	int fd = mkstemp(src), st = -1;

	if (fd < 0)
		return;
	close(fd);
	snprintf(back, sizeof(back), "%s.back", src);
	if (s_random_file(src, BENCH_FILE) < 0)
		goto out;
	for (int i = 0; i < BENCH_PUTS; i++) {
		if (!s_put_pair(t, src, i, &put_s[i], &lines_s[i], &chunks_s[i]))
			goto out;
		raw_s[i] = lines_s[i] < chunks_s[i] ? lines_s[i] : chunks_s[i];
		ratio[i] = raw_s[i] / put_s[i];
	}
	t0 = s_now_us();
	if (transport_get(t, "/tmp/bench-serial.bin", back) < 0) {
		fprintf(stderr, "bench-serial: get: %s\n", transport_error(t));
		goto out;
	}
	get_s = (s_now_us() - t0) / 1e6;
	serial_no_binary(t);
	b64_s = s_timed_put(t, src);
	transport_run(t, "rm -f /tmp/bench-serial.bin", 10000, NULL, NULL, &st);
	double kraw = kib / s_pct(raw_s, BENCH_PUTS, 0.5);
	double rmed = s_pct(ratio, BENCH_PUTS, 0.5), rmin = s_pct(ratio, BENCH_PUTS, 0);

	snprintf(fig, sizeof(fig), "serial %s: raw console bytes as text lines, median", where);
	s_row(fig, kib / s_pct(lines_s, BENCH_PUTS, 0.5), "KiB/s", 0, NULL, true);
	snprintf(fig, sizeof(fig), "serial %s: raw console bytes as Ctrl-D reads, median",
		 where);
	s_row(fig, kib / s_pct(chunks_s, BENCH_PUTS, 0.5), "KiB/s", 0, NULL, true);
	snprintf(fig, sizeof(fig), "serial %s: put 1 MiB throughput, median of %d", where,
		 BENCH_PUTS);
	s_row(fig, kib / s_pct(put_s, BENCH_PUTS, 0.5), "KiB/s", kraw, "ratio >= 0.5",
	      kib / s_pct(put_s, BENCH_PUTS, 0.5) / kraw >= 0.5);
	snprintf(fig, sizeof(fig), "serial %s: put/raw byte rate, median of %d pairs", where,
		 BENCH_PUTS);
	s_row_target(fig, rmed, "ratio", "value >= 0.5", rmed >= 0.5);
	snprintf(fig, sizeof(fig), "serial %s: put/raw byte rate, worst of %d pairs", where,
		 BENCH_PUTS);
	s_row_target(fig, rmin, "ratio", "value >= 0.5", rmin >= 0.5);
	if (b64_s > 0) {
		snprintf(fig, sizeof(fig), "serial %s: put 1 MiB throughput, base64 fallback",
			 where);
		s_row(fig, kib / b64_s, "KiB/s", kraw, "ratio >= 0.5", kib / b64_s / kraw >= 0.5);
	}
	snprintf(fig, sizeof(fig), "serial %s: get 1 MiB throughput", where);
	s_row(fig, kib / get_s, "KiB/s", 0, NULL, true);
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
