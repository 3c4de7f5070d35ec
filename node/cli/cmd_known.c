/*
 * cmd_known: `labmesh known add|list|drop`, a maintainer's marks on
 * failures already known. add and drop ask the running node to sign a
 * `known` record (it replicates to every node); list reads the marks any
 * node holds from its store. compare, report and the dashboard show a
 * failure a current mark covers apart from the new regressions.
 */
#include "node/cli/cli.h"
#include "node/results/query.h"
#include "node/results/results.h"
#include "node/results/triage.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { O_TEST = CLI_OPT_FIRST, O_BOARD, O_ARCH, O_LINK, O_EXPIRES, O_TEXT,
       O_ALL };

static const char s_help[] =
	"usage: labmesh known add --test PATH [--board GLOB] [--arch ARCH]"
	" [--link URL]\n"
	"                         [--text TEXT] --expires TIME [--home DIR]\n"
	"       labmesh known list [--all] [--json] [--home DIR]\n"
	"       labmesh known drop --test PATH [--board GLOB] [--arch ARCH]"
	" [--home DIR]\n"
	"Mark a failure as known: compare, report and the dashboard show it"
	" apart\nfrom new regressions until the mark expires. The running node"
	" signs the\nmark; it replicates to every node. drop ends this node's"
	" mark on the same\ntest, board and arch now.\n"
	"  --test PATH     suite.path, or a suite, or a segment prefix of"
	" them\n"
	"  --board GLOB    boards it applies to (* ? [...]); default every"
	" board\n"
	"  --arch ARCH     the arch it applies to; default every arch\n"
	"  --link URL      where it is discussed (a list thread, a bug)\n"
	"  --text TEXT     one line on why\n"
	"  --expires TIME  until then: 12h, 7d, 2w from now, or a UTC date\n"
	"                  YYYY-MM-DD[THH:MM[:SS]]\n"
	"  --all           list expired marks too\n";

typedef struct {
	const char *test, *board, *arch, *link, *expires, *text;
	bool all;
} s_opts_t;

static int s_send(cli_t *cli, const s_opts_t *o, int64_t expires_ms)
{
	char num[24];
	const char *args[6];

	snprintf(num, sizeof(num), "%" PRId64, expires_ms);
	args[0] = o->test;
	args[1] = o->board ? o->board : "";
	args[2] = o->arch ? o->arch : "";
	args[3] = o->link ? o->link : "";
	args[4] = num;
	args[5] = o->text ? o->text : "";
	return cli_ctl_command("known", cli->home, "known", false, 6, args);
}

static int s_list(cli_t *cli, const s_opts_t *o)
{
	int64_t now = cli_now_ms();
	sqlite3 *db = NULL;
	triage_t t;
	int rc = results_open(cli->home, false, &db);

	if (rc == -ENOENT) {
		fputs(cli->json ? "[]\n" : "no known failures\n", stdout);
		return CLI_EXIT_OK;
	}
	if (rc < 0)
		return cli_fail("known", "cannot open the store in %s: %s",
				cli->home, strerror(-rc));
	rc = triage_load(db, now, o->all, &t);
	if (rc == 0)
		rc = triage_known_print(&t, now, cli->json, stdout);
	triage_free(&t);
	sqlite3_close(db);
	return rc < 0 ? cli_fail("known", "reading the store failed") :
			CLI_EXIT_OK;
}

static int s_getopts(cli_t *cli, int argc, char **argv, s_opts_t *o)
{
	static const struct option opts[] = {
		{ "test", required_argument, NULL, O_TEST },
		{ "board", required_argument, NULL, O_BOARD },
		{ "arch", required_argument, NULL, O_ARCH },
		{ "link", required_argument, NULL, O_LINK },
		{ "expires", required_argument, NULL, O_EXPIRES },
		{ "text", required_argument, NULL, O_TEXT },
		{ "all", no_argument, NULL, O_ALL },
		{ 0 },
	};
	const char **dst[] = { [O_TEST - O_TEST] = &o->test,
			       [O_BOARD - O_TEST] = &o->board,
			       [O_ARCH - O_TEST] = &o->arch,
			       [O_LINK - O_TEST] = &o->link,
			       [O_EXPIRES - O_TEST] = &o->expires,
			       [O_TEXT - O_TEST] = &o->text };
	int c;

	while ((c = cli_getopt(cli, argc, argv, "", opts)) != -1) {
		if (c == 'h')
			return 1;
		if (c == O_ALL)
			o->all = true;
		else if (c >= O_TEST && c <= O_TEXT)
			*dst[c - O_TEST] = optarg;
		else
			return -EINVAL;
	}
	return 0;
}

/* The action comes first; getopt stops at it: move it last. */
static void s_action_last(int argc, char **argv)
{
	if (argc > 2 && argv[1][0] != '-') {
		char *a = argv[1];

		memmove(&argv[1], &argv[2], (size_t)(argc - 2) * sizeof(*argv));
		argv[argc - 1] = a;
	}
}

int cmd_known(cli_t *cli, int argc, char **argv)
{
	s_opts_t o = { 0 };
	const char *action;
	int64_t expires = 0;
	int rc;

	s_action_last(argc, argv);
	rc = s_getopts(cli, argc, argv, &o);
	if (rc > 0) {
		fputs(s_help, stdout);
		return CLI_EXIT_OK;
	}
	if (rc < 0)
		return cli_usage_error("known", "bad option");
	if (argc - optind != 1)
		return cli_usage_error("known", "need add, list or drop");
	action = argv[optind];
	if (!strcmp(action, "list"))
		return s_list(cli, &o);
	if (strcmp(action, "add") && strcmp(action, "drop"))
		return cli_usage_error("known", "unknown action '%s' (expected"
				       " add, list or drop)", action);
	if (!o.test)
		return cli_usage_error("known", "%s needs --test PATH", action);
	if (!strcmp(action, "drop")) {
		if (o.expires || o.link || o.text)
			return cli_usage_error("known", "drop takes no"
					       " --expires, --link or --text");
		expires = cli_now_ms();
	} else if (!o.expires) {
		return cli_usage_error("known", "add needs --expires TIME");
	} else if (cli_time_ahead(o.expires, &expires) < 0) {
		return cli_usage_error("known", "bad --expires '%s' (a time to"
				       " come: 12h, 7d, 2w, or"
				       " YYYY-MM-DD[THH:MM])", o.expires);
	}
	return s_send(cli, &o, expires);
}
