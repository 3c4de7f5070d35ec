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
	void (*close)(transport_t *t); /* frees priv */
};

struct transport {
	const struct transport_ops *ops;
	const lab_board_t *board; /* borrowed; outlives the transport */
	char *workdir;            /* host scratch dir */
	size_t output_cap;
	transport_output_fn *console_fn;
	void *console_arg;
	char err[512];
	void *priv; /* the backend's state */
};

/* Record the last error's text on t (for transport_error()). */
void transport_set_error(transport_t *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Backend constructors: fill t->ops and t->priv, return 0 or -errno. */
int local_open(transport_t *t);
int ssh_open(transport_t *t);
int serial_open(transport_t *t);
/* A serial transport over an already connected fd (the QEMU console). */
int serial_open_fd(transport_t *t, int fd);
int adb_open(transport_t *t);

#endif
