/*
 * cli: `labmesh suites` and `labmesh run`. See cli.h.
 *
 * cmd_run reads as its steps, options, load, paths, board, suites and
 * output, each an s_run_* function sharing one struct run.
 */
#include "suites/cli.h"
#include "suites/catalog.h"
#include "suites/runner.h"
#include "proto/buf.h"
#include "proto/json.h"
#include "proto/mem.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define CLI_MAX_SUITES 256 /* suites in one --suite list */

/* ---- option parsing --------------------------------------------------- */

struct opt {
	const char *name; /* "--board" */
	bool has_arg;
	const char **val; /* for options with an argument */
	bool *flag;       /* for flags */
};

/* Parse "--name value", "--name=value" and flags. Returns 0, 1 for --help,
 * or -EINVAL after a message on stderr. */
static int s_parse_opts(const char *cmd, int argc, char **argv, struct opt *opts)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *eq = strchr(a, '=');
		size_t nlen = eq ? (size_t)(eq - a) : strlen(a);
		struct opt *o = NULL;

		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0)
			return 1;
		for (struct opt *p = opts; p->name; p++) {
			if (strlen(p->name) == nlen && strncmp(p->name, a, nlen) == 0)
				o = p;
		}
		if (!o) {
			fprintf(stderr, "labmesh %s: unknown option '%s' (see --help)\n", cmd, a);
			return -EINVAL;
		}
		if (!o->has_arg) {
			if (eq) {
				fprintf(stderr, "labmesh %s: %s takes no value\n", cmd, o->name);
				return -EINVAL;
			}
			*o->flag = true;
			continue;
		}
		if (eq) {
			*o->val = eq + 1;
		} else if (i + 1 < argc) {
			*o->val = argv[++i];
		} else {
			fprintf(stderr, "labmesh %s: %s needs a value\n", cmd, o->name);
			return -EINVAL;
		}
	}
	return 0;
}

static catalog_t *s_catalog(const char *cmd, const char *opt)
{
	char *dir = catalog_default_dir(opt);
	catalog_t *c = NULL;
	char *err = NULL;

	if (!dir) {
		if (opt)
			fprintf(stderr, "labmesh %s: %s: no such directory\n", cmd, opt);
		else
			fprintf(stderr, "labmesh %s: no suites directory found (give --suites DIR "
					"or set LABMESH_SUITES)\n", cmd);
		return NULL;
	}
	if (catalog_load(dir, &c, &err) < 0) {
		fprintf(stderr, "labmesh %s: %s\n", cmd, err ? err : "cannot load the catalog");
		free(err);
		c = NULL;
	}
	free(dir);
	return c;
}

static void s_print_needs(buf_t *b, const suite_def_t *d)
{
	const char *sep = "";

	if (d->n_need_commands) {
		buf_puts(b, "commands:");
		for (size_t i = 0; i < d->n_need_commands; i++)
			buf_printf(b, "%s%s", i ? "," : " ", d->need_commands[i]);
		sep = "; ";
	}
	if (d->n_need_kconfig) {
		buf_printf(b, "%skconfig:", sep);
		for (size_t i = 0; i < d->n_need_kconfig; i++)
			buf_printf(b, "%s%s", i ? "," : " ", d->need_kconfig[i]);
		sep = "; ";
	}
	if (d->n_need_arch) {
		buf_printf(b, "%sarch:", sep);
		for (size_t i = 0; i < d->n_need_arch; i++)
			buf_printf(b, "%s%s", i ? "," : " ", d->need_arch[i]);
		sep = "; ";
	}
	if (d->need_root)
		buf_printf(b, "%sroot", sep);
	if (!b->len)
		buf_puts(b, "-");
}

static void s_json_strv(json_t *j, const char *key, char **v, size_t n)
{
	json_key(j, key);
	json_arr_open(j);
	for (size_t i = 0; i < n; i++)
		json_str(j, v[i]);
	json_arr_close(j);
}

static int s_print_json(buf_t *b)
{
	if (fwrite(b->data, 1, b->len, stdout) != b->len || fflush(stdout) != 0)
		return -EIO;
	return 0;
}

/* ---- labmesh suites --------------------------------------------------- */

static suites_typical_fn s_typical;

