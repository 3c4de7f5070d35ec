/*
 * results_cli: option parsing and store opening for query, compare,
 * history, export and store. The work itself is in query*.c, export*.c
 * and results*.c; this file only turns argv into calls and exit codes.
 * One parser (s_parse) serves every command: the common and filter
 * options, then a table of the command's own (s_opt_t).
 */
#include "node/cli/results_cli.h"
#include "node/jobs/jobs.h"
#include "node/results/export.h"
#include "node/results/query.h"
#include "node/results/report.h"
#include "node/results/results.h"
#include "labs/lab.h"

#include "proto/mem.h"

#include <assert.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define EXIT_OK 0
#define EXIT_FAIL 1
#define EXIT_USAGE 2

int results_lag(sqlite3 *db); /* results.c */

enum {
	O_HOME = 1000, O_JSON, O_HELP, O_COMMIT, O_BRANCH, O_TREE, O_BOARD,
	O_LAB, O_ARCH, O_SUITE, O_PATH, O_STATUS, O_SINCE, O_RUN, O_REQUEST,
	O_MATRIX, O_LIST, O_KCIDB, O_JUNIT,
	O_OWN, /* a command's own option: O_OWN + its index in s_opt_t[] */
};

#define FILTER_OPTS                                                          \
	{ "commit", required_argument, NULL, O_COMMIT },                     \
	{ "branch", required_argument, NULL, O_BRANCH },                     \
	{ "tree", required_argument, NULL, O_TREE },                         \
	{ "board", required_argument, NULL, O_BOARD },                       \
	{ "lab", required_argument, NULL, O_LAB },                           \
	{ "arch", required_argument, NULL, O_ARCH },                         \
	{ "suite", required_argument, NULL, O_SUITE },                       \
	{ "path", required_argument, NULL, O_PATH },                         \
	{ "status", required_argument, NULL, O_STATUS },                     \
	{ "since", required_argument, NULL, O_SINCE },                       \
	{ "run", required_argument, NULL, O_RUN },                           \
	{ "request", required_argument, NULL, O_REQUEST },                   \
	{ "home", required_argument, NULL, O_HOME },                         \
	{ "json", no_argument, NULL, O_JSON },                               \
	{ "help", no_argument, NULL, O_HELP }

static const char s_filter_help[] =
	"Filters:\n"
	"  --commit HEX    kernel commit (a prefix is enough)\n"
	"  --branch NAME   --tree URL   --board NAME   --lab NAME   --arch NAME\n"
	"  --suite NAME    one suite\n"
	"  --path PATTERN  suite.path: a glob (* ? [..]) or a dotted prefix\n"
	"  --status LIST   PASS,FAIL,ERROR,SKIP,MISS,DONE\n"
	"  --since WHEN    7d, 12h, 30m, 2w, or a date YYYY-MM-DD[THH:MM]\n"
	"  --run HEX       a run record id (prefix)\n"
	"  --request HEX   a request id (prefix)\n"
	"Common: --home DIR (default $LABMESH_HOME or ~/.local/share/labmesh),"
	" --json, --help\n";

typedef struct {
	const char *cmd;
	char *home;
	bool json;
	query_filter_t f;
} s_opts_t;

static int s_usage(const char *cmd, const char *fmt, const char *arg)
{
	fprintf(stderr, "labmesh %s: ", cmd);
	fprintf(stderr, fmt, arg);
	fprintf(stderr, " (see 'labmesh %s --help')\n", cmd);
	return EXIT_USAGE;
}

static int s_fail(const char *cmd, const char *what, const char *err)
{
	fprintf(stderr, "labmesh %s: %s%s%s\n", cmd, what, *err ? ": " : "",
		err);
	return EXIT_FAIL;
}

