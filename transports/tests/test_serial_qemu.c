/*
 * The QEMU test board (scripts/mkboard; x86_64, or the arch given as the
 * first argument) over its serial console:
 * the transport contract; 200 commands while the target floods the
 * console with kernel messages; power off/on/cycle; no QEMU left behind
 * when the process that booted it is SIGKILLed; a stale QEMU from a dead
 * node killed on the next boot. Exits 77 (skip) only when the board cannot
 * be built here.
 */
#include "proto/tests/check.h"
#include "transports/tests/contract.h"
#include "transports/backend.h"
#include "transports/qemu.h"

#include "proto/buf.h"
#include "proto/mem.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define TEST_NOISY_COMMANDS 200
#define TEST_SKIP 77

int check_failures;

static char s_kernel[512], s_initrd[512];
static const char *s_archname = "x86_64";
static size_t s_noise_seen;

static long long s_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void s_collect(void *arg, enum transport_stream st, const char *data,
		      size_t len)
{
	buf_append(arg, data, len);
}

/* The raw console: count kernel noise lines that reached it. */
static void s_console(void *arg, enum transport_stream st, const char *data,
		      size_t len)
{
	static char last[5];
	char tmp[4 + 4096];
	size_t n = len > 4096 ? 4096 : len;

	if (getenv("TEST_CONSOLE_LOG") && fwrite(data, 1, len, stderr) != len)
		abort();

	/* count "noise" across chunk boundaries well enough */
	memcpy(tmp, last, 4);
	memcpy(tmp + 4, data + len - n, n);
	for (char *p = tmp; (p = memmem(p, tmp + 4 + n - p, "noise", 5)); p += 5)
		s_noise_seen++;
	if (n >= 4)
		memcpy(last, data + len - 4, 4);
}

static int s_run(transport_t *t, const char *cmd, buf_t *out, int *status)
{
	buf_reset(out);
	*status = -1;
	return transport_run(t, cmd, 60000, s_collect, out, status);
}

/* Gone, or a zombie nobody has reaped yet. */
static bool s_alive(pid_t pid)
{
	char path[64], state = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return false;
	if (fscanf(f, "%*d (%*[^)]) %c", &state) != 1)
		state = 0;
	fclose(f);
	return state != 'Z' && state != 'X';
}

static bool s_gone_within(pid_t pid, int ms)
{
	for (int i = 0; i < ms / 50; i++) {
		if (!s_alive(pid))
			return true;
		usleep(50 * 1000);
	}
	return !s_alive(pid);
}

static int s_find_board(void)
{
	const char *root = getenv("LABMESH_ROOT");
	char *cmd = xasprintf("%s/scripts/mkboard --arch %s --print-dir", root ? root : ".",
			      s_archname);
	char dir[400] = "";
	FILE *p = popen(cmd, "r");

	free(cmd);
	if (!p || !fgets(dir, sizeof(dir), p)) {
		if (p)
			pclose(p);
		return -1;
	}
	if (pclose(p) != 0)
		return -1;
	dir[strcspn(dir, "\n")] = '\0';
	snprintf(s_kernel, sizeof(s_kernel), "%s/vmlinuz", dir);
	snprintf(s_initrd, sizeof(s_initrd), "%s/initrd.img", dir);
	return access(s_kernel, R_OK) == 0 && access(s_initrd, R_OK) == 0 ? 0 : -1;
}

static void s_board(lab_board_t *b)
{
	memset(b, 0, sizeof(*b));
	b->name = "qemu-test";
	b->arch = (char *)s_archname;
	b->transport.type = LAB_TRANSPORT_SERIAL;
	b->transport.serial_kind = LAB_SERIAL_QEMU;
	b->boot.method = LAB_BOOT_QEMU;
	b->boot.kernel = s_kernel;
	b->boot.initrd = s_initrd;
	b->boot.memory_mb = 256;
	b->boot.boot_timeout_s = 120;
}

