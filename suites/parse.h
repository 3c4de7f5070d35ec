/*
 * parse: turn a suite's output (hostile bytes from a board: truncated,
 * interleaved, NUL-containing, garbage) into cases and metrics of a
 * suite_result_t. Every parser is bounded, never fails on bad input, and
 * says what was missing: MISS cases for planned tests that never reported,
 * and a reason on the result.
 *
 * After parsing, res->status is SKIP (the output says the suite does not
 * apply, with res->reason), ERROR (the output cannot be judged: no results,
 * bail out, dubious exit status; reason says why) or PASS, meaning "parsed,
 * let the criteria decide" (suites/criteria.h). Notes about the output
 * (no plan, unparsed lines) are in res->reason.
 */
#ifndef LABMESH_SUITES_PARSE_H
#define LABMESH_SUITES_PARSE_H

#include "suites/result.h"

#include <stdbool.h>
#include <stddef.h>

#define SUITE_MAX_LINE 4096               /* longer lines are cut for parsing */
#define SUITE_MAX_TAP_DEPTH 6             /* nested subtest levels */
#define SUITE_MAX_MISS_CASES 256          /* MISS cases listed one by one */
#define SUITE_MAX_KSFT_CAPTURE (2u << 20) /* one kselftest test's nested output */

enum suite_parser {
	SUITE_PARSER_TAP = 0,
	SUITE_PARSER_KSELFTEST,
	SUITE_PARSER_LTP,
	SUITE_PARSER_METRICS,
	SUITE_PARSER_EXIT,
	SUITE_PARSER_KLOG,
	SUITE_PARSER_KUNIT,
};

const char *suite_parser_name(enum suite_parser p);
bool suite_parser_parse(const char *s, enum suite_parser *ret);

/*
 * Parse len bytes of output (not NUL-terminated) by the given parser into
 * res. exit_status is run.sh's exit status 0..255, or -1 when unknown
 * (killed on timeout). Returns 0, or -EINVAL for an unknown parser.
 */
int suite_parse_output(enum suite_parser parser, const char *out, size_t len,
		       int exit_status, suite_result_t *res);

/* The parsers one by one (same contract). */
void suite_parse_tap(const char *out, size_t len, int exit_status,
		     suite_result_t *res);
void suite_parse_kselftest(const char *out, size_t len, int exit_status,
			   suite_result_t *res);
void suite_parse_ltp(const char *out, size_t len, int exit_status,
		     suite_result_t *res);
void suite_parse_metrics(const char *out, size_t len, int exit_status,
			 suite_result_t *res);
void suite_parse_exit(const char *out, size_t len, int exit_status,
		      suite_result_t *res);
/* A kernel log judged for oopses, BUGs, WARN() splats, panics, call
 * traces, lockups and stalls, by the forms the kernel prints them in
 * (parse_klog.c says which). */
void suite_parse_klog(const char *out, size_t len, int exit_status,
		      suite_result_t *res);
/* KUnit's KTAP in a kernel's console or dmesg: SUITE.CASE cases, a kernel
 * that stopped mid-KUnit ERROR at the first test that never reported and
 * MISS after it, no KTAP at all SKIP (parse_kunit.c says how). */
void suite_parse_kunit(const char *out, size_t len, int exit_status,
		       suite_result_t *res);

/*
 * A metric line "name value [unit]" (text is modified): 0 when added,
 * -EINVAL when it is not one, -EEXIST for a repeat, -ENOSPC past the cap.
 * Metric lines are the output of `parser: metrics`; TAP and kselftest
 * suites may carry them as comments "# metric name value unit".
 */
int suite_metric_line(suite_result_t *res, char *text);

/*
 * Line iteration shared by the parsers: the next line of out[*pos..len)
 * copied into line (SUITE_MAX_LINE + 1 bytes) as a C string — cut at
 * SUITE_MAX_LINE, NUL bytes replaced by '?', trailing '\r' dropped.
 * Returns false at the end.
 */
bool suite_next_line(const char *out, size_t len, size_t *pos, char *line,
		     size_t *ret_len);

#endif
