/*
 * cli_import: `labmesh import fuego|lava|labgrid FILE` — print lab file
 * board entries made from another lab system's description of its
 * boards. See labs/cli.h.
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
		"       labmesh import lava DEVICE.yaml [--name NAME] [--arch ARCH] [--type TYPE]\n"
		"       labmesh import labgrid ENV.yaml [--exporter EXPORTER.yaml] [--name TARGET]\n"
		"                      [--arch ARCH]\n"
		"Convert another lab system's board description into board entries for\n"
		"a lab file and print them (YAML) on stdout, ready to paste under\n"
		"\"boards:\". Every field that could not be mapped is named in a comment;\n"
		"the exit status is non-zero only when nothing usable remains. Nothing in\n"
		"the files is executed.\n"
		"  fuego    a Fuego board file (fuego-ro/boards/NAME.board): TRANSPORT,\n"
		"           IPADDR, SSH_PORT, LOGIN, PASSWORD, SSH_KEY, SERIAL, BAUD,\n"
		"           BOARD_TESTDIR, MACHINE, ARCHITECTURE or TOOLCHAIN, BOARD_CONTROL\n"
		"           (ttc, ebf, lc power); $FUEGO_RW, $FUEGO_RO, $BOARD as Fuego sets them\n"
		"  lava     a rendered LAVA device configuration: the console of\n"
		"           commands.connect (telnet to ser2net, a tty), power_on, power_off,\n"
		"           hard_reset, the qemu, tftp and ssh methods, the device type as a tag\n"
		"  labgrid  a labgrid environment: each target's serial port, NetworkService,\n"
		"           power port or ExternalPowerDriver and QEMUDriver\n"
		"\n"
		"Options:\n"
		"  --name NAME      the board's name (fuego: default the file name without\n"
		"                   .board; lava: the file name; labgrid: only this target)\n"
		"  --arch ARCH      the board's arch when the file does not tell\n"
		"  --type TYPE      lava: the device type, when the file does not name it\n"
		"  --exporter FILE  labgrid: the exporter configuration serving the places\n"
		"  --help           this text\n");
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

static int s_import(const char *format, const char *file, const lab_import_opts_t *o,
		    buf_t *out, char **err)
{
	lab_fuego_opts_t fo = { .name = o->name, .arch = o->arch };

	if (strcmp(format, "fuego") == 0)
		return lab_import_fuego_file(file, &fo, out, err);
	if (strcmp(format, "lava") == 0)
		return lab_import_lava_file(file, o, out, err);
	return lab_import_labgrid_file(file, o, out, err);
}

int cmd_import(int argc, char **argv)
{
	lab_import_opts_t o = { 0 };
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
		} else if ((v = s_opt(argc, argv, &i, "--type", &missing))) {
			o.type = v;
		} else if ((v = s_opt(argc, argv, &i, "--exporter", &missing))) {
			o.exporter = v;
		} else if ((v = s_opt(argc, argv, &i, "--home", &missing))) {
			continue;
		} else if (missing) {
			return s_usage_error("%s needs a value", argv[i]);
		} else if (strcmp(argv[i], "--json") == 0) {
			return s_usage_error("%s: the output is YAML board entries", argv[i]);
		} else if (argv[i][0] == '-' && argv[i][1]) {
			return s_usage_error("unknown option '%s'", argv[i]);
		} else if (npos < 2) {
			pos[npos++] = argv[i];
		} else {
			return s_usage_error("unexpected argument '%s'", argv[i]);
		}
	}
	if (npos == 0)
		return s_usage_error("%s", "what to import? (labmesh import fuego|lava|labgrid FILE)");
	if (strcmp(pos[0], "fuego") != 0 && strcmp(pos[0], "lava") != 0 &&
	    strcmp(pos[0], "labgrid") != 0)
		return s_usage_error("unknown format '%s' (expected fuego, lava or labgrid)",
				     pos[0]);
	if (npos < 2)
		return s_usage_error("%s needs a file", pos[0]);
	if (o.type && strcmp(pos[0], "lava") != 0)
		return s_usage_error("%s", "--type is for lava");
	if (o.exporter && strcmp(pos[0], "labgrid") != 0)
		return s_usage_error("%s", "--exporter is for labgrid");
	buf_init(&out, 0);
	if (s_import(pos[0], pos[1], &o, &out, &err) < 0) {
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
