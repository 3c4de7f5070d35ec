/*
 * Unit tests of the output parsers, on realistic outputs of each format:
 * a kselftest run with nested subtests, an LTP run with every status,
 * TAP 14 with subtests, directives, YAML diagnostics and a bail out, and
 * truncated and garbage output.
 */
#include "suites/criteria.h"
#include "suites/parse.h"
#include "suites/tests/check.h"
#include "proto/mem.h"

#include <errno.h>

#include <stdlib.h>

static suite_result_t *s_parse(enum suite_parser p, const char *name,
			       const char *out, size_t len, int exit_status)
{
	suite_result_t *res = suite_result_new(name, 1);

	CHECK(suite_parse_output(p, out, len, exit_status, res) == 0);
	return res;
}

static const char s_ksft[] =
	"TAP version 13\n"
	"1..6\n"
	"# timeout set to 45\n"
	"# selftests: timers: posix_timers\n"
	"# TAP version 13\n"
	"# 1..9\n"
	"# ok 1 Check itimer virtual\n"
	"# ok 2 Check itimer prof\n"
	"# ok 3 Check itimer real\n"
	"# ok 4 Check timer_create() per thread\n"
	"# ok 5 Check timer_create() per process\n"
	"# not ok 6 Check timer_create() per process signal distribution\n"
	"# ok 7 check_sig_ign SIGEV_SIGNAL\n"
	"# ok 8 check_sig_ign SIGEV_THREAD_ID # SKIP not supported here\n"
	"# ok 9 check_rearm\n"
	"# # Totals: pass:7 fail:1 xfail:0 xpass:0 skip:1 error:0\n"
	"not ok 1 selftests: timers: posix_timers # exit=1\n"
	"# timeout set to 45\n"
	"# selftests: timers: nanosleep\n"
	"# Nanosleep CLOCK_REALTIME                   [OK]\n"
	"# Nanosleep CLOCK_MONOTONIC                  [OK]\n"
	"not ok 2 selftests: timers: nanosleep # TIMEOUT 45 seconds\n"
	"# timeout set to 45\n"
	"# selftests: size: get_size\n"
	"# TAP version 13\n"
	"# # Testing system size.\n"
	"# ok 1 get runtime memory use\n"
	"# # System runtime memory report (units in Kilobytes):\n"
	"#  ---\n"
	"#  Total:  2015108\n"
	"#  Free:   1817948\n"
	"#  ...\n"
	"# 1..1\n"
	"ok 3 selftests: size: get_size\n"
	"# timeout set to 45\n"
	"# selftests: breakpoints: step_after_suspend_test\n"
	"# TAP version 13\n"
	"# 1..0 # SKIP Please run the test as root - Exiting.\n"
	"ok 4 selftests: breakpoints: step_after_suspend_test # SKIP\n"
	"# timeout set to 45\n"
	"# selftests: net: socket\n"
	"# TAP version 13\n"
	"# 1..2\n"
	"# # Starting 2 tests from 1 test cases.\n"
	"# #  RUN           global.tcp ...\n"
	"# #            OK  global.tcp\n"
	"# ok 1 global.tcp\n"
	"# #  RUN           global.udp ...\n"
	"# #            OK  global.udp\n"
	"# ok 2 global.udp\n"
	"# # PASSED: 2 / 2 tests passed.\n"
	"# # Totals: pass:2 fail:0 xfail:0 xpass:0 skip:0 error:0\n"
	"ok 5 selftests: net: socket\n"
	"# timeout set to 45\n"
	"# selftests: kvm: demo\n"
	"# KTAP version 1\n"
	"# 1..1\n"
	"#     KTAP version 1\n"
	"#     # Subtest: group\n"
	"#     1..2\n"
	"#     ok 1 first\n"
	"#     not ok 2 second\n"
	"# not ok 1 group\n"
	"not ok 6 selftests: kvm: demo # exit=1\n";

