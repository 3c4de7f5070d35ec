/*
 * backend: what each transport module (local, ssh, serial, adb) provides to
 * transport.c, which owns the public API, the output cap and errors.
 * Internal to transports/.
 */
#ifndef LABMESH_TRANSPORTS_BACKEND_H
#define LABMESH_TRANSPORTS_BACKEND_H

#include "transports/transport.h"

#include <stdarg.h>

struct transport_ops {
	const char *name;
	int (*run)(transport_t *t, const char *cmd, int timeout_ms,
		   transport_output_fn *fn, void *arg, int *ret_status);
	int (*put)(transport_t *t, const char *local, const char *remote);
	int (*get)(transport_t *t, const char *remote, const char *local);
	/* optional: bytes typed on the console, and what it says back
	 * within wait_ms (raw); NULL: the transport has no console */
	int (*console)(transport_t *t, const void *in, size_t n, int wait_ms,
		       transport_output_fn *fn, void *arg);
	void (*close)(transport_t *t); /* frees priv */
};

struct transport {
	const struct transport_ops *ops;
	const lab_board_t *board; /* borrowed; outlives the transport */
	char *workdir;            /* host scratch dir */
	bool own_workdir;         /* made by transport_open: removed at close */
	size_t output_cap;
	transport_output_fn *console_fn;
	void *console_arg;
	char err[512];
	void *priv; /* the backend's state */
};

/* Record the last error's text on t (for transport_error()). */
void transport_set_error(transport_t *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Backend constructors: fill t->ops and t->priv, return 0 or -errno (with
 * transport_set_error). A failed open frees what it made: close is not
 * called. */
int local_open(transport_t *t);
int ssh_open(transport_t *t);
int serial_open(transport_t *t);
/* A serial transport over an already connected fd (the QEMU console). */
int serial_open_fd(transport_t *t, int fd);
int adb_open(transport_t *t);

/*
 * A board session (board_open): the board's config, its transport once
 * open, and the boot method's state. Shared by transport.c (none and
 * command methods) and qemu.c (the qemu method).
 */
struct board {
	const lab_board_t *cfg; /* borrowed; outlives the board */
	transport_t *t;         /* open while the board is up, else NULL */
	transport_opts_t opts;  /* as given to board_open; workdir owned below */
	char *workdir;          /* host scratch dir for the board (created) */
	bool own_workdir;       /* made by board_open: removed at close */
	board_kernel_t kernel;  /* resolved: request's value or the config's;
				 * strings owned */
	void *qemu;             /* qemu.c's state while QEMU runs, else NULL */
	char err[512];
	bool err_named; /* err already starts with "board NAME: " */
};

/*
 * The qemu boot method (qemu.c): start QEMU with b->kernel, wait for a
 * shell on its console and leave b->t open on it. Returns 0, or -errno
 * and *ret_err (the caller frees). qemu_halt() quits QEMU (b->t is closed
 * first by the caller) and accepts a board whose QEMU is not running.
 */
int qemu_boot(board_t *b, const board_kernel_t *k, char **ret_err);
void qemu_halt(board_t *b);

/* A session's host scratch dir: want (created 0700 if missing), or with
 * want NULL a fresh private one under $TMPDIR (*ret_own true: the session
 * removes it at close). 0 or -errno with a reason in err. */
int transport_workdir(const char *want, char **ret_path, bool *ret_own,
		      char *err, size_t errsz);
/* Remove a scratch directory and everything in it; 0 or -errno. */
int transport_rmtree(const char *path);

#endif