void suites_cli_set_typical(suites_typical_fn fn)
{
	s_typical = fn;
}

/* "2.1 s" measured here, else "max 60 s" (the timeout). */
static void s_typical_text(const char *home, const suite_def_t *d, char out[32])
{
	int64_t ms = s_typical ? s_typical(home, d->name) : -1;

	if (ms < 0)
		snprintf(out, 32, "max %d s", d->timeout_s);
	else if (ms < 10000)
		snprintf(out, 32, "%.1f s", (double)ms / 1000.0);
	else
		snprintf(out, 32, "%lld s", (long long)((ms + 500) / 1000));
}

int cmd_suites(int argc, char **argv)
{
	const char *dir = NULL, *home = NULL;
	bool json = false;
	struct opt opts[] = {
		{ "--suites", true, &dir, NULL },
		{ "--home", true, &home, NULL },
		{ "--json", false, NULL, &json },
		{ NULL, false, NULL, NULL },
	};
	catalog_t *c;
	int r = s_parse_opts("suites", argc, argv, opts);

	if (r == 1) {
		printf("usage: labmesh suites [--suites DIR] [--home DIR] [--json]\n"
		       "List the test suites this node can run: name, kind, version, typical\n"
		       "duration, what it tests and needs (a missing need makes a suite SKIP\n"
		       "on a board). The typical duration is the median of the suite's runs\n"
		       "in the home's results, else 'max' its timeout.\n"
		       "  --suites DIR  the suites directory (default: $LABMESH_SUITES, the\n"
		       "                source tree, or the installed catalog)\n"
		       "  --home DIR    the state home whose results give typical durations\n"
		       "  --json        the catalog as JSON\n");
		return 0;
	}
	if (r < 0)
		return 2;
	c = s_catalog("suites", dir);
	if (!c)
		return 2;
	if (json) {
		buf_t b;
		json_t j;
		buf_init(&b, 0);
		json_init(&j, &b, JSON_PRETTY);
		json_obj_open(&j);
		json_key_str(&j, "dir", catalog_dir(c));
		json_key(&j, "suites");
		json_arr_open(&j);
		for (size_t i = 0; i < catalog_count(c); i++) {
			const suite_def_t *d = catalog_get(c, i);
			json_obj_open(&j);
			json_key_str(&j, "name", d->name);
			json_key_str(&j, "kind", suite_kind_name(d->kind));
			json_key_int(&j, "version", d->version);
			json_key_str(&j, "description", d->description);
			json_key_str(&j, "parser", suite_parser_name(d->parser));
			json_key_int(&j, "timeout", d->timeout_s);
			if (s_typical && s_typical(home, d->name) >= 0)
				json_key_int(&j, "typical_ms", s_typical(home, d->name));
			json_key(&j, "needs");
			json_obj_open(&j);
			s_json_strv(&j, "commands", d->need_commands, d->n_need_commands);
			s_json_strv(&j, "kconfig", d->need_kconfig, d->n_need_kconfig);
			s_json_strv(&j, "arch", d->need_arch, d->n_need_arch);
			json_key_bool(&j, "root", d->need_root);
			json_obj_close(&j);
			json_key_bool(&j, "build", d->has_build);
			json_key(&j, "metrics");
			json_arr_open(&j);
			for (size_t k = 0; k < d->n_metrics; k++) {
				json_obj_open(&j);
				json_key_str(&j, "name", d->metrics[k].name);
				json_key_str(&j, "unit", d->metrics[k].unit);
				json_key_str(&j, "better", suite_better_name(d->metrics[k].better));
				json_obj_close(&j);
			}
			json_arr_close(&j);
			json_obj_close(&j);
		}
		json_arr_close(&j);
		json_obj_close(&j);
		r = json_finish(&j);
		if (r == 0)
			r = s_print_json(&b);
		buf_free(&b);
		catalog_destroy(&c);
		return r < 0 ? 1 : 0;
	}
	printf("%-20s %-10s %-7s %-9s %-60s %s\n", "NAME", "KIND", "VERSION",
	       "TYPICAL", "DESCRIPTION", "NEEDS");
	for (size_t i = 0; i < catalog_count(c); i++) {
		const suite_def_t *d = catalog_get(c, i);
		char typ[32];
		buf_t needs;
		buf_init(&needs, 0);
		s_print_needs(&needs, d);
		s_typical_text(home, d, typ);
		printf("%-20s %-10s %-7d %-9s %-60.60s %s\n", d->name,
		       suite_kind_name(d->kind), d->version, typ,
		       d->description ? d->description : "", buf_str(&needs));
		buf_free(&needs);
	}
	printf("%zu suites in %s\n", catalog_count(c), catalog_dir(c));
	catalog_destroy(&c);
	return 0;
}

