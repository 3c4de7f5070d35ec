/*
 * report: the mailable summary of one commit or request (see report.h).
 * Layout: selecting the runs; tallies per arch; regressions (found by
 * rerun.h, one per board and test: the run with a verdict, else the
 * earliest); the text.
 */
#include "node/results/report.h"
#include "node/results/query_int.h"
#include "node/results/rerun.h"
#include "node/results/triage.h"

#include "proto/mem.h"
#include "proto/record.h"
#include "proto/types.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define REPORT_MIN_PREFIX 4
#define REPORT_MAX_REGS 1000 /* regressions listed; the count goes on */

typedef struct {
	const char *arch; /* borrowed from a run */
	int64_t builds_pass, builds_fail, builds_none;
	int64_t boots_ok, boots_fail;
	int64_t n[PROTO_STATUS_MAX + 1]; /* cases by status */
} s_arch_t;

typedef struct {
	size_t run; /* index in runs */
	char *path;
	const triage_known_t *known;
	const triage_verdict_t *verdict;
} s_reg_t;

typedef struct {
	sqlite3 *db;
	const char *arg, *dash;
	int64_t now_ms;
	triage_t tri;
	qruns_t runs;
	const char *what; /* "commit", "request" */
	s_arch_t *arch;
	size_t n_arch;
	s_reg_t *regs;
	size_t n_regs, cur;
	int64_t n_new, n_known, n_more;
	buf_t *b;
} s_rep_t;

static bool s_hex(const char *s)
{
	size_t n = strlen(s);

	if (n < REPORT_MIN_PREFIX || n > 64)
		return false;
	return strspn(s, "0123456789abcdefABCDEF") == n;
}

static int s_select(s_rep_t *r, const char *arg, char *err, size_t errsz)
{
	query_filter_t f = { .commit = arg };
	int rc;

	if (!s_hex(arg)) {
		snprintf(err, errsz, "'%.80s' is not a commit or request id"
			 " (at least %d hex digits)", arg, REPORT_MIN_PREFIX);
		return -EINVAL;
	}
	r->what = "commit";
	rc = qruns_load(r->db, &f, &r->runs);
	for (size_t i = 1; rc == 0 && i < r->runs.n; i++) {
		if (strcmp(r->runs.r[i].commit, r->runs.r[0].commit)) {
			snprintf(err, errsz, "'%s' names several commits", arg);
			return -EINVAL;
		}
	}
	if (rc == 0 && !r->runs.n) {
		qruns_free(&r->runs);
		f = (query_filter_t){ .request = arg };
		r->what = "request";
		rc = qruns_load(r->db, &f, &r->runs);
	}
	if (rc == 0 && !r->runs.n) {
		snprintf(err, errsz, "no runs for '%s'", arg);
		return -ENOENT;
	}
	if (rc < 0)
		snprintf(err, errsz, "reading the index failed");
	return rc;
}

/* ---- tallies ---- */

static s_arch_t *s_arch(s_rep_t *r, const char *arch)
{
	for (size_t i = 0; i < r->n_arch; i++)
		if (!strcmp(r->arch[i].arch, arch))
			return &r->arch[i];
	r->arch = xreallocarray(r->arch, r->n_arch + 1, sizeof(*r->arch));
	r->arch[r->n_arch] = (s_arch_t){ .arch = arch };
	return &r->arch[r->n_arch++];
}

static int s_tally(s_rep_t *r, sqlite3_stmt *st, const qrun_t *run)
{
	s_arch_t *a = s_arch(r, run->arch);
	int rc;

	if (run->build == BUILD_PASS)
		a->builds_pass++;
	else if (run->build == BUILD_FAIL || run->build == BUILD_ERROR)
		a->builds_fail++;
	else
		a->builds_none++;
	if (run->status == PROTO_ERROR)
		a->boots_fail++;
	else
		a->boots_ok++;
	sqlite3_bind_int64(st, 1, run->id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int s = sqlite3_column_int(st, 0);

		if (s >= 1 && s <= PROTO_STATUS_MAX)
			a->n[s] += sqlite3_column_int64(st, 1);
	}
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : -EIO;
}

/* ---- regressions ---- */

static s_reg_t *s_same(s_rep_t *r, const qrun_t *run, const char *path)
{
	for (size_t i = 0; i < r->n_regs; i++) {
		const qrun_t *o = &r->runs.r[r->regs[i].run];

		if (!strcmp(r->regs[i].path, path) &&
		    !strcmp(o->lab, run->lab) && !strcmp(o->board, run->board))
			return &r->regs[i];
	}
	return NULL;
}

