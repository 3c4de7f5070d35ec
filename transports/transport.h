/*
 * transport: one small API over every way a lab reaches a board — local
 * shell, ssh, serial console (tty, pty, unix socket, ser2net TCP, a QEMU
 * console) and adb — plus the boot methods that put a kernel on a board
 * (none, qemu, operator commands).
 *
 * A board_t is a booted, connected board: board_open() boots it by its
 * method and opens its transport; board_close() powers it off (QEMU quit)
 * and releases everything. Commands run through transport_run(): the exit
 * status is exact (0..255), output streams to a callback as it arrives and
 * is capped at TRANSPORT_MAX_OUTPUT per command (with a visible marker).
 * On timeout the command is killed and the session stays usable.
 *
 * Errors are negative errno codes; the last error's text is kept on the
 * object (transport_error()) for the caller to log once.
 */
#ifndef LABMESH_TRANSPORTS_TRANSPORT_H
#define LABMESH_TRANSPORTS_TRANSPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "labs/lab.h"

#define TRANSPORT_MAX_OUTPUT (16 * 1024 * 1024) /* per command, then truncated */
#define TRANSPORT_TRUNCATED_MARKER "\n[labmesh: output truncated]\n"

typedef struct transport transport_t;
typedef struct board board_t;

enum transport_stream { TRANSPORT_STDOUT = 1, TRANSPORT_STDERR = 2 };

/* Called as output arrives; data is not NUL-terminated. */
typedef void(transport_output_fn)(void *arg, enum transport_stream stream,
				  const char *data, size_t len);

enum transport_power { TRANSPORT_POWER_ON, TRANSPORT_POWER_OFF, TRANSPORT_POWER_CYCLE };

typedef struct {
	const char *workdir;  /* host scratch dir for this session (created) */
	size_t output_cap;    /* 0: TRANSPORT_MAX_OUTPUT */
	/* console log of the whole session (serial/qemu), or NULL */
	transport_output_fn *console_fn;
	void *console_arg;
} transport_opts_t;

/* The kernel to boot; NULL fields mean the board's configured default. */
typedef struct {
	const char *kernel;
	const char *initrd;
	const char *append;
} board_kernel_t;

/* Open a transport to an already running board. */
int transport_open(const lab_board_t *board, const transport_opts_t *opts,
		   transport_t **ret_t, char **ret_err);
/*
 * Run cmd (a shell command line written by us or the lab's operator — never
 * by a request) with a timeout in ms (0: none). Returns 0 and *ret_status
 * 0..255; -ETIMEDOUT if killed on timeout (session still usable); other
 * negative codes when the transport failed.
 */
int transport_run(transport_t *t, const char *cmd, int timeout_ms,
		  transport_output_fn *fn, void *arg, int *ret_status);
/* Copy a host file to the target (mode bits kept) and back. */
int transport_put(transport_t *t, const char *local, const char *remote);
int transport_get(transport_t *t, const char *remote, const char *local);
/*
 * The board's console as a person types on it (serial transports):
 * write the n bytes of in as they are, then hand fn what the console
 * says within wait_ms (less when it falls quiet after saying something).
 * The next transport_run first finds the shell prompt again. 0, or
 * -ENOTSUP (no console on this transport), -errno.
 */
int transport_console(transport_t *t, const void *in, size_t n, int wait_ms,
		      transport_output_fn *fn, void *arg);
/* Borrowed: the last error's text. */
const char *transport_error(const transport_t *t);
/* The backend's name ("local", "ssh", "serial", "adb"); "" when not open.
 * "local" means the board is the machine labmesh itself runs on. */
const char *transport_kind(const transport_t *t);
void transport_close(transport_t **p);

/*
 * The lock of board (a name) in state home: one holder at a time among
 * the node's jobs and leases and a local `labmesh run`. 0 and the held
 * lock's fd in *ret_fd (close it to let go), -EBUSY when someone else
 * holds it, -errno.
 */
int board_lock(const char *home, const char *board, int *ret_fd);

/* Boot by the board's method (NULL kernel: as configured / as it is),
 * wait for a shell, open the transport. */
int board_open(const lab_board_t *board, const board_kernel_t *kernel,
	       const transport_opts_t *opts, board_t **ret_b, char **ret_err);
/* Borrowed: the board's transport. */
transport_t *board_transport(board_t *b);
int board_power(board_t *b, enum transport_power op);
/* Borrowed: the text of the last board_power() error. */
const char *board_error(const board_t *b);
void board_close(board_t **p);

#endif