static void s_home(s_opts_t *o, const char *dir)
{
	const char *env = getenv("LABMESH_HOME"), *h = getenv("HOME");

	free(o->home);
	if (dir)
		o->home = xstrdup(dir);
	else if (env && *env)
		o->home = xstrdup(env);
	else
		o->home = xasprintf("%s/.local/share/labmesh", h ? h : ".");
}

int64_t results_cli_typical(const char *home, const char *suite)
{
	s_opts_t o = { .cmd = "suites" };
	sqlite3 *db = NULL;
	int64_t ms = -1;

	s_home(&o, home);
	if (results_open(o.home, false, &db) == 0)
		results_suite_typical(db, suite, &ms);
	if (db)
		sqlite3_close(db);
	free(o.home);
	return ms;
}

static int64_t s_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A common or filter option: 1 handled, 0 not ours, -1 usage error. */
static int s_common(s_opts_t *o, int c, const char *arg)
{
	query_filter_t *f = &o->f;

	if (arg && strlen(arg) > QUERY_MAX_ARG)
		return s_usage(o->cmd, "option value too long%s", ""), -1;
	switch (c) {
	case O_HOME: s_home(o, arg); return 1;
	case O_JSON: o->json = true; return 1;
	case O_COMMIT:
		if (strlen(arg) < 4 || strlen(arg) > 40 ||
		    strspn(arg, "0123456789abcdef") != strlen(arg))
			return s_usage(o->cmd, "--commit '%s': give 4 to 40"
				       " lower-case hex digits of a commit id"
				       " (a tag or a describe is no commit:"
				       " git rev-parse it)", arg), -1;
		f->commit = arg;
		return 1;
	case O_BRANCH: f->branch = arg; return 1;
	case O_TREE: f->tree = arg; return 1;
	case O_BOARD: f->board = arg; return 1;
	case O_LAB: f->lab = arg; return 1;
	case O_ARCH: f->arch = arg; return 1;
	case O_SUITE: f->suite = arg; return 1;
	case O_PATH: f->path = arg; return 1;
	case O_RUN: f->run = arg; return 1;
	case O_REQUEST: f->request = arg; return 1;
	case O_STATUS:
		if (query_parse_status(arg, &f->status_mask) < 0)
			return s_usage(o->cmd, "bad --status '%s'", arg), -1;
		return 1;
	case O_SINCE:
		if (query_parse_since(arg, s_now_ms(), &f->since_ms) < 0)
			return s_usage(o->cmd, "bad --since '%s'", arg), -1;
		f->has_since = true;
		return 1;
	default:
		return 0;
	}
}

/* store's common options: no filters; --json is accepted and ignored. */
static int s_plain(s_opts_t *o, int c, const char *arg)
{
	if (c == O_HOME)
		s_home(o, arg);
	return c == O_HOME || c == O_JSON;
}

/* What one of a command's own options does (the first two take no value). */
typedef enum {
	S_CODE,    /* *(int *)ret = code; the last one given counts */
	S_ONE_OF,  /* the same, but another code already there is an error */
	S_STRING,  /* *(const char **)ret = the value (argv's, not copied) */
	S_PERCENT, /* *(double *)ret = the value as query_parse_threshold */
	S_SIZE,    /* *(uint64_t *)ret = the value as lab_parse_size */
} s_kind_t;

/* A command's own option, in a table ended by a NULL name. */
typedef struct {
	const char *name; /* the long option, without "--" */
	s_kind_t kind;
	void *ret;        /* where the value goes, of the kind's type */
	int code;         /* S_CODE, S_ONE_OF: what is stored */
	const char *bad;  /* usage error, one %s: the value ("" for S_ONE_OF) */
} s_opt_t;

#define S_MAX_OPTS 32

/*
 * getopt_long's table: the common options (with or without the filters),
 * then own's as O_OWN + index.
 */
