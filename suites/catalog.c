/*
 * catalog: suite.yaml loading and validation, and the catalog of suites.
 * See catalog.h and suites/README.md.
 */
#include "suites/catalog.h"
#include "suites/criteria.h"
#include "labs/yaml.h"
#include "proto/mem.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef LABMESH_SOURCE_SUITES
#define LABMESH_SOURCE_SUITES ""
#endif
#ifndef LABMESH_DATADIR_SUITES
#define LABMESH_DATADIR_SUITES "/usr/local/share/labmesh/suites"
#endif

struct catalog {
	char *dir;
	suite_def_t **suites;
	size_t n;
};

const char *suite_kind_name(enum suite_kind k)
{
	return k == SUITE_KIND_BENCHMARK ? "benchmark" : "functional";
}

/* ---- validators ------------------------------------------------------- */

static bool s_chars(const char *s, const char *extra, size_t max)
{
	size_t n = 0;

	for (; s[n]; n++) {
		unsigned char c = (unsigned char)s[n];
		if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))
			continue;
		if (!strchr(extra, c))
			return false;
	}
	return n >= 1 && n <= max;
}

static bool s_name_ok(const char *s)
{
	return s_chars(s, "_-", SUITE_MAX_NAME);
}

/* A command name checked with `command -v` in a shell: no metacharacters. */
static bool s_command_ok(const char *s)
{
	return s_chars(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZ_.+-", 64) && s[0] != '-';
}

static bool s_kconfig_ok(const char *s)
{
	if (strncmp(s, "CONFIG_", 7) != 0 || !s[7])
		return false;
	for (const char *p = s + 7; *p; p++) {
		if (!((*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_'))
			return false;
	}
	return strlen(s) <= 128;
}

static bool s_arch_ok(const char *s)
{
	return s_chars(s, "_", 32);
}

/* A plain file name in the suite folder: no '/', not "." or "..". */
static bool s_file_ok(const char *s)
{
	if (!s_chars(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZ_.-", SUITE_MAX_FILE_NAME))
		return false;
	return strcmp(s, ".") != 0 && strcmp(s, "..") != 0 && s[0] != '-';
}

/* A compiler flag: printable, no blanks (passed as one argument). */
static bool s_flag_ok(const char *s)
{
	size_t n = 0;

	for (; s[n]; n++) {
		if ((unsigned char)s[n] <= 0x20 || (unsigned char)s[n] >= 0x7f)
			return false;
	}
	return n >= 2 && n <= SUITE_MAX_FLAG && s[0] == '-';
}

/* A case path (or set) below the suite. */
static bool s_case_ok(const char *s)
{
	char clean[SUITE_MAX_PATH + 1];

	if (strlen(s) > SUITE_MAX_PATH)
		return false;
	suite_path_sanitize(clean, sizeof(clean), s, strlen(s), SUITE_MAX_DEPTH);
	return strcmp(clean, s) == 0;
}

static bool s_metric_ok(const char *s)
{
	return s_chars(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZ_.-", SUITE_MAX_METRIC_NAME);
}

static bool s_unit_ok(const char *s)
{
	size_t n = 0;

	for (; s[n]; n++) {
		if ((unsigned char)s[n] <= 0x20 || (unsigned char)s[n] >= 0x7f)
			return false;
	}
	return n >= 1 && n <= SUITE_MAX_UNIT;
}

/* A list of scalars, each checked (error at the item's line). */
static int s_list(yaml_val_t *map, const char *key, bool (*ok)(const char *),
		  const char *what, char ***ret, size_t *ret_n)
{
	yaml_val_t *seq;
	char **list = NULL;
	size_t n;
	int r = yaml_get_seq(map, key, YAML_OPTIONAL, &seq);

	*ret = NULL;
	*ret_n = 0;
	if (r <= 0)
		return r;
	n = yaml_len(seq);
	if (n > SUITE_MAX_LIST)
		return yaml_fail(seq, "too many items (%zu, at most %d)", n, SUITE_MAX_LIST);
	if (n)
		list = xcalloc(n, sizeof(*list));
	for (size_t i = 0; i < n; i++) {
		yaml_val_t *item = yaml_item(seq, i);
		r = yaml_to_str(item, 1024, &list[i]);
		if (r < 0)
			goto fail;
		if (!ok(list[i])) {
			r = yaml_fail(item, "'%s' is not %s", list[i], what);
			goto fail;
		}
		for (size_t j = 0; j < i; j++) {
			if (strcmp(list[i], list[j]) == 0) {
				r = yaml_fail(item, "'%s' is listed twice", list[i]);
				goto fail;
			}
		}
	}
	*ret = list;
	*ret_n = n;
	return 1;
fail:
	for (size_t i = 0; i < n; i++)
		free(list[i]);
	free(list);
	return r;
}

/* A file the suite names must exist in its folder as a regular file. */
static int s_file_exists(yaml_val_t *at, const char *dir, const char *file)
{
	char path[4096];
	struct stat st;

	if (!dir)
		return 0;
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode))
		return yaml_fail(at, "'%s' is not a file in %s", file, dir);
	return 0;
}

static int s_files_exist(yaml_val_t *map, const char *key, const char *dir,
			 char **list, size_t n)
{
	yaml_val_t *seq = yaml_map_peek(map, key);

	for (size_t i = 0; i < n; i++) {
		int r = s_file_exists(yaml_item(seq, i), dir, list[i]);
		if (r < 0)
			return r;
	}
	return 0;
}

/* ---- sections --------------------------------------------------------- */

static int s_needs(yaml_val_t *root, suite_def_t *d)
{
	yaml_val_t *m;
	int r = yaml_get_map(root, "needs", YAML_OPTIONAL, &m);

	if (r <= 0)
		return r;
	if (s_list(m, "commands", s_command_ok, "a command name", &d->need_commands,
		   &d->n_need_commands) < 0 ||
	    s_list(m, "kconfig", s_kconfig_ok, "a CONFIG_ option", &d->need_kconfig,
		   &d->n_need_kconfig) < 0 ||
	    s_list(m, "arch", s_arch_ok, "an architecture name", &d->need_arch,
		   &d->n_need_arch) < 0 ||
	    yaml_get_bool(m, "root", YAML_OPTIONAL, &d->need_root) < 0)
		return -EINVAL;
	return yaml_check_unknown(m);
}

static int s_build(yaml_val_t *root, suite_def_t *d)
{
	yaml_val_t *m;
	int r = yaml_get_map(root, "build", YAML_OPTIONAL, &m);

	if (r <= 0)
		return r;
	d->has_build = true;
	d->build_static = true;
	if (s_list(m, "sources", s_file_ok, "a file name", &d->sources, &d->n_sources) < 0 ||
	    yaml_get_str(m, "output", YAML_REQUIRED, SUITE_MAX_FILE_NAME, &d->output) < 0 ||
	    yaml_get_bool(m, "static", YAML_OPTIONAL, &d->build_static) < 0 ||
	    s_list(m, "cflags", s_flag_ok, "a compiler flag", &d->cflags, &d->n_cflags) < 0 ||
	    s_list(m, "ldflags", s_flag_ok, "a linker flag", &d->ldflags, &d->n_ldflags) < 0)
		return -EINVAL;
	if (!d->n_sources)
		return yaml_fail_field(m, "sources", "a build needs at least one source");
	if (!s_file_ok(d->output) || strcmp(d->output, "run.sh") == 0)
		return yaml_fail_field(m, "output", "'%s' is not a usable file name", d->output);
	for (size_t i = 0; i < d->n_sources; i++) {
		size_t n = strlen(d->sources[i]);
		if (n < 3 || strcmp(d->sources[i] + n - 2, ".c") != 0)
			return yaml_fail(yaml_item(yaml_map_peek(m, "sources"), i),
					 "'%s' is not a C source (.c)", d->sources[i]);
	}
	if (s_files_exist(m, "sources", d->dir, d->sources, d->n_sources) < 0)
		return -EINVAL;
	return yaml_check_unknown(m);
}

static int s_metrics(yaml_val_t *root, suite_def_t *d)
{
	static const char *const better[] = { "higher", "lower", NULL };
	yaml_val_t *seq;
	size_t n;
	int r = yaml_get_seq(root, "metrics", YAML_OPTIONAL, &seq);

	if (r <= 0)
		return r;
	n = yaml_len(seq);
	if (n > SUITE_MAX_LIST)
		return yaml_fail(seq, "too many metrics (%zu, at most %d)", n, SUITE_MAX_LIST);
	d->metrics = n ? xcalloc(n, sizeof(*d->metrics)) : NULL;
	for (size_t i = 0; i < n; i++) {
		yaml_val_t *m = yaml_item(seq, i);
		suite_metric_decl_t *md = &d->metrics[i];
		int b = SUITE_BETTER_HIGHER;

		d->n_metrics++;
		if (yaml_expect(m, YAML_KIND_MAP) < 0 ||
		    yaml_get_str(m, "name", YAML_REQUIRED, 128, &md->name) < 0 ||
		    yaml_get_str(m, "unit", YAML_REQUIRED, 128, &md->unit) < 0 ||
		    yaml_get_enum(m, "better", YAML_REQUIRED, "direction", better, &b) < 0)
			return -EINVAL;
		md->better = (enum suite_better)b;
		if (!s_metric_ok(md->name))
			return yaml_fail_field(m, "name", "'%s' is not a metric name ([a-zA-Z0-9_.-]{1,64})",
					       md->name);
		if (!s_unit_ok(md->unit))
			return yaml_fail_field(m, "unit", "'%s' is not a unit (printable, no blanks, "
					       "at most %d bytes)", md->unit, SUITE_MAX_UNIT);
		for (size_t j = 0; j < i; j++) {
			if (strcmp(d->metrics[j].name, md->name) == 0)
				return yaml_fail_field(m, "name", "metric '%s' declared twice", md->name);
		}
		if (yaml_check_unknown(m) < 0)
			return -EINVAL;
	}
	return 0;
}

static bool s_declared(const suite_def_t *d, const char *name)
{
	for (size_t i = 0; i < d->n_metrics; i++) {
		if (strcmp(d->metrics[i].name, name) == 0)
			return true;
	}
	return false;
}

static int s_rule(yaml_val_t *m, const suite_def_t *d, lab_metric_rule_t *rule)
{
	static const char *const ops[] = { "lt", "le", "gt", "ge" };
	int found = 0, r;
	yaml_val_t *range;

	if (yaml_expect(m, YAML_KIND_MAP) < 0 ||
	    yaml_get_str(m, "name", YAML_REQUIRED, 128, &rule->name) < 0)
		return -EINVAL;
	if (!s_declared(d, rule->name))
		return yaml_fail_field(m, "name", "'%s' is not a declared metric", rule->name);
	for (int i = 0; i < 4; i++) {
		r = yaml_get_double(m, ops[i], YAML_OPTIONAL, &rule->lo);
		if (r < 0)
			return r;
		if (r > 0) {
			rule->op = (enum lab_metric_op)i;
			found++;
		}
	}
	r = yaml_get_seq(m, "range", YAML_OPTIONAL, &range);
	if (r < 0)
		return r;
	if (r > 0) {
		if (yaml_len(range) != 2)
			return yaml_fail(range, "a range is [low, high]");
		if (yaml_to_double(yaml_item(range, 0), &rule->lo) < 0 ||
		    yaml_to_double(yaml_item(range, 1), &rule->hi) < 0)
			return -EINVAL;
		if (rule->lo > rule->hi)
			return yaml_fail(range, "range low %g is above high %g", rule->lo, rule->hi);
		rule->op = LAB_OP_RANGE;
		found++;
	}
	if (found != 1)
		return yaml_fail(m, "a metric rule has exactly one of lt, le, gt, ge, range");
	return yaml_check_unknown(m);
}

static int s_criteria(yaml_val_t *root, suite_def_t *d)
{
	lab_criteria_t *c = &d->criteria;
	yaml_val_t *m, *seq;
	int r = yaml_get_map(root, "criteria", YAML_OPTIONAL, &m);

	if (r <= 0)
		return r;
	c->line = yaml_line(m);
	if (yaml_get_int(m, "max_fail", YAML_OPTIONAL, 0, SUITE_MAX_CASES, &c->max_fail) < 0 ||
	    yaml_get_int(m, "min_pass", YAML_OPTIONAL, 0, SUITE_MAX_CASES, &c->min_pass) < 0 ||
	    s_list(m, "must_pass", s_case_ok, "a case path ([A-Za-z0-9_-] segments)",
		   &c->must_pass, &c->n_must_pass) < 0)
		return -EINVAL;
	r = yaml_get_seq(m, "fail_ok", YAML_OPTIONAL, &seq);
	if (r < 0)
		return r;
	if (r > 0) {
		size_t n = yaml_len(seq);
		if (n > SUITE_MAX_LIST)
			return yaml_fail(seq, "too many fail_ok entries");
		c->fail_ok = n ? xcalloc(n, sizeof(*c->fail_ok)) : NULL;
		for (size_t i = 0; i < n; i++) {
			yaml_val_t *f = yaml_item(seq, i);
			lab_fail_ok_t *fo = &c->fail_ok[i];
			c->n_fail_ok++;
			if (yaml_expect(f, YAML_KIND_MAP) < 0 ||
			    yaml_get_str(f, "case", YAML_REQUIRED, SUITE_MAX_PATH, &fo->path) < 0 ||
			    yaml_get_str(f, "reason", YAML_REQUIRED, SUITE_MAX_MESSAGE, &fo->reason) < 0)
				return -EINVAL;
			if (!s_case_ok(fo->path))
				return yaml_fail_field(f, "case", "'%s' is not a case path", fo->path);
			if (yaml_check_unknown(f) < 0)
				return -EINVAL;
		}
	}
	r = yaml_get_seq(m, "metrics", YAML_OPTIONAL, &seq);
	if (r < 0)
		return r;
	if (r > 0) {
		size_t n = yaml_len(seq);
		if (n > SUITE_MAX_LIST)
			return yaml_fail(seq, "too many metric rules");
		c->metrics = n ? xcalloc(n, sizeof(*c->metrics)) : NULL;
		for (size_t i = 0; i < n; i++) {
			c->n_metrics++;
			if (s_rule(yaml_item(seq, i), d, &c->metrics[i]) < 0)
				return -EINVAL;
		}
	}
	return yaml_check_unknown(m);
}

/* ---- suite.yaml ------------------------------------------------------- */

static int s_read(yaml_val_t *root, suite_def_t *d)
{
	static const char *const kinds[] = { "functional", "benchmark", NULL };
	static const char *const parsers[] = { "tap", "kselftest", "ltp", "metrics", "exit", "klog", "kunit", NULL };
	int kind = 0, parser = 0;

	if (yaml_expect(root, YAML_KIND_MAP) < 0)
		return -EINVAL;
	if (yaml_get_str(root, "name", YAML_REQUIRED, 256, &d->name) < 0)
		return -EINVAL;
	if (!s_name_ok(d->name))
		return yaml_fail_field(root, "name", "'%s' is not a suite name ([a-z0-9_-]{1,64})",
				       d->name);
	if (d->dir) {
		const char *base = strrchr(d->dir, '/');
		base = base ? base + 1 : d->dir;
		if (strcmp(base, d->name) != 0)
			return yaml_fail_field(root, "name", "'%s' differs from its folder '%s'",
					       d->name, base);
	}
	d->timeout_s = SUITE_DEFAULT_TIMEOUT_S;
	if (yaml_get_int(root, "version", YAML_REQUIRED, 1, 1000000, &d->version) < 0 ||
	    yaml_get_enum(root, "kind", YAML_REQUIRED, "kind", kinds, &kind) < 0 ||
	    yaml_get_str(root, "description", YAML_REQUIRED, SUITE_MAX_DESCRIPTION,
			 &d->description) < 0 ||
	    yaml_get_int(root, "timeout", YAML_OPTIONAL, 1, SUITE_MAX_TIMEOUT_S, &d->timeout_s) < 0 ||
	    s_needs(root, d) < 0 ||
	    yaml_get_enum(root, "parser", YAML_REQUIRED, "parser", parsers, &parser) < 0 ||
	    s_list(root, "files", s_file_ok, "a file name", &d->files, &d->n_files) < 0 ||
	    s_files_exist(root, "files", d->dir, d->files, d->n_files) < 0 ||
	    s_build(root, d) < 0 || s_metrics(root, d) < 0 || s_criteria(root, d) < 0)
		return -EINVAL;
	d->kind = (enum suite_kind)kind;
	d->parser = (enum suite_parser)parser;
	for (size_t i = 0; i < d->n_files; i++) {
		if (strcmp(d->files[i], "run.sh") == 0 ||
		    (d->output && strcmp(d->files[i], d->output) == 0))
			return yaml_fail_field(root, "files", "'%s' is put there anyway",
					       d->files[i]);
	}
	if (d->kind == SUITE_KIND_BENCHMARK && d->parser == SUITE_PARSER_METRICS &&
	    !d->n_metrics)
		return yaml_fail_field(root, "metrics", "a benchmark declares its metrics");
	if (d->dir) {
		char path[4096];
		struct stat st;
		snprintf(path, sizeof(path), "%s/run.sh", d->dir);
		if (stat(path, &st) < 0 || !S_ISREG(st.st_mode))
			return yaml_fail(root, "no run.sh in %s", d->dir);
	}
	return yaml_check_unknown(root);
}

int suite_def_parse(const char *name, const char *text, size_t len,
		    const char *dir, suite_def_t **ret, char **ret_err)
{
	yaml_limits_t lim = { .max_bytes = SUITE_MAX_YAML_BYTES, .max_depth = 8,
			      .max_nodes = 4096, .max_scalar = 4096 };
	yaml_tree_t *t = NULL;
	suite_def_t *d;
	int r;

	*ret_err = NULL;
	r = yaml_tree_parse(name, text, len, &lim, &t, ret_err);
	if (r < 0)
		return r;
	d = xzalloc(sizeof(*d));
	lab_criteria_init(&d->criteria);
	d->dir = dir ? xstrdup(dir) : NULL;
	if (!yaml_tree_root(t)) {
		*ret_err = xasprintf("%s:1: empty suite definition", name);
		r = -EINVAL;
	} else if (s_read(yaml_tree_root(t), d) < 0 || yaml_tree_error(t)) {
		*ret_err = yaml_tree_take_error(t);
		if (!*ret_err)
			*ret_err = xasprintf("%s: invalid suite definition", name);
		r = -EINVAL;
	}
	yaml_tree_destroy(&t);
	if (r < 0) {
		suite_def_destroy(&d);
		return r;
	}
	d->path = xasprintf("%s", name);
	*ret = d;
	return 0;
}

int suite_def_load(const char *dir, suite_def_t **ret, char **ret_err)
{
	char *path = xasprintf("%s/suite.yaml", dir);
	char *text = NULL;
	FILE *f;
	size_t n;
	int r;

	*ret_err = NULL;
	f = fopen(path, "r");
	if (!f) {
		r = -errno;
		*ret_err = xasprintf("%s: %s", path, strerror(errno));
		free(path);
		return r;
	}
	text = xmalloc(SUITE_MAX_YAML_BYTES + 1);
	n = fread(text, 1, SUITE_MAX_YAML_BYTES + 1, f);
	r = ferror(f) ? -EIO : 0;
	fclose(f);
	if (r == 0 && n > SUITE_MAX_YAML_BYTES) {
		*ret_err = xasprintf("%s: larger than %d bytes", path, SUITE_MAX_YAML_BYTES);
		r = -EFBIG;
	} else if (r < 0) {
		*ret_err = xasprintf("%s: read error", path);
	} else {
		r = suite_def_parse(path, text, n, dir, ret, ret_err);
	}
	free(text);
	free(path);
	return r;
}

static void s_strv_free(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void suite_def_destroy(suite_def_t **p)
{
	suite_def_t *d;

	if (!p || !*p)
		return;
	d = *p;
	free(d->name);
	free(d->description);
	s_strv_free(d->need_commands, d->n_need_commands);
	s_strv_free(d->need_kconfig, d->n_need_kconfig);
	s_strv_free(d->need_arch, d->n_need_arch);
	s_strv_free(d->files, d->n_files);
	s_strv_free(d->sources, d->n_sources);
	free(d->output);
	s_strv_free(d->cflags, d->n_cflags);
	s_strv_free(d->ldflags, d->n_ldflags);
	for (size_t i = 0; i < d->n_metrics; i++) {
		free(d->metrics[i].name);
		free(d->metrics[i].unit);
	}
	free(d->metrics);
	lab_criteria_free(&d->criteria);
	free(d->dir);
	free(d->path);
	free(d);
	*p = NULL;
}

/* ---- the catalog ------------------------------------------------------ */

static int s_cmp(const void *a, const void *b)
{
	const suite_def_t *const *x = a, *const *y = b;

	return strcmp((*x)->name, (*y)->name);
}

int catalog_load(const char *dir, catalog_t **ret, char **ret_err)
{
	catalog_t *c;
	DIR *dh;
	struct dirent *e;
	int r = 0;

	*ret_err = NULL;
	dh = opendir(dir);
	if (!dh) {
		r = -errno;
		*ret_err = xasprintf("%s: %s", dir, strerror(errno));
		return r;
	}
	c = xzalloc(sizeof(*c));
	c->dir = xstrdup(dir);
	while ((e = readdir(dh))) {
		char *sub, *yaml;
		struct stat st;
		suite_def_t *d;

		if (e->d_name[0] == '.')
			continue;
		sub = xasprintf("%s/%s", dir, e->d_name);
		yaml = xasprintf("%s/suite.yaml", sub);
		if (stat(sub, &st) < 0 || !S_ISDIR(st.st_mode) || access(yaml, F_OK) < 0) {
			free(sub);
			free(yaml);
			continue;
		}
		free(yaml);
		if (c->n >= CATALOG_MAX_SUITES) {
			*ret_err = xasprintf("%s: more than %d suites", dir, CATALOG_MAX_SUITES);
			free(sub);
			r = -E2BIG;
			break;
		}
		r = suite_def_load(sub, &d, ret_err);
		free(sub);
		if (r < 0)
			break;
		c->suites = xreallocarray(c->suites, c->n + 1, sizeof(*c->suites));
		c->suites[c->n++] = d;
	}
	closedir(dh);
	if (r < 0) {
		catalog_destroy(&c);
		return r;
	}
	if (c->n)
		qsort(c->suites, c->n, sizeof(*c->suites), s_cmp);
	*ret = c;
	return 0;
}

void catalog_destroy(catalog_t **p)
{
	catalog_t *c;

	if (!p || !*p)
		return;
	c = *p;
	for (size_t i = 0; i < c->n; i++)
		suite_def_destroy(&c->suites[i]);
	free(c->suites);
	free(c->dir);
	free(c);
	*p = NULL;
}

size_t catalog_count(const catalog_t *c)
{
	return c->n;
}

const suite_def_t *catalog_get(const catalog_t *c, size_t i)
{
	return i < c->n ? c->suites[i] : NULL;
}

const suite_def_t *catalog_find(const catalog_t *c, const char *name)
{
	for (size_t i = 0; i < c->n; i++) {
		if (strcmp(c->suites[i]->name, name) == 0)
			return c->suites[i];
	}
	return NULL;
}

const char *catalog_dir(const catalog_t *c)
{
	return c->dir;
}

static bool s_is_dir(const char *p)
{
	struct stat st;

	return p && p[0] && stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

char *catalog_default_dir(const char *opt)
{
	const char *env = getenv("LABMESH_SUITES");

	if (opt)
		return s_is_dir(opt) ? xstrdup(opt) : NULL;
	if (env && env[0])
		return s_is_dir(env) ? xstrdup(env) : NULL;
	if (s_is_dir(LABMESH_SOURCE_SUITES))
		return xstrdup(LABMESH_SOURCE_SUITES);
	if (s_is_dir(LABMESH_DATADIR_SUITES))
		return xstrdup(LABMESH_DATADIR_SUITES);
	return NULL;
}
