/*
 * serial_conlog: the board's console as the lab keeps it (the run's
 * "console" log), without the session labmesh holds on it.
 *
 * Until the session is set up (serial_sync), the console is the board's
 * boot: firmware, the kernel's first line on, init, a shell banner. What
 * labmesh typed meanwhile comes back there too: the tty echoes the set-up
 * line once a shell opens the console (busybox wraps it at 80 columns, or
 * glues it to what init prints next), and every probe the shell runs
 * prints its answer "lm-pNONCE 1". Those are cut out: a run of at least
 * CONLOG_MIN_RUN bytes of a line that is a piece of the set-up line as
 * typed (nonces compared as any capital letters), or a shorter piece that
 * is the whole line (the end of a wrapped echo), and the probe answers; a
 * line left blank by that goes. The run is long enough that no kernel
 * line loses a word it shares with the set-up line ("printk", "PREEMPT"
 * against a nonce, "/dev/null").
 * Once the session is up, the console carries the conversation (typed
 * commands, markers, their output, which each suite's log keeps) and the
 * kernel's records, which alone are kept: a segment from a printk
 * timestamp to a "\r\n", as serial_scan cuts them.
 *
 * Bounded: a line is held up to SERIAL_MAX_LINE bytes (a longer one is
 * passed on in pieces, unscrubbed), and the search for the typed text in
 * one line stops after CONLOG_MAX_WORK comparisons.
 */
#include "transports/serial.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define CONLOG_MIN_RUN 24         /* bytes of typed text cut from a line */
#define CONLOG_MAX_WORK 4000000   /* comparisons per line */

void serial_conlog_init(serial_conlog_t *cl)
{
	memset(cl, 0, sizeof(*cl));
	buf_init(&cl->line, 0); /* bounded by serial_conlog_feed */
}

void serial_conlog_free(serial_conlog_t *cl)
{
	buf_free(&cl->line);
}

/* Capitals are the nonces' letters: any capital matches any. */
static char s_norm(char c)
{
	return c >= 'A' && c <= 'Z' ? 'X' : c;
}

void serial_conlog_typed(serial_conlog_t *cl, const char *line)
{
	size_t n = 0;

	if (cl->typed_len)
		return; /* the set-up line's shape does not change */
	for (; line[n] && line[n] != '\n' && n < sizeof(cl->typed) - 1; n++)
		cl->typed[n] = s_norm(line[n]);
	cl->typed[n] = '\0';
	cl->typed_len = n;
}

void serial_conlog_session(serial_conlog_t *cl, bool up)
{
	cl->session = up;
}

/* The longest run of p[0..n) that is a piece of the typed line. */
static size_t s_typed_run(const serial_conlog_t *cl, const char *p, size_t n,
			  size_t *work)
{
	size_t best = 0;

	for (size_t j = 0; j < cl->typed_len && *work < CONLOG_MAX_WORK; j++) {
		size_t k = 0;

		while (k < n && j + k < cl->typed_len &&
		       s_norm(p[k]) == cl->typed[j + k])
			k++;
		*work += k + 1;
		if (k > best)
			best = k;
	}
	return best;
}

/* "lm-p" NONCE " " DIGIT: a probe's answer. */
static bool s_probe_answer(const char *p, size_t n)
{
	if (n != 4 + SERIAL_NONCE_LEN + 2 || memcmp(p, "lm-p", 4) != 0)
		return false;
	for (size_t i = 4; i < 4 + SERIAL_NONCE_LEN; i++)
		if (p[i] < 'A' || p[i] > 'Z')
			return false;
	return p[n - 2] == ' ' && isdigit((unsigned char)p[n - 1]);
}

/* The line without the typed text in it, into out (as long as p). */
static size_t s_scrub(const serial_conlog_t *cl, const char *p, size_t n,
		      char *out, bool *ret_cut)
{
	size_t i = 0, o = 0, work = 0;

	while (i < n) {
		size_t run = cl->typed_len ? s_typed_run(cl, p + i, n - i, &work) : 0;

		if (run >= CONLOG_MIN_RUN || (run >= 2 && run == n)) {
			i += run;
			*ret_cut = true;
			continue;
		}
		out[o++] = p[i++];
	}
	return o;
}

static bool s_blank(const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isspace((unsigned char)p[i]))
			return false;
	return true;
}

/* A line of the boot (with its "\n"; body is without "\r\n"). */
static void s_boot_line(serial_conlog_t *cl, const char *p, size_t len,
			size_t body, serial_emit_fn *emit, void *arg)
{
	char *out;
	size_t o;
	bool cut = false;

	if (s_probe_answer(p, body))
		return;
	if (!cl->typed_len) {
		emit(arg, p, len);
		return;
	}
	out = malloc(body + 2);
	if (!out)
		return;
	o = s_scrub(cl, p, body, out, &cut);
	if (!cut) {
		emit(arg, p, len);
	} else if (!s_blank(out, o)) {
		out[o++] = '\n';
		emit(arg, out, o);
	}
	free(out);
}

/* A line while the session is up: its kernel record, if it has one. */
static void s_session_line(const char *p, size_t len, serial_emit_fn *emit,
			   void *arg)
{
	if (len < 2 || p[len - 2] != '\r')
		return; /* ours: the shell's output ends in a bare "\n" */
	for (size_t i = len - 2; i-- > 0;) {
		if (p[i] == '[' && serial_scan_ts(p + i, len - i) > 0) {
			emit(arg, p + i, len - i);
			return;
		}
	}
}

static void s_line(serial_conlog_t *cl, const char *p, size_t len,
		   serial_emit_fn *emit, void *arg)
{
	size_t body = len;

	while (body && (p[body - 1] == '\n' || p[body - 1] == '\r'))
		body--;
	if (cl->session)
		s_session_line(p, len, emit, arg);
	else
		s_boot_line(cl, p, len, body, emit, arg);
}

void serial_conlog_feed(serial_conlog_t *cl, const char *data, size_t len,
			serial_emit_fn *emit, void *arg)
{
	while (len) {
		const char *nl = memchr(data, '\n', len);
		size_t n = nl ? (size_t)(nl - data) + 1 : len;

		if (cl->line.len + n > SERIAL_MAX_LINE) {
			/* too long for an echo or a kernel record: the boot
			 * passes it on as it is, the session drops it */
			if (!cl->session) {
				emit(arg, (const char *)cl->line.data, cl->line.len);
				emit(arg, data, n);
			}
			buf_reset(&cl->line);
		} else {
			buf_append(&cl->line, data, n);
			if (nl) {
				s_line(cl, (const char *)cl->line.data,
				       cl->line.len, emit, arg);
				buf_reset(&cl->line);
			}
		}
		data += n;
		len -= n;
	}
}

void serial_conlog_flush(serial_conlog_t *cl, serial_emit_fn *emit, void *arg)
{
	if (cl->line.len && !cl->session)
		s_line(cl, (const char *)cl->line.data, cl->line.len, emit, arg);
	buf_reset(&cl->line);
}
