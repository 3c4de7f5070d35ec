/*
 * bench-suites-parse: how fast board output becomes a result, per parser,
 * on large synthetic runs (a kselftest run of 200 collections x 100 nested
 * cases, a TAP run of 100000 cases, an LTP runltp run of 20000 tests).
 * The baseline is the bare line split of the same bytes (suite_next_line),
 * the floor any parser pays; the ratio is parser throughput over it, and
 * the target says a parser (with the criteria) costs at most 100 bare
 * line splits. The metrics run is small (1000 metrics, the cap): its
 * figure is dominated by the per-metric name checks.
 */
#include "suites/criteria.h"
#include "suites/parse.h"
#include "proto/buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double s_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double s_split_mbs(const buf_t *b)
{
	char line[SUITE_MAX_LINE + 1];
	double t0 = s_now(), dt;
	size_t pos = 0, n = 0;
	int reps = 0;

	do {
		pos = 0;
		while (suite_next_line((const char *)b->data, b->len, &pos, line, NULL))
			n++;
		reps++;
	} while ((dt = s_now() - t0) < 0.5);
	if (n == 0)
		fprintf(stderr, "no lines\n");
	return (double)b->len * reps / dt / 1e6;
}

static double s_parse_mbs(enum suite_parser p, const buf_t *b, size_t *ret_cases)
{
	double t0 = s_now(), dt;
	int reps = 0;

	do {
		suite_result_t *res = suite_result_new("bench", 1);
		suite_parse_output(p, (const char *)b->data, b->len, 0, res);
		suite_criteria_apply(res, NULL, NULL);
		*ret_cases = res->n_cases;
		suite_result_destroy(&res);
		reps++;
	} while ((dt = s_now() - t0) < 0.5);
	return (double)b->len * reps / dt / 1e6;
}

static void s_report(const char *name, enum suite_parser p, const buf_t *b)
{
	size_t cases = 0;
	double split = s_split_mbs(b);
	double mbs = s_parse_mbs(p, b, &cases);
	double ratio = mbs / split;

	printf("{\"figure\": \"%s parse throughput (%zu cases, %.2f MB)\", \"value\": %.1f, "
	       "\"unit\": \"MB/s\", \"baseline\": %.1f, \"ratio\": %.3f, "
	       "\"target\": \"ratio >= 0.01\", \"met\": %s}\n",
	       name, cases, (double)b->len / 1e6, mbs, split, ratio,
	       ratio >= 0.01 ? "true" : "false");
}

int main(void)
{
	buf_t b;

	buf_init(&b, 0);
	buf_puts(&b, "TAP version 13\n1..200\n");
	for (int i = 1; i <= 200; i++) {
		buf_printf(&b, "# timeout set to 45\n# selftests: coll%d: test%d\n"
			       "# TAP version 13\n# 1..100\n", i % 20, i);
		for (int k = 1; k <= 100; k++)
			buf_printf(&b, "# %s %d check number %d of the test # %s\n",
				   k % 17 ? "ok" : "not ok", k, k, k % 23 ? "" : "SKIP why");
		buf_printf(&b, "ok %d selftests: coll%d: test%d\n", i, i % 20, i);
	}
	s_report("kselftest", SUITE_PARSER_KSELFTEST, &b);

	buf_reset(&b);
	buf_puts(&b, "TAP version 14\n1..100000\n");
	for (int i = 1; i <= 100000; i++)
		buf_printf(&b, "%s %d - set%d.case%d%s\n", i % 101 ? "ok" : "not ok", i, i % 50,
			   i, i % 31 ? "" : " # SKIP no device");
	s_report("tap", SUITE_PARSER_TAP, &b);

	buf_reset(&b);
	for (int i = 1; i <= 20000; i++)
		buf_printf(&b, "<<<test_start>>>\ntag=test%05d stime=1700000000\ncmdline=\"t\"\n"
			       "<<<test_output>>>\ntst_test.c:1690: TINFO: LTP version: 20230929\n"
			       "test%05d.c:40: %s: something %d\n<<<execution_status>>>\n"
			       "initiation_status=\"ok\"\nduration=0 termination_type=exited "
			       "termination_id=%d corefile=no\n<<<test_end>>>\n",
			   i, i, i % 13 ? "TPASS" : "TFAIL", i, i % 13 ? 0 : 1);
	s_report("ltp", SUITE_PARSER_LTP, &b);

	buf_reset(&b);
	for (int i = 1; i <= 1000; i++)
		buf_printf(&b, "metric_%d %d.%03d MB/s\n# comment %d\n", i, i, i, i);
	s_report("metrics", SUITE_PARSER_METRICS, &b);
	buf_free(&b);
	return 0;
}
