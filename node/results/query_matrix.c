/*
 * query_matrix: boards x suites for one commit. Each (lab, board, suite)
 * cell comes from the latest run of that board covering that suite (runs
 * are loaded latest first), its counts from the per-suite counts the
 * index keeps; a --status filter masks them, a --path filter recounts
 * from the cases of the chosen runs (each run read once).
 */
#include "node/results/query_int.h"

#include "proto/mem.h"
#include "proto/types.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ---- the matrix ---- */

#define N_ST (PROTO_STATUS_MAX + 1)
#define S_CELL_MAX 72 /* a cell's text: a suite's reason is cut to fit */

typedef struct {
	size_t row;       /* index into rows */
	char *suite;
	size_t run;       /* index into runs */
	int status;       /* the suite's own status */
	int64_t n[N_ST];  /* per case status */
	char *metric;     /* the headline metric (first by path), or NULL */
	double value;
	char *unit;       /* "" when none */
	char *reason;     /* why the suite as a whole SKIPped..., or NULL */
} s_cell_t;

typedef struct {
	qruns_t runs;
	size_t *row_first; /* run index of each row's first (latest) run */
	size_t n_rows;
	s_cell_t *cells;
	size_t n_cells, alloc_cells;
	char **suites;
	size_t n_suites;
	const char *commit;
} s_matrix_t;

static int s_pick_commit(s_matrix_t *m, char *err, size_t errsz)
{
	size_t distinct = 0;

	for (size_t i = 0; i < m->runs.n; i++) {
		if (!m->commit || strcmp(m->commit, m->runs.r[i].commit)) {
			if (m->commit && distinct == 1) {
				snprintf(err, errsz, "runs of several commits"
					 " match (%.12s, %.12s...): give"
					 " --commit", m->commit,
					 m->runs.r[i].commit);
				return -EINVAL;
			}
			if (!m->commit)
				distinct = 1;
			m->commit = m->runs.r[i].commit;
		}
	}
	if (!m->commit) {
		snprintf(err, errsz, "no runs match");
		return -ENOENT;
	}
	return 0;
}

static s_cell_t *s_cell_add(s_matrix_t *m)
{
	if (m->n_cells == m->alloc_cells) {
		m->alloc_cells = m->alloc_cells ? m->alloc_cells * 2 : 64;
		m->cells = xreallocarray(m->cells, m->alloc_cells,
					 sizeof(*m->cells));
	}
	memset(&m->cells[m->n_cells], 0, sizeof(*m->cells));
	return &m->cells[m->n_cells++];
}

static bool s_cell_has(const s_matrix_t *m, size_t first, size_t row,
		       const char *suite)
{
	for (size_t i = first; i < m->n_cells; i++)
		if (m->cells[i].row == row && !strcmp(m->cells[i].suite, suite))
			return true;
	return false;
}

/* The suites of run ri that are not yet in its row: latest run wins. */
static int s_matrix_run(sqlite3 *db, sqlite3_stmt *st, s_matrix_t *m,
			size_t ri, size_t row, size_t row_cells,
			const query_filter_t *f)
{
	int rc;

	sqlite3_bind_int64(st, 1, m->runs.r[ri].id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *suite = (const char *)sqlite3_column_text(st, 0);
		s_cell_t *c;

		if (!suite || (f->suite && strcmp(f->suite, suite)) ||
		    s_cell_has(m, row_cells, row, suite))
			continue;
		c = s_cell_add(m);
		c->row = row;
		c->suite = xstrdup(suite);
		c->run = ri;
		c->status = sqlite3_column_int(st, 1);
		for (int s = PROTO_PASS; s <= PROTO_DONE; s++)
			c->n[s] = sqlite3_column_int64(st, 1 + s);
		if (sqlite3_column_type(st, 8) == SQLITE_TEXT)
			c->reason = xstrdup((const char *)
					    sqlite3_column_text(st, 8));
	}
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : -EIO;
}

/* Only statuses are filtered: the per-suite counts answer exactly. */
static void s_matrix_mask(s_matrix_t *m, const query_filter_t *f)
{
	for (size_t i = 0; i < m->n_cells; i++)
		for (int s = PROTO_PASS; s <= PROTO_DONE; s++)
			if (!query_status_ok(f, s))
				m->cells[i].n[s] = 0;
}

/* The cell of run ri for the suite of path id, or NULL. Cells of one run
 * are contiguous from first (they were added run by run). */