static void test_kselftest(void)
{
	suite_result_t *res = s_parse(SUITE_PARSER_KSELFTEST, "kselftest", s_ksft,
				      sizeof(s_ksft) - 1, 1);

	CHECK(res->status == SUITE_PASS); /* the criteria decide */
	CHECK_CASE(res, "timers.posix_timers.Check_itimer_virtual", SUITE_PASS, NULL);
	CHECK_CASE(res, "timers.posix_timers.Check_timer_create_per_thread", SUITE_PASS, NULL);
	CHECK_CASE(res, "timers.posix_timers.Check_timer_create_per_process_signal_distribution",
		   SUITE_FAIL, NULL);
	CHECK_CASE(res, "timers.posix_timers.check_sig_ign_SIGEV_THREAD_ID", SUITE_SKIP,
		   "not supported here");
	CHECK(suite_result_find_case(res, "timers.posix_timers") == NULL);
	CHECK_CASE(res, "timers.nanosleep", SUITE_ERROR, "timeout 45 seconds");
	CHECK_CASE(res, "size.get_size.get_runtime_memory_use", SUITE_PASS, NULL);
	CHECK_CASE(res, "breakpoints.step_after_suspend_test", SUITE_SKIP,
		   "Please run the test as root");
	CHECK_CASE(res, "net.socket.global.tcp", SUITE_PASS, NULL);
	CHECK_CASE(res, "net.socket.global.udp", SUITE_PASS, NULL);
	CHECK_CASE(res, "kvm.demo.group.first", SUITE_PASS, NULL);
	CHECK_CASE(res, "kvm.demo.group.second", SUITE_FAIL, NULL);
	CHECK(res->n_cases == 16);

	suite_criteria_apply(res, NULL, NULL);
	CHECK(res->status == SUITE_FAIL);
	CHECK_REASON(res, "FAIL: 3 cases failed (max_fail 0): kselftest.timers.posix_timers."
			  "Check_timer_create_per_process_signal_distribution, "
			  "kselftest.timers.nanosleep, kselftest.kvm.demo.group.second");
	suite_result_destroy(&res);

	/* cut in the middle of a test: the test started and never reported */
	const char *cut = strstr(s_ksft, "# ok 2 global.udp");
	res = s_parse(SUITE_PARSER_KSELFTEST, "kselftest", s_ksft, (size_t)(cut - s_ksft), -1);
	CHECK_CASE(res, "net.socket.global.tcp", SUITE_PASS, NULL);
	CHECK_CASE(res, "net.socket.test2", SUITE_MISS, NULL);
	CHECK_CASE(res, "net.socket", SUITE_ERROR, "no result");
	CHECK_CASE(res, "test6", SUITE_MISS, "planned, not reported");
	CHECK(suite_result_find_case(res, "test5") == NULL);
	suite_result_destroy(&res);

	/* the older kselftest format */
	const char *old = "selftests: timers: posix_timers [PASS]\n"
			  "selftests: timers: nanosleep [FAIL]\n"
			  "selftests: x86: sysret_rip [SKIP]\n";
	res = s_parse(SUITE_PARSER_KSELFTEST, "ks", old, strlen(old), 0);
	CHECK_CASE(res, "timers.posix_timers", SUITE_PASS, NULL);
	CHECK_CASE(res, "timers.nanosleep", SUITE_FAIL, NULL);
	CHECK_CASE(res, "x86.sysret_rip", SUITE_SKIP, NULL);
	suite_result_destroy(&res);
}

static const char s_runltp[] =
	"INFO: creating /opt/ltp/output directory\n"
	"Checking for required user/group ids\n"
	"'nobody' user id and group found.\n"
	"<<<test_start>>>\n"
	"tag=fork01 stime=1701590000\n"
	"cmdline=\"fork01\"\n"
	"contacts=\"\"\n"
	"analysis=exit\n"
	"<<<test_output>>>\n"
	"tst_test.c:1690: TINFO: LTP version: 20230929\n"
	"tst_test.c:1574: TINFO: Timeout per run is 0h 00m 30s\n"
	"fork01.c:51: TPASS: fork() returned 1234\n"
	"fork01.c:58: TPASS: child pid and fork() return agree: 1234\n"
	"\n"
	"Summary:\n"
	"passed   2\n"
	"failed   0\n"
	"broken   0\n"
	"skipped  0\n"
	"warnings 0\n"
	"<<<execution_status>>>\n"
	"initiation_status=\"ok\"\n"
	"duration=1 termination_type=exited termination_id=0 corefile=no\n"
	"cutime=0 cstime=0\n"
	"<<<test_end>>>\n"
	"<<<test_start>>>\n"
	"tag=abort01 stime=1701590001\n"
	"cmdline=\"abort01\"\n"
	"<<<test_output>>>\n"
	"tst_test.c:1690: TINFO: LTP version: 20230929\n"
	"abort01.c:61: TFAIL: abort() dumped no core\n"
	"<<<execution_status>>>\n"
	"initiation_status=\"ok\"\n"
	"duration=0 termination_type=exited termination_id=1 corefile=no\n"
	"<<<test_end>>>\n"
	"<<<test_start>>>\n"
	"tag=mmap001 stime=1701590002\n"
	"cmdline=\"mmap001 -m 1\"\n"
	"<<<test_output>>>\n"
	"mmap001     1  TBROK  :  mmap001.c:147: mmap failed: errno=ENOMEM(12)\n"
	"mmap001     2  TBROK  :  mmap001.c:147: Remaining cases broken\n"
	"<<<execution_status>>>\n"
	"initiation_status=\"ok\"\n"
	"duration=0 termination_type=exited termination_id=2 corefile=no\n"
	"<<<test_end>>>\n"
	"<<<test_start>>>\n"
	"tag=fanotify01 stime=1701590003\n"
	"cmdline=\"fanotify01\"\n"
	"<<<test_output>>>\n"
	"tst_test.c:1690: TINFO: LTP version: 20230929\n"
	"tst_kconfig.c:87: TINFO: Parsing kernel config '/proc/config.gz'\n"
	"fanotify01.c:330: TCONF: fanotify not configured in kernel\n"
	"<<<execution_status>>>\n"
	"initiation_status=\"ok\"\n"
	"duration=0 termination_type=exited termination_id=32 corefile=no\n"
	"<<<test_end>>>\n"
	"<<<test_start>>>\n"
	"tag=chdir01 stime=1701590004\n"
	"cmdline=\"chdir01\"\n"
	"<<<test_output>>>\n"
	"chdir01.c:100: TPASS: chdir(\"testfile\") returned correct value\n"
	"tst_test.c:1200: TWARN: umount('mntpoint') failed with EBUSY\n"
	"<<<execution_status>>>\n"
	"initiation_status=\"ok\"\n"
	"duration=0 termination_type=exited termination_id=4 corefile=no\n"
	"<<<test_end>>>\n"
	"<<<test_start>>>\n"
	"tag=crash01 stime=1701590005\n"
	"cmdline=\"crash01\"\n"
	"<<<test_output>>>\n"
	"<<<execution_status>>>\n"
	"initiation_status=\"ok\"\n"
	"duration=3 termination_type=signaled termination_id=9 corefile=no\n"
	"<<<test_end>>>\n"
	"INFO: ltp-pan reported some tests FAIL\n"
	"LTP Version: 20230929\n"
	"\n"
	"Testcase                                           Result     Exit Value\n"
	"--------                                           ------     ----------\n"
	"fork01                                             PASS       0\n"
	"abort01                                            FAIL       1\n"
	"mmap001                                            BROK       2\n"
	"fanotify01                                         CONF       32\n"
	"chdir01                                            PASS       4\n"
	"crash01                                            FAIL       9\n"
	"access01                                           PASS       0\n"
	"\n"
	"###############################################################\n"
	"            Done executing testcases.\n";

