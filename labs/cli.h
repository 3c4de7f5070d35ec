/*
 * cli: the `labmesh` subcommands that live in labs/.
 *
 * Each is `int cmd_NAME(int argc, char **argv)` with argv[0] the
 * subcommand's name (as main's argv, shifted); it prints its output to
 * stdout and its one-line reason to stderr ("labmesh import: ...") and
 * returns the process exit status: 0 success, 1 failure, 2 usage error.
 * `--help` prints the usage to stdout and returns 0.
 */
#ifndef LABMESH_LABS_CLI_H
#define LABMESH_LABS_CLI_H

/*
 * labmesh import fuego FILE.board [--name NAME] [--arch ARCH]
 * labmesh import lava DEVICE.yaml [--name NAME] [--arch ARCH] [--type TYPE]
 * labmesh import labgrid ENV.yaml [--exporter FILE] [--name TARGET] [--arch ARCH]
 * Prints board entries for a lab file, converted from a Fuego board file,
 * a rendered LAVA device configuration or a labgrid environment; exit 1
 * only when nothing usable remains. --home DIR is accepted (and unused)
 * like every command's.
 */
int cmd_import(int argc, char **argv);

#endif
