/*
 * Unit tests of the results index and its answers, on synthetic run
 * records signed with real keys and stored through the store API:
 * the matrix, list and history views; compare naming exactly the
 * regressed paths per board (exit 1) and a slower benchmark with its
 * percent; reindex giving byte-identical answers, and a second store
 * that received the same records in another order answering byte for
 * byte alike (what three nodes do); store check finding a
 * record corrupted in the SQLite file; blob eviction by LRU; the small
 * parsers (since, status, sizes, paths) and XML escaping.
 */
#include "proto/tests/check.h"
#include "node/results/export.h"
#include "node/results/index.h"
#include "node/results/query.h"
#include "node/results/results.h"
#include "node/results/rerun.h"
#include "labs/lab.h"
#include "node/cli/results_cli.h"
#include "node/results/results_synth.h"
#include "node/store/blob.h"

#include "proto/buf.h"
#include "proto/mem.h"
#include "proto/record.h"
#include "proto/types.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int check_failures;

#define T0 1793491200000ULL /* 2026-11-01T00:00:00Z */
#define TREE "https://git.kernel.org/pub/scm/linux/kernel/git/torvalds/linux.git"

static char s_home[256];
static char s_ca[41], s_cb[41];
static uint8_t s_small_id[32]; /* a small record the corruption test hits */

/* ---- building the store ---- */

static void s_kselftest(synth_run_t *r, uint64_t t, const int st[4])
{
	synth_suite(r, "kselftest", t, t + 5000, PROTO_PASS);
	synth_log(r, "console", 1);
	synth_case(r, "net.a", st[0], 10, st[0] == PROTO_PASS ? "" :
		   "broke <here> & \"there\"");
	synth_case(r, "net.b", st[1], 20, "");
	synth_case(r, "net.c", st[2], 30, "");
	if (st[3])
		synth_case(r, "timers.x", st[3], 40, "");
}

static void s_bench(synth_run_t *r, uint64_t t, double lat, double thr)
{
	synth_suite(r, "bench", t + 6000, t + 9000, PROTO_DONE);
	synth_metric(r, "latency", lat, "ms", METRIC_LOWER);
	synth_metric(r, "throughput", thr, "MB/s", METRIC_HIGHER);
}

/* Publish r into the store and index it through the node's hook. */
static void s_put(synth_feed_t *f, store_t *st, sqlite3 *db, synth_run_t *r,
		  uint64_t ts, bool hook, uint8_t *ret_id)
{
	uint8_t *bytes;
	size_t len;
	int rc = synth_publish(f, st, r, ts, &bytes, &len, ret_id);

	CHECK(rc == 0);
	if (rc == 0 && hook)
		CHECK(results_index_record(db, bytes, len) == 1);
	if (rc == 0 && hook) /* a second time: already indexed */
		CHECK(results_index_record(db, bytes, len) == 0);
	if (rc == 0)
		free(bytes);
	synth_run_destroy(&r);
}