static void test_ltp(void)
{
	suite_result_t *res = s_parse(SUITE_PARSER_LTP, "ltp", s_runltp,
				      sizeof(s_runltp) - 1, 1);

	CHECK_CASE(res, "fork01", SUITE_PASS, NULL);
	CHECK(suite_result_find_case(res, "fork01")->duration_ms == 1000);
	CHECK_CASE(res, "abort01", SUITE_FAIL, "TFAIL: abort() dumped no core");
	CHECK_CASE(res, "mmap001", SUITE_ERROR, "TBROK: mmap001.c:147: mmap failed");
	CHECK_CASE(res, "fanotify01", SUITE_SKIP, "TCONF: fanotify not configured");
	CHECK_CASE(res, "chdir01", SUITE_PASS, "TWARN: umount");
	CHECK_CASE(res, "crash01", SUITE_ERROR, "killed by signal 9");
	CHECK_CASE(res, "access01", SUITE_PASS, "summary table");
	CHECK(res->n_cases == 7);
	suite_criteria_apply(res, NULL, NULL);
	CHECK(res->status == SUITE_FAIL);
	CHECK_REASON(res, "3 cases failed (max_fail 0): ltp.abort01, ltp.mmap001, ltp.crash01");
	suite_result_destroy(&res);

	/* cut inside a test's output: it started, no exit status */
	const char *cut = strstr(s_runltp, "mmap001     2");
	res = s_parse(SUITE_PARSER_LTP, "ltp", s_runltp, (size_t)(cut - s_runltp), -1);
	CHECK_CASE(res, "fork01", SUITE_PASS, NULL);
	CHECK_CASE(res, "mmap001", SUITE_ERROR, "no exit status");
	CHECK(res->n_cases == 3);
	suite_result_destroy(&res);

	/* test programs run alone (no runltp), new and old library */
	const char *alone =
		"tst_test.c:1690: TINFO: LTP version: 20230929\n"
		"tst_kconfig.c:87: TINFO: Parsing kernel config '/proc/config.gz'\n"
		"fanotify10.c:900: TCONF: FAN_MARK_FILESYSTEM not supported\n"
		"\n"
		"Summary:\npassed   0\nfailed   0\nbroken   0\nskipped  1\nwarnings 0\n"
		"tst_test.c:1690: TINFO: LTP version: 20230929\n"
		"pipe01.c:45: TPASS: pipe() functionality is correct\n"
		"pipe01.c:50: TFAIL: read() returned 3, expected 5\n"
		"\n"
		"Summary:\npassed   1\nfailed   1\nbroken   0\nskipped  0\nwarnings 0\n"
		"getpid01    1  TPASS  :  getpid() returned 42\n";
	res = s_parse(SUITE_PARSER_LTP, "ltp", alone, strlen(alone), 1);
	CHECK_CASE(res, "fanotify10", SUITE_SKIP, "FAN_MARK_FILESYSTEM");
	CHECK_CASE(res, "pipe01", SUITE_FAIL, "read() returned 3");
	CHECK_CASE(res, "getpid01", SUITE_PASS, NULL);
	CHECK(res->n_cases == 3);
	suite_result_destroy(&res);

	res = s_parse(SUITE_PARSER_LTP, "ltp", "command not found\n", 18, 127);
	CHECK(res->status == SUITE_ERROR);
	CHECK_REASON(res, "no LTP results in the output (exit status 127)");
	suite_result_destroy(&res);
}

