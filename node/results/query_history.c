/*
 * query_history: one test (or metric) across commits and boards, newest
 * first. Rows come from the path indexes of res_cases and res_metrics,
 * joined in memory with the selected runs, and are ordered by the run's
 * end time (latest first), then lab, board, record id and path text.
 */
#include "node/results/query_int.h"

#include "proto/mem.h"
#include "proto/types.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
	int32_t run;     /* index into runs */
	int64_t path;
	int status;      /* 0: a metric row */
	int64_t duration_ms;
	int64_t msg;
	bool has_value;
	double value;
	int64_t unit;
} s_row_t;

typedef struct {
	s_row_t *r;
	size_t n, alloc;
} s_rows_t;

static const qruns_t *s_runs;
static const qpaths_t *s_paths;

static int s_cmp_row(const void *pa, const void *pb)
{
	const s_row_t *a = pa, *b = pb;
	const qrun_t *x = &s_runs->r[a->run], *y = &s_runs->r[b->run];
	int d;

	if (x->end_ms != y->end_ms)
		return x->end_ms > y->end_ms ? -1 : 1;
	if ((d = strcmp(x->lab, y->lab)) || (d = strcmp(x->board, y->board)) ||
	    (d = memcmp(x->rec, y->rec, 32)))
		return d;
	if (a->path != b->path)
		return s_paths->rank[a->path] < s_paths->rank[b->path] ? -1 : 1;
	return (a->status == 0) - (b->status == 0);
}

static void s_add(s_rows_t *rows, const s_row_t *r)
{
	if (rows->n == rows->alloc) {
		rows->alloc = rows->alloc ? rows->alloc * 2 : 64;
		rows->r = xreallocarray(rows->r, rows->alloc, sizeof(*rows->r));
	}
	rows->r[rows->n++] = *r;
}

static int s_collect(sqlite3 *db, int64_t path, const qruns_t *runs,
		     const query_filter_t *f, s_rows_t *rows)
{
	sqlite3_stmt *c, *m;
	int rc = 0;

	if (sqlite3_prepare_v2(db, "SELECT run, status, duration_ms, msg FROM"
			       " res_cases WHERE path = ?1", -1, &c,
			       NULL) != SQLITE_OK)
		return -EIO;
	if (sqlite3_prepare_v2(db, "SELECT run, value, unit FROM res_metrics"
			       " WHERE path = ?1", -1, &m, NULL) != SQLITE_OK) {
		sqlite3_finalize(c);
		return -EIO;
	}
	sqlite3_bind_int64(c, 1, path);
	while (sqlite3_step(c) == SQLITE_ROW) {
		int ri = qruns_find(runs, sqlite3_column_int64(c, 0));
		int st = sqlite3_column_int(c, 1);

		if (ri < 0 || !query_status_ok(f, st))
			continue;
		s_add(rows, &(s_row_t){ .run = ri, .path = path, .status = st,
			.duration_ms = sqlite3_column_int64(c, 2),
			.msg = sqlite3_column_int64(c, 3) });
	}
	sqlite3_bind_int64(m, 1, path);
	while (!f->status_mask && sqlite3_step(m) == SQLITE_ROW) {
		int ri = qruns_find(runs, sqlite3_column_int64(m, 0));

		if (ri < 0)
			continue;
		s_add(rows, &(s_row_t){ .run = ri, .path = path,
			.has_value = true, .value = sqlite3_column_double(m, 1),
			.unit = sqlite3_column_int64(m, 2) });
	}
	sqlite3_finalize(c);
	sqlite3_finalize(m);
	return rc;
}

/* A case row and the metric row of the same run and path are one
 * result: the value goes with the verdict (m: the metric, or NULL). */
static void s_row_json(json_t *j, const qrun_t *r, const qpaths_t *p,
		       const s_row_t *w, const char *msg, const char *unit,
		       const s_row_t *m)
{
	char hex[65], when[64];

	proto_hex(r->rec, 32, hex);
	query_time_rfc3339(r->end_ms, when);
	json_obj_open(j);
	json_key_str(j, "path", p->full[w->path]);
	json_key_str(j, "time", when);
	json_key_str(j, "commit", r->commit);
	json_key_str(j, "branch", r->branch);
	json_key_str(j, "lab", r->lab);
	json_key_str(j, "board", r->board);
	json_key_str(j, "arch", r->arch);
	json_key_str(j, "run", hex);
	if (!w->has_value) {
		json_key_str(j, "status", query_status_name(w->status));
		json_key_int(j, "duration_ms", w->duration_ms);
		json_key_str(j, "message", msg ? msg : "");
	}
	if (w->has_value || m) {
		json_key_double(j, "value", (m ? m : w)->value);
		json_key_str(j, "unit", unit ? unit : "");
	}
	json_obj_close(j);
}

typedef struct {
	int lab, board, kernel, path;
} s_widths_t;

static const char *s_kernel(const qrun_t *r)
{
	return *r->commit ? r->commit : *r->describe ? r->describe : "-";
}

static int s_max(int a, int b)
{
	return a > b ? a : b;
}

static void s_widths(const qruns_t *runs, const qpaths_t *p,
		     const s_rows_t *rows, s_widths_t *w)
{
	*w = (s_widths_t){ 3, 5, 6, 4 };
	for (size_t i = 0; i < rows->n; i++) {
		const qrun_t *r = &runs->r[rows->r[i].run];
		int k = (int)strlen(s_kernel(r));

		w->lab = s_max(w->lab, (int)strlen(r->lab));
		w->board = s_max(w->board, (int)strlen(r->board));
		w->kernel = s_max(w->kernel, k > 24 ? 24 : k);
		w->path = s_max(w->path, (int)strlen(p->full[rows->r[i].path]));
	}
}

