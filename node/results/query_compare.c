/*
 * query_compare: regressions between two sides (commits, runs or
 * requests) per board and path.
 *
 * Each side is reduced to, per (lab, board), the latest status of every
 * path and the latest value of every metric (runs are visited latest
 * first; the first sighting of a path wins). Both sides are then sorted by
 * the text rank of paths and merged, board by board, in (lab, board)
 * order, so output never depends on local row ids.
 */
#include "node/results/query_int.h"
#include "node/results/triage.h"

#include "proto/mem.h"
#include "proto/record.h"
#include "proto/types.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define COMPARE_MIN_PREFIX 4 /* hex digits to name a commit, run, request */

typedef struct {
	uint32_t rank;
	int64_t path;
	int status;
	double value;
	int64_t unit;
	int better;
	int32_t run; /* index of its run in the side's runs */
} s_ent_t;

typedef struct {
	s_ent_t *e;
	size_t n, alloc;
} s_ents_t;

typedef struct {
	const char *arg;
	const char *what; /* "commit", "run", "request" */
	qruns_t runs;
	size_t pos;       /* next run to group */
	s_ents_t cases, metrics;
} s_side_t;

typedef struct {
	sqlite3_stmt *cases, *metrics;
	qpaths_t paths;
	qstrs_t strs;
	uint32_t *seen_c, *seen_m; /* path id -> generation */
	uint32_t gen;
	double threshold;
	bool json;
	buf_t *b;
	json_t j;
	int64_t n_reg, n_fix, n_new, n_gone, n_metric, n_known;
	triage_t tri;	    /* known marks and verdicts */
	int64_t now_ms;	    /* marks expired by then no longer apply */
	const qruns_t *new_runs; /* the new side's runs (entries' run) */
} s_cmp_t;

static bool s_hex_prefix(const char *s)
{
	size_t n = strlen(s);

	if (n < COMPARE_MIN_PREFIX || n > 64)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!strchr("0123456789abcdefABCDEF", s[i]))
			return false;
	return true;
}

static bool s_one_commit(const qruns_t *rs)
{
	for (size_t i = 1; i < rs->n; i++)
		if (strcmp(rs->r[i].commit, rs->r[0].commit))
			return false;
	return true;
}

/* Select the runs of one side: a commit, else a run, else a request. */
static int s_side_load(sqlite3 *db, const query_filter_t *f, s_side_t *s,
		       char *err, size_t errsz)
{
	query_filter_t g = *f;
	int rc;

	if (!s_hex_prefix(s->arg)) {
		snprintf(err, errsz, "'%.80s' is not a commit, run or request"
			 " id (at least %d hex digits)", s->arg,
			 COMPARE_MIN_PREFIX);
		return -EINVAL;
	}
	g.commit = s->arg;
	s->what = "commit";
	rc = qruns_load(db, &g, &s->runs);
	if (rc == 0 && s->runs.n && !s_one_commit(&s->runs)) {
		snprintf(err, errsz, "'%s' names several commits", s->arg);
		return -EINVAL;
	}
	if (rc == 0 && !s->runs.n) {
		/* an empty load still holds its id map */
		qruns_free(&s->runs);
		g.commit = f->commit, g.run = s->arg, s->what = "run";
		rc = qruns_load(db, &g, &s->runs);
	}
	if (rc == 0 && !s->runs.n) {
		qruns_free(&s->runs);
		g.run = f->run, g.request = s->arg, s->what = "request";
		rc = qruns_load(db, &g, &s->runs);
	}
	if (rc == 0 && !s->runs.n) {
		snprintf(err, errsz, "no runs for '%s'", s->arg);
		return -ENOENT;
	}
	return rc;
}

static void s_ent_add(s_ents_t *es, const s_ent_t *e)
{
	if (es->n == es->alloc) {
		es->alloc = es->alloc ? es->alloc * 2 : 256;
		es->e = xreallocarray(es->e, es->alloc, sizeof(*es->e));
	}
	es->e[es->n++] = *e;
}

