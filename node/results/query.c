/*
 * query: the shared machinery (filters, the selected runs, the path
 * table, output helpers) and the list view. The matrix lives in
 * query_matrix.c, compare in query_compare.c, history in query_history.c.
 *
 * Runs are few (one per board per request) and cases many, so run-level
 * filters are applied in SQL over res_runs and everything about cases is
 * read per run through the (run, path) primary key, then ordered in C by
 * the text rank of paths: no output depends on local row ids.
 */
#include "node/results/export_int.h"
#include "node/results/query_int.h"
#include "node/results/triage.h"

#include "proto/mem.h"
#include "proto/record.h"
#include "proto/types.h"

#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- small helpers ---- */

const char *query_status_name(int status)
{
	return proto_status_name(status);
}

void query_time_rfc3339(int64_t ms, char out[64])
{
	time_t t = (time_t)(ms / 1000);
	struct tm tm;

	gmtime_r(&t, &tm);
	snprintf(out, 64, "%04d-%02d-%02dT%02d:%02d:%02d.%03d000+00:00",
		 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
		 tm.tm_min, tm.tm_sec, (int)(ms % 1000));
}

void query_time_short(int64_t ms, char out[64])
{
	time_t t = (time_t)(ms / 1000);
	struct tm tm;

	gmtime_r(&t, &tm);
	snprintf(out, 64, "%04d-%02d-%02d %02d:%02d", tm.tm_year + 1900,
		 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min);
}

static void s_ms_text(int64_t ms, char out[32])
{
	if (ms < 10000)
		snprintf(out, 32, "%lld ms", (long long)ms);
	else
		snprintf(out, 32, "%.1f s", (double)ms / 1000.0);
}

void query_duration(int64_t case_ms, int64_t suite_ms, char out[32])
{
	char s[32];

	if (case_ms > 0) {
		s_ms_text(case_ms, out);
	} else if (suite_ms > 0) {
		s_ms_text(suite_ms, s);
		snprintf(out, 32, "suite %s", s);
	} else {
		snprintf(out, 32, "-");
	}
}

void query_one_line(char *out, size_t outsz, const char *s)
{
	size_t i = 0;

	for (; s && *s && i + 1 < outsz; s++)
		out[i++] = ((unsigned char)*s < 0x20 || *s == 0x7f) ? ' ' : *s;
	out[i] = '\0';
}

int query_flush(buf_t *b, FILE *out, bool force)
{
	if (!force && b->len < QUERY_FLUSH_AT)
		return 0;
	if (b->len && fwrite(b->data, 1, b->len, out) != b->len)
		return -EIO;
	buf_reset(b);
	return 0;
}

bool query_case_filtered(const query_filter_t *f)
{
	return f->suite || f->path || f->status_mask;
}

int query_parse_status(const char *s, uint32_t *ret_mask)
{
	uint32_t mask = 0;
	char word[16];

	while (s && *s) {
		size_t n = strcspn(s, ",");
		enum proto_status st;

		if (n == 0 || n >= sizeof(word))
			return -EINVAL;
		for (size_t i = 0; i < n; i++)
			word[i] = (char)toupper((unsigned char)s[i]);
		word[n] = '\0';
		if (proto_status_parse(word, &st) < 0)
			return -EINVAL;
		mask |= 1u << st;
		s += n;
		if (*s == ',')
			s++;
	}
	if (!mask)
		return -EINVAL;
	*ret_mask = mask;
	return 0;
}

static int s_parse_date(const char *s, int64_t *ret_ms)
{
	struct tm tm = { 0 };
	const char *end;

	end = strptime(s, "%Y-%m-%d", &tm);
	if (!end)
		return -EINVAL;
	if (*end == 'T' || *end == ' ') {
		const char *e2 = strptime(end + 1, "%H:%M:%S", &tm);

		end = e2 ? e2 : strptime(end + 1, "%H:%M", &tm);
		if (!end)
			return -EINVAL;
	}
	if (*end == 'Z')
		end++;
	if (*end)
		return -EINVAL;
	*ret_ms = (int64_t)timegm(&tm) * 1000;
	return 0;
}

