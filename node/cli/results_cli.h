/*
 * results_cli: the maintainer's subcommands of `labmesh`. Each takes
 * argc/argv with argv[0] the subcommand name, prints its output to stdout
 * (or --out FILE where offered) and a one-line reason to stderr, and
 * returns the exit status: 0 success, 1 failure, 2 usage error; compare
 * returns 1 when it found regressions and 2 when it could not compare.
 *
 * Each accepts --help and --home DIR (default $LABMESH_HOME, else
 * ~/.local/share/labmesh). They open store.db read-only (safe while the
 * node runs, WAL), except that a lagging index is first caught up from the
 * records, and `store reindex|gc` which write.
 *
 *   labmesh query   [FILTERS] [--matrix|--list] [--json]
 *   labmesh compare BASE NEW [FILTERS] [--threshold PCT] [--json]
 *   labmesh history PATH [FILTERS] [--json]
 *   labmesh export  --kcidb [--origin NAME] [--log-base URL] | --junit
 *                   [FILTERS] [--out FILE]
 *   labmesh store   check | reindex | gc [--budget SIZE]
 * FILTERS: --commit --branch --tree --board --lab --arch --suite --path
 *          --status --since --run --request
 */
#ifndef LABMESH_NODE_RESULTS_CLI_H
#define LABMESH_NODE_RESULTS_CLI_H

#include <stdint.h>

int cmd_query(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_history(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_store(int argc, char **argv);
/* The median duration in ms of suite's runs in home's results (NULL:
 * the default home), or -1 when there is none (suites_typical_fn). */
int64_t results_cli_typical(const char *home, const char *suite);

#endif
