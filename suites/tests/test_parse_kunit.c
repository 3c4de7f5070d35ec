/*
 * Unit tests of the KUnit parser (parse_kunit.c): KTAP in a kernel's
 * console as the 6.1 kernel prints it (nested suites, parameterised cases,
 * skips with reasons, other kernel messages in between, printk prefixes),
 * a case patched to fail, a kernel that panics in the middle of KUnit, a
 * console without KUnit, and the real boot console of the KUnit kernel the
 * QEMU board booted (tests/kunit/, given as the first argument).
 */
#include "suites/criteria.h"
#include "suites/parse.h"
#include "suites/tests/check.h"
#include "proto/buf.h"
#include "proto/mem.h"

#include <stdlib.h>

static suite_result_t *s_parse(const char *out, size_t len, int exit_status)
{
	suite_result_t *res = suite_result_new("kunit", 1);
	lab_criteria_t crit = { .max_fail = 0 };

	CHECK(suite_parse_output(SUITE_PARSER_KUNIT, out, len, exit_status, res) == 0);
	suite_criteria_apply(res, &crit, NULL);
	return res;
}

/* Two suites as 6.1 prints them on a console with printk time on: one
 * with a skip, a parameterised case and a case patched to fail (its
 * report before its result line, continuation lines without '#'). */
static const char s_fail[] =
	"[    0.000000] Linux version 6.1.0 (gcc 12) #1 SMP\n"
	"[    0.512345] KTAP version 1\n"
	"[    0.512350] 1..2\n"
	"[    0.512400]     KTAP version 1\n"
	"[    0.512410]     # Subtest: example\n"
	"[    0.512420]     1..4\n"
	"[    0.512500]     ok 1 example_simple_test\n"
	"[    0.512600]     ok 2 example_skip_test # SKIP this test should be skipped\n"
	"[    0.512700]         KTAP version 1\n"
	"[    0.512710]         # Subtest: example_params_test\n"
	"[    0.512800]         ok 1 example value 1\n"
	"[    0.512900]         ok 2 example value 0 # SKIP unsupported param value\n"
	"[    0.513000]     # example_params_test: pass:1 fail:0 skip:1 total:2\n"
	"[    0.513010]     ok 3 example_params_test\n"
	"[    0.513100] random: crng init done\n"
	"[    0.513150]     # example_fail_test: initializing\n"
	"[    0.513200]     # example_fail_test: EXPECTATION FAILED at lib/kunit/kunit-example-test.c:29\n"
	"[    0.513210]     Expected 1 + 1 == 3, but\n"
	"[    0.513220]         1 + 1 == 2 (0x2)\n"
	"[    0.513230]     # example_fail_test: EXPECTATION FAILED at lib/kunit/kunit-example-test.c:30\n"
	"[    0.513300]     not ok 4 example_fail_test\n"
	"[    0.513400] # example: pass:2 fail:1 skip:1 total:4\n"
	"[    0.513410] # Totals: pass:3 fail:1 skip:2 total:6\n"
	"[    0.513500] not ok 1 example\n"
	"[    0.513600]     KTAP version 1\n"
	"[    0.513610]     # Subtest: time_test_cases\n"
	"[    0.513620]     1..1\n"
	"[    0.600000]     ok 1 time64_to_tm_test_date_range\n"
	"[    0.600100] # time_test_cases: pass:1 fail:0 skip:0 total:1\n"
	"[    0.600200] ok 2 time_test_cases\n"
	"[    0.700000] Run /init as init process\n"
	"[    9.000000] not ok 1 something else the board printed\n";

static void test_fail(void)
{
	suite_result_t *res = s_parse(s_fail, sizeof(s_fail) - 1, 0);

	CHECK_CASE(res, "example.example_simple_test", SUITE_PASS, NULL);
	CHECK_CASE(res, "example.example_skip_test", SUITE_SKIP,
		   "this test should be skipped");
	CHECK_CASE(res, "example.example_params_test.example_value_1", SUITE_PASS, NULL);
	CHECK_CASE(res, "example.example_params_test.example_value_0", SUITE_SKIP,
		   "unsupported param value");
	CHECK_CASE(res, "example.example_fail_test", SUITE_FAIL,
		   "EXPECTATION FAILED at lib/kunit/kunit-example-test.c:29");
	CHECK_CASE(res, "time_test_cases.time64_to_tm_test_date_range", SUITE_PASS,
		   NULL);
	/* what the board printed after KUnit's plan was complete is not KUnit's */
	CHECK(suite_result_find_case(res, "something") == NULL);
	CHECK(suite_result_find_case(res, "test3") == NULL);
	CHECK(res->status == SUITE_FAIL);
	CHECK_REASON(res, "kunit.example.example_fail_test");
	suite_result_destroy(&res);
}

/* A panic in the middle of the second suite, on a console without
 * timestamps (the boot before init): the case that was running is ERROR
 * with the kernel's first report, the rest of the plan MISS. */
static const char s_panic[] =
	"Linux version 6.1.0 (gcc 12) #1\n"
	"KTAP version 1\n"
	"1..3\n"
	"    KTAP version 1\n"
	"    # Subtest: hash\n"
	"    1..1\n"
	"    ok 1 test_string_or\n"
	"ok 1 hash\n"
	"    KTAP version 1\n"
	"    # Subtest: list-kunit-test\n"
	"    1..4\n"
	"    ok 1 list_test_list_init\n"
	"    ok 2 list_test_list_add\n"
	"BUG: kernel NULL pointer dereference, address: 0000000000000000\n"
	"#PF: supervisor write access in kernel mode\n"
	"Oops: 0002 [#1] PREEMPT NOPTI\n"
	"Call Trace:\n"
	" <TASK>\n"
	"Kernel panic - not syncing: Fatal exception\n";