static int s_on_reg(void *arg, const char *path)
{
	s_rep_t *r = arg;
	const qrun_t *run = &r->runs.r[r->cur];
	const triage_verdict_t *v = triage_verdict_find(&r->tri, run->rec,
							path);
	s_reg_t *g = s_same(r, run, path);

	/* one per board and test: the run the verdict is about, else the
	 * earliest (runs come latest first) */
	if (g && g->verdict)
		return 0;
	if (!g && r->n_regs >= REPORT_MAX_REGS) {
		r->n_more++;
		return 0;
	}
	if (!g) {
		r->regs = xreallocarray(r->regs, r->n_regs + 1,
					sizeof(*r->regs));
		g = &r->regs[r->n_regs++];
		g->path = xstrdup(path);
	}
	g->run = r->cur;
	g->verdict = v;
	g->known = triage_known_find(&r->tri, path, run->board, run->arch,
				     r->now_ms);
	return 0;
}

static int s_cmp_reg_ctx(const s_rep_t *r, const s_reg_t *a, const s_reg_t *b)
{
	const qrun_t *x = &r->runs.r[a->run], *y = &r->runs.r[b->run];
	int d = strcmp(x->arch, y->arch);

	if (!d)
		d = strcmp(x->lab, y->lab);
	if (!d)
		d = strcmp(x->board, y->board);
	return d ? d : strcmp(a->path, b->path);
}

static const s_rep_t *s_sort_rep;

static int s_cmp_reg(const void *a, const void *b)
{
	return s_cmp_reg_ctx(s_sort_rep, a, b);
}

static int s_cmp_arch(const void *a, const void *b)
{
	return strcmp(((const s_arch_t *)a)->arch, ((const s_arch_t *)b)->arch);
}

static int s_gather(s_rep_t *r)
{
	sqlite3_stmt *st;
	int rc = 0;

	if (sqlite3_prepare_v2(r->db, "SELECT status, count(*) FROM res_cases"
			       " WHERE run = ?1 GROUP BY status", -1, &st,
			       NULL) != SQLITE_OK)
		return -EIO;
	for (size_t i = 0; i < r->runs.n && rc == 0; i++) {
		r->cur = i;
		rc = s_tally(r, st, &r->runs.r[i]);
		if (rc == 0)
			rc = rerun_regressions(r->db, r->runs.r[i].rec, false,
					       s_on_reg, r);
	}
	sqlite3_finalize(st);
	if (r->n_arch)
		qsort(r->arch, r->n_arch, sizeof(*r->arch), s_cmp_arch);
	s_sort_rep = r;
	if (r->n_regs)
		qsort(r->regs, r->n_regs, sizeof(*r->regs), s_cmp_reg);
	for (size_t i = 0; i < r->n_regs; i++)
		*(r->regs[i].known ? &r->n_known : &r->n_new) += 1;
	return rc;
}

/* ---- the text ---- */

static void s_head(s_rep_t *r)
{
	const qrun_t *f = &r->runs.r[0];
	int64_t lo = f->start_ms, hi = f->end_ms;
	char a[64], z[64];
	size_t labs = 0;

	for (size_t i = 0; i < r->runs.n; i++) {
		const qrun_t *x = &r->runs.r[i];

		lo = x->start_ms < lo ? x->start_ms : lo;
		hi = x->end_ms > hi ? x->end_ms : hi;
		labs += i == 0 || strcmp(x->lab, r->runs.r[i - 1].lab);
	}
	query_time_short(lo, a);
	query_time_short(hi, z);
	if (*f->commit)
		buf_printf(r->b, "labmesh report: commit %.12s", f->commit);
	else
		buf_printf(r->b, "labmesh report: %s %s", r->what, r->arg);
	if (*f->branch || *f->tree)
		buf_printf(r->b, " (%s%s%s)", f->branch,
			   *f->branch && *f->tree ? ", " : "", f->tree);
	buf_putc(r->b, '\n');
	buf_printf(r->b, "kernel %s; %zu runs in %zu labs, %s to %s UTC\n\n",
		   *f->describe ? f->describe : "-", r->runs.n, labs, a, z);
}

static void s_arches(s_rep_t *r)
{
	buf_printf(r->b, "%-10s %-22s %-16s %s\n", "ARCH", "BUILDS",
		   "BOOTS", "TESTS");
	for (size_t i = 0; i < r->n_arch; i++) {
		const s_arch_t *a = &r->arch[i];
		char builds[64], boots[64];

		snprintf(builds, sizeof(builds), "%lld ok, %lld failed",
			 (long long)a->builds_pass, (long long)a->builds_fail);
		if (a->builds_none)
			snprintf(builds + strlen(builds),
				 sizeof(builds) - strlen(builds), ", %lld n/a",
				 (long long)a->builds_none);
		snprintf(boots, sizeof(boots), "%lld ok, %lld failed",
			 (long long)a->boots_ok, (long long)a->boots_fail);
		buf_printf(r->b, "%-10s %-22s %-16s %lld pass, %lld fail,"
			   " %lld error, %lld skip\n", a->arch, builds, boots,
			   (long long)a->n[PROTO_PASS],
			   (long long)a->n[PROTO_FAIL],
			   (long long)a->n[PROTO_ERROR],
			   (long long)a->n[PROTO_SKIP]);
	}
	buf_putc(r->b, '\n');
}

