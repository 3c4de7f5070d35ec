/*
 * export: the KCIDB v5.3 exporter (JUnit is in export_junit.c) and the
 * per-run suite table both use.
 *
 * The document is written in one pass per section: checkouts (sorted by
 * id), builds (one per run, in the canonical run order), tests (per run,
 * cases then metrics in path text order). No null is ever written: an
 * unknown field is left out, as the schema asks.
 */
#include "node/results/export.h"
#include "node/results/export_int.h"
#include "node/results/query_int.h"
#include "node/results/triage.h"

#include "node/store/store.h"
#include "node/store/wire.h"

#include "proto/mem.h"
#include "proto/record.h"
#include "proto/types.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

bool export_origin_ok(const char *origin)
{
	size_t n = origin ? strlen(origin) : 0;

	if (n == 0 || n > EXPORT_MAX_ORIGIN)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((origin[i] >= 'a' && origin[i] <= 'z') ||
		      (origin[i] >= '0' && origin[i] <= '9') || origin[i] == '_'))
			return false;
	return true;
}

static bool s_seg_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_' || c == '-';
}

void export_kcidb_path(char *s)
{
	size_t w = 0;

	for (size_t r = 0; s[r]; r++) {
		char c = s_seg_char(s[r]) ? s[r] : s[r] == '.' ? '.' : '_';

		/* no leading dot, no two dots in a row */
		if (c == '.' && (w == 0 || s[w - 1] == '.'))
			continue;
		s[w++] = c;
	}
	if (w && s[w - 1] == '.')
		w--;
	s[w] = '\0';
}

/* ---- suites of a run ---- */

int export_suites_load(sqlite3_stmt *st, int64_t run, export_suites_t *ret)
{
	int rc;

	ret->n = 0;
	sqlite3_bind_int64(st, 1, run);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		export_suite_t *s;
		const unsigned char *v;

		if (ret->n == ret->alloc) {
			ret->alloc = ret->alloc ? ret->alloc * 2 : 8;
			ret->s = xreallocarray(ret->s, ret->alloc,
					       sizeof(*ret->s));
		}
		s = &ret->s[ret->n++];
		v = sqlite3_column_text(st, 0);
		snprintf(s->name, sizeof(s->name), "%s", v ? (const char *)v : "");
		s->status = sqlite3_column_int(st, 1);
		s->duration_ms = sqlite3_column_int64(st, 2);
		s->start_ms = sqlite3_column_int64(st, 3);
		s->end_ms = sqlite3_column_int64(st, 4);
		v = sqlite3_column_text(st, 5);
		s->logs = xstrdup(v ? (const char *)v : "");
		v = sqlite3_column_text(st, 6);
		s->version = xstrdup(v ? (const char *)v : "");
		v = sqlite3_column_text(st, 7);
		s->reason = xstrdup(v ? (const char *)v : "");
	}
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : -EIO;
}

void export_suites_clear(export_suites_t *ss)
{
	for (size_t i = 0; i < ss->n; i++)
		free(ss->s[i].logs), free(ss->s[i].version),
			free(ss->s[i].reason);
	ss->n = 0;
}

const export_suite_t *export_suite_find(const export_suites_t *ss,
					const char *name)
{
	for (size_t i = 0; i < ss->n; i++)
		if (!strcmp(ss->s[i].name, name))
			return &ss->s[i];
	return NULL;
}

const char *export_suites_sql(void)
{
	return "SELECT n.s, s.status, s.duration_ms, s.start_ms, s.end_ms,"
	       " s.logs, s.version, s.reason FROM res_suites s JOIN"
	       " res_strs n ON"
	       " n.id = s.suite WHERE s.run = ?1 ORDER BY n.s";
}

/* ---- checkouts ---- */

/* What a run's kernel was: built from git, an image given at submit, or
 * whatever the board was running (nothing booted by labmesh). */
enum s_kernel { S_GIT, S_ARTIFACT, S_RUNNING };

static const char *const s_kernel_names[] = { "git", "artifact", "running" };

typedef struct {
	char id[33];
	size_t run; /* first run with it */
} s_co_t;

