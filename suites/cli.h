/*
 * cli: the `labmesh suites` and `labmesh run` commands.
 *
 *   labmesh suites [--suites DIR] [--home DIR] [--json]
 *	the catalog: name, kind, version, typical duration, description,
 *	needs
 *   labmesh run --board B --suite S[,S...] [--config LAB.yaml] [--suites DIR]
 *	       [--json] [--logs DIR] [--home DIR]
 *	run suites on one board of this lab, no network; "--suite all" runs
 *	the whole catalog. Progress on stderr, the cases and metrics on
 *	stdout; exit status 0 when every suite passed or was skipped, 1 when
 *	one failed or could not run, 2 on a usage or configuration error.
 *
 * argv[0] is the command's name ("suites", "run").
 */
#ifndef LABMESH_SUITES_CLI_H
#define LABMESH_SUITES_CLI_H

#include <stdint.h>

int cmd_suites(int argc, char **argv);
/* Where `labmesh suites` learns a suite's typical duration: the median
 * of its measured runs in home, in ms, or -1 when none (set by the
 * command's caller, which knows the results; NULL: none). */
typedef int64_t (*suites_typical_fn)(const char *home, const char *suite);
void suites_cli_set_typical(suites_typical_fn fn);
int cmd_run(int argc, char **argv);

#endif
