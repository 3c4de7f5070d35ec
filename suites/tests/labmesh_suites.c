/*
 * labmesh-suites: the suites and run commands on their own, for the tests
 * of this folder (the labmesh command dispatches to the same functions).
 */
#include "suites/cli.h"

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	if (argc >= 2 && strcmp(argv[1], "suites") == 0)
		return cmd_suites(argc - 1, argv + 1);
	if (argc >= 2 && strcmp(argv[1], "run") == 0)
		return cmd_run(argc - 1, argv + 1);
	fprintf(stderr, "usage: labmesh-suites suites|run [OPTIONS]\n");
	return 2;
}