static void test_panic(void)
{
	suite_result_t *res = s_parse(s_panic, sizeof(s_panic) - 1, 0);
	suite_counts_t n;

	CHECK_CASE(res, "hash.test_string_or", SUITE_PASS, NULL);
	CHECK_CASE(res, "list-kunit-test.list_test_list_add", SUITE_PASS, NULL);
	CHECK_CASE(res, "list-kunit-test.test3", SUITE_ERROR,
		   "BUG: kernel NULL pointer dereference");
	CHECK_CASE(res, "list-kunit-test.test4", SUITE_MISS, NULL);
	CHECK_CASE(res, "test3", SUITE_MISS, NULL);
	suite_result_counts(res, &n);
	CHECK(n.error == 1 && n.pass == 3);
	CHECK(res->status == SUITE_ERROR);
	CHECK_REASON(res, "KUnit did not finish (1 of 3 suites reported)");
	CHECK_REASON(res, "BUG: kernel NULL pointer dereference");
	suite_result_destroy(&res);

	/* the console cut after a suite's last case: that suite is ERROR */
	{
		static const char cut[] = "KTAP version 1\n1..1\n"
					  "    # Subtest: s\n    1..1\n    ok 1 a\n";
		res = s_parse(cut, sizeof(cut) - 1, 0);
		CHECK_CASE(res, "s.a", SUITE_PASS, NULL);
		CHECK_CASE(res, "s", SUITE_ERROR, "the console ended here");
		CHECK(res->status == SUITE_ERROR);
		suite_result_destroy(&res);
	}
}

static void test_none(void)
{
	static const char plain[] = "Linux version 6.1.0\nRun /init as init process\n"
				    "ok 1 not KUnit\n";
	static const char unreadable[] = "kernel log not readable (dmesg_restrict)\n";
	suite_result_t *res = s_parse(plain, sizeof(plain) - 1, 0);

	CHECK(res->status == SUITE_SKIP && res->n_cases == 0);
	CHECK_REASON(res, "no KUnit results");
	suite_result_destroy(&res);
	res = s_parse(unreadable, sizeof(unreadable) - 1, 77);
	CHECK(res->status == SUITE_SKIP && res->n_cases == 0);
	CHECK_REASON(res, "kernel log not readable");
	suite_result_destroy(&res);
	res = s_parse("", 0, 0);
	CHECK(res->status == SUITE_SKIP);
	suite_result_destroy(&res);
	/* dmesg -r's level prefix and a caller id */
	{
		static const char raw[] = "<6>[    0.5] KTAP version 1\n<6>[    0.5] 1..1\n"
					  "<6>[    0.5] [    T1]     # Subtest: s\n"
					  "<6>[    0.5] [    T1]     1..1\n"
					  "<6>[    0.5] [    T1]     ok 1 a\n"
					  "<6>[    0.5] ok 1 s\n";
		res = s_parse(raw, sizeof(raw) - 1, 0);
		CHECK_CASE(res, "s.a", SUITE_PASS, NULL);
		CHECK(res->status == SUITE_PASS);
		suite_result_destroy(&res);
	}
}

/* Read a fixture of tests/kunit. */
static char *s_slurp(const char *dir, const char *name, size_t *ret_len)
{
	char path[512];
	char *buf = xmalloc(4 << 20);
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "rb");
	CHECK(f != NULL);
	*ret_len = f ? fread(buf, 1, (4 << 20) - 1, f) : 0;
	if (f)
		fclose(f);
	buf[*ret_len] = '\0';
	return buf;
}

/* The boot console of the QEMU board's KUnit kernel (tests/kunit/). */
static void test_real(const char *dir)
{
	size_t len;
	char *log = s_slurp(dir, "boot-console.log", &len);
	suite_result_t *res = s_parse(log, len, 0);
	suite_counts_t n;

	suite_result_counts(res, &n);
	CHECK(res->status == SUITE_PASS);
	CHECK(n.pass >= 100 && n.fail == 0 && n.error == 0 && n.miss == 0);
	CHECK_CASE(res, "example.example_skip_test", SUITE_SKIP,
		   "this test should be skipped");
	CHECK_CASE(res, "list-kunit-test.list_test_list_init", SUITE_PASS, NULL);
	if (res->status != SUITE_PASS)
		s_dump(res);
	suite_result_destroy(&res);

	/* the same console as if the kernel had panicked after 50 cases */
	{
		buf_t cut;
		const char *p = log;

		for (int k = 0; k < 50 && p; k++) {
			p = strstr(p, "\n    ok ");
			if (p)
				p++;
		}
		CHECK(p != NULL);
		p = p ? strchr(p, '\n') : NULL;
		buf_init(&cut, 0);
		buf_append(&cut, log, p ? (size_t)(p - log) + 1 : len);
		buf_puts(&cut, "Kernel panic - not syncing: Attempted to kill init!\r\n");
		res = s_parse((const char *)cut.data, cut.len, 0);
		suite_result_counts(res, &n);
		CHECK(res->status == SUITE_ERROR && n.error == 1 && n.miss >= 1);
		CHECK(n.pass + n.skip == 50);
		CHECK_REASON(res, "Kernel panic - not syncing: Attempted to kill init!");
		if (res->status != SUITE_ERROR || n.error != 1)
			s_dump(res);
		suite_result_destroy(&res);
		buf_free(&cut);
	}
	free(log);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: test-suites-parse-kunit KUNIT_DIR\n");
		return 2;
	}
	test_fail();
	test_panic();
	test_none();
	test_real(argv[1]);
	if (s_failures) {
		fprintf(stderr, "%d checks failed\n", s_failures);
		return 1;
	}
	printf("kunit parser OK\n");
	return 0;
}