static const char s_tap14[] =
	"TAP version 14\n"
	"1..4\n"
	"# Subtest: files\n"
	"    1..2\n"
	"    ok 1 - create\n"
	"    ok 2 - rename\n"
	"ok 1 - files\n"
	"    # Subtest: links\n"
	"    1..3\n"
	"    ok 1 - hard\n"
	"    not ok 2 - soft # TODO symlinks unsupported\n"
	"    ok 3 - dangling # skip no /tmp\n"
	"ok 2 - links\n"
	"not ok 3 - fsync \\# of calls # time=3ms\n"
	"  ---\n"
	"  message: \"fsync returned EIO\"\n"
	"  duration_ms: 12.5\n"
	"  ...\n"
	"ok 4 - io.read: big file (1 MiB)\n"
	"# metric read_rate 812.5 MB/s\n"
	"# metric bad 1.2.3 MB/s\n";

static void test_tap(void)
{
	suite_result_t *res = s_parse(SUITE_PARSER_TAP, "fs-tmpfs", s_tap14,
				      sizeof(s_tap14) - 1, 1);
	const suite_case_t *c;

	CHECK(res->status == SUITE_PASS);
	CHECK_CASE(res, "files.create", SUITE_PASS, NULL);
	CHECK_CASE(res, "files.rename", SUITE_PASS, NULL);
	CHECK_CASE(res, "links.hard", SUITE_PASS, NULL);
	CHECK_CASE(res, "links.soft", SUITE_SKIP, "TODO: symlinks unsupported");
	CHECK_CASE(res, "links.dangling", SUITE_SKIP, "no /tmp");
	CHECK_CASE(res, "fsync_of_calls", SUITE_FAIL, "time=3ms");
	c = suite_result_find_case(res, "fsync_of_calls");
	CHECK(c && c->duration_ms == 12);
	CHECK(c && strcmp(c->path, "fs-tmpfs.fsync_of_calls") == 0);
	CHECK_CASE(res, "io.read_big_file_1_MiB_", SUITE_PASS, NULL);
	CHECK(res->n_cases == 7);
	CHECK(res->n_metrics == 1 && suite_result_find_metric(res, "read_rate") &&
	      suite_result_find_metric(res, "read_rate")->value == 812.5);
	CHECK(res->n_metrics == 1 && suite_result_find_metric(res, "read_rate") &&
	      suite_result_find_metric(res, "read_rate")->value == 812.5);
	suite_criteria_apply(res, NULL, NULL);
	CHECK(res->status == SUITE_FAIL);
	CHECK_REASON(res, "FAIL: 1 case failed (max_fail 0): fs-tmpfs.fsync_of_calls");
	suite_result_destroy(&res);

	/* bail out: the rest of the plan is missing, the run is an error */
	const char *bail = "TAP version 13\n1..5\nok 1 - setup\n"
			   "ok 2 - create # SKIP no tmpfs\nnot ok 3 - write\n"
			   "Bail out! disk full\nok 4 - never\n";
	res = s_parse(SUITE_PARSER_TAP, "t", bail, strlen(bail), 1);
	CHECK(res->status == SUITE_ERROR);
	CHECK_REASON(res, "bail out: disk full (3 of 5 planned tests reported)");
	CHECK_CASE(res, "setup", SUITE_PASS, NULL);
	CHECK_CASE(res, "create", SUITE_SKIP, "no tmpfs");
	CHECK_CASE(res, "write", SUITE_FAIL, NULL);
	CHECK_CASE(res, "test4", SUITE_MISS, "bail out");
	CHECK_CASE(res, "test5", SUITE_MISS, "bail out");
	CHECK(suite_result_find_case(res, "never") == NULL);
	suite_criteria_apply(res, NULL, NULL);
	CHECK(res->status == SUITE_ERROR);
	suite_result_destroy(&res);

	/* truncated: planned tests that never reported are MISS */
	const char *cut = "TAP version 13\n1..4\nok 1 - a\nok 2 - b\nnot ok 3 - c\nok 4 - d tr";
	res = s_parse(SUITE_PARSER_TAP, "t", cut, strlen(cut) - 10, -1);
	CHECK_CASE(res, "c", SUITE_FAIL, NULL);
	CHECK_CASE(res, "test4", SUITE_MISS, "planned, not reported");
	suite_criteria_apply(res, NULL, NULL);
	CHECK(res->status == SUITE_FAIL);
	CHECK_REASON(res, "2 cases failed (max_fail 0): t.c, t.test4");
	suite_result_destroy(&res);

	/* an absurd plan makes a bounded number of MISS cases */
	res = s_parse(SUITE_PARSER_TAP, "t", "1..100000\nok 1 a\n", 17, -1);
	CHECK(res->n_cases == 1 + SUITE_MAX_MISS_CASES + 1);
	CHECK_CASE(res, "test258-100000", SUITE_MISS, "numbers 258 to 100000");
	suite_result_destroy(&res);

	/* plan at the end, lost: a note says so */
	res = s_parse(SUITE_PARSER_TAP, "t", "ok 1 a\nok 2 b\n", 14, 0);
	suite_criteria_apply(res, NULL, NULL);
	CHECK(res->status == SUITE_PASS);
	CHECK_REASON(res, "no TAP plan");
	suite_result_destroy(&res);

	/* skip everything */
	res = s_parse(SUITE_PARSER_TAP, "net", "1..0 # SKIP no loopback interface\n", 34, 0);
	CHECK(res->status == SUITE_SKIP);
	CHECK_REASON(res, "no loopback interface");
	suite_criteria_apply(res, NULL, NULL);
	CHECK(res->status == SUITE_SKIP);
	suite_result_destroy(&res);

	/* all ok, but run.sh failed */
	res = s_parse(SUITE_PARSER_TAP, "t", "1..1\nok 1 a\n", 12, 3);
	CHECK(res->status == SUITE_ERROR);
	CHECK_REASON(res, "exited with status 3");
	suite_result_destroy(&res);

	/* duplicate names stay apart */
	res = s_parse(SUITE_PARSER_TAP, "t", "1..3\nok 1 a\nnot ok 2 a\nok 3 a\n", 31, 1);
	CHECK_CASE(res, "a", SUITE_PASS, NULL);
	CHECK_CASE(res, "a-2", SUITE_FAIL, NULL);
	CHECK_CASE(res, "a-3", SUITE_PASS, NULL);
	suite_result_destroy(&res);
}

