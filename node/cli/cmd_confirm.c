/*
 * cmd_confirm: `labmesh confirm RUN|REQUEST` and `labmesh confirm
 * --list`: ask the running node to re-run a run's regressions and sign
 * the verdicts (node/jobs/confirm.h), and show where its confirmations
 * stand.
 */
#include "node/cli/cli.h"

#include <stdio.h>
#include <string.h>

enum { O_LIST = CLI_OPT_FIRST };

static const char s_help[] =
	"usage: labmesh confirm RUN|REQUEST [--home DIR]\n"
	"       labmesh confirm --list [--json] [--home DIR]\n"
	"Re-run the tests a run regressed (those it failed that passed in"
	" the board's\nprevious run; every failed one when none did) on its"
	" board a few times\n(policy.confirm.reruns, 3 by default) and once on"
	" every other board of its\narch, then sign a verdict per test:"
	" confirmed, flaky (how many re-runs\npassed) or board-specific."
	" compare, query, report, the dashboard and the\nKCIDB export show it."
	" A lab does this by itself for its own runs' regressions.\n"
	"REQUEST: every failed run of it. Ids are hex prefixes.\n"
	"  --list   this node's confirmations and where they stand\n";

int cmd_confirm(cli_t *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "list", no_argument, NULL, O_LIST },
		{ 0 },
	};
	bool list = false;
	const char *arg;
	int c;

	while ((c = cli_getopt(cli, argc, argv, "", opts)) != -1) {
		if (c == 'h') {
			fputs(s_help, stdout);
			return CLI_EXIT_OK;
		}
		if (c == O_LIST)
			list = true;
		else
			return cli_usage_error("confirm", "bad option");
	}
	if (list) {
		if (argc != optind)
			return cli_usage_error("confirm", "--list takes no"
					       " id");
		return cli_ctl_command("confirm", cli->home, "confirms",
				       cli->json, 0, NULL);
	}
	if (argc - optind != 1)
		return cli_usage_error("confirm", "need a RUN or REQUEST id");
	arg = argv[optind];
	return cli_ctl_command("confirm", cli->home, "confirm", false, 1, &arg);
}