/* ---- labmesh run ------------------------------------------------------ */

struct progress {
	size_t i, n;
	bool tty;
};

static void s_progress(void *arg, const suite_def_t *d, enum suite_phase phase,
		       const char *line, const suite_result_t *res)
{
	struct progress *p = arg;

	switch (phase) {
	case SUITE_PHASE_NEEDS:
		fprintf(stderr, "[%zu/%zu] %s: checking needs…\n", p->i, p->n, d->name);
		break;
	case SUITE_PHASE_BUILD:
		fprintf(stderr, "[%zu/%zu] %s: building…\n", p->i, p->n, d->name);
		break;
	case SUITE_PHASE_DEPLOY:
		fprintf(stderr, "[%zu/%zu] %s: copying to the board…\n", p->i, p->n, d->name);
		break;
	case SUITE_PHASE_RUN:
		if (!line)
			fprintf(stderr, "[%zu/%zu] %s: running…\n", p->i, p->n, d->name);
		break;
	case SUITE_PHASE_DONE:
		fprintf(stderr, "[%zu/%zu] %s: %s in %.1f s\n", p->i, p->n, d->name,
			suite_status_name(res->status), (double)res->duration_ms / 1000.0);
		break;
	}
}

static char *s_home(const char *opt)
{
	const char *env = getenv("LABMESH_HOME");
	const char *home = getenv("HOME");

	if (opt)
		return xstrdup(opt);
	if (env && env[0])
		return xstrdup(env);
	return xasprintf("%s/.local/share/labmesh", home && home[0] ? home : "/tmp");
}

/* The reason without a leading "STATUS: " (the status is printed beside). */
static const char *s_reason(const suite_result_t *res)
{
	const char *st = suite_status_name(res->status);
	size_t n = strlen(st);

	if (!res->reason)
		return "";
	if (strncmp(res->reason, st, n) == 0 && res->reason[n] == ':' && res->reason[n + 1] == ' ')
		return res->reason + n + 2;
	return res->reason;
}

static void s_print_result(const suite_result_t *res)
{
	printf("\n%s (version %d): %s: %s\n", res->name, res->version,
	       suite_status_name(res->status), s_reason(res));
	if (res->n_cases) {
		printf("  %-5s %-56s %9s  %s\n", "STATUS", "CASE", "DURATION", "MESSAGE");
		for (size_t i = 0; i < res->n_cases; i++) {
			const suite_case_t *c = &res->cases[i];
			char dur[32] = "-";
			if (c->duration_ms > 0)
				snprintf(dur, sizeof(dur), "%lld ms", (long long)c->duration_ms);
			else if (res->duration_ms > 0) /* not measured: the suite's */
				snprintf(dur, sizeof(dur), "suite %.1f s",
					 (double)res->duration_ms / 1000.0);
			printf("  %-5s %-56s %9s  %s\n",
			       c->known ? "KNOWN" : suite_status_name(c->status), c->path, dur,
			       c->message ? c->message : "");
		}
	}
	if (res->n_metrics) {
		printf("  %-30s %16s %-10s %s\n", "METRIC", "VALUE", "UNIT", "BETTER");
		for (size_t i = 0; i < res->n_metrics; i++) {
			const suite_metric_t *m = &res->metrics[i];
			printf("  %-30s %16.6g %-10s %s\n", m->name, m->value, m->unit,
			       suite_better_name(m->better));
		}
	}
	if (res->log)
		printf("  log: %s\n", res->log);
}

