/*
 * lm-results: drives the result subcommands (query, compare, history,
 * export, store) the same way `labmesh` does, plus `synth` to fill a home
 * with synthetic signed run records. Used by the script tests so they do
 * not depend on the daemon's command dispatch.
 *
 *   lm-results synth --home DIR [--commits N] [--labs N] [--boards N]
 *                    [--suites N] [--cases N] [--metrics N] [--no-index]
 *   lm-results query|compare|history|export|store ARGS...
 */
#include "node/cli/results_cli.h"
#include "node/results/results_synth.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int s_synth(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "home", required_argument, NULL, 'H' },
		{ "commits", required_argument, NULL, 'c' },
		{ "labs", required_argument, NULL, 'l' },
		{ "boards", required_argument, NULL, 'b' },
		{ "suites", required_argument, NULL, 's' },
		{ "cases", required_argument, NULL, 'k' },
		{ "metrics", required_argument, NULL, 'm' },
		{ "no-index", no_argument, NULL, 'n' },
		{ NULL, 0, NULL, 0 },
	};
	synth_params_t p;
	const char *home = NULL;
	bool index = true;
	uint64_t cases;
	int c, rc;

	synth_params_default(&p);
	optind = 1;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		unsigned v = optarg ? (unsigned)strtoul(optarg, NULL, 10) : 0;

		switch (c) {
		case 'H': home = optarg; break;
		case 'c': p.commits = v; break;
		case 'l': p.labs = v; break;
		case 'b': p.boards = v; break;
		case 's': p.suites = v; break;
		case 'k': p.cases = v; break;
		case 'm': p.metrics = v; break;
		case 'n': index = false; break;
		default: return 2;
		}
	}
	if (!home) {
		fprintf(stderr, "lm-results synth: give --home DIR\n");
		return 2;
	}
	rc = synth_dataset(home, &p, index, &cases);
	if (rc < 0) {
		fprintf(stderr, "lm-results synth: failed (%d)\n", rc);
		return 1;
	}
	printf("%llu cases\n", (unsigned long long)cases);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(int, char **);
	} cmds[] = {
		{ "query", cmd_query }, { "compare", cmd_compare },
		{ "history", cmd_history }, { "export", cmd_export },
		{ "store", cmd_store }, { "synth", s_synth },
	};

	if (argc < 2) {
		fprintf(stderr, "usage: lm-results COMMAND ARGS...\n");
		return 2;
	}
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(argv[1], cmds[i].name))
			return cmds[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "lm-results: unknown command '%s'\n", argv[1]);
	return 2;
}