static void s_build_store(void)
{
	static const int pass4[4] = { PROTO_PASS, PROTO_PASS, PROTO_FAIL,
				      PROTO_PASS };
	static const int qemu_b[4] = { PROTO_FAIL, PROTO_ERROR, PROTO_PASS,
				       PROTO_PASS };
	static const int rpi_b[4] = { PROTO_PASS, PROTO_PASS, PROTO_FAIL, 0 };
	static const int rpi_b0[4] = { PROTO_FAIL, PROTO_PASS, PROTO_FAIL, 0 };
	synth_feed_t fa, fb;
	char *path = xasprintf("%s/store.db", s_home);
	store_t *st;
	sqlite3 *db;
	synth_run_t *r;

	synth_commit(100, s_ca);
	synth_commit(101, s_cb);
	synth_feed_init(&fa, 7);
	synth_feed_init(&fb, 8);
	CHECK(store_open(path, &st) == 0);
	CHECK(results_open(s_home, true, &db) == 0);
	/* commit A on three boards of two labs */
	r = synth_run_new("lab-a", "qemu-a", "x86_64", TREE, "master", s_ca);
	s_kselftest(r, T0, pass4);
	s_bench(r, T0, 100.0, 50.0);
	s_put(&fa, st, db, r, T0 + 10000, true, NULL);
	r = synth_run_new("lab-a", "rpi4", "arm64", TREE, "master", s_ca);
	s_kselftest(r, T0 + 100, pass4);
	s_put(&fa, st, db, r, T0 + 10100, true, NULL);
	r = synth_run_new("lab-b", "bbb", "arm", "git://example.org/l.git",
			  "master", s_ca);
	s_kselftest(r, T0 + 200, pass4);
	s_put(&fb, st, db, r, T0 + 10200, false, NULL);
	/* commit B: qemu-a regresses net.a, net.b and its latency */
	r = synth_run_new("lab-a", "qemu-a", "x86_64", TREE, "master", s_cb);
	s_kselftest(r, T0 + 86400000, qemu_b);
	synth_case(r, "net.d", PROTO_PASS, 5, "");
	s_bench(r, T0 + 86400000, 125.0, 48.0);
	s_put(&fa, st, db, r, T0 + 86410000, true, NULL);
	/* rpi4: an earlier run of commit B failing net.a, then a re-run */
	r = synth_run_new("lab-a", "rpi4", "arm64", TREE, "master", s_cb);
	s_kselftest(r, T0 + 86300000, rpi_b0);
	s_put(&fa, st, db, r, T0 + 86310000, true, NULL);
	r = synth_run_new("lab-a", "rpi4", "arm64", TREE, "master", s_cb);
	s_kselftest(r, T0 + 86400100, rpi_b);
	s_put(&fa, st, db, r, T0 + 86410100, false, NULL);
	/* a small local run with no commit, the corruption target */
	r = synth_run_new("lab-b", "bbb", "arm", "", "", "");
	synth_suite(r, "smoke", T0 + 500, T0 + 600, PROTO_PASS);
	synth_case(r, "uname", PROTO_PASS, 1, "");
	s_put(&fb, st, db, r, T0 + 700, false, s_small_id);
	sqlite3_close(db);
	store_destroy(&st);
	free(path);
	key_wipe(&fa.key);
	key_wipe(&fb.key);
}

/* ---- capturing answers ---- */

typedef int (*s_view_fn)(sqlite3 *db, const query_filter_t *f, FILE *out,
			 char *err);

static char *s_capture(sqlite3 *db, const query_filter_t *f, s_view_fn fn,
		       int *ret_rc)
{
	char *text = NULL, err[256] = "";
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	int rc = fn(db, f, out, err);

	fclose(out);
	if (ret_rc)
		*ret_rc = rc;
	if (rc < 0)
		fprintf(stderr, "view failed: %d %s\n", rc, err);
	return text;
}

static int s_matrix_text(sqlite3 *db, const query_filter_t *f, FILE *o,
			 char *e)
{
	return query_matrix(db, f, false, o, e, 256);
}

static int s_matrix_json(sqlite3 *db, const query_filter_t *f, FILE *o,
			 char *e)
{
	return query_matrix(db, f, true, o, e, 256);
}

static int s_list_json(sqlite3 *db, const query_filter_t *f, FILE *o, char *e)
{
	return query_list(db, f, true, o, e, 256);
}

static int s_list_text(sqlite3 *db, const query_filter_t *f, FILE *o, char *e)
{
	return query_list(db, f, false, o, e, 256);
}

static int s_compare_text(sqlite3 *db, const query_filter_t *f, FILE *o,
			  char *e)
{
	return query_compare(db, s_ca, s_cb, f, 10.0, false, o, e, 256);
}

static int s_compare_json(sqlite3 *db, const query_filter_t *f, FILE *o,
			  char *e)
{
	return query_compare(db, s_ca, s_cb, f, 10.0, true, o, e, 256);
}

static int s_history_text(sqlite3 *db, const query_filter_t *f, FILE *o,
			  char *e)
{
	return query_history(db, "kselftest.net.a", f, false, o, e, 256);
}

static int s_history_metric(sqlite3 *db, const query_filter_t *f, FILE *o,
			    char *e)
{
	return query_history(db, "bench.latency", f, true, o, e, 256);
}

static int s_kcidb(sqlite3 *db, const query_filter_t *f, FILE *o, char *e)
{
	return export_kcidb(db, f, "test", NULL, o, e, 256);
}

static int s_junit(sqlite3 *db, const query_filter_t *f, FILE *o, char *e)
{
	return export_junit(db, f, o, e, 256);
}

