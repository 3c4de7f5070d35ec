/*
 * serial_int: the session's state, shared by serial.c (the conversation
 * with the console's shell) and serial_ops.c (the session's life and the
 * backend ops). Not for use outside those two.
 */
#ifndef LABMESH_TRANSPORTS_SERIAL_INT_H
#define LABMESH_TRANSPORTS_SERIAL_INT_H

#include "transports/serial.h"

#include <stdbool.h>

struct serial_frame; /* a running command's framing (serial.c) */

struct serial {
	int fd;
	bool own_fd;
	transport_t *t;
	serial_scan_t scan;
	serial_conlog_t conlog; /* what of the console the console log gets */
	buf_t clean;     /* scanned bytes not yet consumed */
	struct serial_frame *frame; /* the running command, or NULL */
	bool eof;
	char nonce[SERIAL_NONCE_LEN + 1]; /* the session's, from serial_sync */
	bool tools_probed;
	bool has_base64, has_sha256, has_cksum;
	bool no_binary; /* put by escaped bytes refused (or turned off) */
	bool need_sync; /* used as a console: find the prompt again first */
	char rbuf[SERIAL_READ_CHUNK];
};

/* The console log's sink: the transport's console callback. */
void serial_console_emit(void *arg, const char *data, size_t len);

/* Answer the console's login: and Password: prompts with the board's
 * login (a getty that shows none is nudged once with a newline). 0, or
 * -EACCES on "Login incorrect", or -errno. */
int serial_login(serial_t *s, long long deadline_ms);
/* Set the session up (echo off, prompts, markers, a new nonce) and wait
 * for its probe, retrying until deadline_ms while the shell is not up.
 * 0, or -ETIMEDOUT, -EACCES or -errno with the transport's error set. */
int serial_sync(serial_t *s, long long deadline_ms);
/* The backend's run op: cmd typed and framed, or sourced from a script
 * put on the target when it cannot be typed. Returns as serial_run_ex. */
/* The backend's console op (serial_console.c). */
int serial_console(transport_t *t, const void *in, size_t n, int wait_ms,
		   transport_output_fn *fn, void *arg);
int serial_run(transport_t *t, const char *cmd, int timeout_ms,
	       transport_output_fn *fn, void *arg, int *ret_status);

#endif
