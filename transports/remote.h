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

/* How long the kill script waits for a command that has not yet
 * recorded itself (a loaded board starts it late), in 0.1 s. */
#define REMOTE_START_WAIT_TENTHS 30

/*
 * The wrapped command number seq (each session counts its commands):
 * record "seq pgid" in the pid file, give up at once if the kill script
 * already cancelled this seq, eval cmd and exit with cmd's status. With frame non-NULL, cmd runs in a subshell (so its `exit`
 * cannot skip the frame) and the wrapper prints frame, the status and a
 * newline last (written so that the frame never appears contiguously in
 * the command text itself). The caller frees.
 */
char *remote_wrap(const char *cmd, const char *pidfile, unsigned seq,
		  const char *frame);

/* The command that kills command seq's process group (TERM, a grace,
 * then KILL), waiting a little for it to start, and cancelling it if it
 * has not. The caller frees. */
char *remote_kill(const char *pidfile, unsigned seq);

/* The command that removes the session's files on the board. */
char *remote_cleanup(const char *pidfile);

#endif