typedef struct {
	s_view_fn fn;
	query_filter_t f;
} s_answer_t;

/* ---- the views ---- */

static void s_test_matrix(sqlite3 *db)
{
	query_filter_t f = { .commit = s_ca };
	static const char want[] =
		"BOARD   LAB    ARCH    bench   kselftest\n"
		"qemu-a  lab-a  x86_64  100 ms  3/1/0    \n"
		"rpi4    lab-a  arm64   -       3/1/0    \n"
		"bbb     lab-b  arm     -       3/1/0    \n";
	char *m;
	int rc;

	m = s_capture(db, &f, s_matrix_text, &rc);
	CHECK(rc == 0);
	CHECK(strstr(m, s_ca) != NULL);
	CHECK(strstr(m, want) != NULL);
	if (!strstr(m, want))
		fprintf(stderr, "matrix:\n%s", m);
	free(m);
	/* commit B: rpi4's latest run wins over its earlier one */
	f.commit = s_cb;
	m = s_capture(db, &f, s_matrix_json, &rc);
	CHECK(rc == 0);
	CHECK(strstr(m, "\"board\": \"rpi4\"") != NULL);
	CHECK(strstr(m, "\"board\": \"rpi4\",\n      \"arch\": \"arm64\",\n"
		     "      \"cells\": [\n        {\n"
		     "          \"suite\": \"kselftest\",\n"
		     "          \"status\": \"PASS\",\n"
		     "          \"pass\": 2,\n          \"fail\": 1,\n") != NULL);
	CHECK(strstr(m, "\"board\": \"bbb\"") == NULL);
	free(m);
	/* a case filter recounts cells */
	f = (query_filter_t){ .commit = s_ca, .status_mask = 1u << PROTO_FAIL,
			      .board = "qemu-a" };
	m = s_capture(db, &f, s_matrix_text, &rc);
	CHECK(rc == 0 && strstr(m, "qemu-a  lab-a  x86_64  0/0/0  0/1/0"));
	free(m);
	/* no commit and several commits: refused with a reason */
	f = (query_filter_t){ 0 };
	m = s_capture(db, &f, s_matrix_text, &rc);
	CHECK(rc == -EINVAL);
	free(m);
}

static void s_test_list(sqlite3 *db)
{
	query_filter_t f = { .status_mask = (1u << PROTO_FAIL) |
					    (1u << PROTO_ERROR),
			     .lab = "lab-a", .commit = s_cb };
	char *l;
	int rc;

	l = s_capture(db, &f, s_list_text, &rc);
	CHECK(rc == 0);
	/* rpi4 has two runs of commit B: both listed, latest first */
	CHECK(!strncmp(l, "TIME              LAB    BOARD   KERNEL", 39));
	CHECK(strstr(l, "  lab-a  qemu-a  ") != NULL);
	CHECK(strstr(l, "kselftest.net.a     FAIL         10 ms  broke <here> &"
			" \"there\""));
	CHECK(strstr(l, "kselftest.net.b     ERROR        20 ms") != NULL);
	CHECK(strstr(l, "PASS") == NULL);
	free(l);
	f = (query_filter_t){ .path = "kselftest.net", .board = "bbb" };
	l = s_capture(db, &f, s_list_json, &rc);
	CHECK(rc == 0 && strstr(l, "\"path\": \"kselftest.net.c\""));
	CHECK(strstr(l, "timers") == NULL && strstr(l, "smoke") == NULL);
	free(l);
	f = (query_filter_t){ .path = "*.timers.*" };
	l = s_capture(db, &f, s_list_text, &rc);
	CHECK(rc == 0 && strstr(l, "kselftest.timers.x") &&
	      !strstr(l, "net."));
	free(l);
}