static int s_kernel_of_record(void *arg, uint64_t seq, const uint8_t *bytes,
			      size_t len)
{
	record_t *rec = NULL;

	(void)seq;
	if (wire_record_decode(bytes, len, &rec) == 0 &&
	    rec->head.kind == RECORD_RUN && rec->run.kernel.has_kernel_blob)
		*(enum s_kernel *)arg = S_ARTIFACT;
	record_destroy(&rec);
	return 0;
}

/* A run with a commit or a tree was a git kernel (built here or given as
 * an image built from it); without, its record says whether it booted an
 * image. */
static enum s_kernel s_kernel_kind(sqlite3 *db, const qrun_t *r)
{
	enum s_kernel k = S_RUNNING;
	char hex[65];

	if (*r->commit || *r->tree || r->build != BUILD_NONE)
		return S_GIT;
	proto_hex(r->rec, 32, hex);
	store_db_find_record(db, RECORD_RUN, hex, s_kernel_of_record, &k);
	return k;
}

/* One checkout per (tree, branch, commit); without a commit, per kind of
 * kernel and describe, so different images and releases stay apart. */
static void s_checkout_id(const qrun_t *r, enum s_kernel kind, char out[33])
{
	const char *d = *r->commit ? "" : r->describe;
	const char *kn = *r->commit ? "" : s_kernel_names[kind];
	char *key = xasprintf("%s%c%s%c%s%c%s%c%s", r->tree, 0, r->branch, 0,
			      r->commit, 0, kn, 0, d);
	size_t n = strlen(r->tree) + strlen(r->branch) + strlen(r->commit) +
		   strlen(kn) + strlen(d) + 4;
	uint8_t h[32];

	/* the old key (tree, branch, commit) is kept for git kernels, so
	 * re-exports of earlier documents still merge */
	proto_id(key, *r->commit ? strlen(r->tree) + strlen(r->branch) +
					  strlen(r->commit) + 3 : n, h);
	proto_hex(h, 16, out);
	free(key);
}

static int s_cmp_co(const void *a, const void *b)
{
	return strcmp(((const s_co_t *)a)->id, ((const s_co_t *)b)->id);
}

/* The trees everyone knows by name, by the end of their URL. */
static const struct {
	const char *tail, *name;
} s_known_trees[] = {
	{ "/torvalds/linux", "mainline" },
	{ "/stable/linux", "stable" },
	{ "/stable/linux-stable", "stable" },
	{ "/stable/linux-stable-rc", "stable-rc" },
	{ "/next/linux-next", "next" },
};

/* The tree name: a known tree's, else the last path segment of the URL
 * without ".git" ("owner-linux" when that is just "linux"). */
static char *s_tree_name(const char *url)
{
	const char *end = url + strlen(url), *start, *owner;
	size_t n;

	while (end > url && end[-1] == '/')
		end--;
	n = (size_t)(end - url);
	if (n > 4 && !strncmp(end - 4, ".git", 4))
		n -= 4, end -= 4;
	for (size_t i = 0; i < sizeof(s_known_trees) / sizeof(*s_known_trees);
	     i++) {
		size_t t = strlen(s_known_trees[i].tail);

		if (n >= t && !strncmp(url + n - t, s_known_trees[i].tail, t))
			return xstrdup(s_known_trees[i].name);
	}
	start = end;
	while (start > url && start[-1] != '/' && start[-1] != ':')
		start--;
	if ((size_t)(end - start) != 5 || strncmp(start, "linux", 5) ||
	    start - url < 2 || start[-1] != '/')
		return xstrndup(start, (size_t)(end - start));
	owner = start - 1;
	while (owner > url && owner[-1] != '/' && owner[-1] != ':')
		owner--;
	/* a host name is no owner: git://host/linux.git is "linux" */
	if (owner == start - 1 || memchr(owner, '.', (size_t)(start - owner)))
		return xstrdup("linux");
	return xasprintf("%.*s-linux", (int)(start - 1 - owner), owner);
}

static int64_t s_wall_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void s_id(json_t *j, const char *key, const char *origin,
		 const char *local)
{
	char *id = xasprintf("%s:%s", origin, local);

	json_key_str(j, key, id);
	free(id);
}

static bool s_https(const char *url)
{
	return !strncmp(url, "https://", 8) && url[8] && !strpbrk(url, " \t");
}

