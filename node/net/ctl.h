/*
 * ctl: the node's control socket, `ctl` in the home — a ZeroMQ REP socket
 * on ipc://HOME/ctl, created with mode 0600 (umask) so only the node's
 * user can reach it.
 *
 * Protocol (extensible: a command name and arguments in, a reply out):
 *   request  = [command, format, arg...]   all frames text; format is
 *                                            "text" or "json"
 *   reply    = [status, body]              status "ok" or "error"; body
 *                                            is the output to print (ok)
 *                                            or a one-line reason (error)
 * Commands: see node_ctl.c (peers, boards, status, submit-raw,
 * append-records, stop...).
 */
#ifndef LABMESH_NODE_CTL_H
#define LABMESH_NODE_CTL_H

#include <stdbool.h>
#include <stddef.h>

#define CTL_NAME "ctl"
#define CTL_MAX_ARGS 16
#define CTL_MAX_ARG (1024 * 1024) /* one argument frame, e.g. a request */
#define CTL_MAX_REPLY (64 * 1024 * 1024)
#define CTL_TIMEOUT_MS 10000

/* "ipc://HOME/ctl" or NULL if the path is too long for a unix socket. */
char *ctl_endpoint(const char *home);

/* Whether a node is listening on HOME/ctl (a connect() that succeeds). */
bool ctl_running(const char *home);

/*
 * Send command with args to the node of home and wait up to timeout_ms.
 * Returns 0 with *ret_ok (status) and *ret_body (the caller frees),
 * -ECONNREFUSED when no node runs there, -ENAMETOOLONG, -ETIMEDOUT,
 * -EBADMSG (a reply not of the protocol's form or over CTL_MAX_REPLY), or
 * -errno. Binary arguments are passed with their lengths (lens may be NULL
 * for C strings). Touches no process-wide state: usable inside the node.
 */
int ctl_ask(const char *home, const char *command, bool json, size_t nargs,
	    const char *const *args, const size_t *lens, int timeout_ms,
	    bool *ret_ok, char **ret_body);

/*
 * ctl_ask for a command-line process: first turns off czmq's log stream
 * and its signal handler (process-wide settings, so Ctrl-C ends the
 * command at once). Not for the node itself, whose loop relies on czmq's
 * signal handling to stop cleanly. Returns as ctl_ask.
 */
int ctl_call(const char *home, const char *command, bool json, size_t nargs,
	     const char *const *args, const size_t *lens, int timeout_ms,
	     bool *ret_ok, char **ret_body);


#endif
