/*
 * labmesh: the command. Dispatches to one handler per subcommand.
 */
#include <stdio.h>
#include <string.h>

static void s_usage(FILE *f)
{
	fprintf(f, "usage: labmesh COMMAND [OPTIONS]\n"
		   "Run 'labmesh COMMAND --help' for a command's options.\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		s_usage(stderr);
		return 2;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "help") == 0) {
		s_usage(stdout);
		return 0;
	}
	fprintf(stderr, "labmesh: unknown command '%s'\n", argv[1]);
	return 2;
}
