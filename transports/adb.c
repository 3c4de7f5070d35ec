/*
 * adb: a board reached with Debian's adb client (`adb -s SERIAL`). The
 * client may or may not return the command's exit status (shell protocol
 * v2 does, older adbd does not), so every command is framed: remote.c's
 * wrapper prints a frame with the status last, which adb_frame_* strips
 * from stdout. Timeouts kill the command's process group on the device
 * with a second call, as for ssh. put/get are adb push / adb pull -a
 * (both keep mode bits).
 */
#include "transports/adb.h"
#include "transports/backend.h"
#include "transports/remote.h"

#include "proto/mem.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Android sets TMPDIR=/data/local/tmp; a Linux adbd may have neither */
#define ADB_DEFAULT_TMP "$([ -d /data/local/tmp ] && echo /data/local/tmp || echo /tmp)"
#define ADB_STATE_TIMEOUT_MS 20000
#define ADB_KILL_TIMEOUT_MS 15000
#define ADB_ERR_TAIL 400
#define ADB_MAX_SERIAL 128

struct adb_priv {
	const char *serial; /* borrowed from the board config; NULL: the one device */
	char token[REMOTE_TOKEN_HEX + 1];
	char *pidfile;
};

/* ---- the frame parser ---- */

void adb_frame_init(adb_frame_t *f, const char *token, transport_output_fn *fn,
		    void *arg)
{
	memset(f, 0, sizeof(*f));
	f->flen = (size_t)snprintf(f->frame, sizeof(f->frame), "%s%s=",
				   ADB_FRAME_PREFIX, token);
	if (f->flen >= sizeof(f->frame))
		f->flen = sizeof(f->frame) - 1;
	f->fn = fn;
	f->arg = arg;
}

/* Could p[0..n) still grow into frame + digits + [\r] \n? With full set,
 * it must be exactly a complete frame. */
static bool s_frame_shape(const adb_frame_t *f, const char *p, size_t n,
			  bool full, int *ret_status)
{
	size_t i, digits = 0;
	int status = 0;

	if (n < f->flen)
		return !full && memcmp(p, f->frame, n) == 0;
	if (memcmp(p, f->frame, f->flen) != 0)
		return false;
	for (i = f->flen; i < n && p[i] >= '0' && p[i] <= '9'; i++) {
		status = status * 10 + (p[i] - '0');
		if (++digits > 3)
			return false;
	}
	if (i < n && p[i] == '\r')
		i++;
	if (i < n && p[i] == '\n' && digits > 0)
		i++;
	if (i != n)
		return false;
	if (!full)
		return true;
	if (digits == 0 || p[n - 1] != '\n' || status > 255)
		return false;
	*ret_status = status;
	return true;
}

static void s_emit(adb_frame_t *f, const char *p, size_t n)
{
	if (n && f->fn)
		f->fn(f->arg, TRANSPORT_STDOUT, p, n);
}

/* Pass on the held bytes that can no longer start a frame. */
static void s_frame_settle(adb_frame_t *f)
{
	size_t i;
	int st;

	for (i = 0; i < f->hlen; i++)
		if (f->held[i] == f->frame[0] &&
		    s_frame_shape(f, f->held + i, f->hlen - i, false, &st))
			break;
	s_emit(f, f->held, i);
	memmove(f->held, f->held + i, f->hlen - i);
	f->hlen -= i;
}

void adb_frame_feed(adb_frame_t *f, const char *data, size_t len)
{
	while (len > 0) {
		size_t room = sizeof(f->held) - f->hlen;
		size_t n = len < room ? len : room;

		/* Large chunks: everything but the last frame-sized tail
		 * cannot start a frame, and goes straight through. */
		if (f->hlen == 0 && len > sizeof(f->held)) {
			n = len - sizeof(f->held);
			s_emit(f, data, n);
			data += n;
			len -= n;
			continue;
		}
		memcpy(f->held + f->hlen, data, n);
		f->hlen += n;
		data += n;
		len -= n;
		s_frame_settle(f);
		if (f->hlen == sizeof(f->held)) {
			/* cannot happen with a well-formed frame */
			s_emit(f, f->held, 1);
			memmove(f->held, f->held + 1, --f->hlen);
		}
	}
}

