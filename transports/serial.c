/*
 * serial: the serial console transport — a tty device (termios: baud, 8N1,
 * raw, no flow control), a pty path, a unix stream socket, raw TCP (as
 * ser2net serves it) or an already open fd (the QEMU console).
 *
 * Layout: connecting; reading (every byte goes to the console log, then
 * through the scanner that cuts kernel records out, then to whoever waits:
 * the prompt probe or the running command's framing); writing (always
 * reading meanwhile, so neither side can block the other); login; prompt
 * synchronisation; per-command framing; the backend ops.
 *
 * Session set-up types one line: `stty -echo -opost` (no echo, no line
 * editing in busybox, bare "\n" on output), empty prompts, printk
 * timestamps on, then a probe that prints a marker with a fresh nonce. A
 * command is typed as
 *   printf '%s%s\n' lm-s NONCE;(CMD
 *   ) </dev/null;printf '\n%s%s %d\n' lm-e NONCE $?
 * The markers are printed from two halves, so the typed line (should the
 * console echo it) never contains them; the nonce is random per command,
 * so nothing the command prints can end it early. The output is exactly
 * the bytes between the start line and the "\n" before the end marker; the
 * exit status is on the end marker line. A timeout types Ctrl-C and
 * re-synchronises with a new probe.
 */
#include "transports/serial.h"

#include "proto/log.h"
#include "proto/mem.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#define SERIAL_CONNECT_TIMEOUT_S 30 /* when the board does not say */
#define SERIAL_PROBE_MS 1000        /* between set-up probes */
#define SERIAL_RESYNC_MS 15000      /* after Ctrl-C, to a prompt again */
#define SERIAL_LOGIN_WAIT_MS 3000   /* for a login/password prompt */
#define SERIAL_MAX_CLEAN (256 * 1024)
#define SERIAL_MARKER_MAX 64
#define SERIAL_NO_DEADLINE (1LL << 62)

enum s_phase { S_START, S_BODY, S_STATUS, S_DONE };

typedef struct {
	char start[SERIAL_MARKER_MAX]; /* "lm-s<nonce>\n" */
	char end[SERIAL_MARKER_MAX];   /* "\nlm-e<nonce> " */
	enum s_phase phase;
	transport_output_fn *fn;
	void *arg;
	int status;
	bool bad; /* the end marker line did not parse */
} s_frame_t;

struct serial {
	int fd;
	bool own_fd;
	transport_t *t;
	serial_scan_t scan;
	buf_t clean;     /* scanned bytes not yet consumed */
	s_frame_t *frame; /* the running command, or NULL */
	bool eof;
	bool tools_probed;
	bool has_base64, has_sha256, has_cksum;
	char rbuf[SERIAL_READ_CHUNK];
};

static long long s_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static serial_t *s_of(transport_t *t)
{
	return t->priv;
}

/* Uppercase letters without I, O, R, D (no ERROR/INFO/DEBUG inside). */
static void s_nonce(char out[SERIAL_NONCE_LEN + 1])
{
	static const char alpha[] = "ABCEFGHJKLMNPQSTUVWXYZ";
	unsigned char rnd[SERIAL_NONCE_LEN];
	static unsigned long long fallback;

	if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd)) {
		for (size_t i = 0; i < sizeof(rnd); i++)
			rnd[i] = (unsigned char)((++fallback * 2654435761u +
						  (unsigned long long)s_now_ms()) >> 7);
	}
	for (size_t i = 0; i < SERIAL_NONCE_LEN; i++)
		out[i] = alpha[rnd[i] % (sizeof(alpha) - 1)];
	out[SERIAL_NONCE_LEN] = '\0';
}

char *serial_quote(const char *s)
{
	buf_t b;

	buf_init(&b, 0);
	buf_putc(&b, '\'');
	for (; *s; s++) {
		if (*s == '\'')
			buf_puts(&b, "'\\''");
		else
			buf_putc(&b, *s);
	}
	buf_putc(&b, '\'');
	return buf_steal(&b);
}

static void s_consume(buf_t *b, size_t n)
{
	memmove(b->data, b->data + n, b->len - n);
	b->len -= n;
	b->data[b->len] = '\0';
}

