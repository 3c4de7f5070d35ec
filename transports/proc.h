/*
 * proc: run one host program as a child in its own session (setsid), with
 * its stdout and stderr streamed to a callback as they arrive (poll), an
 * exact exit status (a signal n becomes 128+n) and a timeout that kills the
 * child's whole process group (SIGTERM, then SIGKILL after a grace).
 *
 * Used by every transport that drives a host program: local (/bin/sh -c),
 * ssh and adb (their clients) and the operator commands of the command boot
 * method. Internal to transports/.
 */
#ifndef LABMESH_TRANSPORTS_PROC_H
#define LABMESH_TRANSPORTS_PROC_H

#include "transports/transport.h"

#include <stddef.h>

#define PROC_KILL_GRACE_MS 1000 /* SIGTERM to SIGKILL */
#define PROC_MAX_ARGS 64
#define PROC_MAX_ENV 16 /* variables added to the inherited environment */

typedef struct {
	const char *argv[PROC_MAX_ARGS + 1]; /* NULL-terminated; argv[0] in PATH */
	size_t argc;
	const char *env[PROC_MAX_ENV + 1]; /* "NAME=value" added or replaced */
	size_t envc;
	const char *cwd;  /* NULL: inherit */
	int stdin_fd;     /* -1: /dev/null; borrowed */
	int timeout_ms;   /* 0: none */
	/* Leave the child's process group alone after a normal exit: for
	 * programs that leave a daemon behind on purpose (an ssh master).
	 * By default stragglers in the group are killed. */
	bool keep_group;
	transport_output_fn *fn; /* NULL: output dropped */
	void *arg;
} proc_spec_t;

/* Start an empty spec: stdin from /dev/null, no timeout. */
void proc_spec_init(proc_spec_t *s);
/* Append an argument / an environment entry (borrowed; must outlive run).
 * Return -E2BIG past the named caps. */
int proc_arg(proc_spec_t *s, const char *a);
int proc_env(proc_spec_t *s, const char *name_value);

/*
 * Run the spec to completion. Returns 0 and *ret_status (0..255; 128+n
 * for a signal); -ETIMEDOUT when the timeout killed it; -ENOENT when the
 * program is not found; other -errno on failure. err (errsz bytes) gets a
 * one-line reason on failure.
 */
int proc_run(const proc_spec_t *s, int *ret_status, char *err, size_t errsz);

/* Quote s for a POSIX shell as one word ('...' with '\'' for quotes);
 * the caller frees. */
char *proc_shell_quote(const char *s);

#endif
