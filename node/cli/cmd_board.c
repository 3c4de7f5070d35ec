/*
 * cmd_board: `labmesh board LAB/BOARD maintenance|online`, the operator's
 * switch for one of this node's boards. The running node keeps the state
 * (jobs.db) and publishes it in its advert.
 */
#include "node/cli/cli.h"
#include "node/results/query.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { O_REASON = CLI_OPT_FIRST, O_UNTIL };

static const char s_help[] =
	"usage: labmesh board LAB/BOARD maintenance --reason TEXT"
	" [--until TIME] [--home DIR]\n"
	"       labmesh board LAB/BOARD online [--home DIR]\n"
	"       labmesh board LAB/BOARD revoke [--home DIR]\n"
	"Take one of this node's boards out of service, or put it back.\n"
	"A board in maintenance starts no new job (a running one finishes);"
	" the state\nand its reason are kept across restarts and shown in"
	" `labmesh boards` on\nevery node. revoke ends the board's lease"
	" now.\n"
	"  --reason TEXT   why, shown to everyone (1 to 100 bytes)\n"
	"  --until TIME    back online by itself then: 30m, 2h, 1d, 1w from"
	" now, or a\n"
	"                  UTC date YYYY-MM-DD[THH:MM[:SS]]\n";

static int s_send(cli_t *cli, const char *target, const char *action,
		  const char *reason, int64_t until)
{
	const char *slash = strchr(target, '/');
	char lab[128], num[24];
	const char *args[4];

	if (!slash || slash == target || !slash[1] ||
	    (size_t)(slash - target) >= sizeof(lab))
		return cli_usage_error("board", "'%s' is not LAB/BOARD", target);
	snprintf(lab, sizeof(lab), "%.*s", (int)(slash - target), target);
	snprintf(num, sizeof(num), "%" PRId64, until);
	args[0] = lab;
	args[1] = slash + 1;
	args[2] = reason;
	args[3] = num;
	return cli_ctl_command("board", cli->home, action, false,
			       reason ? 4 : 2, args);
}

/* LAB/BOARD ACTION come first; getopt stops at them: move them last. */
static void s_positionals_last(int argc, char **argv)
{
	for (int k = 0; k < 2 && argc > 3 && argv[1][0] != '-'; k++) {
		char *pos = argv[1];

		memmove(&argv[1], &argv[2], (size_t)(argc - 2) * sizeof(*argv));
		argv[argc - 1] = pos;
	}
}

int cmd_board(cli_t *cli, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "reason", required_argument, NULL, O_REASON },
		{ "until", required_argument, NULL, O_UNTIL },
		{ 0 },
	};
	const char *reason = NULL, *until = NULL, *action;
	int64_t until_ms = 0;
	int c;

	s_positionals_last(argc, argv);
	while ((c = cli_getopt(cli, argc, argv, "", opts)) != -1) {
		if (c == 'h') {
			fputs(s_help, stdout);
			return CLI_EXIT_OK;
		}
		if (c == O_REASON)
			reason = optarg;
		else if (c == O_UNTIL)
			until = optarg;
		else
			return cli_usage_error("board", "bad option");
	}
	if (argc - optind != 2)
		return cli_usage_error("board", "need LAB/BOARD and maintenance"
				       " or online");
	action = argv[optind + 1];
	if (strcmp(action, "maintenance") == 0) {
		if (!reason || !reason[0])
			return cli_usage_error("board", "maintenance needs"
					       " --reason TEXT");
		if (until && cli_time_ahead(until, &until_ms) < 0)
			return cli_usage_error("board", "bad --until '%s' (a"
					       " time to come: 30m, 2h, 1d,"
					       " or YYYY-MM-DD[THH:MM])", until);
	} else if (strcmp(action, "online") == 0 ||
		   strcmp(action, "revoke") == 0) {
		if (reason || until)
			return cli_usage_error("board", "%s takes no"
					       " --reason or --until", action);
	} else {
		return cli_usage_error("board", "unknown action '%s' (expected"
				       " maintenance, online or revoke)",
				       action);
	}
	return s_send(cli, argv[optind], action, reason, until_ms);
}
