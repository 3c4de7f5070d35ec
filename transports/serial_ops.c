/*
 * serial_ops: the serial transport as a backend (see backend.h) on top of
 * the console conversation of serial.c: the ops table, the session made
 * on an open console fd (the board's login, then the set-up) and closed,
 * the target's tools, and the put modes tests and benchmarks switch.
 *
 * Layout: the ops; opening on an fd; the target's tools; the put modes;
 * closing.
 */
#include "transports/serial_int.h"

#include "proto/mem.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static serial_t *s_of(transport_t *t)
{
	return t->priv;
}

static void s_close_op(transport_t *t);

static const struct transport_ops s_ops = {
	.name = "serial",
	.run = serial_run,
	.put = serial_put,
	.get = serial_get,
	.console = serial_console,
	.close = s_close_op,
};

int serial_open_fd_timeout(transport_t *t, int fd, bool own_fd, int timeout_ms)
{
	const lab_transport_t *tr = &t->board->transport;
	long long deadline = serial_now_ms() + timeout_ms;
	serial_t *s = xzalloc(sizeof(*s));
	int flags = fcntl(fd, F_GETFL), r;

	if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0) {
		free(s);
		transport_set_error(t, "console fd: %s", strerror(errno));
		return -EBADF;
	}
	s->fd = fd;
	s->own_fd = own_fd;
	s->t = t;
	serial_scan_init(&s->scan, true);
	serial_conlog_init(&s->conlog);
	buf_init(&s->clean, 0); /* bounded by s_on_clean and the framing */
	t->priv = s;
	t->ops = &s_ops;
	r = 0;
	if (tr->login && *tr->login)
		r = serial_login(s, deadline);
	if (r == 0)
		r = serial_sync(s, deadline);
	if (r < 0) {
		s_close_op(t);
		t->ops = NULL;
		t->priv = NULL;
	}
	return r;
}

int serial_open_fd(transport_t *t, int fd)
{
	int s = t->board->transport.connect_timeout_s;

	return serial_open_fd_timeout(t, fd, false,
				      1000 * (s > 0 ? s : SERIAL_CONNECT_TIMEOUT_S));
}

static void s_collect(void *arg, enum transport_stream st, const char *data,
		      size_t len)
{
	buf_append(arg, data, len);
}

int serial_tools(transport_t *t, bool *ret_base64, bool *ret_sha256,
		 bool *ret_cksum)
{
	serial_t *s = s_of(t);
	buf_t out;
	int r, st = -1;

	if (!s->tools_probed) {
		buf_init(&out, 4096);
		r = serial_run_ex(t,
				  "for c in base64 sha256sum cksum; do command -v $c "
				  ">/dev/null 2>&1 && printf '%s ' $c; done; echo",
				  30000, s_collect, &out, false, NULL, 0, &st);
		if (r < 0) {
			buf_free(&out);
			return r;
		}
		s->has_base64 = strstr(buf_str(&out), "base64 ") != NULL;
		s->has_sha256 = strstr(buf_str(&out), "sha256sum ") != NULL;
		s->has_cksum = strstr(buf_str(&out), "cksum ") != NULL;
		s->tools_probed = true;
		buf_free(&out);
	}
	*ret_base64 = s->has_base64;
	*ret_sha256 = s->has_sha256;
	*ret_cksum = s->has_cksum;
	return 0;
}

bool serial_binary(transport_t *t)
{
	serial_t *s = s_of(t);

	return !s->no_binary && !s->scan.crlf; /* stty -echo worked */
}

void serial_no_binary(transport_t *t)
{
	s_of(t)->no_binary = true;
}

void serial_no_base64(transport_t *t)
{
	serial_t *s = s_of(t);

	s->tools_probed = true;
	s->has_base64 = false;
}

static void s_close_op(transport_t *t)
{
	serial_t *s = s_of(t);

	if (!s)
		return;
	if (s->own_fd && s->fd >= 0)
		close(s->fd);
	serial_conlog_flush(&s->conlog, serial_console_emit, s->t);
	serial_conlog_free(&s->conlog);
	serial_scan_free(&s->scan);
	buf_free(&s->clean);
	free(s);
	t->priv = NULL;
}