static void test_noisy(transport_t *t)
{
	buf_t out, want;
	int st, r, bad = 0;
	size_t seen0;

	buf_init(&out, 1 << 20);
	buf_init(&want, 0);
	r = s_run(t, "dmesg -n 8; (while :; do echo noise > /dev/kmsg; usleep 2000; "
		     "done) </dev/null >/dev/null 2>&1 & echo $! > /tmp/noise.pid; "
		     "echo started",
		  &out, &st);
	CHECK(r == 0 && st == 0 && strcmp(buf_str(&out), "started\n") == 0);
	seen0 = s_noise_seen;
	for (int i = 0; i < TEST_NOISY_COMMANDS; i++) {
		char cmd[160];

		buf_reset(&want);
		switch (i % 4) {
		case 0:
			snprintf(cmd, sizeof(cmd), "seq %d %d; exit %d", i, i + 30, i % 256);
			for (int k = i; k <= i + 30; k++)
				buf_printf(&want, "%d\n", k);
			break;
		case 1:
			snprintf(cmd, sizeof(cmd), "printf 'no newline %d'; false", i);
			buf_printf(&want, "no newline %d", i);
			break;
		case 2:
			snprintf(cmd, sizeof(cmd), "head -c 3000 /dev/zero | tr '\\000' '%c'; echo",
				 'a' + i % 26);
			for (int k = 0; k < 3000; k++)
				buf_putc(&want, (char)('a' + i % 26));
			buf_putc(&want, '\n');
			break;
		default:
			snprintf(cmd, sizeof(cmd), "echo '[ 1.000000] looks like a kernel line %d'; "
				 "sh -c 'exit %d'", i, 255 - i % 256);
			buf_printf(&want, "[ 1.000000] looks like a kernel line %d\n", i);
			break;
		}
		r = s_run(t, cmd, &out, &st);
		int want_st = i % 4 == 0 ? i % 256 : i % 4 == 1 ? 1 : i % 4 == 2 ? 0 : 255 - i % 256;

		if (r != 0 || st != want_st || out.len != want.len ||
		    memcmp(out.data, want.data, want.len) != 0) {
			fprintf(stderr, "noisy command %d: r=%d status=%d (want %d) out='%.100s'\n",
				i, r, st, want_st, buf_str(&out));
			bad++;
		}
	}
	fprintf(stderr, "qemu noisy console: %d of %d commands exact, %zu kernel noise "
			"lines on the console meanwhile\n",
		TEST_NOISY_COMMANDS - bad, TEST_NOISY_COMMANDS, s_noise_seen - seen0);
	CHECK(bad == 0);
	/* The noise really interleaved with the commands. How many lines the
	 * guest's loop gets onto the console depends on how the emulated CPU
	 * is scheduled on a loaded host, so ask for a floor, not a rate. */
	CHECK(s_noise_seen - seen0 >= 10);
	r = s_run(t, "kill $(cat /tmp/noise.pid); dmesg -n 1", &out, &st);
	CHECK(r == 0 && st == 0);
	buf_free(&out);
	buf_free(&want);
}

static void test_power(board_t *b)
{
	pid_t p1 = qemu_pid(b), p2;
	buf_t out;
	int st;

	buf_init(&out, 1 << 16);
	CHECK(board_power(b, TRANSPORT_POWER_CYCLE) == 0);
	p2 = qemu_pid(b);
	CHECK(p2 > 0 && p2 != p1 && !s_alive(p1));
	CHECK(board_transport(b) && s_run(board_transport(b), "cat /proc/uptime", &out, &st) == 0 && st == 0);
	fprintf(stderr, "qemu power cycle: booted again in %lld ms\n", qemu_boot_ms(b));
	CHECK(board_power(b, TRANSPORT_POWER_OFF) == 0);
	CHECK(qemu_pid(b) == -1 && !s_alive(p2) && board_transport(b) == NULL);
	CHECK(board_power(b, TRANSPORT_POWER_ON) == 0);
	CHECK(board_transport(b) && s_run(board_transport(b), "echo on", &out, &st) == 0 &&
	      strcmp(buf_str(&out), "on\n") == 0);
	buf_free(&out);
}