static const char *s_find(const buf_t *b, const char *needle)
{
	return memmem(b->data, b->len, needle, strlen(needle));
}

/* ---- framing: consume clean bytes for the running command ---- */

/* Longest suffix of p[0..n) that is a proper prefix of m. */
static size_t s_partial(const char *p, size_t n, const char *m)
{
	size_t ml = strlen(m);

	for (size_t k = ml - 1 < n ? ml - 1 : n; k > 0; k--) {
		if (memcmp(p + n - k, m, k) == 0)
			return k;
	}
	return 0;
}

static void s_frame_status(s_frame_t *f, buf_t *c)
{
	size_t el = strlen(f->end);
	const char *nl = memchr(c->data + el, '\n', c->len - el);
	char *endp;
	long v;

	if (!nl) {
		if (c->len > el + 8)
			f->bad = true, f->phase = S_DONE;
		return;
	}
	v = strtol((const char *)c->data + el, &endp, 10);
	if (endp != nl || endp == (const char *)c->data + el || v < 0 || v > 255)
		f->bad = true;
	f->status = (int)v;
	s_consume(c, (size_t)(nl - (const char *)c->data) + 1);
	f->phase = S_DONE;
}

static void s_frame_feed(s_frame_t *f, buf_t *c)
{
	const char *p;
	size_t keep;

	if (f->phase == S_START) {
		p = s_find(c, f->start);
		if (!p) {
			keep = strlen(f->start) - 1;
			if (c->len > keep)
				s_consume(c, c->len - keep);
			return;
		}
		s_consume(c, (size_t)(p - (const char *)c->data) + strlen(f->start));
		f->phase = S_BODY;
	}
	if (f->phase == S_BODY) {
		p = s_find(c, f->end);
		if (p) {
			size_t n = (size_t)(p - (const char *)c->data);

			if (n && f->fn)
				f->fn(f->arg, TRANSPORT_STDOUT, (const char *)c->data, n);
			s_consume(c, n);
			f->phase = S_STATUS;
		} else {
			keep = s_partial((const char *)c->data, c->len, f->end);
			if (c->len > keep && f->fn)
				f->fn(f->arg, TRANSPORT_STDOUT, (const char *)c->data,
				      c->len - keep);
			s_consume(c, c->len - keep);
		}
	}
	if (f->phase == S_STATUS)
		s_frame_status(f, c);
}

/* ---- reading ---- */

static void s_on_clean(void *arg, const char *data, size_t len)
{
	serial_t *s = arg;

	buf_append(&s->clean, data, len);
	if (s->frame && s->frame->phase != S_DONE)
		s_frame_feed(s->frame, &s->clean);
	else if (s->clean.len > SERIAL_MAX_CLEAN / 2)
		s_consume(&s->clean, s->clean.len - SERIAL_MAX_CLEAN / 4);
}

/* Read what is there (waiting until deadline_ms for something).
 * 0: read something; -ETIMEDOUT; -EPIPE at end of stream; -errno. */