int query_parse_since(const char *s, int64_t now_ms, int64_t *ret_ms)
{
	char *end;
	long long v;
	int64_t unit;

	if (!s || !*s)
		return -EINVAL;
	if (strlen(s) >= 10 && s[4] == '-')
		return s_parse_date(s, ret_ms);
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || v < 0 || end == s || end[0] == '\0' || end[1] != '\0')
		return -EINVAL;
	switch (*end) {
	case 's': unit = 1000; break;
	case 'm': unit = 60 * 1000; break;
	case 'h': unit = 3600 * 1000; break;
	case 'd': unit = 86400 * 1000; break;
	case 'w': unit = 7 * 86400 * 1000LL; break;
	default: return -EINVAL;
	}
	if (v > INT64_MAX / unit)
		return -EINVAL;
	*ret_ms = now_ms - (int64_t)v * unit;
	return 0;
}

int query_parse_threshold(const char *s, double *ret_pct)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || (*end && strcmp(end, "%")) || !isfinite(v) ||
	    v < 0)
		return -EINVAL;
	*ret_pct = v;
	return 0;
}

bool query_path_match(const char *pattern, const char *path)
{
	size_t n;

	if (strpbrk(pattern, "*?["))
		return fnmatch(pattern, path, 0) == 0;
	/* a plain pattern is a segment prefix: itself or below it */
	n = strlen(pattern);
	return strncmp(pattern, path, n) == 0 &&
	       (path[n] == '\0' || path[n] == '.' || pattern[n - 1] == '.');
}

void query_json_hex(json_t *j, const char *key, const uint8_t *id)
{
	char hex[65];

	proto_hex(id, 32, hex);
	json_key_str(j, key, hex);
}

/* ---- interned strings ---- */

int qstrs_open(sqlite3 *db, qstrs_t *ret)
{
	if (sqlite3_prepare_v2(db, "SELECT s FROM res_strs WHERE id = ?1", -1,
			       &ret->st, NULL) != SQLITE_OK)
		return -EIO;
	return 0;
}

char *qstrs_get(qstrs_t *q, int64_t id)
{
	char *s = NULL;

	if (id <= 0)
		return NULL;
	sqlite3_bind_int64(q->st, 1, id);
	if (sqlite3_step(q->st) == SQLITE_ROW)
		s = xstrdup((const char *)sqlite3_column_text(q->st, 0));
	sqlite3_reset(q->st);
	return s;
}

void qstrs_close(qstrs_t *q)
{
	sqlite3_finalize(q->st);
	q->st = NULL;
}

/* ---- runs ---- */

static const char s_runs_sql[] =
	"SELECT id, rec, author, request, seq, ts_ms, start_ms, end_ms, build,"
	" status, lab, board, arch, tree, branch, git_commit, config,"
	" compiler, describe, logs FROM res_runs WHERE"
	" (?1 IS NULL OR substr(git_commit, 1, length(?1)) = ?1) AND"
	" (?2 IS NULL OR branch = ?2) AND (?3 IS NULL OR tree = ?3) AND"
	" (?4 IS NULL OR board = ?4) AND (?5 IS NULL OR lab = ?5) AND"
	" (?6 IS NULL OR arch = ?6) AND (?7 IS NULL OR end_ms >= ?7) AND"
	" (?8 IS NULL OR substr(lower(hex(rec)), 1, length(?8)) = ?8) AND"
	" (?9 IS NULL OR substr(lower(hex(request)), 1, length(?9)) = ?9)"
	" ORDER BY lab, board, end_ms DESC, rec";

static char *s_col_dup(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);

	return xstrdup(t ? (const char *)t : "");
}

static void s_col_blob32(sqlite3_stmt *st, int i, uint8_t *out, bool *has)
{
	bool ok = sqlite3_column_bytes(st, i) == 32;

	if (ok)
		memcpy(out, sqlite3_column_blob(st, i), 32);
	else
		memset(out, 0, 32);
	if (has)
		*has = ok;
}

