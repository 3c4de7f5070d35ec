/*
 * libFuzzer harness: the KUnit parser (parser: kunit) on a kernel's
 * console, then the default criteria. The first input byte is the exit
 * status plus one (0: no status); the rest is the console. Whatever the
 * bytes: exit 77 is SKIP with no case; a console with no KUnit KTAP is
 * SKIP with a reason and no case;
 * every case is below the suite with a known status and a bounded,
 * printable message; a suite that did not finish is ERROR. The seeds are real boot consoles
 * (suites/tests/kunit) and hand-written KTAP.
 */
#include "suites/criteria.h"
#include "suites/fuzz/fuzz_check.h"
#include "suites/parse.h"

#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void s_check_cases(const suite_result_t *res)
{
	for (size_t i = 0; i < res->n_cases; i++) {
		const suite_case_t *c = &res->cases[i];

		FUZZ_REQUIRE(strncmp(c->path, "fz.", 3) == 0);
		FUZZ_REQUIRE(strlen(c->path) <= SUITE_MAX_PATH);
		FUZZ_REQUIRE(c->status >= SUITE_PASS && c->status <= SUITE_MISS);
		if (c->message)
			FUZZ_REQUIRE(fuzz_printable(c->message, SUITE_MAX_MESSAGE));
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	lab_criteria_t crit = { .max_fail = 0 };
	suite_result_t *res;
	suite_counts_t n;

	if (size < 1)
		return 0;
	res = suite_result_new("fz", 1);
	FUZZ_REQUIRE(suite_parse_output(SUITE_PARSER_KUNIT, (const char *)data + 1,
					size - 1, (int)data[0] - 1, res) == 0);
	FUZZ_REQUIRE(fuzz_text_ok(res->reason ? res->reason : "", SUITE_MAX_REASON));
	FUZZ_REQUIRE(res->n_cases <= SUITE_MAX_CASES);
	s_check_cases(res);
	if (data[0] - 1 != 77 && res->status == SUITE_SKIP && res->reason &&
	    strstr(res->reason, "no KUnit results"))
		FUZZ_REQUIRE(res->n_cases == 0);
	suite_result_counts(res, &n);
	FUZZ_REQUIRE(n.pass + n.fail + n.error + n.skip + n.miss + n.known == res->n_cases);
	/* exit 77's reason is the board's last line, whatever it says */
	if (data[0] - 1 == 77)
		FUZZ_REQUIRE(res->status == SUITE_SKIP && res->n_cases == 0);
	else if (res->reason && strncmp(res->reason, "KUnit did not finish", 20) == 0)
		FUZZ_REQUIRE(res->status == SUITE_ERROR);
	suite_criteria_apply(res, &crit, NULL);
	suite_result_destroy(&res);
	return 0;
}