static void s_longopts(bool filters, const s_opt_t *own,
		       struct option ret[S_MAX_OPTS])
{
	static const struct option with[] = {
		FILTER_OPTS,
		{ NULL, 0, NULL, 0 },
	};
	static const struct option plain[] = {
		{ "home", required_argument, NULL, O_HOME },
		{ "help", no_argument, NULL, O_HELP },
		{ "json", no_argument, NULL, O_JSON },
		{ NULL, 0, NULL, 0 },
	};
	const struct option *base = filters ? with : plain;
	size_t n = 0;

	for (; base[n].name; n++)
		ret[n] = base[n];
	for (size_t i = 0; own[i].name; i++, n++) {
		assert(n + 1 < S_MAX_OPTS);
		ret[n] = (struct option){
			own[i].name,
			own[i].kind <= S_ONE_OF ? no_argument
						: required_argument,
			NULL, O_OWN + (int)i
		};
	}
	ret[n] = (struct option){ NULL, 0, NULL, 0 };
}

/* Apply one of a command's own options. 0, or -1 on a usage error. */
static int s_own(s_opts_t *o, const s_opt_t *d, const char *arg)
{
	int *code = d->ret;

	switch (d->kind) {
	case S_ONE_OF:
		if (*code && *code != d->code)
			return s_usage(o->cmd, d->bad, ""), -1;
		*code = d->code;
		return 0;
	case S_CODE:
		*code = d->code;
		return 0;
	case S_STRING:
		*(const char **)d->ret = arg;
		return 0;
	case S_PERCENT:
		if (query_parse_threshold(arg, d->ret) < 0)
			return s_usage(o->cmd, d->bad, arg), -1;
		return 0;
	case S_SIZE:
		if (lab_parse_size(arg, d->ret) < 0)
			return s_usage(o->cmd, d->bad, arg), -1;
		return 0;
	}
	return 0;
}

/*
 * A command's options, from argv[1]: with filters, the filters and the
 * common options (s_common); without, only --home, --help and --json
 * (s_plain); and own's. Sets o->home first. Returns 0 with optind at the
 * first operand, 1 after printing help(), -1 on a usage error (reported).
 */
static int s_parse(s_opts_t *o, int argc, char **argv, bool filters,
		   const s_opt_t *own, void (*help)(void))
{
	struct option opts[S_MAX_OPTS];
	int c;

	s_longopts(filters, own, opts);
	s_home(o, NULL);
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		int h = filters ? s_common(o, c, optarg)
				: s_plain(o, c, optarg);

		if (h < 0)
			return -1;
		if (h)
			continue;
		if (c == O_HELP) {
			help();
			return 1;
		}
		if (c < O_OWN) {
			s_usage(o->cmd, "unknown option '%s'", argv[optind - 1]);
			return -1;
		}
		if (s_own(o, &own[c - O_OWN], optarg) < 0)
			return -1;
	}
	return 0;
}

/* Open read-only, catching the index up first if records are ahead. */
static int s_open(s_opts_t *o, sqlite3 **ret_db)
{
	sqlite3 *db;
	int rc = results_open(o->home, false, &db);

	if (rc < 0) {
		fprintf(stderr, "labmesh %s: cannot open the store in %s: %s\n",
			o->cmd, o->home, strerror(-rc));
		return rc;
	}
	if (results_lag(db) > 0) {
		sqlite3 *rw;

		sqlite3_close(db);
		if (results_open(o->home, true, &rw) == 0) {
			if (results_catch_up(rw) < 0)
				fprintf(stderr, "labmesh %s: warning: the index"
					" could not catch up with the records"
					"\n", o->cmd);
			sqlite3_close(rw);
		}
		rc = results_open(o->home, false, &db);
		if (rc < 0)
			return rc;
	}
	*ret_db = db;
	return 0;
}

/* ---- query ---- */

static void s_query_help(void)
{
	printf("usage: labmesh query [FILTERS] [--matrix | --list] [--json]\n"
	       "Results across labs. With --commit the default view is the\n"
	       "matrix (boards x suites, cells PASS/FAIL/SKIP counts, lab shown"
	       "\nwith each board); otherwise one line per test case.\n\n%s",
	       s_filter_help);
}

