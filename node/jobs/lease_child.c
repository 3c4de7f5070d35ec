/*
 * lease_child: `labmesh lease-session`, the process that holds a leased
 * board open for its holder (started by the node, never by hand). It
 * boots the board on first use and runs each operation the node passes
 * on its socket (fd 3, frames in lease_sess.c) in turn: exec through the
 * board's transport, put (chunks into a host file, then one transport
 * put), get (one transport get, then chunks), power through the boot
 * method, console (keys typed, what the console says back). Its
 * process group is killed when the lease ends.
 */
#include "node/jobs/jobs_int.h"
#include "node/jobs/exec_child.h"

#include "proto/mem.h"
#include "transports/transport.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#define SESS_FD 3
#define SESS_CHUNK (32 * 1024)  /* output per reply */
#define SESS_EXEC_TIMEOUT_S 600 /* exec without a timeout */
#define SESS_CONSOLE_WAIT_MS 300 /* for the console's answer to keys */
/* what a console says goes back as it comes, in this many replies at
 * most per operation (then in SESS_CHUNK pieces): a typed line's answer
 * need not wait for the console to fall quiet */
#define SESS_CONSOLE_STREAM 16
#define SESS_MAX_PUT (1ULL << 30) /* bytes of one file put on the board */

typedef struct {
	const lab_config_t *cfg;
	const lab_board_t *bcfg;
	board_t *b;
	char *dir;          /* host scratch dir of the session */
	char *pending;      /* the one put not yet ended (its host file) */
	const uint8_t *op_id;
	uint32_t index;
	uint8_t out[SESS_CHUNK];
	size_t n_out;
	int stream; /* replies still sent as soon as there is output */
} s_sess_t;

static void s_send(s_sess_t *x, bool final, int64_t status, const void *d,
		   size_t n)
{
	uint8_t *f = xmalloc(45 + n);

	memcpy(f, x->op_id, 32);
	for (int i = 0; i < 4; i++)
		f[32 + i] = (uint8_t)(x->index >> (8 * i));
	f[36] = final;
	for (int i = 0; i < 8; i++)
		f[37 + i] = (uint8_t)((uint64_t)status >> (8 * i));
	if (n)
		memcpy(f + 45, d, n);
	if (send(SESS_FD, f, 45 + n, MSG_NOSIGNAL) < 0)
		_exit(0); /* the node is gone */
	free(f);
	x->index++;
}

static void s_error(s_sess_t *x, int rc, const char *what)
{
	char why[600];

	snprintf(why, sizeof(why), "%s", what && *what ? what : strerror(-rc));
	s_send(x, true, rc < 0 ? rc : -EIO, why, strlen(why));
}

static transport_t *s_open(s_sess_t *x)
{
	transport_opts_t o = { .workdir = x->dir };
	char *err = NULL;
	int rc;

	if (x->b)
		return board_transport(x->b);
	rc = board_open(x->bcfg, NULL, &o, &x->b, &err);
	if (rc < 0) {
		s_error(x, rc, err);
		free(err);
		return NULL;
	}
	return board_transport(x->b);
}

static void s_out(void *arg, enum transport_stream stream, const char *data,
		  size_t len)
{
	s_sess_t *x = arg;

	(void)stream;
	while (len) {
		size_t k = SESS_CHUNK - x->n_out < len ? SESS_CHUNK - x->n_out
						       : len;

		memcpy(x->out + x->n_out, data, k);
		x->n_out += k;
		data += k;
		len -= k;
		if (x->n_out == SESS_CHUNK) {
			s_send(x, false, 0, x->out, x->n_out);
			x->n_out = 0;
		}
	}
	if (x->stream > 0 && x->n_out) {
		x->stream--;
		s_send(x, false, 0, x->out, x->n_out);
		x->n_out = 0;
	}
}

static void s_exec(s_sess_t *x, const char *cmd, uint64_t timeout_s)
{
	transport_t *t = s_open(x);
	int status = 0, rc;

	if (!t) {
		if (x->b)
			s_error(x, -ENODEV, "the board is powered off");
		return;
	}
	if (!timeout_s || timeout_s > 24 * 3600)
		timeout_s = SESS_EXEC_TIMEOUT_S;
	x->n_out = 0;
	rc = transport_run(t, cmd, (int)timeout_s * 1000, s_out, x, &status);
	if (x->n_out)
		s_send(x, false, 0, x->out, x->n_out);
	x->n_out = 0;
	if (rc < 0)
		s_error(x, rc, transport_error(t));
	else
		s_send(x, true, status, NULL, 0);
}