static void s_json_result(json_t *j, const suite_result_t *res)
{
	json_obj_open(j);
	json_key_str(j, "name", res->name);
	json_key_int(j, "version", res->version);
	json_key_str(j, "status", suite_status_name(res->status));
	json_key_str(j, "reason", res->reason);
	json_key_int(j, "duration_ms", res->duration_ms);
	json_key_str(j, "log", res->log);
	json_key(j, "cases");
	json_arr_open(j);
	for (size_t i = 0; i < res->n_cases; i++) {
		const suite_case_t *c = &res->cases[i];
		json_obj_open(j);
		json_key_str(j, "path", c->path);
		json_key_str(j, "status", suite_status_name(c->status));
		if (c->duration_ms >= 0)
			json_key_int(j, "duration_ms", c->duration_ms);
		else
			json_key_null(j, "duration_ms");
		json_key_str(j, "message", c->message);
		json_key_bool(j, "known_failure", c->known);
		json_obj_close(j);
	}
	json_arr_close(j);
	json_key(j, "metrics");
	json_arr_open(j);
	for (size_t i = 0; i < res->n_metrics; i++) {
		const suite_metric_t *m = &res->metrics[i];
		json_obj_open(j);
		json_key_str(j, "name", m->name);
		json_key_double(j, "value", m->value);
		json_key_str(j, "unit", m->unit);
		json_key_str(j, "better", suite_better_name(m->better));
		json_obj_close(j);
	}
	json_arr_close(j);
	json_obj_close(j);
}

/* Split "a,b,c" (or "all") into catalog entries. */
static int s_pick(const catalog_t *c, const char *list, const suite_def_t ***ret,
		  size_t *ret_n)
{
	const suite_def_t **v = NULL;
	size_t n = 0;
	char *copy, *save = NULL;

	if (strcmp(list, "all") == 0) {
		n = catalog_count(c);
		v = xcalloc(n ? n : 1, sizeof(*v));
		for (size_t i = 0; i < n; i++)
			v[i] = catalog_get(c, i);
		*ret = v;
		*ret_n = n;
		return 0;
	}
	copy = xstrdup(list);
	for (char *s = strtok_r(copy, ",", &save); s; s = strtok_r(NULL, ",", &save)) {
		const suite_def_t *d = catalog_find(c, s);
		if (!d) {
			fprintf(stderr, "labmesh run: no suite '%s' in %s (see labmesh suites)\n",
				s, catalog_dir(c));
			free(copy);
			free(v);
			return -ENOENT;
		}
		if (n >= CLI_MAX_SUITES) {
			fprintf(stderr, "labmesh run: more than %d suites\n", CLI_MAX_SUITES);
			free(copy);
			free(v);
			return -E2BIG;
		}
		v = xreallocarray(v, n + 1, sizeof(*v));
		v[n++] = d;
	}
	free(copy);
	if (!n) {
		fprintf(stderr, "labmesh run: --suite names no suite\n");
		return -EINVAL;
	}
	*ret = v;
	*ret_n = n;
	return 0;
}

static void s_run_usage(void)
{
	printf("usage: labmesh run --board B --suite S[,S...] [--config LAB.yaml]\n"
	       "                   [--suites DIR] [--json] [--logs DIR] [--home DIR]\n"
	       "Run suites on one board of this lab, without any network: check each\n"
	       "suite's needs, build what needs building, copy it to the board, run it\n"
	       "with live progress on stderr, parse its output and apply the criteria\n"
	       "(the suite's, with the board's overrides from the lab config).\n"
	       "  --board B        the board (with no --config: 'host', this machine)\n"
	       "  --suite S,...    suites to run, or 'all' for the whole catalog\n"
	       "  --config FILE    the lab config (default: a lab with one local board)\n"
	       "  --suites DIR     the suites directory (default: $LABMESH_SUITES, the\n"
	       "                   source tree, or the installed catalog)\n"
	       "  --json           results as JSON on stdout\n"
	       "  --logs DIR       keep the logs here (default: HOME/work/runs/...)\n"
	       "  --home DIR       state home (default: $LABMESH_HOME or\n"
	       "                   ~/.local/share/labmesh)\n"
	       "Exit status: 0 when every suite passed or was skipped, 1 when one\n"
	       "failed its criteria or could not run, 2 on a usage or config error.\n");
}

