/*
 * results_list: listings over the results index: tested commits, metric
 * paths, a run's (or suite's) logs for the dashboard, and the passed
 * builds of a kernel for the jobs side. See results.h.
 */
#include "node/results/results.h"

#include "proto/mem.h"
#include "proto/record.h"
#include "proto/types.h"

#include <errno.h>
#include <stdlib.h>

int results_commits(sqlite3 *db, size_t max, results_commit_fn fn, void *arg)
{
	static const char sql[] =
		"SELECT git_commit, MIN(branch), MIN(tree), MAX(end_ms),"
		" COUNT(*), COUNT(DISTINCT lab || '/' || board),"
		" SUM(status IN (?1, ?2)) FROM res_runs GROUP BY git_commit"
		" ORDER BY MAX(end_ms) DESC, git_commit LIMIT ?3";
	sqlite3_stmt *st;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_int(st, 1, PROTO_FAIL);
	sqlite3_bind_int(st, 2, PROTO_ERROR);
	sqlite3_bind_int64(st, 3, (int64_t)max);
	while (sqlite3_step(st) == SQLITE_ROW) {
		results_commit_t c = {
			.commit = (const char *)sqlite3_column_text(st, 0),
			.branch = (const char *)sqlite3_column_text(st, 1),
			.tree = (const char *)sqlite3_column_text(st, 2),
			.end_ms = sqlite3_column_int64(st, 3),
			.runs = sqlite3_column_int64(st, 4),
			.boards = sqlite3_column_int64(st, 5),
			.failed_runs = sqlite3_column_int64(st, 6),
		};

		if (fn(arg, &c) != 0)
			break;
	}
	sqlite3_finalize(st);
	return 0;
}

int results_metrics(sqlite3 *db, size_t max, results_metric_fn fn, void *arg)
{
	static const char sql[] =
		"SELECT s.s || '.' || rp.path, MIN(COALESCE(u.s, '')),"
		" COUNT(*) FROM res_metrics m"
		" JOIN res_paths rp ON rp.id = m.path"
		" JOIN res_strs s ON s.id = rp.suite"
		" LEFT JOIN res_strs u ON u.id = m.unit"
		" GROUP BY m.path ORDER BY 1 LIMIT ?1";
	sqlite3_stmt *st;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_int64(st, 1, (int64_t)max);
	while (sqlite3_step(st) == SQLITE_ROW) {
		results_metric_t m = {
			.path = (const char *)sqlite3_column_text(st, 0),
			.unit = (const char *)sqlite3_column_text(st, 1),
			.values = sqlite3_column_int64(st, 2),
		};

		if (fn(arg, &m) != 0)
			break;
	}
	sqlite3_finalize(st);
	return 0;
}

int results_find_logs(sqlite3 *db, const char *run, const char *suite,
		      char **ret, char **ret_lab)
{
	static const char q_run[] =
		"SELECT logs, lab FROM res_runs WHERE lower(hex(rec)) LIKE"
		" ?1 || '%' LIMIT 2";
	static const char q_suite[] =
		"SELECT s.logs, r.lab FROM res_suites s JOIN res_runs r ON"
		" r.id = s.run JOIN res_strs n ON n.id = s.suite"
		" WHERE lower(hex(r.rec)) LIKE ?1 || '%' AND n.s = ?2 LIMIT 2";
	sqlite3_stmt *st = NULL;
	int rows = 0;

	if (sqlite3_prepare_v2(db, suite ? q_suite : q_run, -1, &st, NULL) !=
	    SQLITE_OK)
		return -EIO;
	sqlite3_bind_text(st, 1, run, -1, SQLITE_STATIC);
	if (suite)
		sqlite3_bind_text(st, 2, suite, -1, SQLITE_STATIC);
	*ret = NULL;
	*ret_lab = NULL;
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *t = (const char *)sqlite3_column_text(st, 0);
		const char *lab = (const char *)sqlite3_column_text(st, 1);

		if (++rows > 1)
			continue;
		*ret = t ? xstrdup(t) : NULL;
		*ret_lab = xstrdup(lab ? lab : "");
	}
	sqlite3_finalize(st);
	if (rows > 1) {
		free(*ret);
		free(*ret_lab);
		*ret = *ret_lab = NULL;
		return -EINVAL;
	}
	return rows ? 0 : -ENOENT;
}

int results_suite_typical(sqlite3 *db, const char *suite, int64_t *ret_ms)
{
	static const char sql[] =
		"SELECT s.duration_ms FROM res_suites s JOIN res_strs n ON"
		" n.id = s.suite WHERE n.s = ?1 AND s.duration_ms > 0"
		" ORDER BY s.duration_ms LIMIT 1 OFFSET (SELECT COUNT(*) / 2"
		" FROM res_suites s2 JOIN res_strs n2 ON n2.id = s2.suite"
		" WHERE n2.s = ?1 AND s2.duration_ms > 0)";
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_text(st, 1, suite, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*ret_ms = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : -EIO;
}

int results_passed_builds(sqlite3 *db, const char *tree, const char *commit,
			  const char *config, const char *arch,
			  const uint8_t *not_author, results_build_fn fn,
			  void *arg)
{
	static const char sql[] =
		"SELECT rec, author FROM res_runs WHERE tree=? AND git_commit=?"
		" AND config=? AND arch=? AND build=? AND author!=?"
		" ORDER BY ts_ms DESC LIMIT ?";
	sqlite3_stmt *st;
	int rc = 0;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_text(st, 1, tree, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, commit, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, config, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, arch, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 5, BUILD_PASS);
	sqlite3_bind_blob(st, 6, not_author, 32, SQLITE_STATIC);
	sqlite3_bind_int(st, 7, RESULTS_MAX_BUILDS);
	while (rc == 0 && sqlite3_step(st) == SQLITE_ROW)
		if (sqlite3_column_bytes(st, 0) == 32 &&
		    sqlite3_column_bytes(st, 1) == 32)
			rc = fn(arg, sqlite3_column_blob(st, 0),
				sqlite3_column_blob(st, 1));
	sqlite3_finalize(st);
	return 0;
}
