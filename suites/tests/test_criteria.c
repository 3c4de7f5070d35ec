/*
 * Unit tests of the pass criteria: max_fail, min_pass, must_pass, fail_ok,
 * metric thresholds, and a board's override winning over the suite's
 * defaults field by field. The lt/le thresholds come the way a lab has
 * them: the suite's from a suite.yaml, the boards' from a lab config.
 */
#include "suites/catalog.h"
#include "suites/criteria.h"
#include "suites/parse.h"
#include "suites/tests/check.h"

#include <stdlib.h>

static suite_result_t *s_fs(void)
{
	const char *out = "1..5\nok 1 create\nnot ok 2 rename\nok 3 write\n"
			  "not ok 4 fsync\nok 5 unlink # SKIP read-only\n";
	suite_result_t *res = suite_result_new("fs-tmpfs", 1);

	suite_parse_tap(out, strlen(out), 1, res);
	return res;
}

static void test_defaults(void)
{
	suite_result_t *res = s_fs();

	suite_criteria_apply(res, NULL, NULL);
	CHECK(res->status == SUITE_FAIL);
	CHECK_REASON(res, "FAIL: 2 cases failed (max_fail 0): fs-tmpfs.rename, fs-tmpfs.fsync");
	suite_result_destroy(&res);
}

static void test_override(void)
{
	lab_criteria_t suite, board;
	char *must[] = { "create", "write" };
	lab_fail_ok_t ok_suite[] = { { "rename", "rename over busybox mv is racy" } };
	lab_fail_ok_t ok_board[] = { { "fs-tmpfs.fsync", "no fsync on this board's tmpfs" } };
	suite_result_t *res;

	/* the suite allows one failure: still FAIL with two */
	lab_criteria_init(&suite);
	suite.max_fail = 1;
	res = s_fs();
	suite_criteria_apply(res, &suite, NULL);
	CHECK(res->status == SUITE_FAIL);
	CHECK_REASON(res, "2 cases failed (max_fail 1)");
	suite_result_destroy(&res);

	/* the board says max_fail 2: its value wins */
	lab_criteria_init(&board);
	board.max_fail = 2;
	res = s_fs();
	suite_criteria_apply(res, &suite, &board);
	CHECK(res->status == SUITE_PASS);
	suite_result_destroy(&res);

	/* the board sets max_fail 0 over the suite's 1 */
	board.max_fail = 0;
	suite.fail_ok = ok_suite;
	suite.n_fail_ok = 1;
	res = s_fs();
	suite_criteria_apply(res, &suite, &board);
	CHECK(res->status == SUITE_FAIL);
	CHECK_REASON(res, "1 case failed (max_fail 0): fs-tmpfs.fsync");
	CHECK_CASE(res, "rename", SUITE_FAIL, "known failure: rename over busybox mv is racy");
	suite_result_destroy(&res);

	/* fail_ok from the suite and from the board together: PASS, and says why */
	board.fail_ok = ok_board;
	board.n_fail_ok = 1;
	res = s_fs();
	suite_criteria_apply(res, &suite, &board);
	CHECK(res->status == SUITE_PASS);
	CHECK_REASON(res, "2 known failures accepted: fs-tmpfs.rename (FAIL: rename over busybox mv "
			  "is racy), fs-tmpfs.fsync (FAIL: no fsync on this board's tmpfs)");
	CHECK(suite_result_find_case(res, "fsync")->known);
	suite_result_destroy(&res);

	/* must_pass: a fail_ok case listed in must_pass still fails */
	suite.must_pass = must;
	suite.n_must_pass = 2;
	res = s_fs();
	suite_criteria_apply(res, &suite, &board);
	CHECK(res->status == SUITE_PASS);
	suite_result_destroy(&res);
	char *must_board[] = { "rename", "mkdir" };
	board.must_pass = must_board;
	board.n_must_pass = 2;
	res = s_fs();
	suite_criteria_apply(res, &suite, &board);
	CHECK(res->status == SUITE_FAIL);
	CHECK_REASON(res, "must_pass fs-tmpfs.rename: FAIL");
	CHECK_REASON(res, "must_pass fs-tmpfs.mkdir absent");
	suite_result_destroy(&res);
	board.must_pass = NULL;
	board.n_must_pass = 0;

	/* min_pass counts known failures as passed */
	suite.min_pass = 4;
	res = s_fs();
	suite_criteria_apply(res, &suite, &board);
	CHECK(res->status == SUITE_PASS);
	suite_result_destroy(&res);
	board.min_pass = 5;
	res = s_fs();
	suite_criteria_apply(res, &suite, &board);
	CHECK(res->status == SUITE_FAIL);
	CHECK_REASON(res, "4 cases passed (min_pass 5)");
	suite_result_destroy(&res);
}