/* tree_name: the tree's, else what the kernel was. */
static void s_checkout_tree(json_t *j, const qrun_t *r, enum s_kernel kind)
{
	char *name = *r->tree ? s_tree_name(r->tree) : NULL;

	if (name && *name)
		json_key_str(j, "tree_name", name);
	else if (kind == S_RUNNING)
		json_key_str(j, "tree_name", "running-kernel");
	else if (kind == S_ARTIFACT)
		json_key_str(j, "tree_name", "kernel-image");
	else
		json_key_str(j, "tree_name", "unnamed");
	free(name);
}

static void s_checkout_comment(json_t *j, const qrun_t *r, enum s_kernel kind)
{
	char *c = NULL;

	if (kind == S_RUNNING)
		c = xasprintf("no kernel was given: the board's own kernel"
			      " (release %s), as it runs or boots it; not"
			      " built by labmesh",
			      *r->describe ? r->describe : "unknown");
	else if (kind == S_ARTIFACT)
		c = xasprintf("a kernel image given at submit%s%s%s",
			      *r->describe ? " (" : "", r->describe,
			      *r->describe ? ")" : "");
	if (c)
		json_key_str(j, "comment", c);
	free(c);
}

static void s_checkout(json_t *j, const char *origin, const char *id,
		       const qrun_t *r, enum s_kernel kind)
{
	json_obj_open(j);
	s_id(j, "id", origin, id);
	json_key_str(j, "origin", origin);
	s_checkout_tree(j, r, kind);
	if (*r->tree && s_https(r->tree))
		json_key_str(j, "git_repository_url", r->tree);
	if (proto_commit_ok(r->commit))
		json_key_str(j, "git_commit_hash", r->commit);
	if (*r->describe)
		json_key_str(j, "git_commit_name", r->describe);
	if (*r->branch)
		json_key_str(j, "git_repository_branch", r->branch);
	json_key_str(j, "patchset_hash", "");
	s_checkout_comment(j, r, kind);
	json_key(j, "misc");
	json_obj_open(j);
	json_key_str(j, "kernel", s_kernel_names[kind]);
	if (*r->tree && !s_https(r->tree))
		json_key_str(j, "git_repository_url", r->tree);
	json_obj_close(j);
	json_obj_close(j);
}

static void s_checkouts(json_t *j, const char *origin, const qruns_t *runs,
			const enum s_kernel *kinds, char (*co_ids)[33])
{
	s_co_t *cos = xcalloc(runs->n + 1, sizeof(*cos));
	size_t n = 0;

	for (size_t i = 0; i < runs->n; i++) {
		s_checkout_id(&runs->r[i], kinds[i], co_ids[i]);
		memcpy(cos[n].id, co_ids[i], 33);
		cos[n++].run = i;
	}
	qsort(cos, n, sizeof(*cos), s_cmp_co);
	json_key(j, "checkouts");
	json_arr_open(j);
	for (size_t i = 0; i < n; i++)
		if (i == 0 || strcmp(cos[i].id, cos[i - 1].id))
			s_checkout(j, origin, cos[i].id, &runs->r[cos[i].run],
				   kinds[cos[i].run]);
	json_arr_close(j);
	free(cos);
}

/* ---- builds ---- */

typedef struct {
	const char *origin;
	export_logs_t logs;
	export_compats_t compat;
	sqlite3 *db;
	json_t *j;
	sqlite3_stmt *cases, *metrics, *suites, *bdur;
	qpaths_t paths;
	qstrs_t strs;
	export_suites_t ss;
	const query_filter_t *f;
	triage_t tri; /* verdicts of re-run regressions, known marks */
	int64_t now_ms;
	export_incidents_t inc; /* failed tests known marks cover */
} s_kc_t;

/* The hex of the log named name in a "name hex\n"... list, or false. */
static bool s_log_named(const char *logs, const char *want, char hex[65])
{
	char name[PROTO_MAX_NAME + 1];
	const char *p = logs;
	int used;

	while (p && *p && sscanf(p, "%64s %64s%n", name, hex, &used) == 2) {
		if (!want || !strcmp(name, want))
			return true;
		p += used;
		while (*p == '\n')
			p++;
	}
	return false;
}