/* A process boots a board and is SIGKILLed: its QEMU must die too. */
static void test_sigkill(void)
{
	int pfd[2];
	pid_t child, qpid = -1;

	CHECK(pipe(pfd) == 0);
	child = fork();
	if (child == 0) {
		lab_board_t b;
		board_t *bo = NULL;
		char *err = NULL;

		close(pfd[0]);
		s_board(&b);
		if (board_open(&b, NULL, NULL, &bo, &err) == 0) {
			pid_t p = qemu_pid(bo);

			if (write(pfd[1], &p, sizeof(p)) < 0)
				_exit(2);
		}
		pause();
		_exit(1);
	}
	close(pfd[1]);
	if (read(pfd[0], &qpid, sizeof(qpid)) != sizeof(qpid))
		qpid = -1;
	close(pfd[0]);
	CHECK(qpid > 0 && s_alive(qpid));
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	CHECK(qpid > 0 && s_gone_within(qpid, 5000));
	fprintf(stderr, "qemu after SIGKILL of its node: %s\n",
		qpid > 0 && !s_alive(qpid) ? "gone" : "STILL RUNNING");
	if (qpid > 0 && s_alive(qpid))
		kill(qpid, SIGKILL);
}

/* A survivor recorded in the workdir's qemu.pid is killed on next boot. */
static void test_stale(void)
{
	char dir[] = "/tmp/lm-qemu-stale-XXXXXX", *pidfile;
	transport_opts_t o = { 0 };
	lab_board_t b;
	board_t *bo = NULL;
	char *err = NULL;
	pid_t fake;
	FILE *f;

	CHECK(mkdtemp(dir) != NULL);
	fake = fork();
	if (fake == 0) {
		execl("/bin/sleep", "qemu-system-stale", "300", (char *)NULL);
		_exit(127);
	}
	pidfile = xasprintf("%s/qemu.pid", dir);
	f = fopen(pidfile, "w");
	CHECK(f != NULL);
	if (f) {
		fprintf(f, "%d\n", (int)fake);
		fclose(f);
	}
	usleep(100 * 1000);
	s_board(&b);
	o.workdir = dir;
	CHECK(board_open(&b, NULL, &o, &bo, &err) == 0);
	waitpid(fake, NULL, WNOHANG);
	CHECK(s_gone_within(fake, 2000));
	waitpid(fake, NULL, 0);
	board_close(&bo);
	free(err);
	free(pidfile);
	transport_rmtree(dir);
}

int main(int argc, char **argv)
{
	transport_opts_t o = { .console_fn = s_console };
	lab_board_t b;
	board_t *bo = NULL;
	char *err = NULL;
	long long t0;
	pid_t qpid;
	int r;

	signal(SIGPIPE, SIG_IGN);
	if (argc > 1)
		s_archname = argv[1];
	if (s_find_board() < 0) {
		fprintf(stderr, "SKIP: the QEMU test board could not be built "
				"(scripts/mkboard failed: no apt-get download, qemu or busybox-static?)\n");
		return TEST_SKIP;
	}
	s_board(&b);
	t0 = s_now_ms();
	r = board_open(&b, NULL, &o, &bo, &err);
	if (r < 0) {
		fprintf(stderr, "board_open: %s\n", err ? err : "?");
		free(err);
		return 1;
	}
	fprintf(stderr, "qemu board: shell after %lld ms (board_open %lld ms)\n",
		qemu_boot_ms(bo), s_now_ms() - t0);
	qpid = qemu_pid(bo);
	{
		char label[64];

		snprintf(label, sizeof(label), "serial qemu %s", s_archname);
		CHECK(contract_run(board_transport(bo), label) == 0);
	}
	test_noisy(board_transport(bo));
	test_power(bo);
	board_close(&bo);
	CHECK(!s_alive(qpid));
	test_sigkill();
	test_stale();
	if (check_failures)
		fprintf(stderr, "%d checks failed\n", check_failures);
	return check_failures ? 1 : 0;
}
