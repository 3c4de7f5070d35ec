/*
 * labmesh: the command. A table of subcommands, each with one line of
 * help; the common options (--home DIR, --json) may come before the
 * subcommand or among its own options.
 */
#include "node/cli.h"

#include "proto/mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef LABMESH_VERSION
#define LABMESH_VERSION "0.0.0"
#endif

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