static void s_head_text(buf_t *b, const s_widths_t *w)
{
	buf_printf(b, "%-16s  %-*s  %-*s  %-*s  %-12s  %-*s  %-6s  %10s  %12s"
		   "  %s\n", "TIME", w->lab, "LAB", w->board, "BOARD",
		   w->kernel, "KERNEL", "RUN", w->path, "TEST", "STATUS",
		   "DURATION", "VALUE", "MESSAGE");
}

static void s_row_text(buf_t *b, const qrun_t *r, const qpaths_t *p,
		       const s_row_t *w, const char *msg, const char *unit,
		       const s_row_t *m, const s_widths_t *wd)
{
	char when[64], line[256], hex[65], dur[32] = "", val[64] = "";
	const s_row_t *v = w->has_value ? w : m;

	query_time_short(r->end_ms, when);
	proto_hex(r->rec, 32, hex);
	if (!w->has_value)
		query_duration(w->duration_ms, 0, dur);
	if (v)
		snprintf(val, sizeof(val), "%.6g%s%s", v->value,
			 unit && *unit ? " " : "", unit ? unit : "");
	query_one_line(line, sizeof(line), msg ? msg : "");
	buf_printf(b, "%-16s  %-*s  %-*s  %-*.*s  %.12s  %-*s  %-6s  %10s  %12s"
		   "%s%s", when, wd->lab, r->lab, wd->board, r->board,
		   wd->kernel, *r->commit ? 12 : 24, s_kernel(r), hex, wd->path, p->full[w->path],
		   w->has_value ? "-" : query_status_name(w->status), dur, val,
		   *line ? "  " : "", line);
	while (b->len && b->data[b->len - 1] == ' ')
		b->len--;
	buf_putc(b, '\n');
}

static int s_print(sqlite3 *db, const qruns_t *runs, const qpaths_t *p,
		   const s_rows_t *rows, bool json, FILE *out)
{
	qstrs_t strs;
	s_widths_t wd = { 0 };
	buf_t b;
	json_t j;
	int rc = 0;

	if (qstrs_open(db, &strs) < 0)
		return -EIO;
	buf_init(&b, 0);
	json_init(&j, &b, JSON_PRETTY);
	if (json) {
		json_obj_open(&j);
		json_key(&j, "history");
		json_arr_open(&j);
	}
	if (!json && rows->n) {
		s_widths(runs, p, rows, &wd);
		s_head_text(&b, &wd);
	}
	for (size_t i = 0; i < rows->n && rc == 0; i++) {
		const s_row_t *w = &rows->r[i];
		const s_row_t *m = !w->has_value && i + 1 < rows->n &&
					   rows->r[i + 1].has_value &&
					   rows->r[i + 1].run == w->run &&
					   rows->r[i + 1].path == w->path ?
				   &rows->r[i + 1] : NULL;
		char *msg = w->has_value ? NULL : qstrs_get(&strs, w->msg);
		char *unit = w->has_value || m ?
				     qstrs_get(&strs, (m ? m : w)->unit) : NULL;

		if (m)
			i++; /* shown with its verdict */
		if (json)
			s_row_json(&j, &runs->r[w->run], p, w, msg, unit, m);
		else
			s_row_text(&b, &runs->r[w->run], p, w, msg, unit, m,
				   &wd);
		free(msg), free(unit);
		rc = query_flush(&b, out, false);
	}
	if (json) {
		json_arr_close(&j);
		json_obj_close(&j);
		if (json_finish(&j) < 0)
			rc = -EIO;
	}
	if (rc == 0)
		rc = query_flush(&b, out, true);
	buf_free(&b);
	qstrs_close(&strs);
	return rc;
}

int query_history(sqlite3 *db, const char *path, const query_filter_t *f,
		  bool json, FILE *out, char *err, size_t errsz)
{
	query_filter_t g = *f;
	qruns_t runs;
	qpaths_t p;
	s_rows_t rows = { 0 };
	bool glob = strpbrk(path, "*?[") != NULL, any = false;
	int rc;

	g.path = NULL;
	rc = qruns_load(db, f, &runs);
	if (rc < 0) {
		snprintf(err, errsz, "reading runs failed");
		return rc;
	}
	qpaths_load(db, &g, &p);
	for (int64_t id = 1; id <= p.max && rc == 0; id++) {
		if (!p.full[id] || !p.match[id] ||
		    !(glob ? query_path_match(path, p.full[id]) :
			     strcmp(path, p.full[id]) == 0))
			continue;
		any = true;
		rc = s_collect(db, id, &runs, f, &rows);
	}
	if (rc == 0 && !any) {
		snprintf(err, errsz, "no test or metric named '%.200s'", path);
		rc = -ENOENT;
	}
	if (rc == 0) {
		s_runs = &runs, s_paths = &p;
		if (rows.n)
			qsort(rows.r, rows.n, sizeof(*rows.r), s_cmp_row);
		rc = s_print(db, &runs, &p, &rows, json, out);
	}
	free(rows.r);
	qpaths_free(&p);
	qruns_free(&runs);
	return rc;
}