static void s_test_compare(sqlite3 *db)
{
	query_filter_t f = { 0 };
	char *c;
	const char *qemu, *rpi;
	int rc;

	c = s_capture(db, &f, s_compare_text, &rc);
	CHECK(rc == 3); /* two test regressions and one metric */
	qemu = strstr(c, "lab-a/qemu-a: 2 regressions, 1 fixes, 1 new, 0"
		      " vanished, 1 metric regressions\n"
		      "  REGRESSION kselftest.net.a  PASS -> FAIL\n"
		      "  REGRESSION kselftest.net.b  PASS -> ERROR\n"
		      "  FIX        kselftest.net.c  FAIL -> PASS\n"
		      "  NEW        kselftest.net.d  PASS\n"
		      "  METRIC     bench.latency  100 -> 125 ms  +25.0%"
		      " (lower is better)\n");
	CHECK(qemu != NULL);
	/* throughput moved -4%: under the threshold, not reported */
	CHECK(strstr(c, "throughput") == NULL);
	/* rpi4: its latest run of B counts; timers.x vanished */
	rpi = strstr(c, "lab-a/rpi4: 0 regressions, 0 fixes, 0 new,"
		     " 1 vanished, 0 metric regressions\n"
		     "  VANISHED   kselftest.timers.x  PASS\n");
	CHECK(rpi != NULL);
	CHECK(strstr(c, "lab-b/bbb: only in base, not compared") != NULL);
	CHECK(strstr(c, "summary: 2 regressions, 1 fixes, 1 new, 1 vanished,"
		     " 1 metric regressions") != NULL);
	if (!qemu || !rpi)
		fprintf(stderr, "compare:\n%s", c);
	free(c);
	c = s_capture(db, &f, s_compare_json, &rc);
	CHECK(rc == 3);
	CHECK(strstr(c, "\"change_pct\": 25") != NULL);
	CHECK(strstr(c, "\"regressions\": [\n        {\n          \"path\":"
		     " \"kselftest.net.a\",\n          \"base\": \"PASS\",\n"
		     "          \"new\": \"FAIL\"\n        },") != NULL);
	free(c);
	/* a tighter threshold catches the throughput drop too */
	c = NULL;
	{
		size_t len;
		char err[256];
		FILE *o = open_memstream(&c, &len);

		rc = query_compare(db, s_ca, s_cb, &f, 3.0, false, o, err,
				   sizeof(err));
		fclose(o);
		CHECK(rc == 4 && strstr(c, "bench.throughput  50 -> 48 MB/s"
					"  -4.0% (higher is better)"));
		free(c);
	}
}

static int s_run_cmd(int (*fn)(int, char **), const char *a0, ...)
{
	char *argv[16];
	int argc = 0, rc, saved = dup(1), null = open("/dev/null", O_WRONLY);
	va_list ap;
	const char *a;

	argv[argc++] = (char *)a0;
	va_start(ap, a0);
	while ((a = va_arg(ap, const char *)) && argc < 15)
		argv[argc++] = (char *)a;
	va_end(ap);
	argv[argc] = NULL;
	fflush(stdout);
	dup2(null, 1);
	rc = fn(argc, argv);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	close(null);
	return rc;
}

static void s_test_cli(void)
{
	CHECK(s_run_cmd(cmd_compare, "compare", "--home", s_home, s_ca, s_cb,
			NULL) == 1);
	CHECK(s_run_cmd(cmd_compare, "compare", "--home", s_home, s_ca, s_ca,
			NULL) == 0);
	CHECK(s_run_cmd(cmd_compare, "compare", "--home", s_home, s_ca,
			NULL) == 2);
	CHECK(s_run_cmd(cmd_compare, "compare", "--home", s_home, s_ca, s_cb,
			"--threshold", "x", NULL) == 2);
	CHECK(s_run_cmd(cmd_compare, "compare", "--home", s_home, "zz", s_cb,
			NULL) == 2);
	CHECK(s_run_cmd(cmd_query, "query", "--home", s_home, "--commit", s_ca,
			NULL) == 0);
	CHECK(s_run_cmd(cmd_query, "query", "--home", s_home, "--bogus",
			NULL) == 2);
	CHECK(s_run_cmd(cmd_query, "query", "--help", NULL) == 0);
	CHECK(s_run_cmd(cmd_history, "history", "--home", s_home, "no.such",
			NULL) == 1);
	CHECK(s_run_cmd(cmd_export, "export", "--home", s_home, "--kcidb",
			"--origin", "Bad-Origin", NULL) == 2);
	CHECK(s_run_cmd(cmd_store, "store", "--home", s_home, "check",
			NULL) == 0);
	CHECK(s_run_cmd(cmd_store, "store", "--home", "/nonexistent/x",
			"check", NULL) == 1);
}