/* log_url and, for a failed build, log_excerpt of the build log. */
static void s_build_log(s_kc_t *k, const qrun_t *r)
{
	char hex[65], *u, *x;

	if (!s_log_named(r->logs, "build", hex))
		return;
	u = export_log_url(&k->logs, r->rec, NULL, "build", hex);
	if (u)
		json_key_str(k->j, "log_url", u);
	free(u);
	if (r->build != BUILD_FAIL && r->build != BUILD_ERROR)
		return;
	x = export_log_excerpt(&k->logs, hex, NULL, NULL);
	if (x)
		json_key_str(k->j, "log_excerpt", x);
	free(x);
}

static const char *s_build_status(int build)
{
	switch (build) {
	case BUILD_PASS: return "PASS";
	case BUILD_FAIL: return "FAIL";
	case BUILD_ERROR: return "ERROR";
	default: return NULL; /* nothing was built: unknown to KCIDB */
	}
}

static void s_arch(char *out, size_t n, const char *arch)
{
	size_t i = 0;

	for (; arch[i] && i + 1 < n; i++) {
		char c = arch[i];

		out[i] = (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') :
			 ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) ?
			 c : '_';
	}
	out[i] = '\0';
}

static void s_provenance(json_t *j, const qrun_t *r)
{
	char hex[65];

	json_key_str(j, "lab", r->lab);
	json_key_str(j, "board", r->board);
	proto_hex(r->rec, 32, hex);
	json_key_str(j, "labmesh_record", hex);
	proto_hex(r->author, 32, hex);
	json_key_str(j, "labmesh_node", hex);
}

/* duration: what the build took, the metric build.duration (seconds) the
 * executor records; a cached build keeps its first build's time there. */
static void s_build_duration(s_kc_t *k, const qrun_t *r)
{
	sqlite3_bind_int64(k->bdur, 1, r->id);
	if (sqlite3_step(k->bdur) == SQLITE_ROW &&
	    sqlite3_column_type(k->bdur, 0) != SQLITE_NULL) {
		double v = sqlite3_column_double(k->bdur, 0);

		if (v >= 0)
			json_key_double(k->j, "duration", v);
	}
	sqlite3_reset(k->bdur);
}

static void s_build(s_kc_t *k, const qrun_t *r, const char *co_id,
		    enum s_kernel kind)
{
	char hex[65], arch[PROTO_MAX_NAME + 1], when[64];
	const char *status = s_build_status(r->build);
	const char *origin = k->origin;
	json_t *j = k->j;

	proto_hex(r->rec, 32, hex);
	s_arch(arch, sizeof(arch), r->arch);
	query_time_rfc3339(r->start_ms, when);
	json_obj_open(j);
	s_id(j, "id", origin, hex);
	json_key_str(j, "origin", origin);
	s_id(j, "checkout_id", origin, co_id);
	json_key_str(j, "architecture", arch);
	if (*r->config)
		json_key_str(j, "config_name", r->config);
	if (*r->compiler)
		json_key_str(j, "compiler", r->compiler);
	json_key_str(j, "start_time", when);
	/* a kernel not built here booted (or was running): as a build it
	 * passed, and KCIDB counts tests only on builds that passed */
	json_key_str(j, "status", status ? status : "PASS");
	if (status)
		s_build_duration(k, r);
	if (!status)
		json_key_str(j, "comment", kind == S_RUNNING ?
				   "not built: the board's own kernel" :
				   "not built here: a kernel image given at"
				   " submit");
	s_build_log(k, r);
	json_key(j, "misc");
	json_obj_open(j);
	s_provenance(j, r);
	if (r->has_request) {
		proto_hex(r->request, 32, hex);
		json_key_str(j, "labmesh_request", hex);
	}
	if (!status)
		json_key_str(j, "build", "none");
	json_obj_close(j);
	json_obj_close(j);
}

/* ---- tests ---- */

/* log_url: the suite's first log. */
static void s_log_url(s_kc_t *k, const qrun_t *r, const export_suite_t *s)
{
	char hex[65], *u;

	if (!s_log_named(s->logs, NULL, hex))
		return;
	u = export_log_url(&k->logs, r->rec, s->name, NULL, hex);
	if (u)
		json_key_str(k->j, "log_url", u);
	free(u);
}

/* A failed or broken test says why: its message as comment, the lines
 * of the suite's log that failed as log_excerpt (path: the case's, NULL
 * for the suite itself). */