static int s_cmp_rank(const void *pa, const void *pb)
{
	const s_ent_t *a = pa, *b = pb;

	return a->rank < b->rank ? -1 : a->rank > b->rank;
}

/* Cases and metrics of run r not yet seen in this group. */
static int s_read_run(s_cmp_t *c, s_side_t *s, size_t ri)
{
	const qrun_t *r = &s->runs.r[ri];
	const qpaths_t *p = &c->paths;
	int rc;

	sqlite3_bind_int64(c->cases, 1, r->id);
	while ((rc = sqlite3_step(c->cases)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(c->cases, 0);

		if (id <= 0 || id > p->max || !p->match[id] ||
		    c->seen_c[id] == c->gen)
			continue;
		c->seen_c[id] = c->gen;
		s_ent_add(&s->cases, &(s_ent_t){
			.rank = p->rank[id], .path = id, .run = (int32_t)ri,
			.status = sqlite3_column_int(c->cases, 1) });
	}
	sqlite3_reset(c->cases);
	if (rc != SQLITE_DONE)
		return -EIO;
	sqlite3_bind_int64(c->metrics, 1, r->id);
	while ((rc = sqlite3_step(c->metrics)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(c->metrics, 0);

		if (id <= 0 || id > p->max || !p->match[id] ||
		    c->seen_m[id] == c->gen)
			continue;
		c->seen_m[id] = c->gen;
		s_ent_add(&s->metrics, &(s_ent_t){
			.rank = p->rank[id], .path = id,
			.value = sqlite3_column_double(c->metrics, 1),
			.unit = sqlite3_column_int64(c->metrics, 2),
			.better = sqlite3_column_int(c->metrics, 3) });
	}
	sqlite3_reset(c->metrics);
	return rc == SQLITE_DONE ? 0 : -EIO;
}

static bool s_same_board(const qrun_t *a, const qrun_t *b)
{
	return !strcmp(a->lab, b->lab) && !strcmp(a->board, b->board);
}

/* Gather the next (lab, board) group of side s. */
static int s_group(s_cmp_t *c, s_side_t *s)
{
	const qrun_t *first = &s->runs.r[s->pos];
	int rc = 0;

	s->cases.n = s->metrics.n = 0;
	c->gen++;
	while (s->pos < s->runs.n && rc == 0 &&
	       s_same_board(first, &s->runs.r[s->pos]))
		rc = s_read_run(c, s, s->pos++);
	if (s->cases.n)
		qsort(s->cases.e, s->cases.n, sizeof(s_ent_t), s_cmp_rank);
	if (s->metrics.n)
		qsort(s->metrics.e, s->metrics.n, sizeof(s_ent_t), s_cmp_rank);
	return rc;
}

static bool s_bad(int st)
{
	return st == PROTO_FAIL || st == PROTO_ERROR;
}

/* ---- output ---- */

static void s_item(s_cmp_t *c, bool *open, const char *label,
		   const char *path, int from, int to)
{
	if (c->json) {
		json_obj_open(&c->j);
		json_key_str(&c->j, "path", path);
		if (from)
			json_key_str(&c->j, "base", query_status_name(from));
		if (to)
			json_key_str(&c->j, "new", query_status_name(to));
		json_obj_close(&c->j);
		return;
	}
	(void)open;
	buf_printf(c->b, "  %-10s %s  %s%s%s\n", label, path,
		   from ? query_status_name(from) : "",
		   from && to ? " -> " : "", to ? query_status_name(to) : "");
}

static void s_json_list(s_cmp_t *c, const char *key)
{
	if (!c->json)
		return;
	json_key(&c->j, key);
	json_arr_open(&c->j);
}

static void s_json_end(s_cmp_t *c)
{
	if (c->json)
		json_arr_close(&c->j);
}

static const triage_known_t *s_known(s_cmp_t *c, const s_ent_t *y)
{
	const qrun_t *r = &c->new_runs->r[y->run];

	return triage_known_find(&c->tri, c->paths.full[y->path], r->board,
				 r->arch, c->now_ms);
}

static void s_known_json(s_cmp_t *c, const triage_known_t *k)
{
	char when[64];

	json_key(&c->j, "known");
	json_obj_open(&c->j);
	json_key_str(&c->j, "test", k->path);
	json_key_str(&c->j, "link", k->link);
	json_key_str(&c->j, "text", k->text);
	query_time_rfc3339(k->expires_ms, when);
	json_key_str(&c->j, "expires", when);
	json_key_str(&c->j, "by", k->author);
	json_obj_close(&c->j);
}

static void s_verdict_json(s_cmp_t *c, const triage_verdict_t *v)
{
	json_key(&c->j, "verdict");
	json_obj_open(&c->j);
	json_key_str(&c->j, "verdict", verdict_kind_name(v->verdict));
	json_key_uint(&c->j, "runs", v->runs);
	json_key_uint(&c->j, "passes", v->passes);
	json_key_uint(&c->j, "other_runs", v->other_runs);
	json_key_uint(&c->j, "other_passes", v->other_passes);
	json_key_str(&c->j, "text", v->text);
	json_key_str(&c->j, "id", v->id);
	json_obj_close(&c->j);
}

/* A regression, with the verdict about it and the mark that covers it. */
static void s_reg_item(s_cmp_t *c, const char *label, const s_ent_t *x,
		       const s_ent_t *y, const triage_known_t *k)
{
	const char *path = c->paths.full[y->path];
	const triage_verdict_t *v = triage_verdict_find(
		&c->tri, c->new_runs->r[y->run].rec, path);
	char vl[160] = "", until[64];

	if (c->json) {
		json_obj_open(&c->j);
		json_key_str(&c->j, "path", path);
		json_key_str(&c->j, "base", query_status_name(x->status));
		json_key_str(&c->j, "new", query_status_name(y->status));
		if (v)
			s_verdict_json(c, v);
		if (k)
			s_known_json(c, k);
		json_obj_close(&c->j);
		return;
	}
	buf_printf(c->b, "  %-10s %s  %s -> %s", label, path,
		   query_status_name(x->status), query_status_name(y->status));
	if (v) {
		triage_verdict_line(v, vl, sizeof(vl));
		buf_printf(c->b, "  [%s]", vl);
	}
	if (k) {
		query_time_short(k->expires_ms, until);
		buf_printf(c->b, "  (known until %s%s%s)", until,
			   k->link[0] ? ": " : "", k->link);
	}
	buf_putc(c->b, '\n');
}

/* One pass of the case merge, writing the items of one category
 * (0 regressions, 1 fixes, 2 new, 3 vanished, 5 known failures). */
static int64_t s_merge_cases(s_cmp_t *c, const s_ents_t *a, const s_ents_t *b,
			     int what)
{
	size_t i = 0, k = 0;
	int64_t n = 0;

	while (i < a->n || k < b->n) {
		const s_ent_t *x = i < a->n ? &a->e[i] : NULL;
		const s_ent_t *y = k < b->n ? &b->e[k] : NULL;
		const char *path;

		if (x && (!y || x->rank < y->rank)) {
			if (what == 3)
				s_item(c, NULL, "VANISHED",
				       c->paths.full[x->path], x->status, 0), n++;
			i++;
			continue;
		}
		if (!x || y->rank < x->rank) {
			if (what == 2)
				s_item(c, NULL, "NEW", c->paths.full[y->path],
				       0, y->status), n++;
			k++;
			continue;
		}
		path = c->paths.full[x->path];
		if ((what == 0 || what == 5) && x->status == PROTO_PASS &&
		    s_bad(y->status)) {
			const triage_known_t *mark = s_known(c, y);

			if ((what == 5) == (mark != NULL))
				s_reg_item(c, mark ? "KNOWN" : "REGRESSION", x,
					   y, mark), n++;
		}
		if (what == 1 && s_bad(x->status) && y->status == PROTO_PASS)
			s_item(c, NULL, "FIX", path, x->status, y->status), n++;
		i++, k++;
	}
	return n;
}

static double s_round2(double v)
{
	return round(v * 100.0) / 100.0;
}

static void s_metric_item(s_cmp_t *c, const s_ent_t *x, const s_ent_t *y,
			  double pct)
{
	const char *path = c->paths.full[y->path];
	char *unit = qstrs_get(&c->strs, y->unit);
	const char *dir = y->better == METRIC_LOWER ? "lower" : "higher";

	if (c->json) {
		json_obj_open(&c->j);
		json_key_str(&c->j, "path", path);
		json_key_double(&c->j, "base", x->value);
		json_key_double(&c->j, "new", y->value);
		json_key_str(&c->j, "unit", unit ? unit : "");
		json_key_str(&c->j, "better", dir);
		json_key_double(&c->j, "change_pct", s_round2(pct));
		json_obj_close(&c->j);
	} else {
		buf_printf(c->b, "  %-10s %s  %.6g -> %.6g%s%s  %+.1f%% (%s is"
			   " better)\n", "METRIC", path, x->value, y->value,
			   unit ? " " : "", unit ? unit : "", pct, dir);
	}
	free(unit);
}

static int64_t s_merge_metrics(s_cmp_t *c, const s_ents_t *a,
			       const s_ents_t *b)
{
	size_t i = 0, k = 0;
	int64_t n = 0;

	while (i < a->n && k < b->n) {
		const s_ent_t *x = &a->e[i], *y = &b->e[k];
		double pct;

		if (x->rank != y->rank) {
			x->rank < y->rank ? i++ : k++;
			continue;
		}
		i++, k++;
		if (x->value == 0.0 || y->better == METRIC_NEUTRAL)
			continue;
		pct = (y->value - x->value) / fabs(x->value) * 100.0;
		if ((y->better == METRIC_LOWER && pct > c->threshold) ||
		    (y->better == METRIC_HIGHER && pct < -c->threshold)) {
			s_metric_item(c, x, y, pct);
			n++;
		}
	}
	return n;
}

/* Count what a category would print, without printing. */
static int64_t s_count(s_cmp_t *c, const s_ents_t *a, const s_ents_t *b,
		       int what)
{
	buf_t *saved = c->b;
	buf_t tmp;
	bool json = c->json;
	json_t j = c->j;
	int64_t n;

	buf_init(&tmp, 0);
	c->b = &tmp;
	c->json = false;
	n = what == 4 ? s_merge_metrics(c, a, b) : s_merge_cases(c, a, b, what);
	c->json = json;
	c->j = j;
	c->b = saved;
	buf_free(&tmp);
	return n;
}

static void s_board(s_cmp_t *c, const qrun_t *r, s_side_t *x, s_side_t *y)
{
	static const char *const keys[6] = { "regressions", "fixes", "new",
					     "vanished", "metrics", "known" };
	int64_t n[6];

	for (int w = 0; w < 6; w++)
		n[w] = w == 4 ? 0 : s_count(c, &x->cases, &y->cases, w);
	n[4] = s_count(c, &x->metrics, &y->metrics, 4);
	c->n_reg += n[0], c->n_fix += n[1], c->n_new += n[2];
	c->n_gone += n[3], c->n_metric += n[4], c->n_known += n[5];
	if (c->json) {
		json_obj_open(&c->j);
		json_key_str(&c->j, "lab", r->lab);
		json_key_str(&c->j, "board", r->board);
	} else {
		buf_printf(c->b, "%s/%s: %lld regressions, %lld fixes, %lld"
			   " new, %lld vanished, %lld metric regressions",
			   r->lab, r->board, (long long)n[0], (long long)n[1],
			   (long long)n[2], (long long)n[3], (long long)n[4]);
		if (n[5])
			buf_printf(c->b, ", %lld known failures",
				   (long long)n[5]);
		buf_putc(c->b, '\n');
	}
	for (int w = 0; w < 6; w++) {
		s_json_list(c, keys[w]);
		if (w == 4)
			s_merge_metrics(c, &x->metrics, &y->metrics);
		else
			s_merge_cases(c, &x->cases, &y->cases, w);
		s_json_end(c);
	}
	if (c->json)
		json_obj_close(&c->j);
}

static int s_cmp_board(const qrun_t *a, const qrun_t *b)
{
	int d = strcmp(a->lab, b->lab);

	return d ? d : strcmp(a->board, b->board);
}

static void s_only(s_cmp_t *c, const char *side, const qrun_t *r)
{
	if (c->json) {
		json_obj_open(&c->j);
		json_key_str(&c->j, "lab", r->lab);
		json_key_str(&c->j, "board", r->board);
		json_key_str(&c->j, "only_in", side);
		json_obj_close(&c->j);
	} else {
		buf_printf(c->b, "%s/%s: only in %s, not compared\n", r->lab,
			   r->board, side);
	}
}

static void s_skip_group(s_side_t *s)
{
	const qrun_t *first = &s->runs.r[s->pos];

	while (s->pos < s->runs.n && s_same_board(first, &s->runs.r[s->pos]))
		s->pos++;
}

/* Walk both sides' boards in order; boards on one side only are listed. */
static int s_walk(s_cmp_t *c, s_side_t *x, s_side_t *y, bool only_pass)
{
	int rc = 0;

	x->pos = y->pos = 0;
	while ((x->pos < x->runs.n || y->pos < y->runs.n) && rc == 0) {
		const qrun_t *a = x->pos < x->runs.n ? &x->runs.r[x->pos] : NULL;
		const qrun_t *b = y->pos < y->runs.n ? &y->runs.r[y->pos] : NULL;
		int d = !a ? 1 : !b ? -1 : s_cmp_board(a, b);

		if (d != 0) {
			if (only_pass)
				s_only(c, d < 0 ? "base" : "new", d < 0 ? a : b);
			s_skip_group(d < 0 ? x : y);
			continue;
		}
		if (only_pass) {
			s_skip_group(x), s_skip_group(y);
			continue;
		}
		rc = s_group(c, x);
		if (rc == 0)
			rc = s_group(c, y);
		if (rc == 0)
			s_board(c, a, x, y);
	}
	return rc;
}

static void s_side_json(s_cmp_t *c, const char *key, const s_side_t *s)
{
	json_key(&c->j, key);
	json_obj_open(&c->j);
	json_key_str(&c->j, "arg", s->arg);
	json_key_str(&c->j, "kind", s->what);
	json_key_str(&c->j, "commit", s->runs.r[0].commit);
	json_obj_close(&c->j);
}

static void s_summary(s_cmp_t *c)
{
	if (c->json) {
		json_key(&c->j, "summary");
		json_obj_open(&c->j);
		json_key_int(&c->j, "regressions", c->n_reg);
		json_key_int(&c->j, "fixes", c->n_fix);
		json_key_int(&c->j, "new", c->n_new);
		json_key_int(&c->j, "vanished", c->n_gone);
		json_key_int(&c->j, "metric_regressions", c->n_metric);
		json_key_int(&c->j, "known", c->n_known);
		json_obj_close(&c->j);
		return;
	}
	buf_printf(c->b, "summary: %lld regressions, %lld fixes, %lld new,"
		   " %lld vanished, %lld metric regressions (threshold"
		   " %.4g%%)", (long long)c->n_reg, (long long)c->n_fix,
		   (long long)c->n_new, (long long)c->n_gone,
		   (long long)c->n_metric, c->threshold);
	if (c->n_known)
		buf_printf(c->b, ", %lld known failures not counted",
			   (long long)c->n_known);
	buf_putc(c->b, '\n');
}

static int s_report(s_cmp_t *c, s_side_t *x, s_side_t *y)
{
	int rc;

	if (c->json) {
		json_init(&c->j, c->b, JSON_PRETTY);
		json_obj_open(&c->j);
		s_side_json(c, "base", x);
		s_side_json(c, "new", y);
		json_key_double(&c->j, "threshold_pct", c->threshold);
		json_key(&c->j, "boards");
		json_arr_open(&c->j);
	} else {
		buf_printf(c->b, "base %s %s (commit %s)\nnew  %s %s (commit"
			   " %s)\n\n", x->what, x->arg, x->runs.r[0].commit,
			   y->what, y->arg, y->runs.r[0].commit);
	}
	rc = s_walk(c, x, y, false);
	if (c->json) {
		json_arr_close(&c->j);
		json_key(&c->j, "unmatched");
		json_arr_open(&c->j);
	}
	if (rc == 0)
		rc = s_walk(c, x, y, true);
	if (c->json)
		json_arr_close(&c->j);
	s_summary(c);
	if (c->json) {
		json_obj_close(&c->j);
		if (json_finish(&c->j) < 0 && rc == 0)
			rc = -EIO;
	}
	return rc;
}

static int s_prepare(sqlite3 *db, s_cmp_t *c, const query_filter_t *f)
{
	size_t n;

	if (sqlite3_prepare_v2(db, "SELECT path, status FROM res_cases WHERE"
			       " run = ?1", -1, &c->cases, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "SELECT path, value, unit, better FROM"
			       " res_metrics WHERE run = ?1", -1, &c->metrics,
			       NULL) != SQLITE_OK ||
	    qstrs_open(db, &c->strs) < 0)
		return -EIO;
	qpaths_load(db, f, &c->paths);
	n = (size_t)c->paths.max + 1;
	c->seen_c = xcalloc(n, sizeof(*c->seen_c));
	c->seen_m = xcalloc(n, sizeof(*c->seen_m));
	return triage_load(db, c->now_ms, false, &c->tri);
}

int query_compare(sqlite3 *db, const char *base, const char *new_,
		  const query_filter_t *f, double threshold_pct, bool json,
		  FILE *out, char *err, size_t errsz)
{
	s_side_t x = { .arg = base }, y = { .arg = new_ };
	s_cmp_t c = { .threshold = threshold_pct, .json = json };
	buf_t b;
	int rc;

	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	c.now_ms = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
	c.new_runs = &y.runs;
	buf_init(&b, 0);
	c.b = &b;
	rc = s_side_load(db, f, &x, err, errsz);
	if (rc == 0)
		rc = s_side_load(db, f, &y, err, errsz);
	if (rc == 0 && (rc = s_prepare(db, &c, f)) < 0)
		snprintf(err, errsz, "reading the index failed");
	if (rc == 0)
		rc = s_report(&c, &x, &y);
	if (rc == 0)
		rc = query_flush(&b, out, true);
	if (rc == 0)
		rc = (int)(c.n_reg + c.n_metric > INT32_MAX ? INT32_MAX :
			   c.n_reg + c.n_metric);
	sqlite3_finalize(c.cases);
	sqlite3_finalize(c.metrics);
	if (c.strs.st)
		qstrs_close(&c.strs);
	qpaths_free(&c.paths);
	triage_free(&c.tri);
	free(c.seen_c), free(c.seen_m);
	free(x.cases.e), free(x.metrics.e), free(y.cases.e), free(y.metrics.e);
	qruns_free(&x.runs), qruns_free(&y.runs);
	buf_free(&b);
	return rc;
}