static int s_pump(serial_t *s, long long deadline_ms)
{
	struct pollfd pfd = { .fd = s->fd, .events = POLLIN };
	long long left = deadline_ms - s_now_ms();
	ssize_t n;
	int r;

	if (s->eof)
		return -EPIPE;
	if (left < 0)
		left = 0;
	r = poll(&pfd, 1, left > 60000 ? 60000 : (int)left);
	if (r < 0)
		return errno == EINTR ? 0 : -errno;
	if (r == 0)
		return s_now_ms() >= deadline_ms ? -ETIMEDOUT : 0;
	n = read(s->fd, s->rbuf, sizeof(s->rbuf));
	if (n < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -errno;
	if (n == 0) {
		s->eof = true;
		return -EPIPE;
	}
	if (s->t->console_fn)
		s->t->console_fn(s->t->console_arg, TRANSPORT_STDOUT, s->rbuf,
				 (size_t)n);
	serial_scan_feed(&s->scan, s->rbuf, (size_t)n, s_on_clean, s);
	return 0;
}

/* ---- writing ---- */

static int s_write_all(serial_t *s, const char *p, size_t len,
		       long long deadline_ms)
{
	while (len) {
		struct pollfd pfd = { .fd = s->fd, .events = POLLIN | POLLOUT };
		long long left = deadline_ms - s_now_ms();
		ssize_t n;
		int r;

		if (left <= 0)
			return -ETIMEDOUT;
		r = poll(&pfd, 1, left > 60000 ? 60000 : (int)left);
		if (r < 0 && errno != EINTR)
			return -errno;
		if (r <= 0)
			continue;
		if (pfd.revents & POLLIN) {
			r = s_pump(s, s_now_ms());
			if (r < 0 && r != -ETIMEDOUT)
				return r;
		}
		if (!(pfd.revents & (POLLOUT | POLLERR | POLLHUP)))
			continue;
		n = write(s->fd, p, len);
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int s_send(serial_t *s, const char *str, long long deadline_ms)
{
	return s_write_all(s, str, strlen(str), deadline_ms);
}

/* ---- prompt synchronisation ---- */

/* Type the set-up line with a probe and wait for its marker; retried
 * every SERIAL_PROBE_MS until the deadline (the shell may not be up). */
static int s_sync(serial_t *s, long long deadline_ms)
{
	const char *wd = s->t->board->transport.workdir;
	char *cd = NULL;
	int r = -ETIMEDOUT;

	if (wd && *wd) {
		char *q = serial_quote(wd);

		cd = xasprintf("mkdir -p %s 2>/dev/null; cd %s 2>/dev/null; ", q, q);
		free(q);
	}
	while (s_now_ms() < deadline_ms) {
		char nonce[SERIAL_NONCE_LEN + 1], want[SERIAL_MARKER_MAX], *line;
		long long until = s_now_ms() + SERIAL_PROBE_MS;
		const char *p = NULL;

		s_nonce(nonce);
		snprintf(want, sizeof(want), "lm-p%s ", nonce);
		line = xasprintf(
			"stty -echo -opost 2>/dev/null && lm_o=1 || lm_o=0; PS1=; PS2=; "
			"[ \"$(cat /sys/module/printk/parameters/time 2>/dev/null)\" = N ] && "
			"echo Y 2>/dev/null >/sys/module/printk/parameters/time; %s"
			"printf '%%s%%s %%s\\n' lm-p %s $lm_o\n",
			cd ? cd : "", nonce);
		r = s_send(s, line, deadline_ms);
		free(line);
		if (r < 0)
			break;
		if (until > deadline_ms)
			until = deadline_ms;
		while (!(p = s_find(&s->clean, want))) {
			if (s->t->board->transport.login &&
			    s_find(&s->clean, "ogin incorrect")) {
				transport_set_error(s->t, "login incorrect");
				r = -EACCES;
				goto out;
			}
			r = s_pump(s, until);
			if (r == -ETIMEDOUT || (r == 0 && s_now_ms() >= until))
				break;
			if (r < 0)
				goto out;
		}
		if (p && (size_t)(p - (const char *)s->clean.data) + strlen(want) <
				 s->clean.len) {
			char mode = p[strlen(want)];

			s->scan.crlf = mode != '1';
			buf_reset(&s->clean);
			r = 0;
			goto out;
		}
		r = -ETIMEDOUT;
	}
out:
	free(cd);
	if (r == -EACCES)
		return r;
	if (r == -ETIMEDOUT)
		transport_set_error(s->t, "no shell prompt on the console");
	else if (r < 0)
		transport_set_error(s->t, "console: %s", strerror(-r));
	return r;
}

/* Answer login: and Password: prompts when the board has a login. */
static int s_login(serial_t *s, long long deadline_ms)
{
	const lab_transport_t *tr = &s->t->board->transport;
	bool sent_user = false, nudged = false;
	long long until = s_now_ms() + SERIAL_LOGIN_WAIT_MS / 3;
	int r;

	while (s_now_ms() < deadline_ms) {
		r = s_pump(s, until < deadline_ms ? until : deadline_ms);
		if (r < 0 && r != -ETIMEDOUT)
			return r;
		if (s_find(&s->clean, "ogin incorrect")) {
			transport_set_error(s->t, "login incorrect");
			return -EACCES;
		}
		if (!sent_user && s_find(&s->clean, "login:")) {
			char *l = xasprintf("%s\n", tr->login);

			buf_reset(&s->clean);
			r = s_send(s, l, deadline_ms);
			free(l);
			if (r < 0)
				return r;
			sent_user = true;
			until = s_now_ms() + SERIAL_LOGIN_WAIT_MS;
		} else if (sent_user && s_find(&s->clean, "assword:")) {
			char *l = xasprintf("%s\n", tr->login_password ? tr->login_password
								       : "");

			buf_reset(&s->clean);
			r = s_send(s, l, deadline_ms);
			explicit_bzero(l, strlen(l));
			free(l);
			return r;
		} else if (s_now_ms() >= until) {
			/* quiet: a getty shows its prompt again on a newline;
			 * still quiet after that, or no password asked: go on */
			if (sent_user || nudged)
				return 0;
			if ((r = s_send(s, "\n", deadline_ms)) < 0)
				return r;
			nudged = true;
			until = s_now_ms() + SERIAL_LOGIN_WAIT_MS;
		}
	}
	return 0;
}

/* ---- connecting ---- */

static const struct {
	int baud;
	speed_t speed;
} s_bauds[] = {
	{ 1200, B1200 },       { 2400, B2400 },       { 4800, B4800 },
	{ 9600, B9600 },       { 19200, B19200 },     { 38400, B38400 },
	{ 57600, B57600 },     { 115200, B115200 },   { 230400, B230400 },
	{ 460800, B460800 },   { 500000, B500000 },   { 921600, B921600 },
	{ 1000000, B1000000 }, { 1500000, B1500000 }, { 2000000, B2000000 },
	{ 3000000, B3000000 }, { 4000000, B4000000 },
};

static int s_termios(transport_t *t, int fd, int baud)
{
	struct termios tio;
	size_t i;

	if (tcgetattr(fd, &tio) < 0) {
		transport_set_error(t, "tcgetattr: %s", strerror(errno));
		return -errno;
	}
	cfmakeraw(&tio);
	tio.c_cflag &= ~(tcflag_t)(CSTOPB | PARENB | CRTSCTS | CSIZE);
	tio.c_cflag |= CS8 | CLOCAL | CREAD;
	tio.c_iflag &= ~(tcflag_t)(IXON | IXOFF | IXANY);
	tio.c_cc[VMIN] = 1;
	tio.c_cc[VTIME] = 0;
	if (baud > 0) {
		for (i = 0; i < sizeof(s_bauds) / sizeof(s_bauds[0]); i++) {
			if (s_bauds[i].baud == baud)
				break;
		}
		if (i == sizeof(s_bauds) / sizeof(s_bauds[0])) {
			transport_set_error(t, "unsupported baud rate %d", baud);
			return -EINVAL;
		}
		cfsetispeed(&tio, s_bauds[i].speed);
		cfsetospeed(&tio, s_bauds[i].speed);
	}
	if (tcsetattr(fd, TCSANOW, &tio) < 0) {
		transport_set_error(t, "tcsetattr: %s", strerror(errno));
		return -errno;
	}
	tcflush(fd, TCIOFLUSH);
	return 0;
}

static int s_open_tty(transport_t *t, const char *path, int baud, int *ret_fd)
{
	int fd = open(path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	int r;

	if (fd < 0) {
		transport_set_error(t, "%s: %s", path, strerror(errno));
		return -errno;
	}
	r = s_termios(t, fd, baud);
	if (r < 0) {
		close(fd);
		return r;
	}
	*ret_fd = fd;
	return 0;
}

/* Non-blocking connect with a deadline. */
static int s_connect(transport_t *t, int fd, const struct sockaddr *sa,
		     socklen_t len, long long deadline_ms, const char *what)
{
	struct pollfd pfd = { .fd = fd, .events = POLLOUT };
	socklen_t sl = sizeof(int);
	int err = 0;

	if (connect(fd, sa, len) == 0)
		return 0;
	if (errno != EINPROGRESS) {
		transport_set_error(t, "connect %s: %s", what, strerror(errno));
		return -errno;
	}
	if (poll(&pfd, 1, (int)(deadline_ms - s_now_ms())) <= 0) {
		transport_set_error(t, "connect %s: timed out", what);
		return -ETIMEDOUT;
	}
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &sl) < 0 || err) {
		transport_set_error(t, "connect %s: %s", what, strerror(err ? err : errno));
		return err ? -err : -errno;
	}
	return 0;
}

static int s_open_unix(transport_t *t, const char *path, long long deadline_ms,
		       int *ret_fd)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd, r;

	if (strlen(path) >= sizeof(sun.sun_path)) {
		transport_set_error(t, "unix socket path too long: %s", path);
		return -ENAMETOOLONG;
	}
	memcpy(sun.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	r = s_connect(t, fd, (struct sockaddr *)&sun, sizeof(sun), deadline_ms, path);
	if (r < 0) {
		close(fd);
		return r;
	}
	*ret_fd = fd;
	return 0;
}

static int s_open_tcp(transport_t *t, const char *host, int port,
		      long long deadline_ms, int *ret_fd)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res, *ai;
	char ps[16], what[300];
	int r, fd = -1;

	if (port <= 0 || port > 65535) {
		transport_set_error(t, "bad TCP port %d", port);
		return -EINVAL;
	}
	snprintf(ps, sizeof(ps), "%d", port);
	snprintf(what, sizeof(what), "%s:%d", host, port);
	r = getaddrinfo(host, ps, &hints, &res);
	if (r != 0) {
		transport_set_error(t, "%s: %s", what, gai_strerror(r));
		return -EHOSTUNREACH;
	}
	r = -EHOSTUNREACH;
	for (ai = res; ai; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
			    ai->ai_protocol);
		if (fd < 0)
			continue;
		r = s_connect(t, fd, ai->ai_addr, ai->ai_addrlen, deadline_ms, what);
		if (r == 0)
			break;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd < 0)
		return r;
	*ret_fd = fd;
	return 0;
}