static void s_failure(s_kc_t *k, const export_suite_t *s, int status,
		      const char *path, const char *msg)
{
	char hex[65], *x;

	if (msg && *msg)
		json_key_str(k->j, "comment", msg);
	if (status != PROTO_FAIL && status != PROTO_ERROR)
		return;
	x = export_log_excerpt(&k->logs, s && s_log_named(s->logs, NULL, hex) ?
					 hex : NULL, path, msg);
	if (x)
		json_key_str(k->j, "log_excerpt", x);
	free(x);
}

/* "name hex\n"... logs: misc.logs. */
static void s_logs(s_kc_t *k, const char *logs)
{
	char name[PROTO_MAX_NAME + 1], hex[65];
	const char *p = logs;
	int used;

	json_key(k->j, "logs");
	json_arr_open(k->j);
	while (*p && sscanf(p, "%64s %64s%n", name, hex, &used) == 2) {
		json_obj_open(k->j);
		json_key_str(k->j, "name", name);
		json_key_str(k->j, "blob", hex);
		json_obj_close(k->j);
		p += used;
		while (*p == '\n')
			p++;
	}
	json_arr_close(k->j);
}

/* environment.compatible: each space-separated DT compatible. */
static void s_env_compatible(s_kc_t *k, const qrun_t *r)
{
	const char *c = export_compatible(&k->compat, r->lab, r->board);
	char *copy, *save = NULL;

	if (!c)
		return;
	copy = xstrdup(c);
	json_key(k->j, "compatible");
	json_arr_open(k->j);
	for (char *t = strtok_r(copy, " ", &save); t;
	     t = strtok_r(NULL, " ", &save))
		json_str(k->j, t);
	json_arr_close(k->j);
	free(copy);
}

static void s_test_head(s_kc_t *k, const qrun_t *r, const char *path,
			char kind, const export_suite_t *s)
{
	char hex[65], when[64];
	char *full = xstrdup(path);
	char *local;

	proto_hex(r->rec, 32, hex);
	export_kcidb_path(full);
	local = xasprintf("%s:%c:%s", hex, kind, full);
	json_obj_open(k->j);
	s_id(k->j, "id", k->origin, local);
	json_key_str(k->j, "origin", k->origin);
	s_id(k->j, "build_id", k->origin, hex);
	json_key_str(k->j, "path", full);
	if (s) {
		query_time_rfc3339(s->start_ms, when);
		json_key_str(k->j, "start_time", when);
	}
	json_key(k->j, "environment");
	json_obj_open(k->j);
	s_env_compatible(k, r);
	json_key(k->j, "misc");
	json_obj_open(k->j);
	json_key_str(k->j, "lab", r->lab);
	json_key_str(k->j, "board", r->board);
	json_key_str(k->j, "platform", r->board);
	json_obj_close(k->j);
	json_obj_close(k->j);
	if (s && *s->logs)
		s_log_url(k, r, s);
	free(local);
	free(full);
}

/* A re-run regression's verdict (results/rerun.h): misc.verdict, and
 * the re-runs that passed of all (here and on other boards). */
static void s_verdict(s_kc_t *k, const qrun_t *r, const char *path)
{
	const triage_verdict_t *v = path ?
		triage_verdict_find(&k->tri, r->rec, path) : NULL;
	char line[160];

	if (!v)
		return;
	triage_verdict_line(v, line, sizeof(line));
	json_key_str(k->j, "verdict", verdict_kind_name(v->verdict));
	json_key_uint(k->j, "verdict_reruns", v->runs + v->other_runs);
	json_key_uint(k->j, "verdict_passes", v->passes + v->other_passes);
	json_key_str(k->j, "verdict_text", line);
}

static void s_test_misc(s_kc_t *k, const qrun_t *r, const export_suite_t *s,
			const char *msg, const char *path)
{
	json_key(k->j, "misc");
	json_obj_open(k->j);
	s_verdict(k, r, path);
	s_provenance(k->j, r);
	json_key_str(k->j, "arch", r->arch);
	if (msg && *msg)
		json_key_str(k->j, "message", msg);
	if (s && *s->version)
		json_key_str(k->j, "suite_version", s->version);
	if (s && *s->logs)
		s_logs(k, s->logs);
	json_obj_close(k->j);
	json_obj_close(k->j);
}

