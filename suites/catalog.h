/*
 * catalog: the suites a node can run — one folder per suite with a
 * suite.yaml (the format is in suites/README.md) and a run.sh — loaded and
 * validated field by field, errors as "FILE:LINE: FIELD: what is wrong".
 *
 * The suites directory is, in order: an explicit --suites DIR, then
 * $LABMESH_SUITES, then the source tree's suites/ (when running from a
 * build), then the installed datadir (<datadir>/labmesh/suites).
 */
#ifndef LABMESH_SUITES_CATALOG_H
#define LABMESH_SUITES_CATALOG_H

#include "labs/lab.h"
#include "suites/parse.h"
#include "suites/result.h"

#include <stdbool.h>
#include <stddef.h>

#define CATALOG_MAX_SUITES 512
#define SUITE_MAX_NAME 64          /* [a-z0-9_-]{1,64} */
#define SUITE_MAX_DESCRIPTION 512
#define SUITE_MAX_TIMEOUT_S 86400
#define SUITE_DEFAULT_TIMEOUT_S 300
#define SUITE_MAX_LIST 64          /* needs, files, sources, flags, rules */
#define SUITE_MAX_FILE_NAME 128    /* a file name in the suite folder */
#define SUITE_MAX_FLAG 256         /* one compiler flag */
#define SUITE_MAX_YAML_BYTES (64 * 1024)

enum suite_kind { SUITE_KIND_FUNCTIONAL = 0, SUITE_KIND_BENCHMARK };

typedef struct {
	char *name;
	int version;
	enum suite_kind kind;
	char *description;
	int timeout_s;
	/* needs: a missing one makes the suite SKIP with the reason */
	char **need_commands;
	size_t n_need_commands;
	char **need_kconfig;
	size_t n_need_kconfig;
	char **need_arch; /* empty: any */
	size_t n_need_arch;
	bool need_root;
	enum suite_parser parser;
	char **files; /* extra files copied next to run.sh */
	size_t n_files;
	/* build: C sources compiled on the host for the board */
	bool has_build;
	char **sources;
	size_t n_sources;
	char *output;
	bool build_static; /* true by default */
	char **cflags;
	size_t n_cflags;
	char **ldflags;
	size_t n_ldflags;
	suite_metric_decl_t *metrics;
	size_t n_metrics;
	lab_criteria_t criteria; /* the suite's defaults */
	char *dir;  /* the suite's folder */
	char *path; /* its suite.yaml */
} suite_def_t;

typedef struct catalog catalog_t;

/*
 * Parse a suite.yaml (len bytes, name used in messages). dir is the
 * suite's folder: its last component must equal the suite's name and the
 * files it names must exist there; NULL skips the folder checks. Returns 0
 * and *ret (free with suite_def_destroy) or -EINVAL/-E2BIG... and *ret_err,
 * one line "FILE:LINE: FIELD: what is wrong" (the caller frees it).
 */
int suite_def_parse(const char *name, const char *text, size_t len,
		    const char *dir, suite_def_t **ret, char **ret_err);
/* Load dir/suite.yaml. */
int suite_def_load(const char *dir, suite_def_t **ret, char **ret_err);
void suite_def_destroy(suite_def_t **p);

const char *suite_kind_name(enum suite_kind k);

/*
 * Load every suite folder in dir (folders without a suite.yaml are not
 * suites and are passed over), sorted by name. A suite that does not
 * validate fails the load with its error.
 */
int catalog_load(const char *dir, catalog_t **ret, char **ret_err);
void catalog_destroy(catalog_t **p);
size_t catalog_count(const catalog_t *c);
/* Borrowed. */
const suite_def_t *catalog_get(const catalog_t *c, size_t i);
const suite_def_t *catalog_find(const catalog_t *c, const char *name);
const char *catalog_dir(const catalog_t *c);

/*
 * The suites directory by the order above (opt: --suites, may be NULL).
 * Returns a fresh string, or NULL when none exists.
 */
char *catalog_default_dir(const char *opt);

#endif
