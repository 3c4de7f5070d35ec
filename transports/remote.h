/*
 * remote: the shell text that ssh and adb send to a board's POSIX shell.
 * Each command runs in a wrapper that records the remote session's process
 * group in a pid file (sshd and adbd start every command in a session of
 * its own), so a timed-out command can be killed on the board by a second
 * call, and optionally ends with an exit-status frame for clients that do
 * not return the status themselves. Internal to transports/.
 */
#ifndef LABMESH_TRANSPORTS_REMOTE_H
#define LABMESH_TRANSPORTS_REMOTE_H

#include <stddef.h>

#define REMOTE_TOKEN_HEX 16

/* A fresh random token of REMOTE_TOKEN_HEX hex digits into out (17 bytes).
 * 0 or -errno. */
int remote_token(char out[REMOTE_TOKEN_HEX + 1]);

/* The pid file, as a shell word: in dir if given, else in
 * ${TMPDIR:-deftmp}. The caller frees. */
char *remote_pidfile(const char *dir, const char *deftmp, const char *token);

/*
 * The wrapped command: record pid, eval cmd, clear the pid file, and exit
 * with cmd's status. With frame non-NULL, cmd runs in a subshell (so its
 * `exit` cannot skip the frame) and the wrapper prints frame, the status
 * and a newline last (written so that the frame never appears contiguously in
 * the command text itself). The caller frees.
 */
char *remote_wrap(const char *cmd, const char *pidfile, const char *frame);

/* The command that kills the recorded process group (TERM, a grace, then
 * KILL). The caller frees. */
char *remote_kill(const char *pidfile);

#endif
