/*
 * libFuzzer harness: the kernel log parser (parser: klog), then
 * boot-health's criteria. The first input byte is run.sh's exit status
 * plus one (0: no status); the rest is the log. Whatever the bytes: exit
 * 77 is SKIP with a reason and no case; a log with no line is ERROR with
 * no case; otherwise exactly the eight cases of boot-health, each PASS or
 * FAIL (boot_time PASS or SKIP), with bounded printable messages, a
 * failing case always saying which line, and a finite boot_time.
 * The seeds are real kernel logs (suites/tests/klog).
 */
#include "suites/criteria.h"
#include "suites/fuzz/fuzz_check.h"
#include "suites/parse.h"

#include <math.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const s_cases[] = {
	"fz.dmesg_readable", "fz.no_oops", "fz.no_bug", "fz.no_warning",
	"fz.no_panic", "fz.no_call_trace", "fz.no_lockup_or_stall", "fz.boot_time",
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *must[] = { "no_oops", "no_panic" };
	lab_criteria_t crit = { .max_fail = 0, .must_pass = must, .n_must_pass = 2 };
	suite_metric_decl_t decl = { "boot_time", "s", SUITE_BETTER_LOWER };
	suite_result_t *res;
	suite_counts_t n;
	int exit_status;

	if (size < 1)
		return 0;
	exit_status = (int)data[0] - 1;
	res = suite_result_new("fz", 2);
	FUZZ_REQUIRE(suite_parse_output(SUITE_PARSER_KLOG, (const char *)data + 1, size - 1,
					exit_status, res) == 0);
	FUZZ_REQUIRE(fuzz_text_ok(res->reason ? res->reason : "", SUITE_MAX_REASON));
	if (exit_status == 77) {
		FUZZ_REQUIRE(res->status == SUITE_SKIP && res->n_cases == 0 && res->reason);
	} else if (res->n_cases == 0) {
		FUZZ_REQUIRE(res->status == SUITE_ERROR && res->reason);
	} else {
		FUZZ_REQUIRE(res->n_cases == 8);
		for (size_t i = 0; i < res->n_cases; i++) {
			const suite_case_t *c = &res->cases[i];

			FUZZ_REQUIRE(strcmp(c->path, s_cases[i]) == 0);
			FUZZ_REQUIRE(c->status == SUITE_PASS || c->status == SUITE_FAIL ||
				     (i == 7 && c->status == SUITE_SKIP));
			FUZZ_REQUIRE(i > 0 || c->status == SUITE_PASS);
			if (c->status == SUITE_FAIL)
				FUZZ_REQUIRE(c->message && c->message[0]);
			if (c->message)
				FUZZ_REQUIRE(fuzz_text_ok(c->message, SUITE_MAX_MESSAGE));
		}
		FUZZ_REQUIRE(res->n_metrics <= 1);
		if (res->n_metrics)
			FUZZ_REQUIRE(isfinite(res->metrics[0].value));
		FUZZ_REQUIRE(res->status == (exit_status == 0 ? SUITE_PASS : SUITE_ERROR));
	}
	suite_result_declare_metrics(res, &decl, 1);
	suite_criteria_apply(res, &crit, NULL);
	suite_result_counts(res, &n);
	FUZZ_REQUIRE(n.pass + n.fail + n.error + n.skip + n.miss + n.known == res->n_cases);
	suite_result_destroy(&res);
	return 0;
}