/* The first line of h at or after from holding both a and b, or NULL. */
static char *s_line_with(char *h, const char *a, const char *b)
{
	for (char *l = h; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 :
							  NULL) {
		char *e = strchr(l, '\n'), *pa, *pb;

		pa = strstr(l, a), pb = strstr(l, b);
		if (pa && pb && (!e || (pa < e && pb < e)))
			return l;
	}
	return NULL;
}

static void s_test_history(sqlite3 *db)
{
	query_filter_t f = { 0 };
	char *h, *b1, *b2, *a1, s_ca12[13];
	int rc;

	snprintf(s_ca12, sizeof(s_ca12), "%.12s", s_ca);
	h = s_capture(db, &f, s_history_text, &rc);
	CHECK(rc == 0);
	/* newest first (by run end): B's qemu-a, B's latest rpi4 run, B's
	 * early rpi4 run, then commit A's runs */
	CHECK(!strncmp(h, "TIME              LAB    BOARD   KERNEL", 39));
	b1 = s_line_with(h, "lab-a  qemu-a  ", "kselftest.net.a  FAIL");
	b2 = s_line_with(h, "lab-a  rpi4    ", "kselftest.net.a  PASS");
	a1 = b2 ? s_line_with(b2, "lab-a  rpi4    ", "kselftest.net.a  FAIL") :
		  NULL;
	CHECK(b1 && b2 && a1 && b1 < b2 && b2 < a1);
	CHECK(a1 && strstr(a1, s_ca12) != NULL);
	if (!(b1 && b2 && a1 && b1 < b2 && b2 < a1))
		fprintf(stderr, "history:\n%s", h);
	free(h);
	h = s_capture(db, &f, s_history_metric, &rc);
	CHECK(rc == 0 && strstr(h, "\"value\": 125,\n      \"unit\": \"ms\""));
	CHECK(strstr(h, "\"value\": 125") < strstr(h, "\"value\": 100"));
	free(h);
}

/* ---- reindex and check ---- */


static void s_test_reindex(sqlite3 *db)
{
	s_answer_t a[] = {
		{ s_matrix_text, { .commit = s_ca } },
		{ s_matrix_json, { .commit = s_cb } },
		{ s_list_json, { 0 } },
		{ s_compare_json, { 0 } },
		{ s_history_text, { 0 } },
		{ s_kcidb, { 0 } },
		{ s_junit, { 0 } },
	};
	size_t n = sizeof(a) / sizeof(a[0]);
	char *before[8];

	for (size_t i = 0; i < n; i++)
		before[i] = s_capture(db, &a[i].f, a[i].fn, NULL);
	CHECK(results_reindex(db) == 7);
	for (size_t i = 0; i < n; i++) {
		char *after = s_capture(db, &a[i].f, a[i].fn, NULL);

		CHECK(strcmp(before[i], after) == 0);
		free(after);
		free(before[i]);
	}
}

/* Copy every record into a second home, feeds in the opposite order,
 * as another node would receive them by replication. */
static void s_copy_records(const char *home2)
{
	char *path = xasprintf("%s/store.db", home2);
	sqlite3 *src;
	sqlite3_stmt *st;
	store_t *dst;

	CHECK(results_open(s_home, false, &src) == 0);
	CHECK(store_open(path, &dst) == 0);
	sqlite3_prepare_v2(src, "SELECT bytes FROM records ORDER BY author"
			   " DESC, seq", -1, &st, NULL);
	while (sqlite3_step(st) == SQLITE_ROW) {
		const uint8_t *b = sqlite3_column_blob(st, 0);
		size_t len = (size_t)sqlite3_column_bytes(st, 0);
		record_head_t h;
		static const uint8_t zero[32];

		CHECK(record_verify(b, len, &h) == 0);
		CHECK(store_put_record(dst, &(store_rec_t){
			.id = h.id, .author = h.author,
			.prev_id = h.has_prev ? h.prev_id : zero, .seq = h.seq,
			.kind = (int)h.kind, .ts_ms = (int64_t)h.ts_ms,
			.bytes = b, .len = len }) == STORE_ADDED);
	}
	sqlite3_finalize(st);
	sqlite3_close(src);
	store_destroy(&dst);
	free(path);
}