int cmd_query(int argc, char **argv)
{
	s_opts_t o = { .cmd = "query" };
	int view = 0, rc;
	const s_opt_t own[] = {
		{ "matrix", S_CODE, &view, O_MATRIX, NULL },
		{ "list", S_CODE, &view, O_LIST, NULL },
		{ NULL, 0, NULL, 0, NULL },
	};
	char err[256] = "";
	sqlite3 *db;

	rc = s_parse(&o, argc, argv, true, own, s_query_help);
	if (rc) {
		free(o.home);
		return rc > 0 ? EXIT_OK : EXIT_USAGE;
	}
	if (optind < argc) {
		s_usage(o.cmd, "unexpected argument '%s'", argv[optind]);
		goto usage;
	}
	if (!view)
		view = o.f.commit ? O_MATRIX : O_LIST;
	if (s_open(&o, &db) < 0) {
		free(o.home);
		return EXIT_FAIL;
	}
	if (view == O_MATRIX)
		rc = query_matrix(db, &o.f, o.json, stdout, err, sizeof(err));
	else
		rc = query_list(db, &o.f, o.json, stdout, err, sizeof(err));
	sqlite3_close(db);
	free(o.home);
	if (rc < 0)
		return s_fail(o.cmd, "no answer", err);
	return fflush(stdout) == 0 ? EXIT_OK : EXIT_FAIL;
usage:
	free(o.home);
	return EXIT_USAGE;
}

/* ---- compare ---- */

static void s_compare_help(void)
{
	printf("usage: labmesh compare BASE NEW [FILTERS] [--threshold PCT]"
	       " [--json]\n"
	       "Per board and test path, what changed from BASE to NEW (each a\n"
	       "commit, a run id or a request id, as a hex prefix):"
	       " regressions\n(PASS -> FAIL/ERROR), fixes, new and vanished"
	       " tests, and metrics\nthat moved more than PCT percent (default"
	       " 10) in their bad direction.\nExit status: 0 no regressions, 1"
	       " regressions, 2 cannot compare.\n\n%s", s_filter_help);
}

int cmd_compare(int argc, char **argv)
{
	s_opts_t o = { .cmd = "compare" };
	double thr = 10.0;
	const s_opt_t own[] = {
		{ "threshold", S_PERCENT, &thr, 0, "bad --threshold '%s'" },
		{ NULL, 0, NULL, 0, NULL },
	};
	char err[256] = "";
	sqlite3 *db;
	int rc;

	rc = s_parse(&o, argc, argv, true, own, s_compare_help);
	if (rc) {
		free(o.home);
		return rc > 0 ? EXIT_OK : EXIT_USAGE;
	}
	if (argc - optind != 2) {
		s_usage(o.cmd, "give BASE and NEW%s", "");
		goto usage;
	}
	if (s_open(&o, &db) < 0) {
		free(o.home);
		return EXIT_USAGE;
	}
	rc = query_compare(db, argv[optind], argv[optind + 1], &o.f, thr,
			   o.json, stdout, err, sizeof(err));
	sqlite3_close(db);
	free(o.home);
	fflush(stdout);
	if (rc < 0) {
		fprintf(stderr, "labmesh compare: %s\n", err);
		return EXIT_USAGE;
	}
	return rc > 0 ? EXIT_FAIL : EXIT_OK;
usage:
	free(o.home);
	return EXIT_USAGE;
}

/* ---- report ---- */

static char *s_dashboard_url(const char *home);

