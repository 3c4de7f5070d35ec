/*
 * serial: internals shared by the serial transport's sources.
 *
 *   serial.c       the session on an open fd: login, prompt
 *                  synchronisation, per-command framing, run
 *   serial_ops.c   the backend: the ops, opening the session on an fd and
 *                  closing it, the target's tools, the put modes
 *   serial_connect.c  reaching the console: tty, pty, unix socket, TCP
 *   serial_scan.c  the console scanner: separates kernel console records
 *                  from the shell's output (pure code, fuzzed)
 *   serial_cmd.c   which commands may run without a subshell (pure code)
 *   serial_file.c  put/get: escaped bytes (base64 or printf blocks where
 *                  the target cannot) with a checksum on both ends
 *
 * The console is hostile text: the kernel prints to it at any moment, in
 * the middle of our output. Once the session is set up the shell's output
 * is not post-processed (stty -opost: bare "\n"), while the kernel console
 * driver always ends its records with "\r\n" and (printk time, which the
 * session turns on) starts them with "[ssss.uuuuuu] ". A record is written
 * atomically between two bytes of ours, so it is the segment from the last
 * timestamp before a "\r\n" to that "\r\n", and is cut out.
 */
#ifndef LABMESH_TRANSPORTS_SERIAL_H
#define LABMESH_TRANSPORTS_SERIAL_H

#include "transports/backend.h"

#include "proto/buf.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SERIAL_CONNECT_TIMEOUT_S 30 /* when the board does not say */
#define SERIAL_MAX_LINE 4096        /* a held kernel record candidate */
#define SERIAL_MAX_INPUT_LINE 3000  /* one line we type (tty canon: 4095) */
#define SERIAL_MAX_CMD (64 * 1024)  /* a whole command */
#define SERIAL_READ_CHUNK 16384
#define SERIAL_NONCE_LEN 10
#define SERIAL_MAX_FILE (1024LL * 1024 * 1024) /* put/get */

/* The scanner: raw console bytes in, the shell's own bytes out. */
typedef void(serial_emit_fn)(void *arg, const char *data, size_t len);

typedef struct {
	buf_t hold;   /* undecided bytes (capped) */
	bool crlf;    /* the tty still turns "\n" into "\r\n": undo it */
	uint64_t kernel_records; /* records cut out, for tests and logs */
} serial_scan_t;

void serial_scan_init(serial_scan_t *sc, bool crlf);
void serial_scan_free(serial_scan_t *sc);
/* Feed raw bytes; emit() gets the clean bytes that are decided. */
void serial_scan_feed(serial_scan_t *sc, const char *data, size_t len,
		      serial_emit_fn *emit, void *arg);
/* Length of a complete printk timestamp "[ sss.uuuuuu]" at p, 0 if p
 * could still become one with more bytes, -1 if it cannot. */
int serial_scan_ts(const char *p, size_t n);

/*
 * The console log filter (serial_conlog.c): raw console bytes in, the
 * board's console as the lab keeps it out: the boot without the echo of
 * the typed set-up line and the probes' answers, then, once the session
 * is up, the kernel's records only.
 */
typedef struct {
	buf_t line;     /* the line being read (<= SERIAL_MAX_LINE) */
	bool session;   /* the session is set up */
	char typed[1024]; /* the set-up line as typed, capitals as 'X' */
	size_t typed_len;
} serial_conlog_t;

void serial_conlog_init(serial_conlog_t *cl);
void serial_conlog_free(serial_conlog_t *cl);
/* The set-up line the session types (the first one given is kept). */
void serial_conlog_typed(serial_conlog_t *cl, const char *line);
/* The session is up (true) or being set up again (false). */
void serial_conlog_session(serial_conlog_t *cl, bool up);
void serial_conlog_feed(serial_conlog_t *cl, const char *data, size_t len,
			serial_emit_fn *emit, void *arg);
/* Pass on what is held of an unfinished line (at the end). */
void serial_conlog_flush(serial_conlog_t *cl, serial_emit_fn *emit, void *arg);

/* A serial session (t->priv). */
typedef struct serial serial_t;

/* Commands that may run in the session's shell itself, no subshell: one
 * simple command that cannot change the shell (see serial_cmd.c). */
bool serial_cmd_simple(const char *cmd);

/* Run cmd framed; output to fn; stdin_console: the command reads the
 * console (put) instead of /dev/null; data/len then follow the command
 * line. Returns 0 with *ret_status, -ETIMEDOUT (interrupted and
 * resynchronised) or another -errno. */
int serial_run_ex(transport_t *t, const char *cmd, int timeout_ms,
		  transport_output_fn *fn, void *arg, bool stdin_console,
		  const char *data, size_t len, int *ret_status);
/* Writes a command's input; called once the target is ready for it. */
typedef int(serial_feed_fn)(transport_t *t, void *arg, long long deadline_ms);
/* Run cmd framed in a subshell whose stdin is the console. With ready
 * non-NULL, feed is called only once ready has gone by in the output (not
 * at all if the command ends first); else right after the command line.
 * Returns as serial_run_ex. */
int serial_run_feed(transport_t *t, const char *cmd, int timeout_ms,
		    const char *ready, serial_feed_fn *feed, void *feed_arg,
		    transport_output_fn *fn, void *arg, int *ret_status);
/* Write raw bytes to the console (reading it meanwhile). 0 or -errno. */
int serial_write(transport_t *t, const void *data, size_t len,
		 long long deadline_ms);
/* The clock deadlines are on (CLOCK_MONOTONIC, ms). */
long long serial_now_ms(void);
/* The session's nonce: the markers' and ready tokens' common part. */
const char *serial_nonce(transport_t *t);
/* The target's tools, probed once: a space-separated list. */
int serial_tools(transport_t *t, bool *ret_base64, bool *ret_sha256,
		 bool *ret_cksum);

/* serial_open_fd with a deadline for the shell to answer (a booting
 * board); own_fd: close fd with the transport. */
int serial_open_fd_timeout(transport_t *t, int fd, bool own_fd, int timeout_ms);
/* Benchmarks: an unframed baseline — type the line (e.g. "echo TOKEN\n")
 * and wait for the TOKEN line to come back. 0 or -errno. */
int serial_raw_line(transport_t *t, const char *typed, const char *token,
		    int timeout_ms);
/* put by escaped bytes: the target's stty took the session's modes, and
 * no put has found it refusing the binary ones. */
bool serial_binary(transport_t *t);
/* Tests and benchmarks: put by base64 (or printf) blocks instead. */
void serial_no_binary(transport_t *t);
/* Tests and benchmarks: behave as if the target had no base64 applet. */
void serial_no_base64(transport_t *t);

int serial_put(transport_t *t, const char *local, const char *remote);
int serial_get(transport_t *t, const char *remote, const char *local);

#endif
