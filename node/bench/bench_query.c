/*
 * bench-query: the results store at a million test cases.
 *
 * Builds a store of 1000 synthetic run records signed with real keys (10
 * commits x 4 labs x 25 boards, 4 suites x 250 cases and 2 metrics each)
 * through the store API in batched transactions, indexes them, then
 * measures (median of several runs, output to /dev/null):
 *   - the matrix query for one commit      target <= 50 ms
 *     (also with --status, and with a --path glob, which recounts the
 *     commit's 100k cases)
 *   - compare between two commits          target <= 200 ms
 *     (100 boards x 1000 cases on each side)
 *   - store bytes per test case after a checkpoint and VACUUM
 *                                           target <= 150 bytes
 * Timings carry a baseline measured in the same run: a bare
 * SELECT count(*) over the cases table. Prints one JSON object per line.
 *
 * usage: bench-query [--keep DIR]   (LM_BENCH_CASES_PER_SUITE to shrink)
 */
#include "node/results/query.h"
#include "node/results/results.h"
#include "node/results/results_synth.h"

#include "proto/mem.h"
#include "proto/types.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define BENCH_REPEAT 15

static double s_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int s_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double s_median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), s_cmp_double);
	return v[n / 2];
}

typedef int (*s_fn)(sqlite3 *db, void *arg, FILE *out);

