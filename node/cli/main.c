/*
 * labmesh: the command. A table of subcommands, each with one line of
 * help; the common options (--home DIR, --json) may come before the
 * subcommand or among its own options.
 */
#include "node/cli/cli.h"
#include "node/jobs/jobs.h"
#include "node/cli/results_cli.h"

#include "labs/cli.h"
#include "proto/mem.h"
#include "suites/cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef LABMESH_VERSION
#define LABMESH_VERSION "0.0.0"
#endif

/*
 * Commands of other components take (argc, argv) and parse their own
 * options; the common options given before the command name are passed
 * on to those that take them.
 */
typedef struct {
	const char *name;
	const char *summary;
	int (*run)(int argc, char **argv);
	bool takes_home, takes_json;
} s_ext_cmd_t;

static const s_ext_cmd_t s_ext[] = {
	{ "suites", "the suites this node can run", cmd_suites, true, true },
	{ "run", "run suites on one of this lab's boards, no network",
	  cmd_run, true, true },
	{ "import", "board entries from Fuego, LAVA or labgrid configs",
	  cmd_import, true, true },
	{ "query", "results across labs: matrix, list, --json", cmd_query,
	  true, true },
	{ "compare", "regressions and fixes between two commits, per board",
	  cmd_compare, true, true },
	{ "report", "a commit's results as text to mail: regressions,"
	  " verdicts", cmd_report, true, false },
	{ "history", "one test's results across commits and boards",
	  cmd_history, true, true },
	{ "export", "results as KCIDB v5.3 JSON or JUnit XML", cmd_export,
	  true, true },
	{ "store", "check, reindex the results, gc blobs", cmd_store, true,
	  false },
};

static const cli_cmd_t s_cmds[] = {
	{ "keygen", "make an Ed25519 key pair (a submitter key by default)",
	  cmd_keygen },
	{ "id", "print this node's id (made on first use)", cmd_id },
	{ "node", "run this lab's node in the foreground", cmd_node },
	{ "peers", "the peers of the running node", cmd_peers },
	{ "boards", "every board in the network, from the latest adverts",
	  cmd_boards },
	{ "board", "this lab's board: maintenance, online, revoke its lease",
	  cmd_board },
	{ "reload", "the running node reads its lab file again", cmd_reload },
	{ "known", "mark a failure as known (add, list, drop)", cmd_known },
	{ "confirm", "re-run a run's regressions; sign the verdict",
	  cmd_confirm },
	{ "debug", "testing aids (append synthetic records, raw requests)",
	  cmd_debug },
	{ "submit", "sign and send a test request to the whole network",
	  cmd_submit },
	{ "status", "where a request stands, per lab and board", cmd_status },
	{ "bisect", "find the commit that broke a test, through the network",
	  cmd_bisect },
	{ "cancel", "cancel a request (the submitter's key only)",
	  cmd_cancel },
	{ "log", "a run's logs, fetched from whichever node holds them",
	  cmd_log },
	{ "lease", "hold a board of any lab for a while (renew, release)",
	  cmd_lease },
	{ "exec", "run a command on a leased board", cmd_exec },
	{ "put", "copy a file to a leased board", cmd_put },
	{ "get", "copy a file from a leased board", cmd_get },
	{ "power", "switch a leased board on, off or cycle it", cmd_power },
	{ "console", "the console of a leased board, interactive",
	  cmd_console },
};

static void s_usage(FILE *f)
{
	fprintf(f, "usage: labmesh [--home DIR] [--json] COMMAND [OPTIONS]\n\n"
		   "Commands:\n");
	for (size_t i = 0; i < sizeof(s_cmds) / sizeof(s_cmds[0]); i++)
		fprintf(f, "  %-8s %s\n", s_cmds[i].name, s_cmds[i].summary);
	for (size_t i = 0; i < sizeof(s_ext) / sizeof(s_ext[0]); i++)
		fprintf(f, "  %-8s %s\n", s_ext[i].name, s_ext[i].summary);
	fprintf(f, "\nCommon options:\n"
		   "  --home DIR  state home (default $LABMESH_HOME or"
		   " ~/.local/share/labmesh)\n"
		   "  --json      machine-readable output where output is data\n"
		   "  --version   print the version\n"
		   "Run 'labmesh COMMAND --help' for a command's options.\n");
}

static const cli_cmd_t *s_find(const char *name)
{
	for (size_t i = 0; i < sizeof(s_cmds) / sizeof(s_cmds[0]); i++)
		if (strcmp(s_cmds[i].name, name) == 0)
			return &s_cmds[i];
	return NULL;
}

static int s_run_ext(const s_ext_cmd_t *e, const cli_t *cli,
		     const char *home, int argc, char **argv)
{
	char **v = xcalloc((size_t)argc + 4, sizeof(*v));
	int n = 0, rc;

	v[n++] = argv[0];
	if (home && e->takes_home) {
		v[n++] = (char *)"--home";
		v[n++] = (char *)home;
	}
	if (cli->json && e->takes_json)
		v[n++] = (char *)"--json";
	for (int i = 1; i < argc; i++)
		v[n++] = argv[i];
	optind = 1;
	rc = e->run(n, v);
	free(v);
	return rc;
}

int main(int argc, char **argv)
{
	cli_t cli = { 0 };
	const cli_cmd_t *cmd;
	const char *home = NULL;
	int i, rc;

	suites_cli_set_typical(results_cli_typical);
	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			s_usage(stdout);
			return CLI_EXIT_OK;
		} else if (strcmp(argv[i], "--version") == 0) {
			printf("labmesh %s\n", LABMESH_VERSION);
			return CLI_EXIT_OK;
		} else if (strcmp(argv[i], "--json") == 0) {
			cli.json = true;
		} else if (strcmp(argv[i], "--home") == 0 && i + 1 < argc) {
			home = argv[++i];
		} else if (strncmp(argv[i], "--home=", 7) == 0) {
			home = argv[i] + 7;
		} else {
			fprintf(stderr, "labmesh: unknown option '%s' (see"
				" 'labmesh --help')\n", argv[i]);
			return CLI_EXIT_USAGE;
		}
	}
	if (i >= argc) {
		s_usage(stderr);
		return CLI_EXIT_USAGE;
	}
	if (strcmp(argv[i], "exec-job") == 0) /* started by the node only */
		return cmd_exec_job(argc - i, argv + i);
	if (strcmp(argv[i], "lease-session") == 0) /* the node's, too */
		return cmd_lease_session(argc - i, argv + i);
	if (strcmp(argv[i], "health-check") == 0) /* and this */
		return cmd_health_check(argc - i, argv + i);
	if (strcmp(argv[i], "help") == 0) {
		s_usage(stdout);
		return CLI_EXIT_OK;
	}
	for (size_t k = 0; k < sizeof(s_ext) / sizeof(s_ext[0]); k++)
		if (strcmp(s_ext[k].name, argv[i]) == 0)
			return s_run_ext(&s_ext[k], &cli, home, argc - i,
					 argv + i);
	cmd = s_find(argv[i]);
	if (!cmd) {
		fprintf(stderr, "labmesh: unknown command '%s' (see 'labmesh"
			" --help')\n", argv[i]);
		return CLI_EXIT_USAGE;
	}
	cli_set_home(&cli, home);
	optind = 1;
	rc = cmd->run(&cli, argc - i, argv + i);
	free(cli.home);
	return rc;
}