/* Puts a session killed before their end left behind. */
static void s_drop_puts(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	while (d && (e = readdir(d))) {
		if (strncmp(e->d_name, "put-", 4) == 0) {
			char *p = xasprintf("%s/%s", dir, e->d_name);

			unlink(p);
			free(p);
		}
	}
	if (d)
		closedir(d);
}

/* The host file a put to path collects into. */
static char *s_put_path(s_sess_t *x, const char *path)
{
	uint8_t h[32];
	char hex[65];

	proto_id(path, strlen(path), h);
	wire_hex(h, 16, hex);
	return xasprintf("%s/put-%s", x->dir, hex);
}

static void s_put(s_sess_t *x, const char *path, uint64_t off,
		  const uint8_t *d, size_t n)
{
	char *p;
	ssize_t w = -1;
	int fd;

	if (off > SESS_MAX_PUT - n) {
		s_error(x, -EFBIG, "a file put on a leased board is at most"
			" 1 GiB");
		return;
	}
	p = s_put_path(x, path);
	/* one put at a time: a put to another path abandons the last one,
	 * so a session holds at most SESS_MAX_PUT on the lab's disk */
	if (x->pending && strcmp(x->pending, p) != 0)
		unlink(x->pending);
	if (!x->pending || strcmp(x->pending, p) != 0) {
		free(x->pending);
		x->pending = xstrdup(p);
	}
	fd = open(p, O_WRONLY | O_CREAT | (off ? 0 : O_TRUNC) | O_CLOEXEC,
		  0600);
	if (fd >= 0) {
		w = pwrite(fd, d, n, (off_t)off);
		close(fd);
	}
	free(p);
	if (w != (ssize_t)n)
		s_error(x, -EIO, "cannot write the host's copy of the file");
	else
		s_send(x, true, 0, NULL, 0);
}

static void s_put_end(s_sess_t *x, const char *path, uint64_t size)
{
	char *p = s_put_path(x, path);
	transport_t *t;
	struct stat st;
	int rc;

	if (stat(p, &st) < 0)
		st.st_size = 0;
	if ((uint64_t)st.st_size != size) {
		s_error(x, -EIO, "the file's chunks did not all arrive");
	} else if ((t = s_open(x))) {
		rc = transport_put(t, p, path);
		if (rc < 0)
			s_error(x, rc, transport_error(t));
		else
			s_send(x, true, 0, NULL, 0);
	} else if (x->b) {
		s_error(x, -ENODEV, "the board is powered off");
	}
	unlink(p);
	if (x->pending && strcmp(x->pending, p) == 0) {
		free(x->pending);
		x->pending = NULL;
	}
	free(p);
}

static void s_get(s_sess_t *x, const char *path)
{
	char *p = xasprintf("%s/get", x->dir);
	transport_t *t = s_open(x);
	uint8_t *buf;
	uint64_t total = 0;
	ssize_t n;
	int fd, rc;

	if (!t) {
		if (x->b)
			s_error(x, -ENODEV, "the board is powered off");
		free(p);
		return;
	}
	rc = transport_get(t, path, p);
	fd = rc < 0 ? -1 : open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		s_error(x, rc < 0 ? rc : -errno, rc < 0 ? transport_error(t)
							 : "no host copy");
		free(p);
		return;
	}
	buf = xmalloc(SESS_CHUNK);
	while ((n = read(fd, buf, SESS_CHUNK)) > 0) {
		s_send(x, false, 0, buf, (size_t)n);
		total += (uint64_t)n;
	}
	close(fd);
	unlink(p);
	free(p);
	free(buf);
	s_send(x, true, (int64_t)total, NULL, 0);
}

static void s_power(s_sess_t *x, uint64_t op)
{
	static const enum transport_power ops[] = {
		TRANSPORT_POWER_ON, TRANSPORT_POWER_OFF, TRANSPORT_POWER_CYCLE
	};
	int rc;

	if (!x->b) {
		if (!s_open(x))
			return; /* said */
		if (op == LEASE_POWER_ON || op == LEASE_POWER_CYCLE) {
			s_send(x, true, 0, NULL, 0); /* just booted */
			return;
		}
	}
	rc = board_power(x->b, ops[op]);
	if (rc < 0)
		s_error(x, rc, board_error(x->b));
	else
		s_send(x, true, 0, NULL, 0);
}

