/*
 * The console scanner: kernel records inserted at every byte position of
 * our output, fed in every chunking, come out exactly as our output.
 */
#include "proto/tests/check.h"
#include "transports/serial.h"

#include "proto/buf.h"

#include <stdio.h>
#include <string.h>

int check_failures;

static void s_emit(void *arg, const char *data, size_t len)
{
	buf_append(arg, data, len);
}

/* Feed in in chunks of chunk bytes; return the clean output. */
static void s_run(const char *in, size_t n, size_t chunk, bool crlf, buf_t *out,
		  uint64_t *ret_records)
{
	serial_scan_t sc;

	serial_scan_init(&sc, crlf);
	buf_reset(out);
	for (size_t off = 0; off < n; off += chunk)
		serial_scan_feed(&sc, in + off, n - off < chunk ? n - off : chunk,
				 s_emit, out);
	*ret_records = sc.kernel_records;
	serial_scan_free(&sc);
}

static void test_ts(void)
{
	CHECK(serial_scan_ts("[    1.322134] x", 16) == 14);
	CHECK(serial_scan_ts("[12.5]", 6) == 6);
	CHECK(serial_scan_ts("[  12", 5) == 0);
	CHECK(serial_scan_ts("[", 1) == 0);
	CHECK(serial_scan_ts("[a", 2) == -1);
	CHECK(serial_scan_ts("[ 1x", 4) == -1);
	CHECK(serial_scan_ts("[.5]", 4) == -1);
	CHECK(serial_scan_ts("x", 1) == -1);
}

static void test_insert_everywhere(void)
{
	static const char *ours[] = {
		"hello world\nsecond line\n",
		"a [ b ] [1.x] [ 2.5 no close\n",
		"dmesg says [    1.000000] something\n[    2.000000] more\n",
		"no newline at the end [",
		"x\n\n\ny",
	};
	static const char *krec[] = {
		"[   12.345678] noise\r\n",
		"[    0.000001] a [b] [ 1. c [\r\n",
	};
	buf_t out, in;
	uint64_t recs;

	buf_init(&out, 0);
	buf_init(&in, 0);
	for (size_t o = 0; o < sizeof(ours) / sizeof(ours[0]); o++) {
		size_t ol = strlen(ours[o]);

		for (size_t k = 0; k < sizeof(krec) / sizeof(krec[0]); k++) {
			for (size_t pos = 0; pos <= ol; pos++) {
				for (size_t chunk = 1; chunk <= 7; chunk += 3) {
					buf_reset(&in);
					buf_append(&in, ours[o], pos);
					buf_puts(&in, krec[k]);
					buf_append(&in, ours[o] + pos, ol - pos);
					/* a trailing newline decides the held tail */
					buf_puts(&in, "\n");
					s_run((const char *)in.data, in.len, chunk, false,
					      &out, &recs);
					CHECK(out.len == ol + 1 &&
					      memcmp(out.data, ours[o], ol) == 0);
					CHECK(recs == 1);
					if (out.len != ol + 1 || memcmp(out.data, ours[o], ol))
						fprintf(stderr, "  ours %zu krec %zu pos %zu chunk %zu: '%s'\n",
							o, k, pos, chunk, buf_str(&out));
				}
			}
		}
	}
	buf_free(&out);
	buf_free(&in);
}

static void test_crlf_mode(void)
{
	const char *in = "one\r\ntw[ 3.000000] k\r\no\r\nthree";
	buf_t out;
	uint64_t recs;

	buf_init(&out, 0);
	for (size_t chunk = 1; chunk < 9; chunk++) {
		s_run(in, strlen(in), chunk, true, &out, &recs);
		CHECK(strcmp(buf_str(&out), "one\ntwo\nthree") == 0);
		CHECK(recs == 1);
	}
	buf_free(&out);
}

static void test_long_candidate(void)
{
	/* a timestamp-looking start that never ends with \r\n is ours */
	buf_t in, out;
	uint64_t recs;

	buf_init(&in, 0);
	buf_init(&out, 0);
	buf_puts(&in, "[ 1.0] ");
	for (int i = 0; i < SERIAL_MAX_LINE * 3; i++)
		buf_putc(&in, 'z');
	s_run((const char *)in.data, in.len, 1000, false, &out, &recs);
	/* everything but at most one held line has come out */
	CHECK(out.len + SERIAL_MAX_LINE + 1000 >= in.len);
	CHECK(recs == 0);
	buf_free(&in);
	buf_free(&out);
}

int main(void)
{
	test_ts();
	test_insert_everywhere();
	test_crlf_mode();
	test_long_candidate();
	if (check_failures)
		fprintf(stderr, "%d checks failed\n", check_failures);
	return check_failures ? 1 : 0;
}
