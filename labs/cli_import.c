/*
 * cli_import: `labmesh import fuego FILE.board` — print a lab file board
 * entry made from a Fuego board file. See labs/cli.h.
 */
#include "labs/cli.h"
#include "labs/lab.h"
#include "proto/buf.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void s_usage(FILE *f)
{
	fprintf(f,
		"usage: labmesh import fuego FILE.board [--name NAME] [--arch ARCH]\n"
		"Convert a Fuego board file (fuego-ro/boards/NAME.board) into a board\n"
		"entry for a lab file and print it (YAML) on stdout, ready to paste\n"
		"under \"boards:\". Read: TRANSPORT (ssh, serial, local, adb), IPADDR,\n"
		"SSH_PORT, LOGIN, PASSWORD, SSH_KEY, SERIAL, BAUD, BOARD_TESTDIR,\n"
		"MACHINE, ARCHITECTURE or TOOLCHAIN. Whatever is not imported\n"
		"(BOARD_CONTROL, functions, per-test variables) is listed in comments.\n"
		"Nothing in the file is executed.\n"
		"\n"
		"Options:\n"
		"  --name NAME  the board's name (default: the file name without .board)\n"
		"  --arch ARCH  the board's arch when ARCHITECTURE/TOOLCHAIN do not tell\n"
		"  --help       this text\n");
}

static int s_usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "labmesh import: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, " (see 'labmesh import --help')\n");
	return 2;
}

/* "--opt VALUE" or "--opt=VALUE" at argv[*i]; NULL if argv[*i] is not it. */
static const char *s_opt(int argc, char **argv, int *i, const char *opt,
			 bool *missing)
{
	size_t n = strlen(opt);

	if (strncmp(argv[*i], opt, n) != 0)
		return NULL;
	if (argv[*i][n] == '=')
		return argv[*i] + n + 1;
	if (argv[*i][n] != '\0')
		return NULL;
	if (*i + 1 >= argc) {
		*missing = true;
		return NULL;
	}
	return argv[++*i];
}

int cmd_import(int argc, char **argv)
{
	lab_fuego_opts_t o = { 0 };
	const char *pos[2] = { NULL, NULL };
	int npos = 0;
	buf_t out;
	char *err = NULL;

	for (int i = 1; i < argc; i++) {
		bool missing = false;
		const char *v;

		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			s_usage(stdout);
			return 0;
		} else if ((v = s_opt(argc, argv, &i, "--name", &missing))) {
			o.name = v;
		} else if ((v = s_opt(argc, argv, &i, "--arch", &missing))) {
			o.arch = v;
		} else if ((v = s_opt(argc, argv, &i, "--home", &missing))) {
			continue;
		} else if (missing) {
			return s_usage_error("%s needs a value", argv[i]);
		} else if (strcmp(argv[i], "--json") == 0) {
			return s_usage_error("%s: the output is a YAML board entry",
					     argv[i]);
		} else if (argv[i][0] == '-' && argv[i][1]) {
			return s_usage_error("unknown option '%s'", argv[i]);
		} else if (npos < 2) {
			pos[npos++] = argv[i];
		} else {
			return s_usage_error("unexpected argument '%s'", argv[i]);
		}
	}
	if (npos == 0)
		return s_usage_error("%s", "what to import? (labmesh import fuego FILE.board)");
	if (strcmp(pos[0], "fuego") != 0)
		return s_usage_error("unknown format '%s' (expected fuego)", pos[0]);
	if (npos < 2)
		return s_usage_error("%s", "fuego needs a board file");
	buf_init(&out, 0);
	if (lab_import_fuego_file(pos[1], &o, &out, &err) < 0) {
		fprintf(stderr, "labmesh import: %s\n", err);
		free(err);
		buf_free(&out);
		return 1;
	}
	fwrite(out.data, 1, out.len, stdout);
	buf_free(&out);
	if (fflush(stdout) != 0) {
		perror("labmesh import: stdout");
		return 1;
	}
	return 0;
}