static void test_garbage(void)
{
	static const enum suite_parser ps[] = {
		SUITE_PARSER_TAP, SUITE_PARSER_KSELFTEST, SUITE_PARSER_LTP,
		SUITE_PARSER_METRICS, SUITE_PARSER_EXIT, SUITE_PARSER_KLOG,
	};
	char junk[8192];
	unsigned x = 12345;

	for (size_t i = 0; i < sizeof(junk); i++) {
		x = x * 1103515245 + 12345;
		junk[i] = (char)(x >> 16);
	}
	junk[100] = '\0';
	for (size_t i = 0; i < sizeof(ps) / sizeof(ps[0]); i++) {
		suite_result_t *res = s_parse(ps[i], "g", junk, sizeof(junk), 0);
		/* exit and klog judge any bytes: a status, a log with no report */
		CHECK(res->status == SUITE_ERROR || ps[i] == SUITE_PARSER_EXIT ||
		      ps[i] == SUITE_PARSER_KLOG);
		suite_criteria_apply(res, NULL, NULL);
		suite_result_destroy(&res);
	}
	/* NUL bytes inside a line do not cut it */
	const char nul[] = "1..1\nok 1 a\0b\n";
	suite_result_t *res = s_parse(SUITE_PARSER_TAP, "t", nul, sizeof(nul) - 1, 0);
	CHECK_CASE(res, "a_b", SUITE_PASS, NULL);
	suite_result_destroy(&res);

	/* very deep nesting is bounded */
	char deep[4096] = "1..1\n";
	for (int d = 1; d < 40; d++) {
		size_t n = strlen(deep);
		snprintf(deep + n, sizeof(deep) - n, "%*sok 1 x\n", d * 4, "");
	}
	strcat(deep, "ok 1 top\n");
	res = s_parse(SUITE_PARSER_TAP, "t", deep, strlen(deep), 0);
	CHECK_REASON(res, "deeper than");
	suite_result_destroy(&res);
}

