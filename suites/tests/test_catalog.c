/*
 * Unit tests of the suite.yaml loader: the shipped catalog and the fixture
 * suites load; every field is checked, with errors naming file, line and
 * field.
 */
#include "suites/catalog.h"
#include "suites/tests/check.h"
#include "proto/mem.h"

#include <stdlib.h>

static const char *s_srcdir;

static void s_expect_error(const char *text, const char *dir, const char *want)
{
	suite_def_t *d = NULL;
	char *err = NULL;
	int r = suite_def_parse("t.yaml", text, strlen(text), dir, &d, &err);

	if (r >= 0 || !err || !strstr(err, want)) {
		fprintf(stderr, "%s:%d: want error '%s', got %d '%s'\n", __FILE__, __LINE__,
			want, r, err ? err : "(none)");
		s_failures++;
	}
	suite_def_destroy(&d);
	free(err);
}

#define GOOD "name: ok\nversion: 1\nkind: functional\ndescription: d\nparser: tap\n"

static void test_fields(void)
{
	suite_def_t *d = NULL;
	char *err = NULL;
	const char *full =
		"name: membw\n"
		"version: 3\n"
		"kind: benchmark\n"
		"description: Memory bandwidth\n"
		"timeout: 90\n"
		"needs:\n"
		"  commands: [dd, awk]\n"
		"  kconfig: [CONFIG_TMPFS]\n"
		"  arch: [x86_64, aarch64]\n"
		"  root: true\n"
		"parser: metrics\n"
		"files: [lib.sh]\n"
		"build:\n"
		"  sources: [membw.c]\n"
		"  output: membw\n"
		"  static: false\n"
		"  cflags: [-O2]\n"
		"  ldflags: [-lm]\n"
		"metrics:\n"
		"  - {name: copy, unit: MB/s, better: higher}\n"
		"  - {name: latency, unit: ns, better: lower}\n"
		"criteria:\n"
		"  max_fail: 0\n"
		"  min_pass: 1\n"
		"  must_pass: [create, set.rename]\n"
		"  fail_ok: [{case: foo.bar, reason: \"known broken on busybox\"}]\n"
		"  metrics:\n"
		"    - {name: copy, gt: 100}\n"
		"    - {name: latency, range: [1, 2.5]}\n";

	CHECK(suite_def_parse("membw.yaml", full, strlen(full), NULL, &d, &err) == 0);
	if (!d) {
		fprintf(stderr, "%s\n", err);
		free(err);
		return;
	}
	CHECK(strcmp(d->name, "membw") == 0 && d->version == 3);
	CHECK(d->kind == SUITE_KIND_BENCHMARK && d->timeout_s == 90);
	CHECK(d->n_need_commands == 2 && d->n_need_kconfig == 1 && d->n_need_arch == 2);
	CHECK(d->need_root && d->parser == SUITE_PARSER_METRICS && d->n_files == 1);
	CHECK(d->has_build && !d->build_static && strcmp(d->output, "membw") == 0);
	CHECK(d->n_cflags == 1 && d->n_ldflags == 1);
	CHECK(d->n_metrics == 2 && d->metrics[1].better == SUITE_BETTER_LOWER);
	CHECK(d->criteria.max_fail == 0 && d->criteria.min_pass == 1);
	CHECK(d->criteria.n_must_pass == 2 && d->criteria.n_fail_ok == 1);
	CHECK(strcmp(d->criteria.fail_ok[0].path, "foo.bar") == 0);
	CHECK(d->criteria.n_metrics == 2 && d->criteria.metrics[1].op == LAB_OP_RANGE);
	CHECK(d->criteria.metrics[1].hi == 2.5);
	suite_def_destroy(&d);

	CHECK(suite_def_parse("t.yaml", GOOD, strlen(GOOD), NULL, &d, &err) == 0);
	CHECK(d && d->timeout_s == SUITE_DEFAULT_TIMEOUT_S && d->criteria.max_fail == -1);
	suite_def_destroy(&d);

	s_expect_error(GOOD "colour: red\n", NULL, "t.yaml:6: colour: unknown field");
	s_expect_error("name: ok\nversion: 1\nkind: functional\nparser: tap\n", NULL,
		       "description: required field is missing");
	s_expect_error(GOOD "needs:\n  commands: [dd, \"rm;reboot\"]\n", NULL,
		       "t.yaml:7: needs.commands[1]: 'rm;reboot' is not a command name");
	s_expect_error(GOOD "needs:\n  kconfig: [TMPFS]\n", NULL, "needs.kconfig[0]");
	s_expect_error("name: Bad Name\nversion: 1\n", NULL, "t.yaml:1: name:");
	s_expect_error(GOOD "timeout: 0\n", NULL, "t.yaml:6: timeout:");
	s_expect_error("name: ok\nversion: 1\nkind: functional\ndescription: d\nparser: junit\n",
		       NULL, "t.yaml:5: parser: unknown parser 'junit'");
	s_expect_error(GOOD "files: [../../etc/passwd]\n", NULL, "files[0]");
	s_expect_error(GOOD "metrics:\n  - {name: copy, unit: MB/s, better: faster}\n", NULL,
		       "metrics[0].better");
	s_expect_error(GOOD "metrics:\n  - {name: copy, unit: MB/s, better: higher}\n"
			    "criteria:\n  metrics:\n    - {name: triad, gt: 1}\n",
		       NULL, "t.yaml:10: criteria.metrics[0].name: 'triad' is not a declared metric");
	s_expect_error(GOOD "metrics:\n  - {name: copy, unit: MB/s, better: higher}\n"
			    "criteria:\n  metrics:\n    - {name: copy, gt: 1, lt: 5}\n",
		       NULL, "exactly one of");
	s_expect_error(GOOD "metrics:\n  - {name: c, unit: s, better: lower}\n"
			    "criteria:\n  metrics:\n    - {name: c, range: [5, 1]}\n",
		       NULL, "range low 5 is above high 1");
	s_expect_error(GOOD "criteria:\n  fail_ok: [{case: \"a b\", reason: x}]\n", NULL,
		       "criteria.fail_ok[0].case: 'a b' is not a case path");
	s_expect_error(GOOD "criteria:\n  max_fail: -1\n", NULL, "criteria.max_fail");
	s_expect_error(GOOD "build:\n  output: x\n", NULL, "build.sources");
	s_expect_error(GOOD "build:\n  sources: [a.c]\n  output: x\n  cflags: [\"-O2 -g\"]\n",
		       NULL, "build.cflags[0]");
	s_expect_error("name: ok\nversion: 1\nkind: benchmark\ndescription: d\nparser: metrics\n",
		       NULL, "a benchmark declares its metrics");
	s_expect_error("- a\n- b\n", NULL, "expected a mapping");
	s_expect_error("", NULL, "empty suite definition");
	s_expect_error("a: &x 1\nb: *x\n", NULL, "t.yaml");

	/* folder checks: the name is the folder's, named files exist */
	char *dir = xasprintf("%s/tests/fixtures/fixture-fails", s_srcdir);
	s_expect_error(GOOD, dir, "'ok' differs from its folder 'fixture-fails'");
	s_expect_error("name: fixture-fails\nversion: 1\nkind: functional\ndescription: d\n"
		       "parser: tap\nfiles: [nothere.sh]\n",
		       dir, "t.yaml:6: files[0]: 'nothere.sh' is not a file in");
	free(dir);
}

