/*
 * libFuzzer harness: the exit-status parser (parser: exit), then the
 * criteria. The first input byte is run.sh's exit status plus one (0: no
 * status, killed on timeout); the rest is its output. Whatever the bytes:
 * exit 77 is SKIP with a bounded printable reason and no case; any other
 * status gives exactly one case "run", PASS for 0, ERROR without a status,
 * FAIL with a message "exit status N[: last line]" that is bounded,
 * printable and invents nothing (no longer than the output); the criteria
 * then keep SKIP, pass 0 and fail the rest, with counts that add up.
 */
#include "suites/criteria.h"
#include "suites/fuzz/fuzz_check.h"
#include "suites/parse.h"

#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	suite_result_t *res;
	suite_counts_t n;
	const char *out;
	int exit_status;
	char prefix[32];
	size_t len;

	if (size < 1)
		return 0;
	exit_status = (int)data[0] - 1;
	out = (const char *)data + 1;
	len = size - 1;
	res = suite_result_new("fz", 1);
	FUZZ_REQUIRE(suite_parse_output(SUITE_PARSER_EXIT, out, len, exit_status, res) == 0);
	FUZZ_REQUIRE(res->n_metrics == 0 && res->dropped_cases == 0);
	if (exit_status == 77) {
		FUZZ_REQUIRE(res->status == SUITE_SKIP);
		FUZZ_REQUIRE(res->n_cases == 0);
		FUZZ_REQUIRE(fuzz_text_ok(res->reason, SUITE_MAX_REASON));
		FUZZ_REQUIRE(res->reason[0] != '\0');
		FUZZ_REQUIRE(strcmp(res->reason, "exit status 77") == 0 ||
			     strlen(res->reason) <= len);
	} else {
		const suite_case_t *c;

		FUZZ_REQUIRE(res->status == SUITE_PASS);
		FUZZ_REQUIRE(res->n_cases == 1);
		c = &res->cases[0];
		FUZZ_REQUIRE(strcmp(c->path, "fz.run") == 0);
		if (exit_status == 0) {
			FUZZ_REQUIRE(c->status == SUITE_PASS && !c->message);
		} else if (exit_status < 0) {
			FUZZ_REQUIRE(c->status == SUITE_ERROR && c->message &&
				     strcmp(c->message, "no exit status") == 0);
		} else {
			size_t pl = (size_t)snprintf(prefix, sizeof(prefix), "exit status %d",
						     exit_status);
			FUZZ_REQUIRE(c->status == SUITE_FAIL);
			FUZZ_REQUIRE(fuzz_text_ok(c->message, SUITE_MAX_MESSAGE));
			FUZZ_REQUIRE(strncmp(c->message, prefix, pl) == 0);
			/* the rest is ": <last line>" or nothing, taken from the output */
			FUZZ_REQUIRE(c->message[pl] == '\0' ||
				     (c->message[pl] == ':' && c->message[pl + 1] == ' ' &&
				      c->message[pl + 2] != ' ' && c->message[pl + 2] != '\0' &&
				      strlen(c->message + pl + 2) <= len));
		}
	}

	suite_criteria_apply(res, NULL, NULL);
	suite_result_counts(res, &n);
	FUZZ_REQUIRE(n.pass + n.fail + n.error + n.skip + n.miss + n.known == res->n_cases);
	FUZZ_REQUIRE(fuzz_text_ok(res->reason, SUITE_MAX_REASON));
	if (exit_status == 77)
		FUZZ_REQUIRE(res->status == SUITE_SKIP);
	else if (exit_status == 0)
		FUZZ_REQUIRE(res->status == SUITE_PASS && n.pass == 1);
	else
		FUZZ_REQUIRE(res->status == SUITE_FAIL && n.pass == 0);
	suite_result_destroy(&res);
	return 0;
}