/* What `labmesh run` was asked. */
struct run_opts {
	const char *board, *suites, *config, *dir, *logs, *home;
	bool json;
};

/* One `labmesh run`, shared by its steps. */
struct run {
	lab_config_t *cfg;
	const lab_board_t *board;
	catalog_t *cat;
	const suite_def_t **pick;
	size_t n_pick;
	char *home, *logdir, *cache;
	board_t *b;
	int lock_fd; /* the board's lock (board_lock), held to the end */
	suite_kernel_t kern;
	suite_result_t **results;
	bool failed; /* a suite failed or could not run */
};

/* Returns 0, 1 after the usage (--help), or -EINVAL after a message. */
static int s_run_opts(int argc, char **argv, struct run_opts *ro)
{
	struct opt opts[] = {
		{ "--board", true, &ro->board, NULL },
		{ "--suite", true, &ro->suites, NULL },
		{ "--config", true, &ro->config, NULL },
		{ "--suites", true, &ro->dir, NULL },
		{ "--json", false, NULL, &ro->json },
		{ "--logs", true, &ro->logs, NULL },
		{ "--home", true, &ro->home, NULL },
		{ NULL, false, NULL, NULL },
	};
	int r = s_parse_opts("run", argc, argv, opts);

	if (r == 1)
		s_run_usage();
	if (r != 0)
		return r;
	if (!ro->board || !ro->suites) {
		fprintf(stderr, "labmesh run: --board and --suite are required (see --help)\n");
		return -EINVAL;
	}
	return 0;
}

/* The lab config, its board, the catalog and the suites picked from it. */
static int s_run_load(struct run *run, const struct run_opts *ro)
{
	lab_config_t *cfg;
	char *err = NULL;

	if (ro->config) {
		if (lab_config_load(ro->config, &run->cfg, &err) < 0) {
			fprintf(stderr, "labmesh run: %s\n", err ? err : ro->config);
			free(err);
			return -EINVAL;
		}
	} else {
		run->cfg = lab_config_default();
	}
	cfg = run->cfg;
	run->board = lab_config_board(cfg, ro->board);
	if (!run->board) {
		fprintf(stderr, "labmesh run: no board '%s' in %s (boards:", ro->board,
			cfg->path ? cfg->path : "the lab");
		for (size_t i = 0; i < cfg->n_boards; i++)
			fprintf(stderr, " %s", cfg->boards[i].name);
		fprintf(stderr, ")\n");
		return -ENOENT;
	}
	run->cat = s_catalog("run", ro->dir);
	if (!run->cat)
		return -ENOENT;
	return s_pick(run->cat, ro->suites, &run->pick, &run->n_pick);
}

/* The state home, its build cache, and where this run's logs go. */
static void s_run_paths(struct run *run, const struct run_opts *ro)
{
	char stamp[32];
	time_t now;
	struct tm tm;

	run->home = s_home(ro->home);
	run->cache = xasprintf("%s/work/suite-cache", run->home);
	if (ro->logs) {
		run->logdir = xstrdup(ro->logs);
		return;
	}
	now = time(NULL);
	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
	run->logdir = xasprintf("%s/work/runs/%s-%s-%d", run->home, run->board->name, stamp,
				(int)getpid());
}

/* Open the board and ask which kernel it runs. */
static int s_run_board(struct run *run)
{
	const lab_board_t *board = run->board;
	char *err = NULL;
	int r;

	r = board_lock(run->home, board->name, &run->lock_fd);
	if (r < 0) {
		fprintf(stderr, "labmesh run: board %s: %s\n", board->name,
			r == -EBUSY ? "in use by this lab's node (a job or a"
			" lease holds it): try again when it is idle" :
			strerror(-r));
		return r;
	}
	fprintf(stderr, "board %s: opening (%s transport, boot %s)…\n", board->name,
		lab_transport_name(board->transport.type), lab_boot_name(board->boot.method));
	r = board_open(board, NULL, NULL, &run->b, &err);
	if (r < 0) {
		fprintf(stderr, "labmesh run: board %s: %s\n", board->name,
			err ? err : strerror(-r));
		free(err);
		return r;
	}
	r = suite_kernel_identity(board_transport(run->b), &run->kern);
	if (r < 0) {
		fprintf(stderr, "labmesh run: board %s does not answer: %s\n", board->name,
			transport_error(board_transport(run->b)));
		return r;
	}
	fprintf(stderr, "board %s: Linux %s %s\n", board->name, run->kern.release,
		run->kern.machine);
	return 0;
}