static void s_run_row(sqlite3_stmt *st, qrun_t *r)
{
	r->id = sqlite3_column_int64(st, 0);
	s_col_blob32(st, 1, r->rec, NULL);
	s_col_blob32(st, 2, r->author, NULL);
	s_col_blob32(st, 3, r->request, &r->has_request);
	r->seq = sqlite3_column_int64(st, 4);
	r->ts_ms = sqlite3_column_int64(st, 5);
	r->start_ms = sqlite3_column_int64(st, 6);
	r->end_ms = sqlite3_column_int64(st, 7);
	r->build = sqlite3_column_int(st, 8);
	r->status = sqlite3_column_int(st, 9);
	r->lab = s_col_dup(st, 10);
	r->board = s_col_dup(st, 11);
	r->arch = s_col_dup(st, 12);
	r->tree = s_col_dup(st, 13);
	r->branch = s_col_dup(st, 14);
	r->commit = s_col_dup(st, 15);
	r->config = s_col_dup(st, 16);
	r->compiler = s_col_dup(st, 17);
	r->describe = s_col_dup(st, 18);
	r->logs = s_col_dup(st, 19);
}

static void s_bind_opt(sqlite3_stmt *st, int i, const char *s)
{
	if (s)
		sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
}

static char *s_lower(const char *s)
{
	char *d = s ? xstrdup(s) : NULL;

	for (char *p = d; p && *p; p++)
		*p = (char)tolower((unsigned char)*p);
	return d;
}

int qruns_load(sqlite3 *db, const query_filter_t *f, qruns_t *ret)
{
	sqlite3_stmt *st;
	size_t alloc = 0;
	char *run = s_lower(f->run), *req = s_lower(f->request);
	char *commit = s_lower(f->commit);
	int rc;

	memset(ret, 0, sizeof(*ret));
	rc = sqlite3_prepare_v2(db, s_runs_sql, -1, &st, NULL);
	if (rc != SQLITE_OK) {
		free(run), free(req), free(commit);
		/* no index yet: nothing to select */
		return 0;
	}
	s_bind_opt(st, 1, commit);
	s_bind_opt(st, 2, f->branch);
	s_bind_opt(st, 3, f->tree);
	s_bind_opt(st, 4, f->board);
	s_bind_opt(st, 5, f->lab);
	s_bind_opt(st, 6, f->arch);
	if (f->has_since)
		sqlite3_bind_int64(st, 7, f->since_ms);
	s_bind_opt(st, 8, run);
	s_bind_opt(st, 9, req);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (ret->n == alloc) {
			alloc = alloc ? alloc * 2 : 64;
			ret->r = xreallocarray(ret->r, alloc, sizeof(*ret->r));
		}
		s_run_row(st, &ret->r[ret->n]);
		if (ret->r[ret->n].id > ret->max_id)
			ret->max_id = ret->r[ret->n].id;
		ret->n++;
	}
	sqlite3_finalize(st);
	free(run), free(req), free(commit);
	if (rc != SQLITE_DONE) {
		qruns_free(ret);
		return -EIO;
	}
	ret->by_id = xcalloc((size_t)ret->max_id + 1, sizeof(*ret->by_id));
	memset(ret->by_id, 0xff, ((size_t)ret->max_id + 1) * sizeof(int32_t));
	for (size_t i = 0; i < ret->n; i++)
		ret->by_id[ret->r[i].id] = (int32_t)i;
	return 0;
}

int qruns_find(const qruns_t *rs, int64_t id)
{
	if (id < 0 || id > rs->max_id || !rs->by_id)
		return -1;
	return rs->by_id[id];
}

void qruns_free(qruns_t *rs)
{
	for (size_t i = 0; i < rs->n; i++) {
		qrun_t *r = &rs->r[i];

		free(r->lab), free(r->board), free(r->arch), free(r->tree);
		free(r->branch), free(r->commit), free(r->config);
		free(r->compiler), free(r->describe), free(r->logs);
	}
	free(rs->r);
	free(rs->by_id);
	memset(rs, 0, sizeof(*rs));
}

/* ---- paths ---- */

static int64_t s_max(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	int64_t n = 0;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return 0;
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return n;
}

static const qpaths_t *s_sort_paths;

static int s_cmp_path(const void *pa, const void *pb)
{
	int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
	int c = strcmp(s_sort_paths->full[a], s_sort_paths->full[b]);

	return c ? c : strcmp(s_sort_paths->suite[a], s_sort_paths->suite[b]);
}