static void test_metrics(void)
{
	const char *out = "copy 8000 MB/s\nlatency 95.5 ns\n";
	lab_metric_rule_t srules[] = {
		{ "copy", LAB_OP_GT, 10000, 0 },
		{ "latency", LAB_OP_RANGE, 50, 100 },
		{ "triad", LAB_OP_GE, 1, 0 },
	};
	lab_metric_rule_t brules[] = { { "copy", LAB_OP_GE, 5000, 0 } };
	lab_criteria_t suite, board;
	suite_result_t *res;

	lab_criteria_init(&suite);
	suite.metrics = srules;
	suite.n_metrics = 3;
	res = suite_result_new("membw", 1);
	suite_parse_metrics(out, strlen(out), 0, res);
	suite_criteria_apply(res, &suite, NULL);
	CHECK(res->status == SUITE_FAIL);
	CHECK_REASON(res, "metric copy 8000 MB/s not > 10000");
	CHECK_REASON(res, "metric triad missing");
	CHECK(!strstr(res->reason, "latency"));
	suite_result_destroy(&res);

	/* the board's rule for copy replaces the suite's */
	suite.n_metrics = 2;
	lab_criteria_init(&board);
	board.metrics = brules;
	board.n_metrics = 1;
	res = suite_result_new("membw", 1);
	suite_parse_metrics(out, strlen(out), 0, res);
	suite_criteria_apply(res, &suite, &board);
	CHECK(res->status == SUITE_PASS);
	CHECK_REASON(res, "PASS: 2 metrics");
	suite_result_destroy(&res);

	srules[1].hi = 90;
	res = suite_result_new("membw", 1);
	suite_parse_metrics(out, strlen(out), 0, res);
	suite_criteria_apply(res, &suite, &board);
	CHECK_REASON(res, "metric latency 95.5 ns not in [50, 90]");
	suite_result_destroy(&res);
}

/* lt and le as the catalog and the lab loader give them: the suite's
 * thresholds from its suite.yaml, each board's from the lab config, the
 * board's rule for a metric replacing the suite's. */
static const char s_lat_yaml[] =
	"name: lat\n"
	"version: 1\n"
	"kind: benchmark\n"
	"description: latency figures\n"
	"parser: metrics\n"
	"metrics:\n"
	"  - {name: latency, unit: ns, better: lower}\n"
	"  - {name: jitter, unit: us, better: lower}\n"
	"criteria:\n"
	"  metrics:\n"
	"    - {name: latency, lt: 100}\n"
	"    - {name: jitter, le: 5}\n";

static const char s_lat_lab[] =
	"lab:\n"
	"  name: thresholds\n"
	"boards:\n"
	"  - name: tight\n"
	"    arch: x86_64\n"
	"    transport: {type: local}\n"
	"    boot: {method: none}\n"
	"    criteria:\n"
	"      - suite: lat\n"
	"        metrics:\n"
	"          - {name: latency, le: 50}\n"
	"          - {name: jitter, lt: 2}\n"
	"  - name: loose\n"
	"    arch: x86_64\n"
	"    transport: {type: local}\n"
	"    boot: {method: none}\n"
	"    criteria:\n"
	"      - suite: lat\n"
	"        metrics:\n"
	"          - {name: latency, le: 200}\n"
	"          - {name: jitter, lt: 10}\n"
	"  - name: half\n"
	"    arch: x86_64\n"
	"    transport: {type: local}\n"
	"    boot: {method: none}\n"
	"    criteria:\n"
	"      - suite: lat\n"
	"        metrics:\n"
	"          - {name: latency, lt: 100.5}\n";

/* Outputs of the lat suite on its boards: NULL takes the suite's own
 * thresholds (latency lt 100 ns, jitter le 5 us); "tight", "loose" and
 * "half" are boards of s_lat_lab overriding them. */
static const struct lat_case {
	const char *what, *board, *output;
	enum suite_status status;
	const char *says[2], *not_says;
} s_lat_cases[] = {
	{ "met: 99.9 < 100, and 5 <= 5 at the bound", NULL,
	  "latency 99.9 ns\njitter 5 us\n", SUITE_PASS,
	  { "PASS: 2 metrics" }, NULL },
	{ "missed: lt strict at the bound, le just past it", NULL,
	  "latency 100 ns\njitter 5.01 us\n", SUITE_FAIL,
	  { "metric latency 100 ns not < 100",
	    "metric jitter 5.01 us not <= 5" }, NULL },
	{ "lt missed alone: jitter is met", NULL,
	  "latency 100.1 ns\njitter 4 us\n", SUITE_FAIL,
	  { "metric latency 100.1 ns not < 100" }, "jitter" },
	{ "le missed alone: latency is met", NULL,
	  "latency 20 ns\njitter 6 us\n", SUITE_FAIL,
	  { "metric jitter 6 us not <= 5" }, "latency" },
	{ "tighter board: what passes the suite's fails", "tight",
	  "latency 99.9 ns\njitter 5 us\n", SUITE_FAIL,
	  { "metric latency 99.9 ns not <= 50", "metric jitter 5 us not < 2" },
	  "not < 100" },
	{ "tighter board: le inclusive, lt strict (met)", "tight",
	  "latency 50 ns\njitter 1.99 us\n", SUITE_PASS, { NULL }, NULL },
	{ "tighter board: lt strict at its bound", "tight",
	  "latency 50 ns\njitter 2 us\n", SUITE_FAIL,
	  { "metric jitter 2 us not < 2" }, NULL },
	{ "looser board: what fails the suite's passes", "loose",
	  "latency 200 ns\njitter 9.99 us\n", SUITE_PASS, { NULL }, NULL },
	{ "looser board: just past its bounds", "loose",
	  "latency 200.5 ns\njitter 10 us\n", SUITE_FAIL,
	  { "metric latency 200.5 ns not <= 200",
	    "metric jitter 10 us not < 10" }, NULL },
	{ "one metric overridden: the other keeps the suite's rule", "half",
	  "latency 100.2 ns\njitter 5 us\n", SUITE_PASS, { NULL }, NULL },
	{ "one metric overridden: the suite's rule fails the other", "half",
	  "latency 100.2 ns\njitter 5.5 us\n", SUITE_FAIL,
	  { "metric jitter 5.5 us not <= 5" }, "latency" },
	{ "a metric the thresholds need is missing", "loose",
	  "latency 20 ns\n", SUITE_FAIL, { "metric jitter missing" }, NULL },
};