/* A second node holding the same records answers byte for byte alike. */
static void s_test_other_node(void)
{
	char tmpl[] = "/tmp/lm-results2-XXXXXX";
	s_answer_t a[] = {
		{ s_matrix_text, { .commit = s_ca } },
		{ s_matrix_json, { .commit = s_cb } },
		{ s_list_json, { 0 } },
		{ s_compare_json, { 0 } },
		{ s_history_metric, { 0 } },
		{ s_kcidb, { 0 } },
		{ s_junit, { 0 } },
	};
	sqlite3 *db1, *db2;
	char *cmd;

	CHECK(mkdtemp(tmpl) != NULL);
	s_copy_records(tmpl);
	/* the second node's index is built by the catch-up, in feed order */
	CHECK(results_open(s_home, false, &db1) == 0);
	CHECK(results_open(tmpl, true, &db2) == 0);
	CHECK(results_catch_up(db2) == 7);
	for (size_t i = 0; i < sizeof(a) / sizeof(a[0]); i++) {
		char *x = s_capture(db1, &a[i].f, a[i].fn, NULL);
		char *y = s_capture(db2, &a[i].f, a[i].fn, NULL);

		CHECK(x && y && strlen(x) > 100 && strcmp(x, y) == 0);
		free(x);
		free(y);
	}
	sqlite3_close(db1);
	sqlite3_close(db2);
	cmd = xasprintf("rm -rf '%s'", tmpl);
	(void)!system(cmd);
	free(cmd);
}

static void s_test_check(void)
{
	char *path = xasprintf("%s/store.db", s_home), hex[65];
	char *out = NULL;
	size_t len = 0, flen;
	sqlite3 *db;
	FILE *f, *o;
	uint8_t *file, *sig = NULL;
	int rc;

	proto_hex(s_small_id, 32, hex);
	/* find the record's signature in the file and flip one bit of it */
	CHECK(results_open(s_home, true, &db) == 0);
	{
		sqlite3_stmt *st;
		uint8_t tail[64];

		sqlite3_prepare_v2(db, "SELECT bytes FROM records WHERE id = ?1",
				   -1, &st, NULL);
		sqlite3_bind_blob(st, 1, s_small_id, 32, SQLITE_STATIC);
		CHECK(sqlite3_step(st) == SQLITE_ROW);
		memcpy(tail, (const uint8_t *)sqlite3_column_blob(st, 0) +
		       sqlite3_column_bytes(st, 0) - 64, 64);
		sqlite3_finalize(st);
		sqlite3_close(db); /* last connection: WAL checkpointed */
		f = fopen(path, "r+b");
		CHECK(f != NULL);
		fseek(f, 0, SEEK_END);
		flen = (size_t)ftell(f);
		file = xmalloc(flen);
		rewind(f);
		CHECK(fread(file, 1, flen, f) == flen);
		for (size_t i = 0; i + 64 <= flen; i++)
			if (!memcmp(file + i, tail, 64)) {
				sig = file + i;
				break;
			}
		CHECK(sig != NULL);
		if (sig) {
			fseek(f, (long)(sig - file) + 10, SEEK_SET);
			fputc(sig[10] ^ 0x01, f);
		}
		fclose(f);
		free(file);
	}
	CHECK(results_open(s_home, false, &db) == 0);
	o = open_memstream(&out, &len);
	rc = results_check(db, o);
	fclose(o);
	CHECK(rc == 1);
	CHECK(strstr(out, hex) != NULL);
	CHECK(strstr(out, "does not verify") != NULL);
	free(out);
	sqlite3_close(db);
	CHECK(s_run_cmd(cmd_store, "store", "--home", s_home, "check",
			NULL) == 1);
	/* a record lost from the middle of a feed breaks its chain */
	CHECK(results_open(s_home, true, &db) == 0);
	CHECK(sqlite3_exec(db, "DELETE FROM records WHERE seq = 2 AND author ="
			   " (SELECT author FROM records WHERE seq = 5)", NULL,
			   NULL, NULL) == SQLITE_OK);
	out = NULL;
	o = open_memstream(&out, &len);
	rc = results_check(db, o);
	fclose(o);
	CHECK(rc == 2); /* the flipped signature, and the gap before seq 3 */
	CHECK(strstr(out, "feed gap: seq not contiguous (author") != NULL);
	CHECK(strstr(out, ", seq 3)\n") != NULL);
	free(out);
	sqlite3_close(db);
	free(path);
}