static void s_rank(qpaths_t *p)
{
	int64_t *ids = xcalloc((size_t)p->max + 1, sizeof(*ids));
	size_t n = 0;

	for (int64_t i = 1; i <= p->max; i++)
		if (p->full[i])
			ids[n++] = i;
	s_sort_paths = p;
	qsort(ids, n, sizeof(*ids), s_cmp_path);
	for (size_t i = 0; i < n; i++)
		p->rank[ids[i]] = (uint32_t)i;
	free(ids);
}

static void s_load_names(sqlite3 *db, qpaths_t *p)
{
	sqlite3_stmt *st;

	p->max_str = s_max(db, "SELECT max(id) FROM res_strs");
	p->names = xcalloc((size_t)p->max_str + 1, sizeof(*p->names));
	if (sqlite3_prepare_v2(db, "SELECT id, s FROM res_strs WHERE id IN"
			       " (SELECT DISTINCT suite FROM res_paths)", -1,
			       &st, NULL) != SQLITE_OK)
		return;
	while (sqlite3_step(st) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0);

		if (id > 0 && id <= p->max_str)
			p->names[id] = s_col_dup(st, 1);
	}
	sqlite3_finalize(st);
}

int qpaths_load(sqlite3 *db, const query_filter_t *f, qpaths_t *ret)
{
	sqlite3_stmt *st;
	qpaths_t *p = ret;
	size_t n;

	memset(p, 0, sizeof(*p));
	p->max = s_max(db, "SELECT max(id) FROM res_paths");
	n = (size_t)p->max + 1;
	p->full = xcalloc(n, sizeof(*p->full));
	p->suite = xcalloc(n, sizeof(*p->suite));
	p->plen = xcalloc(n, sizeof(*p->plen));
	p->rank = xcalloc(n, sizeof(*p->rank));
	p->match = xcalloc(n, sizeof(*p->match));
	s_load_names(db, p);
	if (sqlite3_prepare_v2(db, "SELECT id, suite, path FROM res_paths",
			       -1, &st, NULL) != SQLITE_OK)
		return 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0);
		int64_t sid = sqlite3_column_int64(st, 1);
		const char *path = (const char *)sqlite3_column_text(st, 2);
		const char *suite;

		if (id <= 0 || id > p->max || sid <= 0 || sid > p->max_str ||
		    !p->names[sid] || !path)
			continue;
		suite = p->names[sid];
		p->suite[id] = (char *)suite;
		p->full[id] = xasprintf("%s.%s", suite, path);
		p->plen[id] = strlen(suite) + 1;
		p->match[id] = (!f->suite || strcmp(f->suite, suite) == 0) &&
			       (!f->path || query_path_match(f->path,
							     p->full[id]));
	}
	sqlite3_finalize(st);
	s_rank(p);
	return 0;
}

void qpaths_free(qpaths_t *p)
{
	for (int64_t i = 0; i <= p->max && p->full; i++)
		free(p->full[i]);
	for (int64_t i = 0; i <= p->max_str && p->names; i++)
		free(p->names[i]);
	free(p->full), free(p->suite), free(p->plen), free(p->rank);
	free(p->match), free(p->names);
	memset(p, 0, sizeof(*p));
}

/* ---- the list ---- */

typedef struct {
	int64_t path;
	int status;
	int64_t duration_ms;
	int64_t msg;
} s_case_t;

static const qpaths_t *s_sort_cases;

static int s_cmp_case(const void *pa, const void *pb)
{
	const s_case_t *a = pa, *b = pb;
	uint32_t ra = s_sort_cases->rank[a->path];
	uint32_t rb = s_sort_cases->rank[b->path];

	return ra < rb ? -1 : ra > rb;
}