static void s_run_suites(struct run *run)
{
	run->results = xcalloc(run->n_pick, sizeof(*run->results));
	for (size_t i = 0; i < run->n_pick; i++) {
		struct progress p = { .i = i + 1, .n = run->n_pick };
		suite_run_opts_t ro = {
			.lab = run->cfg, .board = run->board, .cache_dir = run->cache,
			.log_dir = run->logdir, .progress = s_progress, .progress_arg = &p,
		};
		suite_run(board_transport(run->b), run->pick[i], run->kern.machine, &ro,
			  &run->results[i]);
		if (run->results[i]->status == SUITE_FAIL ||
		    run->results[i]->status == SUITE_ERROR)
			run->failed = true;
	}
}

static int s_run_json(const struct run *run)
{
	buf_t out;
	json_t j;
	int r;

	buf_init(&out, 0);
	json_init(&j, &out, JSON_PRETTY);
	json_obj_open(&j);
	json_key_str(&j, "lab", run->cfg->name);
	json_key_str(&j, "board", run->board->name);
	json_key(&j, "kernel");
	json_obj_open(&j);
	json_key_str(&j, "release", run->kern.release);
	json_key_str(&j, "machine", run->kern.machine);
	json_key_str(&j, "version", run->kern.version);
	json_obj_close(&j);
	json_key_str(&j, "logs", run->logdir);
	json_key_str(&j, "status", run->failed ? "FAIL" : "PASS");
	json_key(&j, "suites");
	json_arr_open(&j);
	for (size_t i = 0; i < run->n_pick; i++)
		s_json_result(&j, run->results[i]);
	json_arr_close(&j);
	json_obj_close(&j);
	r = json_finish(&j);
	if (r == 0)
		r = s_print_json(&out);
	buf_free(&out);
	return r;
}

static void s_run_text(const struct run *run)
{
	printf("board %s of lab %s: Linux %s %s\n", run->board->name, run->cfg->name,
	       run->kern.release, run->kern.machine);
	for (size_t i = 0; i < run->n_pick; i++)
		s_print_result(run->results[i]);
	printf("\n");
	for (size_t i = 0; i < run->n_pick; i++)
		printf("%-5s %s: %s\n", suite_status_name(run->results[i]->status),
		       run->results[i]->name, s_reason(run->results[i]));
	printf("logs: %s\n", run->logdir);
	fflush(stdout);
}

static void s_run_free(struct run *run)
{
	if (run->results) {
		for (size_t i = 0; i < run->n_pick; i++)
			suite_result_destroy(&run->results[i]);
		free(run->results);
	}
	suite_kernel_clear(&run->kern);
	board_close(&run->b);
	if (run->lock_fd >= 0)
		close(run->lock_fd);
	free(run->pick);
	catalog_destroy(&run->cat);
	lab_config_destroy(&run->cfg);
	free(run->home);
	free(run->logdir);
	free(run->cache);
}

int cmd_run(int argc, char **argv)
{
	struct run_opts ro = { 0 };
	struct run run = { .lock_fd = -1 };
	int r, rc = 2;

	/* a board or QEMU that goes away is an error to report, not a
	 * signal that ends the command without a word */
	signal(SIGPIPE, SIG_IGN);
	r = s_run_opts(argc, argv, &ro);
	if (r != 0)
		return r == 1 ? 0 : 2;
	if (s_run_load(&run, &ro) < 0)
		goto out;
	s_run_paths(&run, &ro);
	rc = 1; /* past the config, a board that fails is no usage error */
	if (s_run_board(&run) < 0)
		goto out;
	s_run_suites(&run);
	if (ro.json) {
		if (s_run_json(&run) < 0)
			run.failed = true;
	} else {
		s_run_text(&run);
	}
	fprintf(stderr, "logs kept in %s\n", run.logdir);
	rc = run.failed ? 1 : 0;
out:
	s_run_free(&run);
	return rc;
}