static const qpaths_t *s_sort_p;

static int s_cmp_pair(const void *pa, const void *pb)
{
	const int64_t *a = pa, *b = pb;
	uint32_t ra = s_sort_p->rank[a[0]], rb = s_sort_p->rank[b[0]];

	return ra < rb ? -1 : ra > rb;
}

/* Rows (path, a, b) of run r from st, filtered, sorted by path text. */
static int64_t *s_rows(s_kc_t *k, sqlite3_stmt *st, int64_t run, int ncol,
		       size_t *ret_n, bool cases)
{
	int64_t *rows = NULL;
	size_t n = 0, alloc = 0;

	sqlite3_bind_int64(st, 1, run);
	while (sqlite3_step(st) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0);

		if (id <= 0 || id > k->paths.max || !k->paths.match[id] ||
		    (cases && !query_status_ok(k->f,
					       sqlite3_column_int(st, 1))))
			continue;
		if (n == alloc) {
			alloc = alloc ? alloc * 2 : 256;
			rows = xreallocarray(rows, alloc, 4 * sizeof(*rows));
		}
		rows[n * 4] = id;
		for (int c = 1; c < ncol; c++)
			rows[n * 4 + c] = sqlite3_column_int64(st, c);
		if (!cases) /* the value is a double: keep its bits */
			memcpy(&rows[n * 4 + 1], &(double){
				sqlite3_column_double(st, 1) }, 8);
		n++;
	}
	sqlite3_reset(st);
	s_sort_p = &k->paths;
	if (n)
		qsort(rows, n, 4 * sizeof(*rows), s_cmp_pair);
	*ret_n = n;
	return rows;
}

/* Each suite is a test too (path = the suite): its own verdict and time,
 * which is all a suite without cases (boot, say) has to say. */
static bool s_suite_selected(const s_kc_t *k, const export_suite_t *s)
{
	return !((k->f->suite && strcmp(k->f->suite, s->name)) ||
		 (k->f->path && !query_path_match(k->f->path, s->name)) ||
		 !query_status_ok(k->f, s->status));
}

static bool s_metrics_selected(const s_kc_t *k)
{
	return !k->f->status_mask || (k->f->status_mask & (1u << PROTO_DONE));
}

/* A failed test a current known mark covers: an incident of its issue. */
static void s_known(s_kc_t *k, const qrun_t *r, const char *path, int status)
{
	const triage_known_t *m;
	char hex[65], *full, *id;

	if (status != PROTO_FAIL && status != PROTO_ERROR)
		return;
	m = triage_known_find(&k->tri, path, r->board, r->arch, k->now_ms);
	if (!m)
		return;
	proto_hex(r->rec, 32, hex);
	full = xstrdup(path);
	export_kcidb_path(full);
	id = xasprintf("%s:%s:c:%s", k->origin, hex, full);
	export_incident_add(&k->inc, id, m);
	free(id);
	free(full);
}

static void s_suite_tests(s_kc_t *k, const qrun_t *r)
{
	for (size_t i = 0; i < k->ss.n; i++) {
		const export_suite_t *s = &k->ss.s[i];

		if (!s_suite_selected(k, s))
			continue;
		s_test_head(k, r, s->name, 's', s);
		json_key_str(k->j, "status", query_status_name(s->status));
		/* a suite's own reason (a SKIP's missing need) is its comment */
		s_failure(k, s, s->status, NULL, s->reason);
		json_key_double(k->j, "duration",
				(double)s->duration_ms / 1000.0);
		s_test_misc(k, r, s, s->reason, NULL);
	}
}