static void test_catalogs(void)
{
	catalog_t *c = NULL;
	char *err = NULL;
	char *dir = xasprintf("%s/tests/fixtures", s_srcdir);

	CHECK(catalog_load(dir, &c, &err) == 0);
	if (c) {
		CHECK(catalog_count(c) == 8);
		CHECK(catalog_find(c, "fixture-fails") != NULL);
		CHECK(strcmp(catalog_get(c, 0)->name, "fixture-arch") == 0);
	} else {
		fprintf(stderr, "%s\n", err);
	}
	catalog_destroy(&c);
	free(err);
	err = NULL;
	free(dir);

	/* the shipped catalog validates whole */
	CHECK(catalog_load(s_srcdir, &c, &err) == 0);
	if (c) {
		CHECK(catalog_count(c) >= 1);
		for (size_t i = 0; i < catalog_count(c); i++) {
			const suite_def_t *d = catalog_get(c, i);
			CHECK(d->description && d->version >= 1);
		}
		printf("catalog: %zu suites in %s\n", catalog_count(c), s_srcdir);
	} else {
		fprintf(stderr, "%s\n", err);
	}
	catalog_destroy(&c);
	free(err);

	CHECK(catalog_default_dir("/nonexistent/x") == NULL);
	setenv("LABMESH_SUITES", s_srcdir, 1);
	char *def = catalog_default_dir(NULL);
	CHECK(def && strcmp(def, s_srcdir) == 0);
	free(def);
}

int main(int argc, char **argv)
{
	s_srcdir = argc > 1 ? argv[1] : ".";
	test_fields();
	test_catalogs();
	if (s_failures) {
		fprintf(stderr, "%d checks failed\n", s_failures);
		return 1;
	}
	printf("catalog: all checks passed\n");
	return 0;
}