int adb_frame_finish(adb_frame_t *f, int *ret_status)
{
	int st = -1;

	if (f->hlen && s_frame_shape(f, f->held, f->hlen, true, &st)) {
		f->hlen = 0;
		*ret_status = st;
		return 0;
	}
	s_emit(f, f->held, f->hlen);
	f->hlen = 0;
	return -EPROTO;
}

/* ---- the client ---- */

void adb_command(const char *serial, proc_spec_t *s)
{
	proc_spec_init(s);
	proc_arg(s, "adb");
	if (serial) {
		proc_arg(s, "-s");
		proc_arg(s, serial);
	}
}

struct s_out {
	adb_frame_t frame;
	char tail[ADB_ERR_TAIL];
	size_t len;
	transport_output_fn *fn;
	void *arg;
};

static void s_out_fn(void *arg, enum transport_stream st, const char *data,
		     size_t len)
{
	struct s_out *o = arg;

	if (st == TRANSPORT_STDOUT) {
		adb_frame_feed(&o->frame, data, len);
		return;
	}
	if (o->fn)
		o->fn(o->arg, st, data, len);
	if (o->len + 1 < sizeof(o->tail)) {
		size_t n = len < sizeof(o->tail) - 1 - o->len ? len
							      : sizeof(o->tail) - 1 - o->len;

		memcpy(o->tail + o->len, data, n);
		o->len += n;
		o->tail[o->len] = '\0';
	}
}

static const char *s_line(struct s_out *o)
{
	for (size_t i = 0; i < o->len; i++)
		if (o->tail[i] == '\n' || o->tail[i] == '\r')
			o->tail[i] = ' ';
	return o->len ? o->tail : "no message";
}

/* adb ... shell -n <remote> with stdout through the frame parser when
 * framed; other output to fn. */
static int s_shell(transport_t *t, const char *remote, int timeout_ms,
		   struct s_out *o, int *ret_status)
{
	struct adb_priv *p = t->priv;
	char err[256];
	proc_spec_t s;
	int r;

	adb_command(p->serial, &s);
	proc_arg(&s, "shell");
	proc_arg(&s, "-n");
	proc_arg(&s, remote);
	s.timeout_ms = timeout_ms;
	s.fn = s_out_fn;
	s.arg = o;
	r = proc_run(&s, ret_status, err, sizeof(err));
	if (r < 0 && r != -ETIMEDOUT)
		transport_set_error(t, "adb: %s", err);
	return r;
}

static int s_run(transport_t *t, const char *cmd, int timeout_ms,
		 transport_output_fn *fn, void *arg, int *ret_status)
{
	struct adb_priv *p = t->priv;
	struct s_out *o = xzalloc(sizeof(*o));
	char frame[ADB_MAX_FRAME];
	char *remote;
	int st = -1, rc = -1, r;

	o->fn = fn;
	o->arg = arg;
	adb_frame_init(&o->frame, p->token, fn, arg);
	snprintf(frame, sizeof(frame), "%s%s=", ADB_FRAME_PREFIX, p->token);
	remote = remote_wrap(cmd, p->pidfile, frame);
	r = s_shell(t, remote, timeout_ms, o, &st);
	free(remote);
	if (r == -ETIMEDOUT) {
		struct s_out *k = xzalloc(sizeof(*k));

		remote = remote_kill(p->pidfile);
		adb_frame_init(&k->frame, p->token, NULL, NULL);
		s_shell(t, remote, ADB_KILL_TIMEOUT_MS, k, &st);
		free(remote);
		free(k);
		transport_set_error(t, "adb: command timed out after %d ms, killed",
				    timeout_ms);
	} else if (r == 0 && adb_frame_finish(&o->frame, &rc) < 0) {
		transport_set_error(t, "adb %s: no exit status from the device (adb exit %d): %s",
				    p->serial ? p->serial : "", st, s_line(o));
		r = -ECONNRESET;
	} else if (r == 0)
		*ret_status = rc;
	free(o);
	return r;
}

