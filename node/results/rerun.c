/*
 * rerun: regressions of one run against the board's previous results,
 * re-run tallies and their verdict (see rerun.h). Plain SQL over the
 * results index (index.c's tables).
 */
#include "node/results/rerun.h"

#include "proto/caps.h"
#include "proto/record.h"
#include "proto/types.h"

#include <errno.h>
#include <string.h>

/* The run's failed tests, with the status of the same test in the
 * board's previous run that had it (NULL when none). */
static const char s_sql_failed[] =
	"SELECT s.s || '.' || p.path,"
	" (SELECT c2.status FROM res_cases c2 JOIN res_runs r2"
	"   ON r2.id = c2.run WHERE c2.path = c.path AND r2.lab = r.lab"
	"   AND r2.board = r.board AND r2.id != r.id AND (r2.end_ms < r.end_ms"
	"   OR (r2.end_ms = r.end_ms AND r2.rec < r.rec))"
	"   ORDER BY r2.end_ms DESC, r2.rec DESC LIMIT 1)"
	" FROM res_runs r JOIN res_cases c ON c.run = r.id"
	" JOIN res_paths p ON p.id = c.path JOIN res_strs s ON s.id = p.suite"
	" WHERE r.rec = ?1 AND c.status IN (?2, ?3)"
	" ORDER BY s.s || '.' || p.path";

static bool s_passed(int status)
{
	return status == PROTO_PASS || status == PROTO_DONE;
}

static bool s_failed(int status)
{
	return status == PROTO_FAIL || status == PROTO_ERROR;
}

static int s_has_run(sqlite3 *db, const uint8_t *run_id)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(db, "SELECT 1 FROM res_runs WHERE rec = ?1",
			       -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_blob(st, 1, run_id, 32, SQLITE_STATIC);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : rc == SQLITE_DONE ? -ENOENT : -EIO;
}

int rerun_regressions(sqlite3 *db, const uint8_t *run_id, bool all_failed,
		      rerun_path_fn fn, void *arg)
{
	sqlite3_stmt *st;
	int rc = s_has_run(db, run_id);

	if (rc < 0)
		return rc;
	if (sqlite3_prepare_v2(db, s_sql_failed, -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	sqlite3_bind_blob(st, 1, run_id, 32, SQLITE_STATIC);
	sqlite3_bind_int(st, 2, PROTO_FAIL);
	sqlite3_bind_int(st, 3, PROTO_ERROR);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *path = (const char *)sqlite3_column_text(st, 0);
		bool before = sqlite3_column_type(st, 1) != SQLITE_NULL;

		if (!path || (!all_failed &&
			      !(before && s_passed(sqlite3_column_int(st, 1)))))
			continue;
		if (fn(arg, path) != 0) {
			rc = SQLITE_DONE;
			break;
		}
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : -EIO;
}

static void s_count(uint32_t *runs, uint32_t *passes, bool pass)
{
	if (*runs >= PROTO_MAX_RERUNS)
		return;
	(*runs)++;
	if (pass)
		(*passes)++;
}

int rerun_tally(sqlite3 *db, const uint8_t (*reqs)[32], size_t n,
		const char *lab, const char *board, const char *path,
		rerun_tally_t *t)
{
	sqlite3_stmt *st;
	int rc = SQLITE_DONE;

	if (sqlite3_prepare_v2(db, "SELECT r.lab, r.board, c.status FROM"
			       " res_runs r JOIN res_cases c ON c.run = r.id"
			       " JOIN res_paths p ON p.id = c.path JOIN"
			       " res_strs s ON s.id = p.suite WHERE"
			       " r.request = ?1 AND s.s || '.' || p.path = ?2",
			       -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	for (size_t i = 0; i < n && rc == SQLITE_DONE; i++) {
		sqlite3_bind_blob(st, 1, reqs[i], 32, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, path, -1, SQLITE_STATIC);
		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			const char *l = (const char *)sqlite3_column_text(st, 0);
			const char *b = (const char *)sqlite3_column_text(st, 1);
			int status = sqlite3_column_int(st, 2);
			bool here = l && b && !strcmp(l, lab) &&
				    !strcmp(b, board);

			if (!s_passed(status) && !s_failed(status))
				continue;
			if (here)
				s_count(&t->runs, &t->passes, s_passed(status));
			else
				s_count(&t->other_runs, &t->other_passes,
					s_passed(status));
		}
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : -EIO;
}

int rerun_judge(const rerun_tally_t *t)
{
	if (t->runs + t->other_runs == 0)
		return 0;
	if (t->passes > 0)
		return VERDICT_FLAKY;
	if (t->runs > 0 && t->other_runs > 0 &&
	    t->other_passes == t->other_runs)
		return VERDICT_BOARD_SPECIFIC;
	if (t->runs == 0 && t->other_passes > 0)
		return VERDICT_FLAKY;
	return VERDICT_CONFIRMED;
}