static s_cell_t *s_run_cell(s_matrix_t *m, size_t first, size_t ri,
			    const char *suite)
{
	for (size_t i = first; i < m->n_cells && m->cells[i].run == ri; i++)
		if (!strcmp(m->cells[i].suite, suite))
			return &m->cells[i];
	return NULL;
}

/* Recount cells from the cases when paths are filtered: each chosen run's
 * cases are read once through the (run, path) key. */
static int s_matrix_recount(sqlite3 *db, s_matrix_t *m,
			    const query_filter_t *f)
{
	sqlite3_stmt *st;
	qpaths_t p;
	int rc = 0;

	if (sqlite3_prepare_v2(db, "SELECT path, status FROM res_cases WHERE"
			       " run = ?1", -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	qpaths_load(db, f, &p);
	for (size_t i = 0; i < m->n_cells; i++)
		memset(m->cells[i].n, 0, sizeof(m->cells[i].n));
	for (size_t i = 0; i < m->n_cells && rc == 0; i++) {
		size_t ri = m->cells[i].run;

		if (i > 0 && m->cells[i - 1].run == ri)
			continue; /* this run was read already */
		sqlite3_bind_int64(st, 1, m->runs.r[ri].id);
		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			int64_t id = sqlite3_column_int64(st, 0);
			int s = sqlite3_column_int(st, 1);
			s_cell_t *c;

			if (id <= 0 || id > p.max || !p.match[id] ||
			    !query_status_ok(f, s) || s < 1 || s >= N_ST)
				continue;
			c = s_run_cell(m, i, ri, p.suite[id]);
			if (c)
				c->n[s]++;
		}
		sqlite3_reset(st);
		rc = rc == SQLITE_DONE ? 0 : -EIO;
	}
	sqlite3_finalize(st);
	qpaths_free(&p);
	return rc;
}

static int s_cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void s_matrix_suites(s_matrix_t *m)
{
	m->suites = xcalloc(m->n_cells + 1, sizeof(*m->suites));
	for (size_t i = 0; i < m->n_cells; i++)
		m->suites[i] = m->cells[i].suite;
	qsort(m->suites, m->n_cells, sizeof(*m->suites), s_cmp_str);
	for (size_t i = 0; i < m->n_cells; i++)
		if (!m->n_suites || strcmp(m->suites[m->n_suites - 1],
					   m->suites[i]))
			m->suites[m->n_suites++] = m->suites[i];
}

static int s_matrix_build(sqlite3 *db, s_matrix_t *m, const query_filter_t *f)
{
	sqlite3_stmt *st;
	size_t row_cells = 0;
	int rc = 0;

	if (sqlite3_prepare_v2(db, "SELECT n.s, s.status, s.n_pass, s.n_fail,"
			       " s.n_error, s.n_skip, s.n_miss, s.n_done,"
			       " s.reason FROM"
			       " res_suites s JOIN res_strs n ON n.id = s.suite"
			       " WHERE s.run = ?1", -1, &st, NULL) != SQLITE_OK)
		return -EIO;
	m->row_first = xcalloc(m->runs.n + 1, sizeof(*m->row_first));
	for (size_t i = 0; i < m->runs.n && rc == 0; i++) {
		const qrun_t *r = &m->runs.r[i];

		if (strcmp(r->commit, m->commit))
			continue;
		if (!m->n_rows ||
		    strcmp(r->lab, m->runs.r[m->row_first[m->n_rows - 1]].lab) ||
		    strcmp(r->board,
			   m->runs.r[m->row_first[m->n_rows - 1]].board)) {
			m->row_first[m->n_rows++] = i;
			row_cells = m->n_cells;
		}
		rc = s_matrix_run(db, st, m, i, m->n_rows - 1, row_cells, f);
	}
	sqlite3_finalize(st);
	if (rc == 0 && f->path)
		rc = s_matrix_recount(db, m, f);
	else if (rc == 0 && f->status_mask)
		s_matrix_mask(m, f);
	s_matrix_suites(m);
	return rc;
}

/* Each cell's headline metric: a benchmark's cell shows a number. */
static int s_matrix_headlines(sqlite3 *db, s_matrix_t *m)
{
	sqlite3_stmt *st;

	if (sqlite3_prepare_v2(db, "SELECT p.path, m.value, u.s FROM"
			       " res_metrics m JOIN res_paths p ON p.id ="
			       " m.path JOIN res_strs n ON n.id = p.suite LEFT"
			       " JOIN res_strs u ON u.id = m.unit WHERE m.run ="
			       " ?1 AND n.s = ?2 ORDER BY p.path LIMIT 1", -1,
			       &st, NULL) != SQLITE_OK)
		return -EIO;
	for (size_t i = 0; i < m->n_cells; i++) {
		s_cell_t *c = &m->cells[i];
		const unsigned char *u;

		sqlite3_bind_int64(st, 1, m->runs.r[c->run].id);
		sqlite3_bind_text(st, 2, c->suite, -1, SQLITE_STATIC);
		if (sqlite3_step(st) == SQLITE_ROW) {
			c->metric = xasprintf("%s.%s", c->suite,
					      sqlite3_column_text(st, 0));
			c->value = sqlite3_column_double(st, 1);
			u = sqlite3_column_text(st, 2);
			c->unit = xstrdup(u ? (const char *)u : "");
		}
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	return 0;
}

static void s_matrix_free(s_matrix_t *m)
{
	for (size_t i = 0; i < m->n_cells; i++)
		free(m->cells[i].suite), free(m->cells[i].metric),
			free(m->cells[i].unit), free(m->cells[i].reason);
	free(m->cells);
	free(m->suites);
	free(m->row_first);
	qruns_free(&m->runs);
}

static const s_cell_t *s_cell_at(const s_matrix_t *m, size_t row,
				 const char *suite)
{
	for (size_t i = 0; i < m->n_cells; i++)
		if (m->cells[i].row == row && !strcmp(m->cells[i].suite, suite))
			return &m->cells[i];
	return NULL;
}

/* A suite that ended as a whole: its status and why, cut to fit. */
static void s_cell_status(const s_cell_t *c, char *out, size_t n)
{
	const char *st = query_status_name(c->status);

	if (!c->reason)
		snprintf(out, n, "%s", st);
	else if (strlen(st) + 2 + strlen(c->reason) <= S_CELL_MAX)
		snprintf(out, n, "%s: %s", st, c->reason);
	else
		snprintf(out, n, "%s: %.*s...", st,
			 (int)(S_CELL_MAX - strlen(st) - 5), c->reason);
}

/* "P/F/S": FAIL counts ERROR, SKIP counts MISS, PASS counts DONE. */
static void s_cell_text(const s_cell_t *c, char *out, size_t n)
{
	if (!c) {
		snprintf(out, n, "-");
		return;
	}
	/* a suite with no case to count (it SKIPped or broke as a whole)
	 * says so, rather than 0/0/0; a benchmark shows its number */
	if (!(c->n[PROTO_PASS] + c->n[PROTO_DONE] + c->n[PROTO_FAIL] +
	      c->n[PROTO_ERROR] + c->n[PROTO_SKIP] + c->n[PROTO_MISS])) {
		if (c->status != PROTO_PASS && c->status != PROTO_DONE) {
			s_cell_status(c, out, n);
			return;
		}
		if (c->metric) {
			snprintf(out, n, "%.4g%s%s", c->value,
				 *c->unit ? " " : "", c->unit);
			return;
		}
	}
	snprintf(out, n, "%lld/%lld/%lld",
		 (long long)(c->n[PROTO_PASS] + c->n[PROTO_DONE]),
		 (long long)(c->n[PROTO_FAIL] + c->n[PROTO_ERROR]),
		 (long long)(c->n[PROTO_SKIP] + c->n[PROTO_MISS]));
	if (c->metric && strlen(out) + 2 < n)
		snprintf(out + strlen(out), n - strlen(out), " %.4g%s%s",
			 c->value, *c->unit ? " " : "", c->unit);
}

static size_t s_width(size_t w, const char *s)
{
	size_t n = strlen(s);

	return n > w ? n : w;
}

static void s_matrix_text(const s_matrix_t *m, buf_t *b)
{
	size_t wb = 5, wl = 3, wa = 4, *ws = xcalloc(m->n_suites + 1,
						     sizeof(*ws));
	char cell[S_CELL_MAX + 1];

	for (size_t r = 0; r < m->n_rows; r++) {
		const qrun_t *q = &m->runs.r[m->row_first[r]];

		wb = s_width(wb, q->board), wl = s_width(wl, q->lab);
		wa = s_width(wa, q->arch);
		for (size_t s = 0; s < m->n_suites; s++) {
			s_cell_text(s_cell_at(m, r, m->suites[s]), cell,
				    sizeof(cell));
			ws[s] = s_width(s_width(ws[s], m->suites[s]), cell);
		}
	}
	if (*m->commit || !m->runs.n || !*m->runs.r[0].describe)
		buf_printf(b, "commit %s\n", *m->commit ? m->commit : "(none)");
	else
		buf_printf(b, "kernel %s (no commit)\n",
			   m->runs.r[0].describe);
	buf_printf(b, "cells: PASS/FAIL/SKIP (FAIL includes ERROR, SKIP"
		   " includes MISS); a suite with no case: its status and"
		   " why\n\n");
	buf_printf(b, "%-*s  %-*s  %-*s", (int)wb, "BOARD", (int)wl, "LAB",
		   (int)wa, "ARCH");
	for (size_t s = 0; s < m->n_suites; s++)
		buf_printf(b, "  %-*s", (int)ws[s], m->suites[s]);
	buf_puts(b, "\n");
	for (size_t r = 0; r < m->n_rows; r++) {
		const qrun_t *q = &m->runs.r[m->row_first[r]];

		buf_printf(b, "%-*s  %-*s  %-*s", (int)wb, q->board, (int)wl,
			   q->lab, (int)wa, q->arch);
		for (size_t s = 0; s < m->n_suites; s++) {
			s_cell_text(s_cell_at(m, r, m->suites[s]), cell,
				    sizeof(cell));
			buf_printf(b, "  %-*s", (int)ws[s], cell);
		}
		buf_puts(b, "\n");
	}
	free(ws);
}

static void s_matrix_json(const s_matrix_t *m, buf_t *b)
{
	static const char *const keys[N_ST] = {
		NULL, "pass", "fail", "error", "skip", "miss", "done" };
	json_t j;

	json_init(&j, b, JSON_PRETTY);
	json_obj_open(&j);
	json_key_str(&j, "commit", m->commit);
	json_key(&j, "suites");
	json_arr_open(&j);
	for (size_t s = 0; s < m->n_suites; s++)
		json_str(&j, m->suites[s]);
	json_arr_close(&j);
	json_key(&j, "boards");
	json_arr_open(&j);
	for (size_t r = 0; r < m->n_rows; r++) {
		const qrun_t *q = &m->runs.r[m->row_first[r]];

		json_obj_open(&j);
		json_key_str(&j, "lab", q->lab);
		json_key_str(&j, "board", q->board);
		json_key_str(&j, "arch", q->arch);
		json_key(&j, "cells");
		json_arr_open(&j);
		for (size_t s = 0; s < m->n_suites; s++) {
			const s_cell_t *c = s_cell_at(m, r, m->suites[s]);

			if (!c)
				continue;
			json_obj_open(&j);
			json_key_str(&j, "suite", c->suite);
			json_key_str(&j, "status", query_status_name(c->status));
			for (int k = PROTO_PASS; k <= PROTO_DONE; k++)
				json_key_int(&j, keys[k], c->n[k]);
			query_json_hex(&j, "run", m->runs.r[c->run].rec);
			if (c->reason)
				json_key_str(&j, "reason", c->reason);
			if (c->metric) {
				json_key(&j, "headline");
				json_obj_open(&j);
				json_key_str(&j, "path", c->metric);
				json_key_double(&j, "value", c->value);
				json_key_str(&j, "unit", c->unit);
				json_obj_close(&j);
			}
			json_obj_close(&j);
		}
		json_arr_close(&j);
		json_obj_close(&j);
	}
	json_arr_close(&j);
	json_obj_close(&j);
	json_finish(&j);
}

int query_matrix(sqlite3 *db, const query_filter_t *f, bool json, FILE *out,
		 char *err, size_t errsz)
{
	s_matrix_t m = { 0 };
	buf_t b;
	int rc = qruns_load(db, f, &m.runs);

	if (rc < 0) {
		snprintf(err, errsz, "reading runs failed");
		return rc;
	}
	rc = s_pick_commit(&m, err, errsz);
	if (rc == 0)
		rc = s_matrix_build(db, &m, f);
	/* a headline is the run's number: not for a view filtered to
	 * some cases */
	if (rc == 0 && !f->status_mask && !f->path)
		rc = s_matrix_headlines(db, &m);
	if (rc < 0) {
		if (rc == -EIO)
			snprintf(err, errsz, "reading the index failed");
		s_matrix_free(&m);
		return rc;
	}
	buf_init(&b, 0);
	if (json)
		s_matrix_json(&m, &b);
	else
		s_matrix_text(&m, &b);
	rc = query_flush(&b, out, true);
	buf_free(&b);
	s_matrix_free(&m);
	return rc;
}
