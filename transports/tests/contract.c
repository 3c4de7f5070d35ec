/*
 * contract: the transport contract checks (see contract.h). Each check is
 * one s_check_* function; output is collected per stream into capped
 * buffers so a misbehaving transport cannot exhaust memory here either.
 */
#include "transports/tests/contract.h"
#include "transports/backend.h"

#include "proto/buf.h"
#include "proto/mem.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define CONTRACT_TIMEOUT_MS 60000 /* any ordinary command */
#define CONTRACT_COLLECT_CAP (4 * 1024 * 1024)
#define CONTRACT_LINE_BYTES 102400
#define CONTRACT_FILE_BYTES (1024 * 1024)
#define CONTRACT_SMALL_CAP 1000

typedef struct {
	buf_t out;
	buf_t err;
	long long first_ms; /* when the first byte arrived, or 0 */
} collect_t;

static const char *s_label;
static int s_failed;

static long long s_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void s_result(const char *check, bool ok, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void s_result(const char *check, bool ok, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: %s: %s", s_label, check, ok ? "ok" : "FAIL");
	if (!ok && fmt) {
		fputs(": ", stderr);
		va_start(ap, fmt);
		vfprintf(stderr, fmt, ap);
		va_end(ap);
	}
	fputc('\n', stderr);
	if (!ok)
		s_failed++;
}

static void s_collect(void *arg, enum transport_stream st, const char *data,
		      size_t len)
{
	collect_t *c = arg;

	if (!c->first_ms)
		c->first_ms = s_now_ms();
	buf_append(st == TRANSPORT_STDERR ? &c->err : &c->out, data, len);
}

static void s_collect_init(collect_t *c)
{
	buf_init(&c->out, CONTRACT_COLLECT_CAP);
	buf_init(&c->err, CONTRACT_COLLECT_CAP);
	c->first_ms = 0;
}

static void s_collect_free(collect_t *c)
{
	buf_free(&c->out);
	buf_free(&c->err);
}

/* Run cmd; returns the transport's code, *status and output in c. */
static int s_run(transport_t *t, const char *cmd, int timeout_ms, collect_t *c,
		 int *status)
{
	s_collect_init(c);
	*status = -1;
	return transport_run(t, cmd, timeout_ms, s_collect, c, status);
}

static void s_check_exit_codes(transport_t *t)
{
	static const struct {
		const char *cmd;
		int want;
	} cases[] = {
		{ "exit 0", 0 },     { "exit 1", 1 },
		{ "exit 3", 3 },     { "exit 127", 127 },
		{ "exit 255", 255 }, { "labmesh-no-such-command-xyz", 127 },
		{ "true", 0 },       { "false", 1 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		collect_t c;
		int st, r = s_run(t, cases[i].cmd, CONTRACT_TIMEOUT_MS, &c, &st);
		char name[80];

		snprintf(name, sizeof(name), "exit code of '%s'", cases[i].cmd);
		s_result(name, r == 0 && st == cases[i].want,
			 "r=%d status=%d want %d (%s)", r, st, cases[i].want,
			 transport_error(t));
		s_collect_free(&c);
	}
}

static void s_check_no_newline(transport_t *t)
{
	collect_t c;
	int st, r = s_run(t, "printf 'abc'", CONTRACT_TIMEOUT_MS, &c, &st);

	s_result("output without trailing newline",
		 r == 0 && st == 0 && c.out.len == 3 &&
			 memcmp(c.out.data, "abc", 3) == 0,
		 "r=%d status=%d got %zu bytes '%.20s'", r, st, c.out.len,
		 buf_str(&c.out));
	s_collect_free(&c);
	r = s_run(t, "echo one; printf 'two\\n\\nthree'", CONTRACT_TIMEOUT_MS, &c,
		  &st);
	s_result("multi-line output exact",
		 r == 0 && st == 0 && strcmp(buf_str(&c.out), "one\ntwo\n\nthree") == 0,
		 "r=%d status=%d got '%.40s'", r, st, buf_str(&c.out));
	s_collect_free(&c);
}

static void s_check_long_line(transport_t *t)
{
	char cmd[128];
	collect_t c;
	bool same = true;
	int st, r;

	snprintf(cmd, sizeof(cmd), "head -c %d /dev/zero | tr '\\000' x; echo",
		 CONTRACT_LINE_BYTES);
	r = s_run(t, cmd, CONTRACT_TIMEOUT_MS, &c, &st);
	if (c.out.len != CONTRACT_LINE_BYTES + 1)
		same = false;
	for (size_t i = 0; same && i < CONTRACT_LINE_BYTES; i++)
		same = c.out.data[i] == 'x';
	if (same)
		same = c.out.data[CONTRACT_LINE_BYTES] == '\n';
	s_result("100 KB single line exact", r == 0 && st == 0 && same,
		 "r=%d status=%d got %zu bytes", r, st, c.out.len);
	s_collect_free(&c);
}

static int s_write_random(const char *path, size_t n)
{
	unsigned char *p = xmalloc(n);
	uint64_t x = (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32) ^ 0x9e3779b97f4a7c15ULL;
	int fd, r = 0;

	/* xorshift64*: every byte value, no structure a transport could
	 * accidentally preserve. */
	for (size_t i = 0; i < n; i++) {
		x ^= x >> 12;
		x ^= x << 25;
		x ^= x >> 27;
		p[i] = (unsigned char)((x * 0x2545f4914f6cdd1dULL) >> 56);
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || write(fd, p, n) != (ssize_t)n)
		r = -EIO;
	if (fd >= 0)
		close(fd);
	free(p);
	return r;
}

static bool s_same_file(const char *a, const char *b)
{
	FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
	bool same = fa && fb;
	int ca, cb;

	while (same) {
		ca = getc(fa);
		cb = getc(fb);
		if (ca != cb)
			same = false;
		if (ca == EOF)
			break;
	}
	if (fa)
		fclose(fa);
	if (fb)
		fclose(fb);
	return same;
}

static void s_check_files(transport_t *t)
{
	const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	char *src = xasprintf("%s/contract-src-%d.bin", tmp, (int)getpid());
	char *back = xasprintf("%s/contract-back-%d.bin", tmp, (int)getpid());
	char *remote = xasprintf("labmesh-contract-%d.bin", (int)getpid());
	char *cmd = xasprintf("wc -c < %s", remote);
	struct stat st = { 0 };
	collect_t c;
	int r, status;

	if (s_write_random(src, CONTRACT_FILE_BYTES) < 0 || chmod(src, 0751) < 0) {
		s_result("1 MiB put/get", false, "cannot write %s", src);
		goto out;
	}
	r = transport_put(t, src, remote);
	s_result("1 MiB put", r == 0, "r=%d (%s)", r, transport_error(t));
	r = s_run(t, cmd, CONTRACT_TIMEOUT_MS, &c, &status);
	s_result("1 MiB put: size on target",
		 r == 0 && status == 0 && atol(buf_str(&c.out)) == CONTRACT_FILE_BYTES,
		 "r=%d status=%d '%.40s'", r, status, buf_str(&c.out));
	s_collect_free(&c);
	r = transport_get(t, remote, back);
	s_result("1 MiB get", r == 0, "r=%d (%s)", r, transport_error(t));
	s_result("1 MiB put then get byte-identical", s_same_file(src, back), NULL);
	stat(back, &st);
	s_result("mode kept through put and get", (st.st_mode & 07777) == 0751,
		 "mode %o", (unsigned)(st.st_mode & 07777));
	r = transport_get(t, "labmesh-no-such-file", back);
	s_result("get of a missing file fails", r < 0, "r=%d", r);
	free(cmd);
	cmd = xasprintf("rm -f %s", remote);
	if (s_run(t, cmd, CONTRACT_TIMEOUT_MS, &c, &status) == 0)
		s_collect_free(&c);
out:
	unlink(src);
	unlink(back);
	free(src);
	free(back);
	free(remote);
	free(cmd);
}

static void s_check_timeout(transport_t *t)
{
	long long t0 = s_now_ms(), took;
	collect_t c;
	int st, r;

	r = s_run(t, "sleep 1000", 2000, &c, &st);
	took = s_now_ms() - t0;
	s_result("sleep 1000 with a 2 s timeout: -ETIMEDOUT", r == -ETIMEDOUT,
		 "r=%d status=%d", r, st);
	/* a generous bound: the point is that it was killed, not waited */
	s_result("timeout returned promptly", took < 20000, "took %lld ms", took);
	s_collect_free(&c);
	r = s_run(t, "echo ok", CONTRACT_TIMEOUT_MS, &c, &st);
	s_result("next command after a timeout works",
		 r == 0 && st == 0 && strcmp(buf_str(&c.out), "ok\n") == 0,
		 "r=%d status=%d '%.40s' (%s)", r, st, buf_str(&c.out),
		 transport_error(t));
	s_collect_free(&c);
}

static void s_check_stdin(transport_t *t)
{
	collect_t c;
	int st, r = s_run(t, "cat; echo done", 10000, &c, &st);

	s_result("stdin is not the session's",
		 r == 0 && st == 0 && strcmp(buf_str(&c.out), "done\n") == 0,
		 "r=%d status=%d '%.40s'", r, st, buf_str(&c.out));
	s_collect_free(&c);
}

static void s_check_stderr(transport_t *t)
{
	bool merged = t->board->transport.type == LAB_TRANSPORT_SERIAL;
	collect_t c;
	int st, r = s_run(t, "echo out; echo err >&2", CONTRACT_TIMEOUT_MS, &c, &st);
	bool ok;

	if (merged)
		ok = strstr(buf_str(&c.out), "out\n") && strstr(buf_str(&c.out), "err\n");
	else
		ok = strcmp(buf_str(&c.out), "out\n") == 0 &&
		     strcmp(buf_str(&c.err), "err\n") == 0;
	s_result(merged ? "stderr arrives (merged console)" : "stderr kept apart",
		 r == 0 && st == 0 && ok, "r=%d out='%.20s' err='%.20s'", r,
		 buf_str(&c.out), buf_str(&c.err));
	s_collect_free(&c);
}

static void s_check_streaming(transport_t *t)
{
	long long t0 = s_now_ms(), end;
	collect_t c;
	int st, r = s_run(t, "echo first; sleep 3; echo second",
			  CONTRACT_TIMEOUT_MS, &c, &st);

	end = s_now_ms();
	s_result("output streams as it arrives",
		 r == 0 && st == 0 && c.first_ms && end - c.first_ms >= 1500,
		 "r=%d first after %lld ms, end after %lld ms", r,
		 c.first_ms ? c.first_ms - t0 : -1, end - t0);
	s_collect_free(&c);
}

static void s_check_cap(transport_t *t)
{
	size_t saved = t->output_cap, mlen = strlen(TRANSPORT_TRUNCATED_MARKER);
	collect_t c;
	bool ok;
	int st, r;

	t->output_cap = CONTRACT_SMALL_CAP;
	r = s_run(t, "head -c 50000 /dev/zero | tr '\\000' y", CONTRACT_TIMEOUT_MS,
		  &c, &st);
	t->output_cap = saved;
	ok = c.out.len == CONTRACT_SMALL_CAP + mlen &&
	     memcmp(c.out.data + CONTRACT_SMALL_CAP, TRANSPORT_TRUNCATED_MARKER,
		    mlen) == 0 &&
	     c.out.data[0] == 'y' && c.out.data[CONTRACT_SMALL_CAP - 1] == 'y';
	s_result("output past the cap truncated with one marker",
		 r == 0 && st == 0 && ok, "r=%d status=%d got %zu bytes", r, st,
		 c.out.len);
	s_collect_free(&c);
	r = s_run(t, "echo after", CONTRACT_TIMEOUT_MS, &c, &st);
	s_result("cap is per command",
		 r == 0 && strcmp(buf_str(&c.out), "after\n") == 0, "r=%d", r);
	s_collect_free(&c);
}

/* Live (not zombie) processes whose command line is exactly want. */
int contract_count_procs(const char *want)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d))) {
		char path[300], line[256] = { 0 }, stat[512] = { 0 };
		FILE *f;
		size_t len;

		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/cmdline", e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		len = fread(line, 1, sizeof(line) - 1, f);
		fclose(f);
		for (size_t i = 0; i + 1 < len; i++)
			if (!line[i])
				line[i] = ' ';
		if (strcmp(line, want) != 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
		f = fopen(path, "r");
		if (f && fgets(stat, sizeof(stat), f) && !strstr(stat, ") Z "))
			n++;
		if (f)
			fclose(f);
	}
	if (d)
		closedir(d);
	return n;
}

int contract_run(transport_t *t, const char *label)
{
	s_label = label;
	s_failed = 0;
	s_check_exit_codes(t);
	s_check_no_newline(t);
	s_check_long_line(t);
	s_check_stdin(t);
	s_check_stderr(t);
	s_check_streaming(t);
	s_check_files(t);
	s_check_timeout(t);
	s_check_cap(t);
	fprintf(stderr, "%s: contract: %d failed\n", label, s_failed);
	return s_failed;
}