/* The cases of run ri passing the filters, in path text order. */
static int s_run_cases(sqlite3_stmt *st, const qrun_t *r, const qpaths_t *p,
		       const query_filter_t *f, s_case_t **cases, size_t *n,
		       size_t *alloc)
{
	int rc;

	*n = 0;
	sqlite3_bind_int64(st, 1, r->id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		s_case_t c = {
			.path = sqlite3_column_int64(st, 0),
			.status = sqlite3_column_int(st, 1),
			.duration_ms = sqlite3_column_int64(st, 2),
			.msg = sqlite3_column_int64(st, 3),
		};

		if (c.path <= 0 || c.path > p->max || !p->full[c.path] ||
		    !p->match[c.path] || !query_status_ok(f, c.status))
			continue;
		if (*n == *alloc) {
			*alloc = *alloc ? *alloc * 2 : 256;
			*cases = xreallocarray(*cases, *alloc, sizeof(**cases));
		}
		(*cases)[(*n)++] = c;
	}
	sqlite3_reset(st);
	s_sort_cases = p;
	if (*n)
		qsort(*cases, *n, sizeof(**cases), s_cmp_case);
	return rc == SQLITE_DONE ? 0 : -EIO;
}

/* Column widths of the text list. */
typedef struct {
	int lab, board, kernel, path;
} s_widths_t;

#define S_LIST_MAX_PATH_W 60 /* longer paths push the columns after them */

/* The kernel: 12 digits of its commit, else its describe (cut at 24). */
static const char *s_kernel_text(const qrun_t *r, char out[32])
{
	if (*r->commit)
		snprintf(out, 32, "%.12s", r->commit);
	else
		snprintf(out, 32, "%.24s", *r->describe ? r->describe : "-");
	return out;
}

static void s_list_widths(const qruns_t *runs, const qpaths_t *p,
			  s_widths_t *w)
{
	char k[32];

	*w = (s_widths_t){ 3, 5, 6, 4 };
	for (size_t i = 0; i < runs->n; i++) {
		const qrun_t *r = &runs->r[i];
		int kl = (int)strlen(s_kernel_text(r, k));

		w->lab = (int)strlen(r->lab) > w->lab ? (int)strlen(r->lab) :
							 w->lab;
		w->board = (int)strlen(r->board) > w->board ?
				   (int)strlen(r->board) : w->board;
		w->kernel = kl > w->kernel ? kl : w->kernel;
	}
	for (int64_t id = 1; id <= p->max; id++) {
		int l = p->full[id] && p->match[id] ? (int)strlen(p->full[id]) : 0;

		if (l > w->path)
			w->path = l > S_LIST_MAX_PATH_W ? S_LIST_MAX_PATH_W : l;
	}
}

static void s_list_head(buf_t *b, const s_widths_t *w)
{
	buf_printf(b, "%-16s  %-*s  %-*s  %-*s  %-12s  %-*s  %-6s  %10s  %s\n",
		   "TIME", w->lab, "LAB", w->board, "BOARD", w->kernel,
		   "KERNEL", "RUN", w->path, "CASE", "STATUS", "DURATION",
		   "MESSAGE");
}

static void s_list_text(buf_t *b, const qrun_t *r, const qpaths_t *p,
			const s_case_t *c, const char *msg,
			const s_widths_t *w, int64_t suite_ms,
			const triage_verdict_t *v)
{
	char line[256], when[64], run[65], k[32], dur[32], vl[160] = "";

	query_one_line(line, sizeof(line), msg ? msg : "");
	query_time_short(r->end_ms, when);
	proto_hex(r->rec, 32, run);
	query_duration(c->duration_ms, suite_ms, dur);
	if (v)
		triage_verdict_line(v, vl, sizeof(vl));
	buf_printf(b, "%-16s  %-*s  %-*s  %-*s  %.12s  %-*s  %-6s  %10s%s%s"
		   "%s%s%s\n", when, w->lab, r->lab, w->board, r->board,
		   w->kernel, s_kernel_text(r, k), run, w->path,
		   p->full[c->path], query_status_name(c->status), dur,
		   *line ? "  " : "", line, v ? "  [" : "", vl, v ? "]" : "");
}

