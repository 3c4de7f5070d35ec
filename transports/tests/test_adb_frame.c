/*
 * adb's command framing without a device: the exit-status frame parser
 * (exact output for every chunking, streamed, strict about the frame),
 * the wrapper script run by a real /bin/sh, and the client command line.
 */
#include "proto/tests/check.h"
#include "transports/adb.h"
#include "transports/remote.h"

#include "proto/buf.h"
#include "proto/mem.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TOKEN "0123456789abcdef"
#define FRAME ADB_FRAME_PREFIX TOKEN "="

int check_failures;

static void s_collect(void *arg, enum transport_stream st, const char *data,
		      size_t len)
{
	buf_append(arg, data, len);
}

/* Feed in in chunks of `step` (0: all at once); output and status. */
static int s_parse(const char *in, size_t len, size_t step, buf_t *out,
		   int *status)
{
	adb_frame_t f;

	buf_reset(out);
	adb_frame_init(&f, TOKEN, s_collect, out);
	for (size_t i = 0; i < len;) {
		size_t n = step && len - i > step ? step : len - i;

		adb_frame_feed(&f, in + i, n);
		i += n;
	}
	return adb_frame_finish(&f, status);
}

static void s_case(const char *out_want, const char *frame_tail, int want_r,
		   int want_status)
{
	char *in = xasprintf("%s%s", out_want, frame_tail);
	size_t steps[] = { 0, 1, 2, 3, 7, 1000 };
	buf_t out;

	buf_init(&out, 1 << 20);
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		int st = -1, r = s_parse(in, strlen(in), steps[i], &out, &st);

		CHECK(r == want_r);
		if (want_r == 0) {
			CHECK(st == want_status);
			CHECK(strcmp(buf_str(&out), out_want) == 0);
		} else
			CHECK(strcmp(buf_str(&out), in) == 0); /* nothing lost */
	}
	buf_free(&out);
	free(in);
}

static void test_frames(void)
{
	s_case("hello\n", FRAME "0\n", 0, 0);
	s_case("no newline", FRAME "255\n", 0, 255);
	s_case("", FRAME "3\r\n", 0, 3);
	s_case("__LMRC_ lookalike __LMRC_0123 and _ _", FRAME "1\n", 0, 1);
	s_case("other token " ADB_FRAME_PREFIX "ffffffffffffffff=0\n", FRAME "127\n", 0, 127);
	s_case("a frame inside: " FRAME "0\nthen more\n", FRAME "4\n", 0, 4);
	s_case("no frame at all\n", "", -EPROTO, 0);
	s_case("cut short ", FRAME, -EPROTO, 0);
	s_case("too big ", FRAME "256\n", -EPROTO, 0);
	s_case("too long ", FRAME "0001\n", -EPROTO, 0);
	s_case("no newline after status ", FRAME "0", -EPROTO, 0);
	s_case("junk after frame ", FRAME "0\nx", -EPROTO, 0);
}

static void test_big_and_streamed(void)
{
	size_t n = 300000;
	char *big = xmalloc(n + 64);
	adb_frame_t f;
	buf_t out;
	int st = -1;

	for (size_t i = 0; i < n; i++)
		big[i] = "_L_MRC\n"[i % 7];
	memcpy(big + n, FRAME "9\n", strlen(FRAME "9\n"));
	buf_init(&out, 1 << 20);
	CHECK(s_parse(big, n + strlen(FRAME "9\n"), 65536, &out, &st) == 0);
	CHECK(st == 9 && out.len == n && memcmp(out.data, big, n) == 0);
	/* output is passed on before the command ends */
	buf_reset(&out);
	adb_frame_init(&f, TOKEN, s_collect, &out);
	adb_frame_feed(&f, "first\n", 6);
	CHECK(strcmp(buf_str(&out), "first\n") == 0);
	adb_frame_feed(&f, "__LM", 4);
	CHECK(strcmp(buf_str(&out), "first\n") == 0); /* could be the frame */
	adb_frame_feed(&f, "X", 1);
	CHECK(strcmp(buf_str(&out), "first\n__LMX") == 0);
	buf_free(&out);
	free(big);
}

static void s_to_frame(void *arg, enum transport_stream st, const char *data,
		       size_t len)
{
	if (st == TRANSPORT_STDOUT)
		adb_frame_feed(arg, data, len);
}

/* The wrapper as a device's shell runs it: exact output and status. */
static void test_wrapper_in_sh(void)
{
	static const struct {
		const char *cmd, *out;
		int status;
	} cases[] = {
		{ "printf abc", "abc", 0 },
		{ "echo hi; exit 3", "hi\n", 3 },
		{ "false", "", 1 },
		{ "labmesh-no-such-command-xyz 2>/dev/null", "", 127 },
		{ "printf '%s' \"it's\"; (exit 255)", "it's", 255 },
	};
	char *pid = remote_pidfile(NULL, "/tmp", TOKEN);
	buf_t out;

	buf_init(&out, 1 << 20);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *w = remote_wrap(cases[i].cmd, pid, (unsigned)i + 1, FRAME);
		adb_frame_t f;
		proc_spec_t s;
		char err[128];
		int shell_st = -1, st = -1, r;

		CHECK(strstr(w, FRAME) == NULL); /* never in the text sent */
		buf_reset(&out);
		adb_frame_init(&f, TOKEN, s_collect, &out);
		proc_spec_init(&s);
		proc_arg(&s, "/bin/sh");
		proc_arg(&s, "-c");
		proc_arg(&s, w);
		s.fn = s_to_frame;
		s.arg = &f;
		r = proc_run(&s, &shell_st, err, sizeof(err));
		CHECK(r == 0);
		CHECK(adb_frame_finish(&f, &st) == 0);
		CHECK(st == cases[i].status);
		CHECK(strcmp(buf_str(&out), cases[i].out) == 0);
		free(w);
	}
	buf_free(&out);
	free(pid);
	unlink("/tmp/labmesh-" TOKEN ".pid");
}

static void test_command_line(void)
{
	proc_spec_t s;

	adb_command("emulator-5554", &s);
	proc_arg(&s, "shell");
	CHECK(s.argc == 4);
	CHECK(strcmp(s.argv[0], "adb") == 0 && strcmp(s.argv[1], "-s") == 0 &&
	      strcmp(s.argv[2], "emulator-5554") == 0 &&
	      strcmp(s.argv[3], "shell") == 0 && s.argv[4] == NULL);
	adb_command(NULL, &s);
	CHECK(s.argc == 1);
}

int main(void)
{
	test_frames();
	test_big_and_streamed();
	test_wrapper_in_sh();
	test_command_line();
	fprintf(stderr, "%d failures\n", check_failures);
	return check_failures ? 1 : 0;
}
