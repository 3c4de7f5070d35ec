/*
 * labmesh: the command. A table of subcommands, each with one line of
 * help; the common options (--home DIR, --json) may come before the
 * subcommand or among its own options.
 */
#include "node/cli.h"
#include "node/results_cli.h"

#include "proto/mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef LABMESH_VERSION
#define LABMESH_VERSION "0.0.0"
#endif

/*
 * The result commands (node/results_cli.h) take plain argc/argv: hand
 * them the resolved home, and --json when it came before the command,
 * ahead of their own options (which may override both).
 */
static int s_results(cli_t *cli, int argc, char **argv,
		     int (*fn)(int, char **))
{
	char **av = xcalloc((size_t)argc + 4, sizeof(*av));
	int n = 0, rc;

	av[n++] = argv[0];
	av[n++] = (char *)"--home";
	av[n++] = cli->home;
	if (cli->json)
		av[n++] = (char *)"--json";
	for (int i = 1; i < argc; i++)
		av[n++] = argv[i];
	rc = fn(n, av);
	free(av);
	return rc;
}

static int s_query(cli_t *cli, int argc, char **argv)
{
	return s_results(cli, argc, argv, cmd_query);
}

static int s_compare(cli_t *cli, int argc, char **argv)
{
	return s_results(cli, argc, argv, cmd_compare);
}

static int s_history(cli_t *cli, int argc, char **argv)
{
	return s_results(cli, argc, argv, cmd_history);
}

static int s_export(cli_t *cli, int argc, char **argv)
{
	return s_results(cli, argc, argv, cmd_export);
}

static int s_store(cli_t *cli, int argc, char **argv)
{
	return s_results(cli, argc, argv, cmd_store);
}

static const cli_cmd_t s_cmds[] = {
	{ "keygen", "make an Ed25519 key pair (a submitter key by default)",
	  cmd_keygen },
	{ "id", "print this node's id (made on first use)", cmd_id },
	{ "node", "run this lab's node in the foreground", cmd_node },
	{ "peers", "the peers of the running node", cmd_peers },
	{ "boards", "every board in the network, from the latest adverts",
	  cmd_boards },
	{ "debug", "testing aids (append synthetic records, raw requests)",
	  cmd_debug },
	{ "query", "results across labs: matrix, list, --json", s_query },
	{ "compare", "regressions and fixes between two commits, per board",
	  s_compare },
	{ "history", "one test's results across commits and boards",
	  s_history },
	{ "export", "results as KCIDB v5.3 JSON or JUnit XML", s_export },
	{ "store", "check, reindex the results, gc blobs", s_store },
};

static void s_usage(FILE *f)
{
	fprintf(f, "usage: labmesh [--home DIR] [--json] COMMAND [OPTIONS]\n\n"
		   "Commands:\n");
	for (size_t i = 0; i < sizeof(s_cmds) / sizeof(s_cmds[0]); i++)
		fprintf(f, "  %-8s %s\n", s_cmds[i].name, s_cmds[i].summary);
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

int main(int argc, char **argv)
{
	cli_t cli = { 0 };
	const cli_cmd_t *cmd;
	const char *home = NULL;
	int i, rc;

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
	if (strcmp(argv[i], "help") == 0) {
		s_usage(stdout);
		return CLI_EXIT_OK;
	}
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