/* ---- blobs ---- */

static void s_blob(const char *dir, int n, size_t size, time_t when)
{
	uint8_t id[32];
	char hex[65], *d, *p;
	struct timespec ts[2] = { { when, 0 }, { when, 0 } };
	FILE *f;

	memset(id, n, sizeof(id));
	proto_hex(id, 32, hex);
	d = xasprintf("%s/%.2s", dir, hex);
	mkdir(d, 0700);
	p = xasprintf("%s/%s", d, hex);
	f = fopen(p, "wb");
	for (size_t i = 0; i < size; i++)
		fputc('x', f);
	fclose(f);
	utimensat(AT_FDCWD, p, ts, 0);
	free(p);
	free(d);
}

static bool s_blob_exists(const char *dir, int n)
{
	uint8_t id[32];
	char hex[65], *p;
	bool ok;

	memset(id, n, sizeof(id));
	proto_hex(id, 32, hex);
	p = xasprintf("%s/%.2s/%s", dir, hex, hex);
	ok = access(p, F_OK) == 0;
	free(p);
	return ok;
}

static void s_test_gc(void)
{
	char *dir = xasprintf("%s/blobs", s_home), *other;
	results_gc_stats_t st;
	uint8_t id[32];

	mkdir(dir, 0700);
	/* five 1000-byte blobs, used at times 1000..5000 */
	for (int i = 1; i <= 5; i++)
		s_blob(dir, i, 1000, 1000 * i);
	other = xasprintf("%s/01/not-a-blob", dir);
	fclose(fopen(other, "w"));
	/* blob 1 is read again now: it becomes the most recently used */
	memset(id, 1, sizeof(id));
	CHECK(blob_touch(s_home, id) == 0);
	CHECK(results_gc(s_home, 2500, &st) == 0);
	CHECK(st.files == 5 && st.bytes == 5000);
	CHECK(st.evicted == 3 && st.freed == 3000);
	CHECK(s_blob_exists(dir, 1) && s_blob_exists(dir, 5));
	CHECK(!s_blob_exists(dir, 2) && !s_blob_exists(dir, 3) &&
	      !s_blob_exists(dir, 4));
	CHECK(access(other, F_OK) == 0);
	CHECK(results_gc(s_home, 1ULL << 40, &st) == 0 && st.evicted == 0);
	free(other);
	free(dir);
}

/* ---- small parsers ---- */

static void s_test_parsers(void)
{
	int64_t t;
	uint32_t m;
	uint64_t sz;
	buf_t b;
	char p[64];

	CHECK(query_parse_since("7d", 10 * 86400000LL, &t) == 0 &&
	      t == 3 * 86400000LL);
	CHECK(query_parse_since("12h", 86400000LL, &t) == 0 &&
	      t == 12 * 3600000LL);
	CHECK(query_parse_since("2026-11-01", 0, &t) == 0 &&
	      t == (int64_t)T0);
	CHECK(query_parse_since("2026-11-01T00:01Z", 0, &t) == 0 &&
	      t == (int64_t)T0 + 60000);
	CHECK(query_parse_since("7x", 0, &t) == -EINVAL);
	CHECK(query_parse_since("", 0, &t) == -EINVAL);
	CHECK(query_parse_since("-1d", 0, &t) == -EINVAL);
	CHECK(query_parse_status("fail,ERROR", &m) == 0 &&
	      m == ((1u << PROTO_FAIL) | (1u << PROTO_ERROR)));
	CHECK(query_parse_status("FAIL,", &m) == 0);
	CHECK(query_parse_status("BOGUS", &m) == -EINVAL);
	CHECK(query_parse_status(",", &m) == -EINVAL);
	CHECK(lab_parse_size("10G", &sz) == 0 && sz == 10ULL << 30);
	CHECK(lab_parse_size("512KiB", &sz) == 0 && sz == 512ULL << 10);
	CHECK(lab_parse_size("1234", &sz) == 0 && sz == 1234);
	CHECK(lab_parse_size("99999999999T", &sz) == -EINVAL);
	CHECK(lab_parse_size("-1", &sz) == -EINVAL);
	CHECK(query_path_match("ltp.syscalls", "ltp.syscalls.open01"));
	CHECK(query_path_match("ltp.syscalls", "ltp.syscalls"));
	CHECK(!query_path_match("ltp.sys", "ltp.syscalls.open01"));
	CHECK(query_path_match("ltp.*.open*", "ltp.syscalls.open01"));
	CHECK(export_origin_ok("lab_1") && !export_origin_ok("Lab") &&
	      !export_origin_ok("") && !export_origin_ok("a-b"));
	snprintf(p, sizeof(p), "..a..b/c.d.");
	export_kcidb_path(p);
	CHECK(strcmp(p, "a.b_c.d") == 0);
	buf_init(&b, 0);
	export_xml_escape(&b, "a<&>\"'\t\x01\xff\xc3\xa9\xef\xbf\xbe");
	CHECK(strcmp(buf_str(&b), "a&lt;&amp;&gt;&quot;&apos;&#9;"
		     "\xef\xbf\xbd\xef\xbf\xbd\xc3\xa9\xef\xbf\xbd") == 0);
	buf_free(&b);
}