static void test_metrics(void)
{
	const char *out = "# membw: 64 MiB arrays, 5 runs\n"
			  "copy 10234.5 MB/s\n"
			  "scale 9876 MB/s\n"
			  "add 1.1e4 MB/s\n"
			  "triad nan MB/s\n"
			  "copy 1 MB/s\n"
			  "some noise here\n";
	suite_metric_decl_t decls[] = {
		{ "copy", "MB/s", SUITE_BETTER_HIGHER },
		{ "scale", "MB/s", SUITE_BETTER_HIGHER },
		{ "add", "GB/s", SUITE_BETTER_HIGHER },
		{ "triad", "MB/s", SUITE_BETTER_HIGHER },
	};
	suite_result_t *res = s_parse(SUITE_PARSER_METRICS, "membw", out, strlen(out), 0);
	const suite_metric_t *m;

	m = suite_result_find_metric(res, "copy");
	CHECK(m && m->value == 10234.5 && strcmp(m->unit, "MB/s") == 0);
	m = suite_result_find_metric(res, "add");
	CHECK(m && m->value == 11000);
	CHECK(suite_result_find_metric(res, "triad") == NULL);
	CHECK_REASON(res, "2 lines not understood");
	CHECK_REASON(res, "1 repeated metrics ignored");
	suite_result_declare_metrics(res, decls, 4);
	CHECK_CASE(res, "metrics.triad", SUITE_MISS, "declared metric not reported");
	CHECK_CASE(res, "metrics.add", SUITE_ERROR, "unit 'MB/s', declared 'GB/s'");
	suite_criteria_apply(res, NULL, NULL);
	CHECK(res->status == SUITE_FAIL);
	suite_result_destroy(&res);

	res = s_parse(SUITE_PARSER_METRICS, "fio", "skip: fio not installed\n", 24, 0);
	CHECK(res->status == SUITE_SKIP);
	CHECK_REASON(res, "fio not installed");
	suite_result_declare_metrics(res, decls, 4);
	CHECK(res->n_cases == 0);
	suite_result_destroy(&res);
}

static void test_exit(void)
{
	suite_result_t *res = s_parse(SUITE_PARSER_EXIT, "smoke", "all good\n", 9, 0);

	CHECK_CASE(res, "run", SUITE_PASS, NULL);
	suite_criteria_apply(res, NULL, NULL);
	CHECK(res->status == SUITE_PASS);
	suite_result_destroy(&res);
	res = s_parse(SUITE_PARSER_EXIT, "smoke", "x\nno watchdog device\n", 20, 77);
	CHECK(res->status == SUITE_SKIP);
	CHECK_REASON(res, "no watchdog device");
	suite_result_destroy(&res);
	res = s_parse(SUITE_PARSER_EXIT, "smoke", "bad thing\n", 10, 2);
	CHECK_CASE(res, "run", SUITE_FAIL, "exit status 2: bad thing");
	suite_result_destroy(&res);
	/* a console's carriage returns and blank lines around the last line */
	res = s_parse(SUITE_PARSER_EXIT, "smoke", "bad thing\r\n\r \v\n\r\n", 17, 3);
	CHECK_CASE(res, "run", SUITE_FAIL, NULL);
	CHECK(strcmp(res->cases[0].message, "exit status 3: bad thing") == 0);
	suite_result_destroy(&res);
	res = s_parse(SUITE_PARSER_EXIT, "smoke", "\r\fno rtc\n", 9, 77);
	CHECK(res->status == SUITE_SKIP && strcmp(res->reason, "no rtc") == 0);
	suite_result_destroy(&res);
}

/* Read a captured kernel log of suites/tests/klog (see capture.sh there). */
static char *s_slurp(const char *dir, const char *name, size_t *ret_len)
{
	char path[512];
	char *buf = xmalloc(1 << 20);
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "rb");
	CHECK(f != NULL);
	*ret_len = f ? fread(buf, 1, (1 << 20) - 1, f) : 0;
	if (f)
		fclose(f);
	buf[*ret_len] = '\0';
	return buf;
}

static const char *const s_klog_cases[] = {
	"no_oops", "no_bug", "no_warning", "no_panic", "no_call_trace", "no_lockup_or_stall",
};

/* Parse a kernel log by the klog parser with boot-health's criteria; the
 * cases named in fails (a string of case names) must FAIL, the others
 * PASS, and the first failing line of want_case must contain want. */
static void s_klog_expect(const char *what, const char *out, size_t len,
			  const char *fails, const char *want_case, const char *want)
{
	char *must[] = { "no_oops", "no_panic" };
	lab_criteria_t crit = { .max_fail = 0, .must_pass = must, .n_must_pass = 2 };
	suite_result_t *res = s_parse(SUITE_PARSER_KLOG, "boot-health", out, len, 0);
	int before = s_failures;

	CHECK_CASE(res, "dmesg_readable", SUITE_PASS, NULL);
	for (size_t i = 0; i < sizeof(s_klog_cases) / sizeof(s_klog_cases[0]); i++) {
		const char *name = s_klog_cases[i];
		bool fail = false;

		for (const char *p = strstr(fails, name); p; p = strstr(p + 1, name))
			if ((p == fails || p[-1] == ' ') && (p[strlen(name)] == ' ' || !p[strlen(name)]))
				fail = true;
		if (fail && want_case && want && strcmp(name, want_case) == 0)
			CHECK_CASE(res, name, SUITE_FAIL, want);
		else
			CHECK_CASE(res, name, fail ? SUITE_FAIL : SUITE_PASS, NULL);
	}
	suite_criteria_apply(res, &crit, NULL);
	CHECK(res->status == (fails[0] ? SUITE_FAIL : SUITE_PASS));
	if (s_failures != before)
		fprintf(stderr, "  (in the klog case '%s')\n", what);
	suite_result_destroy(&res);
}

