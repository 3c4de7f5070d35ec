/*
 * Unit tests of the console log filter (serial_conlog.c) on a real
 * console: the QEMU x86_64 board of scripts/mkboard booting Debian's
 * kernel while the serial transport typed its set-up line and probes,
 * then ran the suite smoke (tests/console/qemu-debian.raw, the raw bytes
 * as the lab read them), fed whole and in chunks of every size up to 64:
 * the board's own lines stay (the shell banner, the board's ready line),
 * and nothing labmesh typed or framed its commands with is left. Then
 * made-up consoles: a kernel boot with KUnit's lines, kernel records
 * in the middle of the session, a line too long to hold.
 */
#include "transports/serial.h"
#include "proto/tests/check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int check_failures;

/* The set-up line as serial_sync types it (nonce and all). */
static const char s_setup[] =
	"stty -echo -opost 2>/dev/null && lm_o=1 || lm_o=0; PS1=; PS2=; "
	"exec 9</dev/null; lm_n=QWERTYUPAS; _s(){ echo lm$lm_n;}; "
	"_e(){ printf '\\nlm%s %d\\n' $lm_n $?;}; "
	"[ \"$(cat /sys/module/printk/parameters/time 2>/dev/null)\" = N ] && "
	"echo Y 2>/dev/null >/sys/module/printk/parameters/time; "
	"printf '%s%s %s\\n' lm-p QWERTYUPAS $lm_o\n";

static void s_sink(void *arg, const char *p, size_t n)
{
	buf_append(arg, p, n);
}

/* Feed in chunks; the session goes up after up_at bytes (0: never). */
static void s_filter(const char *p, size_t n, size_t chunk, size_t up_at, buf_t *out)
{
	serial_conlog_t cl;

	serial_conlog_init(&cl);
	serial_conlog_typed(&cl, s_setup);
	for (size_t off = 0; off < n;) {
		size_t k = n - off < chunk ? n - off : chunk;

		if (up_at && off < up_at && off + k > up_at)
			k = up_at - off;
		serial_conlog_feed(&cl, p + off, k, s_sink, out);
		off += k;
		if (up_at && off == up_at)
			serial_conlog_session(&cl, true);
	}
	serial_conlog_flush(&cl, s_sink, out);
	serial_conlog_free(&cl);
}

static char *s_slurp(const char *path, size_t *ret_len)
{
	FILE *f = fopen(path, "rb");
	char *buf = malloc(1 << 20);

	*ret_len = f && buf ? fread(buf, 1, (1 << 20) - 1, f) : 0;
	if (f)
		fclose(f);
	CHECK(f && buf);
	if (buf)
		buf[*ret_len] = '\0';
	return buf;
}

static void test_real(const char *dir)
{
	char path[512];
	size_t len, up;
	char *raw, *first_frame;
	buf_t whole;

	snprintf(path, sizeof(path), "%s/qemu-debian.raw", dir);
	raw = s_slurp(path, &len);
	/* the session went up with the answer to the last probe, just
	 * before the first framed command's start marker */
	first_frame = strstr(raw, "\nlmKZFAETLYFJ\n");
	CHECK(first_frame != NULL);
	up = first_frame ? (size_t)(first_frame - raw) + 1 : 0;
	buf_init(&whole, 0);
	s_filter(raw, len, len, up, &whole);
	CHECK(strstr(buf_str(&whole), "labmesh-board: ready (6.1.0-57-cloud-amd64 x86_64)"));
	CHECK(strstr(buf_str(&whole), "BusyBox v1.35.0"));
	CHECK(!strstr(buf_str(&whole), "lm_n="));
	CHECK(!strstr(buf_str(&whole), "lm-p"));
	CHECK(!strstr(buf_str(&whole), "stty"));
	CHECK(!strstr(buf_str(&whole), "printk/parameters"));
	CHECK(!strstr(buf_str(&whole), "lmKZFAETLYFJ"));
	CHECK(!strstr(buf_str(&whole), "LMKR:"));
	CHECK(!strstr(buf_str(&whole), "ok 35 - files.cmp"));
	for (size_t chunk = 1; chunk <= 64; chunk++) {
		buf_t part;

		buf_init(&part, 0);
		s_filter(raw, len, chunk, up, &part);
		CHECK(part.len == whole.len && memcmp(part.data, whole.data, whole.len) == 0);
		buf_free(&part);
	}
	if (getenv("TEST_CONSOLE_LOG"))
		fwrite(whole.data, 1, whole.len, stderr);
	buf_free(&whole);
	free(raw);
}

static void test_made_up(void)
{
	static const char boot[] =
		"Linux version 6.1.0-g1234 (gcc 12) #1 PREEMPT_DYNAMIC Debian\r\n"
		"printk: console [ttyS0] enabled\r\n"
		"KTAP version 1\r\n"
		"    ok 1 lm_n_test_case\r\n"
		"lm-pQWERTYUPAS 1\r\n"
		"Oops: 0002 [#1] PREEMPT NOPTI ABCDEFGHIJKLMN /dev/null echo\r\n"
		"Run /init as init process\r\n";
	static const char session[] =
		"lmQWERTYUPAS\nLMKR:6.1.0\n[   12.000001] a kernel record\r\n"
		"output [   13.500000] mid-line record\r\n of ours\n"
		"[ 1.000000] looks like a kernel line\n\nlmQWERTYUPAS 0\n";
	char big[6000];
	buf_t out;

	buf_init(&out, 0);
	s_filter(boot, sizeof(boot) - 1, 7, 0, &out);
	CHECK(out.len == sizeof(boot) - 1 - strlen("lm-pQWERTYUPAS 1\r\n"));
	CHECK(strncmp(buf_str(&out), "Linux version", 13) == 0);
	buf_reset(&out);
	s_filter(session, sizeof(session) - 1, 5, 1, &out);
	CHECK(strcmp(buf_str(&out), "[   12.000001] a kernel record\r\n"
				    "[   13.500000] mid-line record\r\n") == 0);
	buf_reset(&out);
	memset(big, 'x', sizeof(big));
	big[sizeof(big) - 1] = '\n';
	s_filter(big, sizeof(big), 100, 0, &out);
	CHECK(out.len == sizeof(big));
	buf_reset(&out);
	s_filter(big, sizeof(big), 100, 1, &out);
	CHECK(out.len == 0);
	buf_free(&out);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: test-transports-serial-conlog CONSOLE_DIR\n");
		return 2;
	}
	test_real(argv[1]);
	test_made_up();
	if (CHECK_DONE())
		return 1;
	printf("console log filter OK\n");
	return 0;
}