static void s_report_help(void)
{
	printf("usage: labmesh report COMMIT|REQUEST [--dash URL] [--home"
	       " DIR]\n"
	       "A plain-text summary of one commit's (or request's) results"
	       " to mail to a\nlist: builds, boots and tests per arch, the"
	       " new regressions (tests that\nfailed where the board's"
	       " previous run passed) with their confirmation\nverdict, the"
	       " failures known marks cover, and every run, each with a link"
	       "\nto the dashboard. Exit status: 0 no new regression, 1 new"
	       " regressions,\n2 no such commit or request.\n"
	       "  --dash URL  the dashboard for links (default: the one the"
	       " node in --home\n              serves, else the labmesh log"
	       " command)\n");
}

int cmd_report(int argc, char **argv)
{
	s_opts_t o = { .cmd = "report" };
	const char *dash = NULL;
	const s_opt_t own[] = {
		{ "dash", S_STRING, &dash, 0, NULL },
		{ NULL, 0, NULL, 0, NULL },
	};
	char err[256] = "", *own_dash = NULL;
	sqlite3 *db;
	int rc;

	rc = s_parse(&o, argc, argv, false, own, s_report_help);
	if (rc || argc - optind != 1) {
		if (!rc)
			s_usage(o.cmd, "give one COMMIT or REQUEST%s", "");
		free(o.home);
		return rc > 0 ? EXIT_OK : EXIT_USAGE;
	}
	if (s_open(&o, &db) < 0) {
		free(o.home);
		return EXIT_USAGE;
	}
	if (!dash)
		dash = own_dash = s_dashboard_url(o.home);
	rc = report_write(db, argv[optind], dash, s_now_ms(), stdout, err,
			  sizeof(err));
	sqlite3_close(db);
	free(own_dash);
	free(o.home);
	fflush(stdout);
	if (rc < 0) {
		fprintf(stderr, "labmesh report: %s\n", err);
		return EXIT_USAGE;
	}
	return rc > 0 ? EXIT_FAIL : EXIT_OK;
}

/* ---- history ---- */

static void s_history_help(void)
{
	printf("usage: labmesh history PATH [FILTERS] [--json]\n"
	       "One test (suite.path) or metric across commits and boards,"
	       " newest\nfirst: status and duration, or value and unit. PATH"
	       " may be a glob.\n\n%s", s_filter_help);
}

int cmd_history(int argc, char **argv)
{
	static const s_opt_t own[] = {
		{ NULL, 0, NULL, 0, NULL },
	};
	s_opts_t o = { .cmd = "history" };
	char err[256] = "";
	sqlite3 *db;
	int rc;

	rc = s_parse(&o, argc, argv, true, own, s_history_help);
	if (rc) {
		free(o.home);
		return rc > 0 ? EXIT_OK : EXIT_USAGE;
	}
	if (argc - optind != 1 || strlen(argv[optind]) > QUERY_MAX_ARG) {
		s_usage(o.cmd, "give one PATH%s", "");
		goto usage;
	}
	if (s_open(&o, &db) < 0) {
		free(o.home);
		return EXIT_FAIL;
	}
	rc = query_history(db, argv[optind], &o.f, o.json, stdout, err,
			   sizeof(err));
	sqlite3_close(db);
	free(o.home);
	if (rc < 0)
		return s_fail(o.cmd, "no answer", err);
	return fflush(stdout) == 0 ? EXIT_OK : EXIT_FAIL;
usage:
	free(o.home);
	return EXIT_USAGE;
}

/* ---- export ---- */

static void s_export_help(void)
{
	printf("usage: labmesh export --kcidb [--origin NAME] [--log-base URL]"
	       " [FILTERS] [--out FILE]\n"
	       "       labmesh export --junit [FILTERS] [--out FILE]\n"
	       "KCIDB I/O schema v5.3 JSON (origin default '%s', [a-z0-9_]+;\n"
	       "--log-base: http(s) URL under which blobs are served, for"
	       " log_url;\nby default the dashboard of the node in --home,"
	       " when it serves one)\nor JUnit XML for Jenkins/GitLab."
	       " With no run to export: exit 1.\n\n%s",
	       EXPORT_DEFAULT_ORIGIN, s_filter_help);
}

