/*
 * transport: the public transport API over the backends (local, ssh,
 * serial, adb). This file owns what every backend shares: dispatch by the
 * board's transport type, the host scratch directory, the per-command
 * output cap (output past it is dropped and one marker emitted, so nothing
 * is ever buffered without bound) and the last error's text. Boot methods
 * live in board.c.
 */
#include "transports/backend.h"

#include "proto/log.h"
#include "proto/mem.h"

#include <errno.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define TRANSPORT_RMTREE_FDS 32

void transport_set_error(transport_t *t, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(t->err, sizeof(t->err), fmt, ap);
	va_end(ap);
	log_debug("%s", t->err);
}

const char *transport_error(const transport_t *t)
{
	return t ? t->err : "no transport";
}

static int s_rm_one(const char *path, const struct stat *st, int flag,
		    struct FTW *ftw)
{
	if (flag == FTW_DP)
		return rmdir(path) < 0 ? -1 : 0;
	return unlink(path) < 0 ? -1 : 0;
}

int transport_rmtree(const char *path)
{
	if (nftw(path, s_rm_one, TRANSPORT_RMTREE_FDS, FTW_DEPTH | FTW_PHYS) < 0)
		return errno ? -errno : -EIO;
	return 0;
}

/* mkdir -p with mode 0700 for the parts we create. */
static int s_mkdirs(const char *path)
{
	char *p = xstrdup(path);
	int r = 0;

	for (char *s = p + 1;; s++) {
		char c = *s;

		if (c != '/' && c != '\0')
			continue;
		*s = '\0';
		if (mkdir(p, 0700) < 0 && errno != EEXIST) {
			r = -errno;
			break;
		}
		*s = c;
		if (c == '\0')
			break;
	}
	free(p);
	return r;
}

int transport_workdir(const char *want, char **ret_path, bool *ret_own,
		     char *err, size_t errsz)
{
	const char *tmp = getenv("TMPDIR");
	char *path;
	int r;

	if (want) {
		r = s_mkdirs(want);
		if (r < 0) {
			snprintf(err, errsz, "workdir %s: %s", want, strerror(-r));
			return r;
		}
		*ret_path = xstrdup(want);
		*ret_own = false;
		return 0;
	}
	path = xasprintf("%s/labmesh-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(path)) {
		r = -errno;
		snprintf(err, errsz, "workdir %s: %s", path, strerror(-r));
		free(path);
		return r;
	}
	*ret_path = path;
	*ret_own = true;
	return 0;
}

static int s_backend_open(transport_t *t)
{
	switch (t->board->transport.type) {
	case LAB_TRANSPORT_LOCAL:
		return local_open(t);
	case LAB_TRANSPORT_SSH:
		return ssh_open(t);
	case LAB_TRANSPORT_SERIAL:
		return serial_open(t);
	case LAB_TRANSPORT_ADB:
		return adb_open(t);
	}
	transport_set_error(t, "unknown transport type %d",
			    (int)t->board->transport.type);
	return -EINVAL;
}

int transport_open(const lab_board_t *board, const transport_opts_t *opts,
		   transport_t **ret_t, char **ret_err)
{
	transport_opts_t none = { 0 };
	transport_t *t;
	int r;

	if (!board) {
		*ret_err = xstrdup("no board");
		return -EINVAL;
	}
	if (!opts)
		opts = &none;
	t = xzalloc(sizeof(*t));
	t->board = board;
	t->output_cap = opts->output_cap ? opts->output_cap : TRANSPORT_MAX_OUTPUT;
	t->console_fn = opts->console_fn;
	t->console_arg = opts->console_arg;
	r = transport_workdir(opts->workdir, &t->workdir, &t->own_workdir, t->err,
		      sizeof(t->err));
	if (r == 0)
		r = s_backend_open(t);
	if (r < 0) {
		if (!t->err[0])
			transport_set_error(t, "%s", strerror(-r));
		*ret_err = xasprintf("board %s: %s", board->name ? board->name : "?",
				     t->err);
		t->ops = NULL; /* a failed open leaves nothing to close */
		transport_close(&t);
		return r;
	}
	*ret_t = t;
	return 0;
}

/* The output cap sits between the backend and the caller's callback. */
struct s_cap {
	transport_output_fn *fn;
	void *arg;
	size_t cap;
	size_t used;
	bool truncated;
};

static void s_capped(void *arg, enum transport_stream st, const char *data,
		     size_t len)
{
	struct s_cap *c = arg;
	size_t room = c->cap - c->used;

	if (c->truncated)
		return;
	if (len <= room) {
		c->used += len;
		if (c->fn)
			c->fn(c->arg, st, data, len);
		return;
	}
	if (room && c->fn)
		c->fn(c->arg, st, data, room);
	c->used = c->cap;
	c->truncated = true;
	if (c->fn)
		c->fn(c->arg, st, TRANSPORT_TRUNCATED_MARKER,
		      strlen(TRANSPORT_TRUNCATED_MARKER));
}

int transport_run(transport_t *t, const char *cmd, int timeout_ms,
		  transport_output_fn *fn, void *arg, int *ret_status)
{
	struct s_cap cap = { .fn = fn, .arg = arg };
	int status = -1, r;

	if (!t || !t->ops || !cmd || !ret_status || timeout_ms < 0)
		return -EINVAL;
	cap.cap = t->output_cap;
	t->err[0] = '\0';
	r = t->ops->run(t, cmd, timeout_ms, s_capped, &cap, &status);
	if (r < 0)
		return r;
	if (status < 0 || status > 255) {
		transport_set_error(t, "exit status %d out of range", status);
		return -EPROTO;
	}
	*ret_status = status;
	return 0;
}

int transport_console(transport_t *t, const void *in, size_t n, int wait_ms,
		      transport_output_fn *fn, void *arg)
{
	if (!t || !t->ops || (n && !in) || !fn || wait_ms < 0)
		return -EINVAL;
	t->err[0] = '\0';
	if (!t->ops->console) {
		transport_set_error(t, "the %s transport has no console",
				    t->ops->name);
		return -ENOTSUP;
	}
	return t->ops->console(t, in, n, wait_ms, fn, arg);
}

int transport_put(transport_t *t, const char *local, const char *remote)
{
	if (!t || !t->ops || !local || !remote || !*local || !*remote)
		return -EINVAL;
	t->err[0] = '\0';
	return t->ops->put(t, local, remote);
}

int transport_get(transport_t *t, const char *remote, const char *local)
{
	if (!t || !t->ops || !local || !remote || !*local || !*remote)
		return -EINVAL;
	t->err[0] = '\0';
	return t->ops->get(t, remote, local);
}

const char *transport_kind(const transport_t *t)
{
	return t && t->ops && t->ops->name ? t->ops->name : "";
}

void transport_close(transport_t **p)
{
	transport_t *t;

	if (!p || !*p)
		return;
	t = *p;
	if (t->ops && t->ops->close)
		t->ops->close(t);
	if (t->own_workdir && t->workdir)
		transport_rmtree(t->workdir);
	free(t->workdir);
	free(t);
	*p = NULL;
}
