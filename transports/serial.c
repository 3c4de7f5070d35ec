/*
 * serial: the serial console transport — a tty device (termios: baud, 8N1,
 * raw, no flow control), a pty path, a unix stream socket, raw TCP (as
 * ser2net serves it; those four are reached in serial_connect.c) or an
 * already open fd (the QEMU console). This file is the conversation with
 * the console's shell; the ops table, opening the session on an fd and
 * closing it, and the target's tools are in serial_ops.c, the session's
 * state in serial_int.h.
 *
 * Layout: the per-command framing (the markers in the clean bytes);
 * reading (every byte goes to the console log, then through the scanner
 * that cuts kernel records out, then to whoever waits: the prompt probe
 * or the running command's framing); writing (always reading meanwhile,
 * so neither side can block the other); prompt synchronisation; login;
 * running a command (typed and framed, or as a script when it cannot be
 * typed: the run op); the raw line benchmarks compare against.
 *
 * Session set-up types one line: `stty -echo -opost` (no echo, no line
 * editing in busybox, bare "\n" on output), empty prompts, fd 9 on
 * /dev/null, the session's nonce (lm_n, random per set-up) and two marker
 * functions, printk timestamps on, then a probe that prints a marker with
 * that nonce. Every byte typed costs console time (a QEMU UART takes
 * ~80 KiB/s) and every fork costs several console round trips on an
 * emulated board, so a command is typed as short as it can be:
 *   _s;CMD <&9;_e            (a simple command: serial_cmd_simple())
 *   _s;(CMD
 *   )<&9;_e                  (anything else, in a subshell)
 * where _s prints "lmNONCE" and _e prints "\nlmNONCE STATUS" ($? on entry
 * to a function is the status of the command before it). The typed line
 * (should the console echo it) never contains a marker, and the nonce is
 * new after every set-up (a timeout's too), so nothing a command prints
 * by accident ends it early. The output is exactly the bytes between the
 * start line and the "\n" before the end marker; the exit status is on
 * the end marker line. A timeout types Ctrl-C and re-synchronises with a
 * new probe.
 */
#include "transports/serial.h"
#include "transports/serial_int.h"
#include "transports/proc.h"

#include "proto/log.h"
#include "proto/mem.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#define SERIAL_PROBE_MS 500         /* between set-up probes */
#define SERIAL_RESYNC_MS 15000      /* after Ctrl-C, to a prompt again */
#define SERIAL_LOGIN_WAIT_MS 3000   /* for a login/password prompt */
#define SERIAL_MAX_CLEAN (256 * 1024)
#define SERIAL_MARKER_MAX 64
#define SERIAL_STATUS_MAX 8          /* chars of an end marker's status */
#define SERIAL_NO_DEADLINE (1LL << 62)

enum s_phase { S_START, S_BODY, S_STATUS, S_DONE };

typedef struct serial_frame {
	char start[SERIAL_MARKER_MAX]; /* "lm<nonce>\n" */
	char end[SERIAL_MARKER_MAX];   /* "\nlm<nonce> " */
	enum s_phase phase;
	transport_output_fn *fn;
	void *arg;
	int status;
	bool bad; /* the end marker line did not parse */
} s_frame_t;

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

static void s_consume(buf_t *b, size_t n)
{
	if (n == 0 || !b->data)
		return;
	memmove(b->data, b->data + n, b->len - n);
	b->len -= n;
	b->data[b->len] = '\0';
}

static const char *s_find(const buf_t *b, const char *needle)
{
	if (!b->data || !b->len)
		return NULL;
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
		if (c->len > el + SERIAL_STATUS_MAX)
			f->bad = true, f->phase = S_DONE;
		return;
	}
	/* the same bound when the whole line is there: how the bytes were
	 * chunked must not change the verdict */
	v = strtol((const char *)c->data + el, &endp, 10);
	if (endp != nl || endp == (const char *)c->data + el || v < 0 ||
	    v > 255 || nl - ((const char *)c->data + el) > SERIAL_STATUS_MAX)
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
		serial_conlog_feed(&s->conlog, s->rbuf, (size_t)n,
				   serial_console_emit, s->t);
	serial_scan_feed(&s->scan, s->rbuf, (size_t)n, s_on_clean, s);
	return 0;
}

void serial_console_emit(void *arg, const char *data, size_t len)
{
	transport_t *t = arg;

	if (len && t->console_fn)
		t->console_fn(t->console_arg, TRANSPORT_STDOUT, data, len);
}

/* ---- writing ---- */

/* Read what is left: until the end of the stream, an error, or a second
 * has gone by. */