/* The dashboard of the node in home, as it wrote HOME/dashboard.url when
 * it started (NULL: none; the caller frees). */
static char *s_dashboard_url(const char *home)
{
	char *path = xasprintf("%s/dashboard.url", home), line[512];
	FILE *f = fopen(path, "r");
	char *url = NULL;

	free(path);
	if (!f)
		return NULL;
	if (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\r\n")] = '\0';
		if (!strncmp(line, "http://", 7) || !strncmp(line, "https://", 8))
			url = xstrdup(line);
	}
	fclose(f);
	return url;
}

static int s_export_run(s_opts_t *o, int fmt, const char *origin,
			const char *log_base, const char *out_path)
{
	char err[256] = "";
	export_kcidb_opts_t ko = { .origin = origin, .log_base = log_base,
				   .home = o->home };
	char *dash = log_base ? NULL : s_dashboard_url(o->home);
	FILE *out = stdout;
	size_t n = 0;
	sqlite3 *db;
	int rc;

	ko.dash = dash;
	if (s_open(o, &db) < 0) {
		free(dash);
		return EXIT_FAIL;
	}
	if (export_count_runs(db, &o->f, &n) == 0 && n == 0) {
		sqlite3_close(db);
		free(dash);
		return s_fail(o->cmd, "nothing to export",
			      "no run matches the filters");
	}
	if (out_path && !(out = fopen(out_path, "w"))) {
		sqlite3_close(db);
		free(dash);
		return s_fail(o->cmd, "cannot write", out_path);
	}
	if (fmt == O_KCIDB)
		rc = export_kcidb_opts(db, &o->f, &ko, out, err, sizeof(err));
	else
		rc = export_junit(db, &o->f, out, err, sizeof(err));
	sqlite3_close(db);
	free(dash);
	if ((out != stdout ? fclose(out) : fflush(out)) != 0 && rc == 0) {
		rc = -EIO;
		snprintf(err, sizeof(err), "write failed");
	}
	return rc < 0 ? s_fail(o->cmd, "export failed", err) : EXIT_OK;
}

static int s_export_check(s_opts_t *o, const char *origin,
			  const char *log_base)
{
	if (!export_origin_ok(origin)) {
		s_usage(o->cmd, "--origin '%s' must match [a-z0-9_]+", origin);
		return -EINVAL;
	}
	if (log_base && strncmp(log_base, "https://", 8) &&
	    strncmp(log_base, "http://", 7)) {
		s_usage(o->cmd, "--log-base '%s' must be an http(s) URL",
			log_base);
		return -EINVAL;
	}
	if (log_base && (strlen(log_base) > QUERY_MAX_ARG ||
			 strpbrk(log_base, " \t\n"))) {
		s_usage(o->cmd, "--log-base '%s' is not a usable URL", log_base);
		return -EINVAL;
	}
	return 0;
}

int cmd_export(int argc, char **argv)
{
	static const char both[] = "--kcidb or --junit, not both%s";
	s_opts_t o = { .cmd = "export" };
	const char *origin = EXPORT_DEFAULT_ORIGIN, *log_base = NULL;
	const char *out = NULL;
	int fmt = 0, rc;
	const s_opt_t own[] = {
		{ "kcidb", S_ONE_OF, &fmt, O_KCIDB, both },
		{ "junit", S_ONE_OF, &fmt, O_JUNIT, both },
		{ "origin", S_STRING, &origin, 0, NULL },
		{ "log-base", S_STRING, &log_base, 0, NULL },
		{ "out", S_STRING, &out, 0, NULL },
		{ NULL, 0, NULL, 0, NULL },
	};

	rc = s_parse(&o, argc, argv, true, own, s_export_help);
	if (rc) {
		free(o.home);
		return rc > 0 ? EXIT_OK : EXIT_USAGE;
	}
	if (!fmt || optind < argc) {
		s_usage(o.cmd, "give --kcidb or --junit%s", "");
		goto usage;
	}
	if (s_export_check(&o, origin, log_base) < 0)
		goto usage;
	rc = s_export_run(&o, fmt, origin, log_base, out);
	free(o.home);
	return rc;
usage:
	free(o.home);
	return EXIT_USAGE;
}