static int s_run_op(transport_t *t, const char *cmd, int timeout_ms,
		    transport_output_fn *fn, void *arg, int *ret_status);
static void s_close_op(transport_t *t);

static const struct transport_ops s_ops = {
	.name = "serial",
	.run = s_run_op,
	.put = serial_put,
	.get = serial_get,
	.close = s_close_op,
};

int serial_open_fd_timeout(transport_t *t, int fd, bool own_fd, int timeout_ms)
{
	const lab_transport_t *tr = &t->board->transport;
	long long deadline = s_now_ms() + timeout_ms;
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
	buf_init(&s->clean, 0); /* bounded by s_on_clean and the framing */
	t->priv = s;
	t->ops = &s_ops;
	r = 0;
	if (tr->login && *tr->login)
		r = s_login(s, deadline);
	if (r == 0)
		r = s_sync(s, deadline);
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

int serial_open(transport_t *t)
{
	const lab_transport_t *tr = &t->board->transport;
	int secs = tr->connect_timeout_s > 0 ? tr->connect_timeout_s
					     : SERIAL_CONNECT_TIMEOUT_S;
	long long deadline = s_now_ms() + 1000LL * secs;
	int fd = -1, r;

	switch (tr->serial_kind) {
	case LAB_SERIAL_TTY:
	case LAB_SERIAL_PTY:
		if (!tr->device) {
			transport_set_error(t, "serial: no device");
			return -EINVAL;
		}
		r = s_open_tty(t, tr->device,
			       tr->serial_kind == LAB_SERIAL_TTY
				       ? (tr->baud > 0 ? tr->baud : 115200)
				       : 0,
			       &fd);
		break;
	case LAB_SERIAL_UNIX:
		if (!tr->device) {
			transport_set_error(t, "serial: no socket path");
			return -EINVAL;
		}
		r = s_open_unix(t, tr->device, deadline, &fd);
		break;
	case LAB_SERIAL_TCP:
		r = s_open_tcp(t, tr->tcp_host ? tr->tcp_host : "127.0.0.1",
			       tr->tcp_port, deadline, &fd);
		break;
	case LAB_SERIAL_QEMU:
	default:
		transport_set_error(t, "serial: the QEMU console is opened by the qemu boot method");
		return -EINVAL;
	}
	if (r < 0)
		return r;
	return serial_open_fd_timeout(t, fd, true, (int)(deadline - s_now_ms()));
}

/* ---- running ---- */

static bool s_typeable(const char *cmd)
{
	size_t line = 0;

	for (const unsigned char *p = (const unsigned char *)cmd; *p; p++) {
		if (*p == '\n') {
			line = 0;
			continue;
		}
		if ((*p < 0x20 && *p != '\t') || *p == 0x7f)
			return false;
		if (++line > SERIAL_MAX_INPUT_LINE)
			return false;
	}
	return true;
}

/* After a timeout: interrupt, then find the prompt again. */
static int s_interrupt(serial_t *s)
{
	long long deadline = s_now_ms() + SERIAL_RESYNC_MS;
	int r;

	s->frame = NULL;
	r = s_send(s, "\003", deadline);
	if (r == 0) {
		usleep(100 * 1000);
		r = s_sync(s, deadline);
	}
	return r;
}

static int s_wait_frame(serial_t *s, s_frame_t *f, long long deadline)
{
	int r = 0;

	while (f->phase != S_DONE) {
		r = s_pump(s, deadline);
		if (r == -ETIMEDOUT || (r == 0 && s_now_ms() >= deadline &&
					f->phase != S_DONE))
			return -ETIMEDOUT;
		if (r < 0)
			return r;
	}
	return 0;
}

int serial_run_ex(transport_t *t, const char *cmd, int timeout_ms,
		  transport_output_fn *fn, void *arg, bool stdin_console,
		  const char *data, size_t len, int *ret_status)
{
	serial_t *s = s_of(t);
	long long deadline = timeout_ms > 0 ? s_now_ms() + timeout_ms
					    : SERIAL_NO_DEADLINE;
	char nonce[SERIAL_NONCE_LEN + 1], *line;
	s_frame_t f = { .fn = fn, .arg = arg, .phase = S_START };
	int r;

	if (strlen(cmd) > SERIAL_MAX_CMD || !s_typeable(cmd)) {
		transport_set_error(t, "command cannot be typed on a console "
				       "(control characters or a line over %d bytes)",
				    SERIAL_MAX_INPUT_LINE);
		return -EINVAL;
	}
	s_nonce(nonce);
	snprintf(f.start, sizeof(f.start), "lm-s%s\n", nonce);
	snprintf(f.end, sizeof(f.end), "\nlm-e%s ", nonce);
	line = xasprintf("printf '%%s%%s\\n' lm-s %s;(%s\n)%s;"
			 "printf '\\n%%s%%s %%d\\n' lm-e %s $?\n",
			 nonce, cmd, stdin_console ? "" : " </dev/null", nonce);
	buf_reset(&s->clean);
	s->frame = &f;
	r = s_send(s, line, deadline);
	free(line);
	if (r == 0 && data && len)
		r = s_write_all(s, data, len, deadline);
	if (r == 0)
		r = s_wait_frame(s, &f, deadline);
	s->frame = NULL;
	if (r == -ETIMEDOUT) {
		int rs = s_interrupt(s);

		if (rs < 0) {
			transport_set_error(t, "timed out, and the console did not "
					       "come back after Ctrl-C");
			return -EIO;
		}
		transport_set_error(t, "timed out after %d ms", timeout_ms);
		return -ETIMEDOUT;
	}
	if (r < 0) {
		transport_set_error(t, "console: %s", strerror(-r));
		return r;
	}
	if (f.bad) {
		transport_set_error(t, "garbled end marker on the console");
		return -EPROTO;
	}
	*ret_status = f.status;
	return 0;
}

static int s_run_op(transport_t *t, const char *cmd, int timeout_ms,
		    transport_output_fn *fn, void *arg, int *ret_status)
{
	return serial_run_ex(t, cmd, timeout_ms, fn, arg, false, NULL, 0, ret_status);
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
	serial_scan_free(&s->scan);
	buf_free(&s->clean);
	free(s);
	t->priv = NULL;
}