static void s_drain(serial_t *s)
{
	long long until = s_now_ms() + 1000;

	while (s_pump(s, until) == 0) /* -ETIMEDOUT past until */
		;
}

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
			int e = errno;

			if (e == EAGAIN || e == EINTR)
				continue;
			/* the far end is gone (a console server or socket
			 * that closed): what it sent first is still to be
			 * read, and belongs in the console log */
			if (e == EPIPE || e == ECONNRESET || e == EIO)
				s_drain(s);
			return -e;
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
int serial_sync(serial_t *s, long long deadline_ms)
{
	const char *wd = s->t->board->transport.workdir;
	char *cd = NULL;
	int r = -ETIMEDOUT;

	if (wd && *wd) {
		char *q = proc_shell_quote(wd);

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
			"exec 9</dev/null; lm_n=%s; _s(){ echo lm$lm_n;}; "
			"_e(){ printf '\\nlm%%s %%d\\n' $lm_n $?;}; "
			"[ \"$(cat /sys/module/printk/parameters/time 2>/dev/null)\" = N ] && "
			"echo Y 2>/dev/null >/sys/module/printk/parameters/time; %s"
			"printf '%%s%%s %%s\\n' lm-p %s $lm_o\n",
			nonce, cd ? cd : "", nonce);
		serial_conlog_typed(&s->conlog, line);
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
			memcpy(s->nonce, nonce, sizeof(s->nonce));
			buf_reset(&s->clean);
			serial_conlog_session(&s->conlog, true);
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
int serial_login(serial_t *s, long long deadline_ms)
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
	/* ESC first: should the last byte sent have been a literal-next
	 * (^V) or half of QEMU's doubled ^A, ESC is what it takes (a
	 * character for the read, an unknown command for QEMU), and the
	 * interrupt flushes it with the rest of the line */
	r = s_send(s, "\033\003", deadline);
	if (r == 0) {
		usleep(100 * 1000);
		r = serial_sync(s, deadline);
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

/* Watches a command's output for the token that says the target reads
 * its input now, and passes the output on. */
typedef struct {
	const char *token;
	char tail[SERIAL_MARKER_MAX]; /* the last bytes, for a split token */
	size_t ntail;
	bool seen;
	transport_output_fn *fn;
	void *arg;
} s_ready_t;

static void s_ready_fn(void *arg, enum transport_stream st, const char *data,
		       size_t len)
{
	s_ready_t *w = arg;
	size_t tl = w->token ? strlen(w->token) : 0;

	if (tl && !w->seen) {
		char win[2 * SERIAL_MARKER_MAX];
		size_t head = len < tl - 1 ? len : tl - 1, n = w->ntail + head;
		size_t keep = n < tl - 1 ? n : tl - 1;

		memcpy(win, w->tail, w->ntail);
		memcpy(win + w->ntail, data, head);
		w->seen = memmem(win, n, w->token, tl) || memmem(data, len, w->token, tl);
		if (len >= tl - 1)
			memcpy(w->tail, data + len - keep, keep);
		else
			memcpy(w->tail, win + n - keep, keep);
		w->ntail = keep;
	}
	if (w->fn)
		w->fn(w->arg, st, data, len);
}

/* Type the framed command line; see the file-top comment. */
static int s_type_cmd(serial_t *s, const char *cmd, bool stdin_console,
		      long long deadline)
{
	char *line;
	int r;

	if (!stdin_console && serial_cmd_simple(cmd))
		line = xasprintf("_s;%s <&9;_e\n", cmd);
	else
		line = xasprintf("_s;(%s\n)%s;_e\n", cmd, stdin_console ? "" : "<&9");
	r = s_send(s, line, deadline);
	free(line);
	return r;
}

/* Pump until the ready token went by or the command ended. */
static int s_wait_ready(serial_t *s, s_frame_t *f, s_ready_t *w,
			long long deadline)
{
	int r;

	while (!w->seen && f->phase != S_DONE) {
		r = s_pump(s, deadline);
		if (r == 0 && s_now_ms() >= deadline && !w->seen && f->phase != S_DONE)
			r = -ETIMEDOUT;
		if (r < 0)
			return r;
	}
	return 0;
}

static int s_run_end(transport_t *t, s_frame_t *f, int r, int timeout_ms,
		     int *ret_status)
{
	if (r == -ETIMEDOUT) {
		int rs = s_interrupt(s_of(t));

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
	if (f->bad) {
		transport_set_error(t, "garbled end marker on the console");
		return -EPROTO;
	}
	*ret_status = f->status;
	return 0;
}

int serial_run_feed(transport_t *t, const char *cmd, int timeout_ms,
		    const char *ready, serial_feed_fn *feed, void *feed_arg,
		    transport_output_fn *fn, void *arg, int *ret_status)
{
	serial_t *s = s_of(t);
	long long deadline = timeout_ms > 0 ? s_now_ms() + timeout_ms
					    : SERIAL_NO_DEADLINE;
	s_ready_t w = { .token = ready, .seen = !ready, .fn = fn, .arg = arg };
	s_frame_t f = { .fn = s_ready_fn, .arg = &w, .phase = S_START };
	int r;

	if (strlen(cmd) > SERIAL_MAX_CMD || !s_typeable(cmd) ||
	    (ready && strlen(ready) >= SERIAL_MARKER_MAX)) {
		transport_set_error(t, "command cannot be typed on a console "
				       "(control characters or a line over %d bytes)",
				    SERIAL_MAX_INPUT_LINE);
		return -EINVAL;
	}
	if (s->need_sync) {
		/* whatever was left running at the console: interrupted */
		r = s_interrupt(s);
		if (r < 0)
			return r;
		s->need_sync = false;
	}
	snprintf(f.start, sizeof(f.start), "lm%s\n", s->nonce);
	snprintf(f.end, sizeof(f.end), "\nlm%s ", s->nonce);
	buf_reset(&s->clean);
	s->frame = &f;
	r = s_type_cmd(s, cmd, feed != NULL, deadline);
	if (r == 0 && feed)
		r = s_wait_ready(s, &f, &w, deadline);
	if (r == 0 && feed && w.seen && f.phase != S_DONE)
		r = feed(t, feed_arg, deadline);
	if (r == 0)
		r = s_wait_frame(s, &f, deadline);
	s->frame = NULL;
	return s_run_end(t, &f, r, timeout_ms, ret_status);
}

int serial_write(transport_t *t, const void *data, size_t len,
		 long long deadline_ms)
{
	return s_write_all(s_of(t), data, len, deadline_ms);
}

long long serial_now_ms(void)
{
	return s_now_ms();
}

const char *serial_nonce(transport_t *t)
{
	return s_of(t)->nonce;
}

typedef struct {
	const char *data;
	size_t len;
} s_bytes_t;

static int s_feed_bytes(transport_t *t, void *arg, long long deadline_ms)
{
	s_bytes_t *b = arg;

	return b->len ? serial_write(t, b->data, b->len, deadline_ms) : 0;
}

int serial_run_ex(transport_t *t, const char *cmd, int timeout_ms,
		  transport_output_fn *fn, void *arg, bool stdin_console,
		  const char *data, size_t len, int *ret_status)
{
	s_bytes_t b = { .data = data, .len = data ? len : 0 };

	return serial_run_feed(t, cmd, timeout_ms, NULL,
			       stdin_console ? s_feed_bytes : NULL, &b, fn, arg,
			       ret_status);
}

/*
 * A command that cannot be typed (a line longer than the tty's canonical
 * buffer, control characters) is put on the target as a script and
 * sourced in the same subshell, so it behaves the same.
 */
static int s_run_script(transport_t *t, const char *cmd, int timeout_ms,
			transport_output_fn *fn, void *arg, int *ret_status)
{
	char nonce[SERIAL_NONCE_LEN + 1], *local, *remote, *run, *rm;
	size_t len = strlen(cmd);
	int fd, r, st;

	s_nonce(nonce);
	local = xasprintf("%s/lm-cmd-%s.sh", t->workdir, nonce);
	remote = xasprintf("/tmp/lm-cmd-%s.sh", nonce);
	fd = open(local, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || write(fd, cmd, len) != (ssize_t)len || write(fd, "\n", 1) != 1) {
		r = -errno;
		transport_set_error(t, "%s: %s", local, strerror(errno));
		if (fd >= 0)
			close(fd);
		goto out;
	}
	close(fd);
	r = serial_put(t, local, remote);
	run = xasprintf(". %s", remote);
	if (r == 0)
		r = serial_run_ex(t, run, timeout_ms, fn, arg, false, NULL, 0, ret_status);
	rm = xasprintf("rm -f %s", remote);
	if (r != -EIO && r != -EPIPE)
		serial_run_ex(t, rm, 10000, NULL, NULL, false, NULL, 0, &st);
	free(run);
	free(rm);
out:
	unlink(local);
	free(local);
	free(remote);
	return r;
}

int serial_run(transport_t *t, const char *cmd, int timeout_ms,
		    transport_output_fn *fn, void *arg, int *ret_status)
{
	if (!s_typeable(cmd) && strlen(cmd) <= SERIAL_MAX_CMD)
		return s_run_script(t, cmd, timeout_ms, fn, arg, ret_status);
	return serial_run_ex(t, cmd, timeout_ms, fn, arg, false, NULL, 0, ret_status);
}

int serial_raw_line(transport_t *t, const char *typed, const char *token,
		    int timeout_ms)
{
	serial_t *s = s_of(t);
	long long deadline = s_now_ms() + timeout_ms;
	char *want = xasprintf("%s\n", token);
	int r;

	buf_reset(&s->clean);
	r = s_send(s, typed, deadline);
	while (r == 0 && !s_find(&s->clean, want))
		r = s_pump(s, deadline);
	buf_reset(&s->clean);
	free(want);
	return r;
}