/* Keys typed on the console, and what it says back. */
/* Keys typed (d, n), then what the console says for up to wait_ms (0
 * or more than SESS_CONSOLE_WAIT_MS: that) or until it falls quiet. */
static void s_console(s_sess_t *x, const uint8_t *d, size_t n,
		      uint64_t wait_ms)
{
	transport_t *t = s_open(x);
	int rc;

	if (!t) {
		if (x->b)
			s_error(x, -ENODEV, "the board is powered off");
		return;
	}
	x->n_out = 0;
	x->stream = SESS_CONSOLE_STREAM;
	if (!wait_ms || wait_ms > SESS_CONSOLE_WAIT_MS)
		wait_ms = SESS_CONSOLE_WAIT_MS;
	rc = transport_console(t, d, n, (int)wait_ms, s_out, x);
	x->stream = 0;
	if (x->n_out)
		s_send(x, false, 0, x->out, x->n_out);
	x->n_out = 0;
	if (rc < 0)
		s_error(x, rc, transport_error(t));
	else
		s_send(x, true, 0, NULL, 0);
}

static void s_one(s_sess_t *x, const uint8_t *f, size_t n)
{
	uint64_t value = 0;
	size_t alen;
	char *arg;

	if (n < 43)
		return;
	for (int i = 0; i < 8; i++)
		value |= (uint64_t)f[33 + i] << (8 * i);
	alen = (size_t)f[41] | (size_t)f[42] << 8;
	if (alen > n - 43)
		return;
	x->op_id = f + 1;
	x->index = 0;
	arg = xasprintf("%.*s", (int)alen, (const char *)f + 43);
	switch (f[0]) {
	case LEASE_EXEC:
		s_exec(x, arg, value);
		break;
	case LEASE_PUT:
		s_put(x, arg, value, f + 43 + alen, n - 43 - alen);
		break;
	case LEASE_PUT_END:
		s_put_end(x, arg, value);
		break;
	case LEASE_GET:
		s_get(x, arg);
		break;
	case LEASE_POWER:
		if (value <= LEASE_POWER_CYCLE)
			s_power(x, value);
		break;
	case LEASE_CONSOLE:
		s_console(x, f + 43 + alen, n - 43 - alen, value);
		break;
	default:
		s_error(x, -ENOTSUP, "this lab does not do that operation");
		break;
	}
	free(arg);
}

int cmd_lease_session(int argc, char **argv)
{
	const char *home = NULL, *config = NULL, *board = NULL;
	const char **v[] = { &home, &config, &board };
	static const char *const names[] = { "--home", "--config", "--board" };
	s_sess_t x = { 0 };
	lab_config_t *cfg = NULL;
	uint8_t *f = xmalloc(SESS_MAX_FRAME);
	char *err = NULL;
	ssize_t n;

	jobs_child_opts(argc, argv, names, v, 3);
	if (!home || !board || fcntl(SESS_FD, F_GETFD) < 0) {
		fprintf(stderr, "labmesh lease-session: started by the node"
			" only\n");
		return 2;
	}
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	signal(SIGPIPE, SIG_IGN);
	if (config && *config)
		lab_config_load(config, &cfg, &err);
	else
		cfg = lab_config_default();
	free(err);
	x.cfg = cfg;
	x.bcfg = cfg ? lab_config_board(cfg, board) : NULL;
	x.dir = xasprintf("%s/work", home);
	mkdir(x.dir, 0700);
	free(x.dir);
	x.dir = xasprintf("%s/work/lease-%s", home, board);
	mkdir(x.dir, 0700);
	if (!x.bcfg) {
		fprintf(stderr, "labmesh lease-session: no board %s\n", board);
		return 1;
	}
	s_drop_puts(x.dir);
	while ((n = recv(SESS_FD, f, SESS_MAX_FRAME, 0)) > 0)
		s_one(&x, f, (size_t)n);
	if (x.pending)
		unlink(x.pending);
	free(x.pending);
	board_close(&x.b);
	lab_config_destroy(&cfg);
	free(x.dir);
	free(f);
	return 0;
}