static void s_klog_file(const char *dir, const char *name, const char *fails,
			const char *want_case, const char *want)
{
	size_t len;
	char *log = s_slurp(dir, name, &len);

	s_klog_expect(name, log, len, fails, want_case, want);
	free(log);
}

static void test_klog(const char *dir)
{
	suite_result_t *res;
	size_t len;
	char *log;

	/* real kernel output: Debian's 6.1 cloud kernel on the QEMU board,
	 * made to report by lmsplat.ko (capture.sh), and this host's own boot
	 * log with its SRSO notice */
	s_klog_file(dir, "warn.log", "no_warning no_call_trace", "no_warning",
		    "WARNING: CPU: 0 PID: 82 at ");
	s_klog_file(dir, "bug.log", "no_bug no_oops no_call_trace", "no_bug", "kernel BUG at ");
	s_klog_file(dir, "oops.log", "no_bug no_oops no_call_trace", "no_oops",
		    "Oops: 0002 [#1] PREEMPT SMP NOPTI");
	s_klog_file(dir, "softlockup.log", "no_lockup_or_stall no_call_trace",
		    "no_lockup_or_stall",
		    "4 reports, first: [    5.624906] watchdog: BUG: soft lockup - CPU#0 stuck for 3s!");
	s_klog_file(dir, "hungtask.log", "no_lockup_or_stall no_call_trace",
		    "no_lockup_or_stall", "INFO: task lmsplat-hang:83 blocked for more than 2 seconds");
	s_klog_file(dir, "panic.log", "no_panic no_call_trace", "no_panic",
		    "Kernel panic - not syncing: sysrq triggered crash");
	s_klog_file(dir, "host-srso.log", "", NULL, NULL);
	s_klog_file(dir, "notices.log", "", NULL, NULL);
	s_klog_file(dir, "wrapped.log", "", NULL, NULL);

	/* the boot time: the hand-over to init, else the header's uptime */
	log = s_slurp(dir, "notices.log", &len);
	res = s_parse(SUITE_PARSER_KLOG, "boot-health", log, len, 0);
	CHECK_CASE(res, "boot_time", SUITE_PASS, "0.357100 s, from init hand-over");
	CHECK(suite_result_find_metric(res, "boot_time") &&
	      suite_result_find_metric(res, "boot_time")->value == 0.3571);
	suite_result_destroy(&res);
	free(log);
	{
		static const char up[] = "labmesh-klog: uptime 12.50\nno timestamps here\n";
		res = s_parse(SUITE_PARSER_KLOG, "boot-health", up, sizeof(up) - 1, 0);
		CHECK_CASE(res, "boot_time", SUITE_PASS, "12.50 s, from /proc/uptime");
		suite_result_destroy(&res);
	}

	/* forms that were not captured here, as the kernel prints them */
	{
		static const char lockdep[] =
			"[   12.000001] ======================================================\n"
			"[   12.000002] WARNING: possible circular locking dependency detected\n"
			"[   12.000003] 6.1.0 #1 Not tainted\n";
		static const char ubsan[] =
			"[    3.1] ================================================================================\n"
			"[    3.2] UBSAN: array-index-out-of-bounds in drivers/foo/bar.c:12:3\n";
		static const char arm64[] =
			"[    2.1] Unable to handle kernel NULL pointer dereference at virtual address 0000000000000000\n"
			"[    2.2] Internal error: Oops: 0000000096000045 [#1] PREEMPT SMP\n"
			"[    2.3] Call trace:\n";
		static const char gpf[] =
			"<4>[    5.5] general protection fault, probably for non-canonical address 0xdead000000000122: 0000 [#1] PREEMPT SMP NOPTI\n";
		static const char old[] = "WARNING: at kernel/sched.c:5914 sub_preempt_count+0x4a/0x60()\n";
		static const char caller[] =
			"[    1.000000][    T1] WARNING: CPU: 1 PID: 1 at mm/slab.c:10 f+0x1/0x2\n";
		static const char cut[] =
			"[    1.0] ------------[ cut here ]------------\n[    1.1] something else\n";
		static const char rcu[] =
			"[   30.0] rcu: INFO: rcu_sched self-detected stall on CPU\n";
		static const char hard[] =
			"[   30.0] NMI watchdog: Watchdog detected hard LOCKUP on cpu 1\n";

		s_klog_expect("lockdep", lockdep, sizeof(lockdep) - 1, "no_warning", "no_warning",
			      "possible circular locking");
		s_klog_expect("ubsan", ubsan, sizeof(ubsan) - 1, "no_warning", "no_warning", "UBSAN");
		s_klog_expect("arm64", arm64, sizeof(arm64) - 1, "no_oops no_call_trace", "no_oops",
			      "Unable to handle kernel NULL pointer");
		s_klog_expect("gpf", gpf, sizeof(gpf) - 1, "no_oops", "no_oops",
			      "general protection fault");
		s_klog_expect("old", old, sizeof(old) - 1, "no_warning", "no_warning",
			      "kernel/sched.c:5914");
		s_klog_expect("caller", caller, sizeof(caller) - 1, "no_warning", NULL, NULL);
		s_klog_expect("cut", cut, sizeof(cut) - 1, "no_warning", "no_warning", "cut here");
		s_klog_expect("rcu", rcu, sizeof(rcu) - 1, "no_lockup_or_stall", NULL, NULL);
		s_klog_expect("hard", hard, sizeof(hard) - 1, "no_lockup_or_stall", NULL, NULL);
	}

	/* an unreadable log is SKIP with run.sh's reason; nothing is ERROR */
	res = s_parse(SUITE_PARSER_KLOG, "boot-health", "kernel log not readable\n", 24, 77);
	CHECK(res->status == SUITE_SKIP && res->n_cases == 0);
	CHECK_REASON(res, "kernel log not readable");
	suite_result_destroy(&res);
	res = s_parse(SUITE_PARSER_KLOG, "boot-health", "labmesh-klog: uptime 1.0\n", 25, 0);
	CHECK(res->status == SUITE_ERROR && res->n_cases == 0);
	suite_result_destroy(&res);
	res = s_parse(SUITE_PARSER_KLOG, "boot-health",
		      "labmesh-klog: uptime 1.0\nlabmesh-klog: lines 0\n", 47, 0);
	CHECK(res->status == SUITE_ERROR && res->n_cases == 0);
	suite_result_destroy(&res);
	{
		/* a log that wrapped past boot: nothing passed the filter */
		static const char wrapped[] =
			"labmesh-klog: uptime 86400.25\nlabmesh-klog: lines 2048\n";

		s_klog_expect("wrapped", wrapped, sizeof(wrapped) - 1, "", NULL, NULL);
		res = s_parse(SUITE_PARSER_KLOG, "boot-health", wrapped, sizeof(wrapped) - 1, 0);
		CHECK_CASE(res, "boot_time", SUITE_PASS, "86400.25 s, from /proc/uptime");
		suite_result_destroy(&res);
	}
	res = s_parse(SUITE_PARSER_KLOG, "boot-health", "[ 1.0] x\n", 9, 2);
	CHECK(res->status == SUITE_ERROR);
	CHECK_REASON(res, "status 2");
	suite_result_destroy(&res);
}