/* Parse out as lat's metrics output and judge it on board (NULL: the
 * suite's thresholds alone). */
static suite_result_t *s_lat(const suite_def_t *d, const lab_config_t *lab,
			     const char *board, const char *out)
{
	suite_result_t *res = suite_result_new(d->name, d->version);
	const lab_board_t *b = board ? lab_config_board(lab, board) : NULL;

	CHECK(!board || b != NULL);
	suite_parse_output(d->parser, out, strlen(out), 0, res);
	suite_result_declare_metrics(res, d->metrics, d->n_metrics);
	suite_criteria_apply(res, &d->criteria, suite_criteria_for_board(b, d->name));
	return res;
}

static void test_lt_le(void)
{
	suite_def_t *d = NULL;
	lab_config_t *lab = NULL;
	suite_result_t *res;
	char *err = NULL;

	CHECK(suite_def_parse("lat/suite.yaml", s_lat_yaml, strlen(s_lat_yaml), NULL, &d,
			      &err) == 0);
	if (!d) {
		fprintf(stderr, "suite.yaml: %s\n", err ? err : "?");
		free(err);
		s_failures++;
		return;
	}
	CHECK(lab_config_parse("lab.yaml", s_lat_lab, strlen(s_lat_lab), &lab, &err) == 0);
	if (!lab) {
		fprintf(stderr, "lab.yaml: %s\n", err ? err : "?");
		free(err);
		suite_def_destroy(&d);
		s_failures++;
		return;
	}
	CHECK(d->criteria.n_metrics == 2);
	CHECK(d->criteria.metrics[0].op == LAB_OP_LT);
	CHECK(d->criteria.metrics[1].op == LAB_OP_LE);

	for (size_t i = 0; i < sizeof(s_lat_cases) / sizeof(s_lat_cases[0]); i++) {
		const struct lat_case *c = &s_lat_cases[i];

		res = s_lat(d, lab, c->board, c->output);
		if (res->status != c->status)
			fprintf(stderr, "case %zu (%s): status %d, want %d\n", i,
				c->what, (int)res->status, (int)c->status);
		CHECK(res->status == c->status);
		for (size_t k = 0; k < 2 && c->says[k]; k++)
			CHECK_REASON(res, c->says[k]);
		if (c->not_says)
			CHECK(res->reason && !strstr(res->reason, c->not_says));
		suite_result_destroy(&res);
	}

	lab_config_destroy(&lab);
	suite_def_destroy(&d);
}

static void test_skip(void)
{
	suite_result_t *res = suite_result_new("x", 1);
	const char *out = "1..2\nok 1 a # SKIP no rtc\nok 2 b # SKIP no rtc\n";

	suite_parse_tap(out, strlen(out), 0, res);
	suite_criteria_apply(res, NULL, NULL);
	CHECK(res->status == SUITE_SKIP);
	CHECK_REASON(res, "all 2 cases skipped: no rtc");
	suite_result_destroy(&res);

	/* a skipped suite stays skipped whatever the criteria */
	lab_criteria_t c;
	lab_criteria_init(&c);
	c.min_pass = 3;
	res = suite_result_new("x", 1);
	suite_parse_tap("1..0 # SKIP no network\n", 23, 0, res);
	suite_criteria_apply(res, &c, NULL);
	CHECK(res->status == SUITE_SKIP);
	CHECK_REASON(res, "no network");
	suite_result_destroy(&res);
}

int main(void)
{
	test_defaults();
	test_override();
	test_metrics();
	test_lt_le();
	test_skip();
	if (s_failures) {
		fprintf(stderr, "%d checks failed\n", s_failures);
		return 1;
	}
	printf("criteria: all checks passed\n");
	return 0;
}