static void s_run_tests(s_kc_t *k, const qrun_t *r)
{
	size_t n;
	int64_t *rows;

	export_suites_clear(&k->ss);
	export_suites_load(k->suites, r->id, &k->ss);
	s_suite_tests(k, r);
	/* cases: path, status, duration_ms, msg */
	rows = s_rows(k, k->cases, r->id, 4, &n, true);
	for (size_t i = 0; i < n; i++) {
		int64_t *w = &rows[i * 4];
		const export_suite_t *s = export_suite_find(&k->ss,
						k->paths.suite[w[0]]);
		char *msg = qstrs_get(&k->strs, w[3]);

		s_test_head(k, r, k->paths.full[w[0]], 'c', s);
		s_known(k, r, k->paths.full[w[0]], (int)w[1]);
		json_key_str(k->j, "status", query_status_name((int)w[1]));
		s_failure(k, s, (int)w[1],
			  k->paths.full[w[0]] + k->paths.plen[w[0]], msg);
		/* 0: not measured for the case; unknown to KCIDB */
		if (w[2] > 0)
			json_key_double(k->j, "duration", (double)w[2] / 1000.0);
		s_test_misc(k, r, s, msg, k->paths.full[w[0]]);
		free(msg);
	}
	free(rows);
	if (!s_metrics_selected(k))
		return;
	/* metrics: path, value bits, unit */
	rows = s_rows(k, k->metrics, r->id, 3, &n, false);
	for (size_t i = 0; i < n; i++) {
		int64_t *w = &rows[i * 4];
		const export_suite_t *s = export_suite_find(&k->ss,
						k->paths.suite[w[0]]);
		char *unit = qstrs_get(&k->strs, w[2]);
		double v;

		memcpy(&v, &w[1], 8);
		s_test_head(k, r, k->paths.full[w[0]], 'm', s);
		json_key_str(k->j, "status", "DONE");
		json_key(k->j, "number");
		json_obj_open(k->j);
		json_key_double(k->j, "value", v);
		if (unit)
			json_key_str(k->j, "unit", unit);
		json_obj_close(k->j);
		s_test_misc(k, r, s, NULL, NULL);
		free(unit);
	}
	free(rows);
}

/* Whether run r has a test the filter selects (what s_run_tests would
 * write: a suite, a case or a metric). */
static bool s_run_selected(s_kc_t *k, const qrun_t *r)
{
	size_t n = 0;
	int64_t *rows;

	export_suites_clear(&k->ss);
	export_suites_load(k->suites, r->id, &k->ss);
	for (size_t i = 0; i < k->ss.n; i++)
		if (s_suite_selected(k, &k->ss.s[i]))
			return true;
	rows = s_rows(k, k->cases, r->id, 4, &n, true);
	free(rows);
	if (n == 0 && s_metrics_selected(k)) {
		rows = s_rows(k, k->metrics, r->id, 3, &n, false);
		free(rows);
	}
	return n > 0;
}

static int s_kc_open(sqlite3 *db, s_kc_t *k)
{
	if (sqlite3_prepare_v2(db, "SELECT path, status, duration_ms, msg FROM"
			       " res_cases WHERE run = ?1", -1, &k->cases,
			       NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "SELECT path, value, unit FROM res_metrics"
			       " WHERE run = ?1", -1, &k->metrics,
			       NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, export_suites_sql(), -1, &k->suites,
			       NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "SELECT m.value FROM res_metrics m JOIN"
			       " res_paths p ON p.id = m.path JOIN res_strs s"
			       " ON s.id = p.suite WHERE m.run = ?1 AND"
			       " s.s = 'build' AND p.path = 'duration'", -1,
			       &k->bdur, NULL) != SQLITE_OK ||
	    qstrs_open(db, &k->strs) < 0)
		return -EIO;
	return 0;
}

static void s_kc_close(s_kc_t *k)
{
	export_compats_free(&k->compat);
	sqlite3_finalize(k->cases);
	sqlite3_finalize(k->metrics);
	sqlite3_finalize(k->suites);
	sqlite3_finalize(k->bdur);
	if (k->strs.st)
		qstrs_close(&k->strs);
	export_suites_clear(&k->ss);
	free(k->ss.s);
	qpaths_free(&k->paths);
	export_incidents_free(&k->inc);
	triage_free(&k->tri);
}