static int64_t s_scalar_sum(sqlite3 *db)
{
	sqlite3_stmt *st;
	int64_t v = -1;

	if (sqlite3_prepare_v2(db, "SELECT sum(duration_ms) FROM res_cases",
			       -1, &st, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

static double s_time(sqlite3 *db, s_fn fn, void *arg, FILE *out, int *ret_rc)
{
	double t[BENCH_REPEAT];

	*ret_rc = fn(db, arg, out); /* warm the page cache */
	for (int i = 0; i < BENCH_REPEAT; i++) {
		double t0 = s_now();

		fn(db, arg, out);
		t[i] = s_now() - t0;
	}
	return s_median(t, BENCH_REPEAT);
}

static int s_count(sqlite3 *db, void *arg, FILE *out)
{
	sqlite3_stmt *st;
	int rc = -1;

	if (sqlite3_prepare_v2(db, "SELECT count(*) FROM res_cases", -1, &st,
			       NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW)
		rc = (int)(sqlite3_column_int64(st, 0) & 0x7fffffff);
	sqlite3_finalize(st);
	*(int64_t *)arg = rc;
	return rc < 0 ? -1 : 0;
}

/* A full read of every case row: what any scan-based answer would pay. */
static int s_scan(sqlite3 *db, void *arg, FILE *out)
{
	int64_t v = s_scalar_sum(db);

	*(int64_t *)arg = v;
	return v < 0 ? -1 : 0;
}

typedef struct {
	char a[41], b[41];
} s_commits_t;

static int s_matrix(sqlite3 *db, void *arg, FILE *out)
{
	s_commits_t *c = arg;
	query_filter_t f = { .commit = c->b };
	char err[256];

	return query_matrix(db, &f, false, out, err, sizeof(err));
}

static int s_matrix_failed(sqlite3 *db, void *arg, FILE *out)
{
	s_commits_t *c = arg;
	query_filter_t f = { .commit = c->b, .status_mask = 1u << PROTO_FAIL };
	char err[256];

	return query_matrix(db, &f, false, out, err, sizeof(err));
}

static int s_matrix_path(sqlite3 *db, void *arg, FILE *out)
{
	s_commits_t *c = arg;
	query_filter_t f = { .commit = c->b, .path = "*.group01.*" };
	char err[256];

	return query_matrix(db, &f, false, out, err, sizeof(err));
}

static int s_compare(sqlite3 *db, void *arg, FILE *out)
{
	s_commits_t *c = arg;
	query_filter_t f = { 0 };
	char err[256];
	int rc = query_compare(db, c->a, c->b, &f, 10.0, false, out, err,
			       sizeof(err));

	return rc < 0 ? rc : 0;
}

static void s_figure(const char *figure, double v, const char *unit,
		     double baseline, double target, bool show_base)
{
	if (show_base)
		printf("{\"figure\": \"%s\", \"value\": %.3f, \"unit\": \"%s\","
		       " \"baseline\": %.3f, \"ratio\": %.2f, \"target\":"
		       " \"value <= %g\", \"met\": %s}\n", figure, v, unit,
		       baseline, baseline > 0 ? v / baseline : 0.0, target,
		       v <= target ? "true" : "false");
	else
		printf("{\"figure\": \"%s\", \"value\": %.3f, \"unit\": \"%s\"}\n",
		       figure, v, unit);
	fflush(stdout);
}

static int64_t s_scalar(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	int64_t v = -1;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

/* Size per case after a checkpoint and VACUUM; the record share too. */
static int s_bytes(const char *home, uint64_t cases)
{
	char *path = xasprintf("%s/store.db", home);
	sqlite3 *db;
	struct stat st;
	int64_t rec;

	if (results_open(home, true, &db) < 0)
		return -1;
	sqlite3_exec(db, "PRAGMA wal_checkpoint(TRUNCATE); VACUUM;"
		     " PRAGMA wal_checkpoint(TRUNCATE);", NULL, NULL, NULL);
	rec = s_scalar(db, "SELECT sum(length(bytes)) FROM records");
	sqlite3_close(db);
	if (stat(path, &st) < 0) {
		free(path);
		return -1;
	}
	free(path);
	s_figure("store bytes per test case (1M cases, records + index)",
		 (double)st.st_size / (double)cases, "bytes",
		 (double)rec / (double)cases, 150.0, true);
	return 0;
}

int main(int argc, char **argv)
{
	char tmpl[] = "/tmp/bench-query-XXXXXX";
	const char *keep = argc > 2 && !strcmp(argv[1], "--keep") ? argv[2] :
			   NULL;
	const char *env = getenv("LM_BENCH_CASES_PER_SUITE");
	synth_params_t p;
	s_commits_t c;
	uint64_t cases;
	int64_t n;
	double t0, base, v;
	sqlite3 *db;
	FILE *null;
	int rc;

	synth_params_default(&p);
	p.commits = 10, p.labs = 4, p.boards = 25, p.suites = 4;
	p.cases = env ? (unsigned)atoi(env) : 250, p.metrics = 2;
	p.batch = 50;
	if (keep && mkdir(keep, 0700) < 0)
		return 1;
	if (!keep && !mkdtemp(tmpl))
		return 1;
	t0 = s_now();
	rc = synth_dataset(keep ? keep : tmpl, &p, true, &cases);
	if (rc < 0) {
		fprintf(stderr, "bench-query: building the store failed (%d)\n",
			rc);
		return 1;
	}
	s_figure("store build: sign + store + index, cases per second",
		 (double)cases / ((s_now() - t0) / 1000.0), "cases/s", 0, 0,
		 false);
	if (s_bytes(keep ? keep : tmpl, cases) < 0 ||
	    results_open(keep ? keep : tmpl, false, &db) < 0)
		return 1;
	null = fopen("/dev/null", "w");
	synth_commit(4, c.a);
	synth_commit(5, c.b);
	base = s_time(db, s_count, &n, null, &rc);
	v = s_time(db, s_matrix, &c, null, &rc);
	if (rc < 0)
		fprintf(stderr, "bench-query: matrix failed (%d)\n", rc);
	s_figure("matrix query, one commit of 100 boards x 4 suites (1M cases)",
		 v, "ms", base, 50.0, true);
	v = s_time(db, s_matrix_failed, &c, null, &rc);
	s_figure("matrix query with --status FAIL", v, "ms", base, 50.0, true);
	v = s_time(db, s_matrix_path, &c, null, &rc);
	s_figure("matrix query with --path glob (reads the commit's 100k"
		 " cases)", v, "ms", base, 50.0, true);
	v = s_time(db, s_compare, &c, null, &rc);
	if (rc < 0)
		fprintf(stderr, "bench-query: compare failed (%d)\n", rc);
	s_figure("compare two commits, 100 boards x 1000 cases a side (1M"
		 " cases)", v, "ms", base, 200.0, true);
	s_figure("baseline: SELECT count(*) over the cases table", base, "ms",
		 0, 0, false);
	v = s_time(db, s_scan, &n, null, &rc);
	s_figure("context: full scan of the 1M case rows (sum of durations)",
		 v, "ms", 0, 0, false);
	fclose(null);
	sqlite3_close(db);
	if (!keep) {
		char *cmd = xasprintf("rm -rf '%s'", tmpl);

		(void)!system(cmd);
		free(cmd);
	}
	return 0;
}