static void s_list_json(json_t *j, const qrun_t *r, const qpaths_t *p,
			const s_case_t *c, const char *msg, int64_t suite_ms,
			const triage_verdict_t *v)
{
	json_obj_open(j);
	query_json_hex(j, "run", r->rec);
	json_key_str(j, "lab", r->lab);
	json_key_str(j, "board", r->board);
	json_key_str(j, "arch", r->arch);
	json_key_str(j, "commit", r->commit);
	json_key_str(j, "branch", r->branch);
	json_key_str(j, "suite", p->suite[c->path]);
	json_key_str(j, "path", p->full[c->path]);
	json_key_str(j, "status", query_status_name(c->status));
	json_key_int(j, "duration_ms", c->duration_ms);
	/* 0: not measured for the case; the suite's time instead */
	json_key_int(j, "suite_duration_ms", suite_ms);
	json_key_str(j, "message", msg ? msg : "");
	if (v) {
		json_key(j, "verdict");
		json_obj_open(j);
		json_key_str(j, "verdict", verdict_kind_name(v->verdict));
		json_key_uint(j, "runs", v->runs);
		json_key_uint(j, "passes", v->passes);
		json_key_uint(j, "other_runs", v->other_runs);
		json_key_uint(j, "other_passes", v->other_passes);
		json_obj_close(j);
	}
	json_obj_close(j);
}

/* The suite's duration of the case's suite in run r. */
static int64_t s_suite_ms(const export_suites_t *ss, const char *suite)
{
	const export_suite_t *s = export_suite_find(ss, suite);

	return s ? s->duration_ms : 0;
}

int query_list(sqlite3 *db, const query_filter_t *f, bool json, FILE *out,
	       char *err, size_t errsz)
{
	qruns_t runs;
	qpaths_t p;
	qstrs_t strs;
	sqlite3_stmt *st = NULL, *sst = NULL;
	export_suites_t ss = { 0 };
	s_widths_t w;
	s_case_t *cases = NULL;
	size_t n = 0, alloc = 0;
	triage_t tri;
	buf_t b;
	json_t j;
	int rc = qruns_load(db, f, &runs);

	if (rc < 0) {
		snprintf(err, errsz, "reading runs failed");
		return rc;
	}
	qpaths_load(db, f, &p);
	triage_load(db, 0, false, &tri);
	buf_init(&b, 0);
	if (runs.n && (qstrs_open(db, &strs) < 0 ||
		       sqlite3_prepare_v2(db, "SELECT path, status, duration_ms,"
					  " msg FROM res_cases WHERE run = ?1",
					  -1, &st, NULL) != SQLITE_OK ||
		       sqlite3_prepare_v2(db, export_suites_sql(), -1, &sst,
					  NULL) != SQLITE_OK)) {
		snprintf(err, errsz, "reading the index failed");
		rc = -EIO;
		goto out;
	}
	json_init(&j, &b, JSON_PRETTY);
	if (json) {
		json_obj_open(&j);
		json_key(&j, "cases");
		json_arr_open(&j);
	} else if (runs.n) {
		s_list_widths(&runs, &p, &w);
		s_list_head(&b, &w);
	}
	for (size_t i = 0; i < runs.n && rc == 0; i++) {
		rc = s_run_cases(st, &runs.r[i], &p, f, &cases, &n, &alloc);
		export_suites_clear(&ss);
		if (rc == 0 && n)
			rc = export_suites_load(sst, runs.r[i].id, &ss);
		for (size_t k = 0; k < n && rc == 0; k++) {
			char *msg = qstrs_get(&strs, cases[k].msg);
			int64_t sms = s_suite_ms(&ss, p.suite[cases[k].path]);
			const triage_verdict_t *v = triage_verdict_find(
				&tri, runs.r[i].rec, p.full[cases[k].path]);

			if (json)
				s_list_json(&j, &runs.r[i], &p, &cases[k], msg,
					    sms, v);
			else
				s_list_text(&b, &runs.r[i], &p, &cases[k], msg,
					    &w, sms, v);
			free(msg);
			rc = query_flush(&b, out, false);
		}
	}
	if (json) {
		json_arr_close(&j);
		json_obj_close(&j);
		if (json_finish(&j) < 0 && rc == 0)
			rc = -EIO;
	}
	if (rc == 0)
		rc = query_flush(&b, out, true);
	if (runs.n)
		qstrs_close(&strs);
out:
	sqlite3_finalize(st);
	sqlite3_finalize(sst);
	export_suites_clear(&ss);
	free(ss.s);
	free(cases);
	buf_free(&b);
	triage_free(&tri);
	qpaths_free(&p);
	qruns_free(&runs);
	return rc;
}