static void s_document(s_kc_t *k, const qruns_t *runs, buf_t *b, FILE *out)
{
	char (*co_ids)[33] = xcalloc(runs->n + 1, sizeof(*co_ids));
	enum s_kernel *kinds = xcalloc(runs->n + 1, sizeof(*kinds));

	for (size_t i = 0; i < runs->n; i++)
		kinds[i] = s_kernel_kind(k->db, &runs->r[i]);
	json_obj_open(k->j);
	json_key(k->j, "version");
	json_obj_open(k->j);
	json_key_int(k->j, "major", 5);
	json_key_int(k->j, "minor", 3);
	json_obj_close(k->j);
	s_checkouts(k->j, k->origin, runs, kinds, co_ids);
	json_key(k->j, "builds");
	json_arr_open(k->j);
	for (size_t i = 0; i < runs->n; i++)
		s_build(k, &runs->r[i], co_ids[i], kinds[i]);
	json_arr_close(k->j);
	json_key(k->j, "tests");
	json_arr_open(k->j);
	for (size_t i = 0; i < runs->n; i++) {
		s_run_tests(k, &runs->r[i]);
		query_flush(b, out, false);
	}
	json_arr_close(k->j);
	if (k->inc.n)
		export_issues_write(k->j, k->origin, &k->inc);
	json_obj_close(k->j);
	free(kinds);
	free(co_ids);
}

/* With a case filter (--suite, --path, --status) the document holds the
 * builds and checkouts of only the runs with a selected test, as the list
 * and JUnit views show only those: *sel points into runs (free sel->r). */
static void s_select_runs(s_kc_t *k, const qruns_t *runs, qruns_t *sel)
{
	memset(sel, 0, sizeof(*sel));
	sel->r = xcalloc(runs->n + 1, sizeof(*sel->r));
	for (size_t i = 0; i < runs->n; i++)
		if (s_run_selected(k, &runs->r[i]))
			sel->r[sel->n++] = runs->r[i];
}

int export_count_runs(sqlite3 *db, const query_filter_t *f, size_t *ret_n)
{
	qruns_t runs;
	int rc = qruns_load(db, f, &runs);

	if (rc < 0)
		return rc;
	*ret_n = runs.n;
	qruns_free(&runs);
	return 0;
}

int export_kcidb(sqlite3 *db, const query_filter_t *f, const char *origin,
		 const char *log_base, FILE *out, char *err, size_t errsz)
{
	const export_kcidb_opts_t o = { .origin = origin,
					.log_base = log_base };
	int rc = export_kcidb_opts(db, f, &o, out, err, errsz);

	if (rc != -ENOENT)
		return rc;
	/* no run: an empty report, which KCIDB takes as valid */
	fputs("{\n  \"version\": {\n    \"major\": 5,\n    \"minor\": 3\n  },\n"
	      "  \"checkouts\": [],\n  \"builds\": [],\n  \"tests\": []\n}\n",
	      out);
	return ferror(out) ? -EIO : 0;
}

int export_kcidb_opts(sqlite3 *db, const query_filter_t *f,
		      const export_kcidb_opts_t *o, FILE *out, char *err,
		      size_t errsz)
{
	s_kc_t k = { .origin = o->origin, .f = f, .db = db,
		     .logs = { .log_base = o->log_base, .dash = o->dash,
			       .home = o->home } };
	const char *origin = o->origin;
	qruns_t runs, sel = { 0 };
	buf_t b;
	json_t j;
	int rc;
	if (!export_origin_ok(origin)) {
		snprintf(err, errsz, "origin must match [a-z0-9_]+");
		return -EINVAL;
	}
	rc = qruns_load(db, f, &runs);
	if (rc == 0 && runs.n)
		rc = s_kc_open(db, &k);
	if (rc < 0) {
		snprintf(err, errsz, "reading the index failed");
		s_kc_close(&k);
		qruns_free(&runs);
		return rc;
	}
	qpaths_load(db, f, &k.paths);
	k.now_ms = s_wall_ms();
	triage_load(db, k.now_ms, false, &k.tri);
	export_compats_load(db, &k.compat);
	if (runs.n && query_case_filtered(f))
		s_select_runs(&k, &runs, &sel);
	if (!runs.n || (query_case_filtered(f) && !sel.n)) {
		snprintf(err, errsz, "no run matches: nothing to export");
		free(sel.r);
		s_kc_close(&k);
		qruns_free(&runs);
		return -ENOENT;
	}
	buf_init(&b, 0);
	json_init(&j, &b, JSON_PRETTY);
	k.j = &j;
	s_document(&k, sel.r ? &sel : &runs, &b, out);
	free(sel.r);
	rc = json_finish(&j) < 0 ? -EIO : query_flush(&b, out, true);
	if (rc < 0)
		snprintf(err, errsz, "writing the document failed");
	buf_free(&b);
	s_kc_close(&k);
	qruns_free(&runs);
	return rc;
}