/* adb push/pull: 0, or -EIO with adb's message. */
static int s_sync(transport_t *t, const char *verb, const char *from,
		  const char *to)
{
	struct adb_priv *p = t->priv;
	struct s_out *o = xzalloc(sizeof(*o));
	char err[256];
	proc_spec_t s;
	int st = -1, r;

	adb_frame_init(&o->frame, p->token, NULL, NULL);
	adb_command(p->serial, &s);
	proc_arg(&s, verb);
	if (strcmp(verb, "pull") == 0)
		proc_arg(&s, "-a");
	proc_arg(&s, "--");
	proc_arg(&s, from);
	proc_arg(&s, to);
	s.fn = s_out_fn;
	s.arg = o;
	r = proc_run(&s, &st, err, sizeof(err));
	if (r < 0)
		transport_set_error(t, "adb %s: %s", verb, err);
	else if (st != 0) {
		transport_set_error(t, "adb %s %s: exit %d: %s", verb, from, st,
				    s_line(o));
		r = -EIO;
	}
	free(o);
	return r;
}

static int s_put(transport_t *t, const char *local, const char *remote)
{
	return s_sync(t, "push", local, remote);
}

static int s_get(transport_t *t, const char *remote, const char *local)
{
	return s_sync(t, "pull", remote, local);
}

static void s_close(transport_t *t)
{
	struct adb_priv *p = t->priv;
	struct s_out *o;
	char *cmd;
	int st;

	if (!p)
		return;
	if (t->ops) {
		o = xzalloc(sizeof(*o));
		adb_frame_init(&o->frame, p->token, NULL, NULL);
		cmd = xasprintf("rm -f %s", p->pidfile);
		s_shell(t, cmd, ADB_KILL_TIMEOUT_MS, o, &st);
		free(cmd);
		free(o);
	}
	free(p->pidfile);
	free(p);
	t->priv = NULL;
}

static const struct transport_ops s_ops = {
	.name = "adb",
	.run = s_run,
	.put = s_put,
	.get = s_get,
	.close = s_close,
};

/* The device must be there: `adb get-state` exits 0 ("device"). */
static int s_check_device(transport_t *t)
{
	struct adb_priv *p = t->priv;
	struct s_out *o = xzalloc(sizeof(*o));
	char err[256];
	proc_spec_t s;
	int st = -1, r;

	adb_frame_init(&o->frame, p->token, NULL, NULL);
	adb_command(p->serial, &s);
	proc_arg(&s, "get-state");
	s.timeout_ms = ADB_STATE_TIMEOUT_MS;
	s.fn = s_out_fn;
	s.arg = o;
	r = proc_run(&s, &st, err, sizeof(err));
	if (r < 0)
		transport_set_error(t, "adb: %s", err);
	else if (st != 0) {
		transport_set_error(t, "adb: device %s not available: %s",
				    p->serial ? p->serial : "(default)", s_line(o));
		r = -ENODEV;
	}
	free(o);
	return r;
}

static bool s_serial_ok(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > ADB_MAX_SERIAL || s[0] == '-')
		return false;
	for (; *s; s++)
		if ((unsigned char)*s <= ' ' || *s == 0x7f)
			return false;
	return true;
}

int adb_open(transport_t *t)
{
	const lab_transport_t *c = &t->board->transport;
	struct adb_priv *p;
	int r;

	if (c->adb_serial && !s_serial_ok(c->adb_serial)) {
		transport_set_error(t, "adb: bad serial");
		return -EINVAL;
	}
	p = xzalloc(sizeof(*p));
	p->serial = c->adb_serial;
	if (remote_token(p->token) < 0) {
		free(p);
		transport_set_error(t, "adb: getrandom failed");
		return -EIO;
	}
	p->pidfile = remote_pidfile(c->workdir, ADB_DEFAULT_TMP, p->token);
	t->priv = p;
	t->ops = &s_ops;
	r = s_check_device(t);
	if (r < 0) {
		t->ops = NULL;
		s_close(t);
	}
	return r;
}