/* The dashboard page of run x (its suite's log when suite), or the
 * command that shows it. */
static void s_link(s_rep_t *r, const qrun_t *x, const char *suite)
{
	char hex[65];
	size_t n = r->dash ? strlen(r->dash) : 0;

	proto_hex(x->rec, 32, hex);
	while (n && r->dash[n - 1] == '/')
		n--;
	if (r->dash && suite)
		buf_printf(r->b, "      %.*s/log.html?run=%s&suite=%s\n",
			   (int)n, r->dash, hex, suite);
	else if (r->dash)
		buf_printf(r->b, "      %.*s/cases.html?run=%s\n", (int)n,
			   r->dash, hex);
	else
		buf_printf(r->b, "      labmesh log %.16s%s%s\n", hex,
			   suite ? " --suite " : "", suite ? suite : "");
}

static void s_reg_line(s_rep_t *r, const s_reg_t *g)
{
	const qrun_t *x = &r->runs.r[g->run];
	char line[200], suite[PROTO_MAX_NAME + 1], until[64];
	const char *dot = strchr(g->path, '.');

	if (g->verdict)
		triage_verdict_line(g->verdict, line, sizeof(line));
	else
		snprintf(line, sizeof(line), "not confirmed yet");
	buf_printf(r->b, "  %s/%s (%s)  %s  %s\n", x->lab, x->board, x->arch,
		   g->path, line);
	if (g->known) {
		query_time_short(g->known->expires_ms, until);
		buf_printf(r->b, "      known until %s%s%s%s%s\n", until,
			   *g->known->link ? ": " : "", g->known->link,
			   *g->known->text ? " - " : "", g->known->text);
	}
	snprintf(suite, sizeof(suite), "%.*s",
		 (int)(dot ? (size_t)(dot - g->path) : strlen(g->path)),
		 g->path);
	s_link(r, x, suite);
}

static void s_regressions(s_rep_t *r)
{
	buf_printf(r->b, "New regressions (%lld; failed where the board's"
		   " previous run passed):\n", (long long)r->n_new);
	for (size_t i = 0; i < r->n_regs; i++)
		if (!r->regs[i].known)
			s_reg_line(r, &r->regs[i]);
	if (!r->n_new)
		buf_puts(r->b, "  none\n");
	if (r->n_more)
		buf_printf(r->b, "  ... and %lld more\n", (long long)r->n_more);
	buf_putc(r->b, '\n');
	if (!r->n_known)
		return;
	buf_printf(r->b, "Known failures (%lld; marked known, not counted"
		   " above):\n", (long long)r->n_known);
	for (size_t i = 0; i < r->n_regs; i++)
		if (r->regs[i].known)
			s_reg_line(r, &r->regs[i]);
	buf_putc(r->b, '\n');
}

static void s_runs(s_rep_t *r)
{
	buf_puts(r->b, "Runs:\n");
	for (size_t i = 0; i < r->runs.n; i++) {
		const qrun_t *x = &r->runs.r[i];
		char hex[65];

		proto_hex(x->rec, 32, hex);
		buf_printf(r->b, "  %s/%s (%s)  %s  run %.12s\n", x->lab,
			   x->board, x->arch, query_status_name(x->status),
			   hex);
		s_link(r, x, NULL);
	}
}

int report_write(sqlite3 *db, const char *arg, const char *dash,
		 int64_t now_ms, FILE *out, char *err, size_t errsz)
{
	s_rep_t r = { .db = db, .arg = arg, .dash = dash, .now_ms = now_ms };
	buf_t b;
	int rc;

	buf_init(&b, 0);
	r.b = &b;
	rc = s_select(&r, arg, err, errsz);
	if (rc == 0 && (rc = triage_load(db, now_ms, false, &r.tri)) < 0)
		snprintf(err, errsz, "reading the store failed");
	if (rc == 0 && (rc = s_gather(&r)) < 0)
		snprintf(err, errsz, "reading the index failed");
	if (rc == 0) {
		s_head(&r);
		s_arches(&r);
		s_regressions(&r);
		s_runs(&r);
		rc = query_flush(&b, out, true);
	}
	if (rc == 0)
		rc = r.n_new > INT32_MAX ? INT32_MAX : (int)r.n_new;
	for (size_t i = 0; i < r.n_regs; i++)
		free(r.regs[i].path);
	free(r.regs);
	free(r.arch);
	triage_free(&r.tri);
	qruns_free(&r.runs);
	buf_free(&b);
	return rc;
}
