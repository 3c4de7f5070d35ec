/*
 * cli: what every `labmesh` subcommand shares — the resolved home, the
 * --json switch, option parsing with the common options (--home, --json,
 * --help) and small helpers for paths and errors.
 *
 * A subcommand is `int cmd_NAME(cli_t *cli, int argc, char **argv)` where
 * argv[0] is the subcommand's name; it returns the process exit status
 * (0 success, 1 failure, 2 usage) and prints its one-line reason itself.
 */
#ifndef LABMESH_NODE_CLI_H
#define LABMESH_NODE_CLI_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#define CLI_EXIT_OK 0
#define CLI_EXIT_FAIL 1
#define CLI_EXIT_USAGE 2

typedef struct {
	char *home; /* the state home, resolved; owned */
	bool json;  /* --json given */
} cli_t;

typedef struct {
	const char *name;
	const char *summary; /* one line for `labmesh --help` */
	int (*run)(cli_t *cli, int argc, char **argv);
} cli_cmd_t;

/* Options every subcommand accepts; values at or above this are theirs. */
enum { CLI_OPT_HOME = 1000, CLI_OPT_JSON, CLI_OPT_HELP, CLI_OPT_FIRST };

/*
 * getopt_long over the subcommand's options plus the common ones, which
 * it handles itself. Returns the next option of the subcommand's own,
 * 'h' when --help was asked, '?' on a usage error (already reported), -1
 * at the end. longopts must end with a zero entry; it is copied.
 */
int cli_getopt(cli_t *cli, int argc, char **argv, const char *shortopts,
	       const struct option *longopts);

/* Set the home (from --home, $LABMESH_HOME or ~/.local/share/labmesh). */
void cli_set_home(cli_t *cli, const char *dir);
/* Create the home (mode 0700) if missing. 0 or -errno. */
int cli_make_home(const cli_t *cli);
/* mkdir -p, the last part with mode (parents 0700). 0 or -errno. */
int cli_mkdir_p(const char *path, mode_t mode);
/* A path inside the home; the caller frees it. */
char *cli_path(const cli_t *cli, const char *name);
/* Run git with argv (argv[0] "git"; no shell, stdin and stderr
 * /dev/null): 0 and its output, at most max bytes, NUL ended, in
 * *ret_out (the caller frees it), or -EIO when it fails or says more. */
int cli_git(char *const argv[], size_t max, char **ret_out);
/* The wall clock, ms since the epoch. */
int64_t cli_now_ms(void);
/* TIME in the future as ms since the epoch: a duration from now (30m,
 * 2h, 7d...) or a UTC date (query_parse_since reads both, a duration as
 * back from now). 0, -EINVAL (unreadable) or -ERANGE (not ahead). */
int cli_time_ahead(const char *s, int64_t *ret);

/* Print "labmesh CMD: reason" to stderr (one line) and return 1. */
int cli_fail(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Print "labmesh CMD: reason" and a hint to --help; return 2. */
int cli_usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Subcommands of node/ */
int cmd_keygen(cli_t *cli, int argc, char **argv);
int cmd_id(cli_t *cli, int argc, char **argv);
int cmd_node(cli_t *cli, int argc, char **argv);
int cmd_peers(cli_t *cli, int argc, char **argv);
int cmd_reload(cli_t *cli, int argc, char **argv);
int cmd_boards(cli_t *cli, int argc, char **argv);
int cmd_debug(cli_t *cli, int argc, char **argv);
/* node/cmd_submit*.c */
int cmd_submit(cli_t *cli, int argc, char **argv);
int cmd_bisect(cli_t *cli, int argc, char **argv);
int cmd_status(cli_t *cli, int argc, char **argv);
int cmd_cancel(cli_t *cli, int argc, char **argv);
int cmd_board(cli_t *cli, int argc, char **argv);
int cmd_known(cli_t *cli, int argc, char **argv);
int cmd_confirm(cli_t *cli, int argc, char **argv);
int cmd_log(cli_t *cli, int argc, char **argv);
int cmd_lease(cli_t *cli, int argc, char **argv);
int cmd_exec(cli_t *cli, int argc, char **argv);
int cmd_put(cli_t *cli, int argc, char **argv);
int cmd_get(cli_t *cli, int argc, char **argv);
int cmd_power(cli_t *cli, int argc, char **argv);
int cmd_console(cli_t *cli, int argc, char **argv);

/*
 * A subcommand that only asks the node over its control socket: call,
 * print the body on success, the reason on failure. Returns an exit
 * status.
 */
int cli_ctl_command(const char *cmdname, const char *home, const char *command,
		    bool json, size_t nargs, const char *const *args);

#endif