static void test_paths(void)
{
	char out[SUITE_MAX_PATH + 1];
	char longname[600];

	CHECK(strcmp(suite_path_sanitize(out, sizeof(out), " a b..c/d ", 10, 8), "a_b.c_d") == 0);
	CHECK(strcmp(suite_path_sanitize(out, sizeof(out), "...", 3, 8), "unnamed") == 0);
	CHECK(strcmp(suite_path_sanitize(out, sizeof(out), "a.b.c.d", 7, 2), "a.b") == 0);
	memset(longname, 'x', sizeof(longname));
	suite_path_sanitize(out, sizeof(out), longname, sizeof(longname), 8);
	CHECK(strlen(out) == SUITE_MAX_SEGMENT);
	for (size_t i = 0; i < sizeof(longname); i += 10)
		longname[i] = '.';
	suite_path_sanitize(out, sizeof(out), longname, sizeof(longname), 100);
	CHECK(strlen(out) <= SUITE_MAX_PATH && out[strlen(out) - 1] != '.');

	suite_result_t *res = suite_result_new("s", 1);
	for (int i = 0; i < SUITE_MAX_CASES + 5; i++)
		suite_result_add_case(res, "same", 4, SUITE_PASS, -1, NULL, 0);
	CHECK(res->n_cases == SUITE_MAX_CASES && res->dropped_cases == 5);
	CHECK(suite_result_find_case(res, "same-2") && suite_result_find_case(res, "same-20000"));
	CHECK(suite_result_add_metric(res, "bad name", 1, "x", SUITE_BETTER_LOWER) == -EINVAL);
	CHECK(suite_result_add_metric(res, "ok", 1.0 / 0.0, "x", SUITE_BETTER_LOWER) == -EINVAL);
	suite_result_destroy(&res);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: test-suites-parse KLOG_DIR\n");
		return 2;
	}
	test_kselftest();
	test_ltp();
	test_tap();
	test_garbage();
	test_metrics();
	test_exit();
	test_klog(argv[1]);
	test_paths();
	if (s_failures) {
		fprintf(stderr, "%d checks failed\n", s_failures);
		return 1;
	}
	printf("parse: all checks passed\n");
	return 0;
}