static void s_test_index_input(sqlite3 *db)
{
	uint8_t junk[100];

	record_t ev = { 0 };
	synth_feed_t f;
	uint8_t *bytes, id[32];
	size_t len;

	memset(junk, 0x42, sizeof(junk));
	CHECK(results_index_record(db, junk, sizeof(junk)) < 0);
	CHECK(results_index_record(db, junk, 0) < 0);
	/* a signed record of another kind is not a run: nothing to do */
	synth_feed_init(&f, 9);
	ev.head.kind = RECORD_EVENT;
	ev.head.seq = 1;
	ev.head.ts_ms = T0;
	ev.event = (record_event_t){ .board = "qemu-a", .state = JOB_QUEUED,
				     .suite = "", .text = "" };
	CHECK(record_sign(&ev, &f.key, &bytes, &len, id) == 0);
	CHECK(results_index_record(db, bytes, len) == 0);
	free(bytes);
	key_wipe(&f.key);
}

/* The verdict of each kind of re-run tally (the rules of rerun.h). */
static void s_test_judge(void)
{
	static const struct {
		rerun_tally_t t;
		int want;
	} cases[] = {
		{ { 0, 0, 0, 0 }, 0 },
		{ { 3, 0, 0, 0 }, VERDICT_CONFIRMED },
		{ { 3, 0, 2, 0 }, VERDICT_CONFIRMED },
		{ { 3, 2, 1, 1 }, VERDICT_FLAKY },
		{ { 3, 3, 0, 0 }, VERDICT_FLAKY },
		{ { 3, 0, 2, 2 }, VERDICT_BOARD_SPECIFIC },
		{ { 3, 0, 2, 1 }, VERDICT_CONFIRMED },
		{ { 0, 0, 2, 0 }, VERDICT_CONFIRMED },
		{ { 0, 0, 2, 1 }, VERDICT_FLAKY },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		CHECK(rerun_judge(&cases[i].t) == cases[i].want);
}

int main(void)
{
	char tmpl[] = "/tmp/lm-results-XXXXXX";
	sqlite3 *db;

	if (!mkdtemp(tmpl))
		return 1;
	snprintf(s_home, sizeof(s_home), "%s", tmpl);
	s_test_parsers();
	s_test_judge();
	s_build_store();
	/* two records were stored without the hook: catch-up adds them */
	CHECK(results_open(s_home, true, &db) == 0);
	CHECK(results_catch_up(db) == 3);
	CHECK(results_catch_up(db) == 0);
	s_test_index_input(db);
	sqlite3_close(db);
	CHECK(results_open(s_home, false, &db) == 0);
	s_test_matrix(db);
	s_test_list(db);
	s_test_compare(db);
	s_test_history(db);
	sqlite3_close(db);
	s_test_cli();
	CHECK(results_open(s_home, true, &db) == 0);
	s_test_reindex(db);
	sqlite3_close(db);
	s_test_other_node();
	s_test_gc();
	s_test_check();
	if (!getenv("LM_KEEP")) {
		char *cmd = xasprintf("rm -rf '%s'", s_home);

		(void)!system(cmd);
		free(cmd);
	}
	printf("test-results: %d failed\n", check_failures);
	return check_failures ? 1 : 0;
}