/* ---- store ---- */

static void s_store_help(void)
{
	printf("usage: labmesh store check | reindex | gc [--budget SIZE]"
	       " [--home DIR]\n"
	       "  check    verify every record's signature and every feed's"
	       " hash chain;\n           exit 1 naming each bad record\n"
	       "  reindex  rebuild the results index from the records\n"
	       "  gc       evict least recently used blobs until they fit in"
	       " SIZE\n           (bytes, or with K/M/G/T; default 10G);"
	       " records are kept,\n           and so are"
	       " the kernels of queued and running jobs\n");
}

static int s_store_do(s_opts_t *o, const char *what, uint64_t budget)
{
	sqlite3 *db;
	int rc;

	if (!strcmp(what, "gc")) {
		results_gc_stats_t st;
		uint8_t (*pins)[32] = NULL;
		size_t n_pins = 0;

		/* never a kernel that a queued or running job needs */
		rc = jobs_pinned_blobs(o->home, &pins, &n_pins);
		if (rc == 0)
			rc = results_gc_keep(o->home, budget, pins, n_pins,
					     &st);
		free(pins);
		if (rc < 0)
			return s_fail(o->cmd, "gc failed", strerror(-rc));
		printf("blobs: %llu files, %llu bytes; evicted %llu files,"
		       " %llu bytes; budget %llu\n",
		       (unsigned long long)st.files,
		       (unsigned long long)st.bytes,
		       (unsigned long long)st.evicted,
		       (unsigned long long)st.freed,
		       (unsigned long long)budget);
		if (st.kept)
			printf("kept %llu blobs that unfinished jobs need\n",
			       (unsigned long long)st.kept);
		return EXIT_OK;
	}
	rc = results_open(o->home, !strcmp(what, "reindex"), &db);
	if (rc < 0)
		return s_fail(o->cmd, "cannot open the store", strerror(-rc));
	if (!strcmp(what, "reindex")) {
		rc = results_reindex(db);
		sqlite3_close(db);
		if (rc < 0)
			return s_fail(o->cmd, "reindex failed", strerror(-rc));
		printf("reindexed %d runs\n", rc);
		return EXIT_OK;
	}
	rc = results_check(db, stdout);
	sqlite3_close(db);
	fflush(stdout);
	if (rc < 0)
		return s_fail(o->cmd, "check failed", strerror(-rc));
	if (rc > 0) {
		fprintf(stderr, "labmesh store: check found %d problem%s\n", rc,
			rc == 1 ? "" : "s");
		return EXIT_FAIL;
	}
	printf("store ok\n");
	return EXIT_OK;
}

int cmd_store(int argc, char **argv)
{
	s_opts_t o = { .cmd = "store" };
	uint64_t budget = RESULTS_GC_DEFAULT_BUDGET;
	const s_opt_t own[] = {
		{ "budget", S_SIZE, &budget, 0, "bad --budget '%s'" },
		{ NULL, 0, NULL, 0, NULL },
	};
	int rc;

	rc = s_parse(&o, argc, argv, false, own, s_store_help);
	if (rc) {
		free(o.home);
		return rc > 0 ? EXIT_OK : EXIT_USAGE;
	}
	if (argc - optind != 1 || (strcmp(argv[optind], "check") &&
				   strcmp(argv[optind], "reindex") &&
				   strcmp(argv[optind], "gc"))) {
		s_usage(o.cmd, "give check, reindex or gc%s", "");
		goto usage;
	}
	rc = s_store_do(&o, argv[optind], budget);
	free(o.home);
	return rc;
usage:
	free(o.home);
	return EXIT_USAGE;
}
