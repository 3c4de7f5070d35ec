/*
 * serial_scan: cut kernel console records out of a console stream (see
 * serial.h for why this works). Bytes are held only while they could
 * still be the start of a record: from a '[' that begins (or may begin) a
 * printk timestamp, until a newline decides — a bare "\n" means it was
 * ours, a "\r\n" means the segment from the last timestamp before it is a
 * kernel record. A candidate longer than SERIAL_MAX_LINE is ours.
 */
#include "transports/serial.h"

#include <string.h>

void serial_scan_init(serial_scan_t *sc, bool crlf)
{
	buf_init(&sc->hold, 0); /* bounded by the logic: <= MAX_LINE + chunk */
	sc->crlf = crlf;
	sc->kernel_records = 0;
}

void serial_scan_free(serial_scan_t *sc)
{
	buf_free(&sc->hold);
}

static bool s_digit(char c)
{
	return c >= '0' && c <= '9';
}

int serial_scan_ts(const char *p, size_t n)
{
	size_t i = 1, d;

	if (n == 0 || p[0] != '[')
		return -1;
	while (i < n && p[i] == ' ')
		i++;
	for (d = 0; i < n && s_digit(p[i]); i++)
		d++;
	if (i == n)
		return 0;
	if (d == 0 || p[i] != '.')
		return -1;
	for (i++, d = 0; i < n && s_digit(p[i]); i++)
		d++;
	if (i == n)
		return 0;
	if (d == 0 || p[i] != ']')
		return -1;
	return (int)(i + 1);
}

/* Emit [from, to) of p, turning "\r\n" into "\n" when the tty adds \r. */
static void s_emit(serial_scan_t *sc, const char *p, size_t from, size_t to,
		   serial_emit_fn *emit, void *arg)
{
	size_t start = from;

	if (!sc->crlf) {
		if (to > from)
			emit(arg, p + from, to - from);
		return;
	}
	for (size_t i = from; i < to; i++) {
		if (p[i] == '\r' && i + 1 < to && p[i + 1] == '\n') {
			if (i > start)
				emit(arg, p + start, i - start);
			start = i + 1;
		}
	}
	if (to > start)
		emit(arg, p + start, to - start);
}

/* The last timestamp in [from, to), or from (which has one). */
static size_t s_last_ts(const char *p, size_t from, size_t to)
{
	for (size_t k = to; k-- > from + 1;) {
		if (p[k] == '[' && serial_scan_ts(p + k, to - k) > 0)
			return k;
	}
	return from;
}

/*
 * Scan the held bytes once: returns how many are decided. Decided bytes
 * are emitted (ours) or dropped (kernel records).
 */
static size_t s_scan(serial_scan_t *sc, const char *p, size_t n,
		     serial_emit_fn *emit, void *arg)
{
	size_t i = 0, out = 0;

	while (i < n) {
		size_t j;
		int m;

		if (p[i] == '\r' && sc->crlf && i + 1 == n)
			break; /* is it "\r\n"? wait for the next byte */
		if (p[i] != '[') {
			i++;
			continue;
		}
		m = serial_scan_ts(p + i, n - i);
		if (m < 0) {
			i++;
			continue;
		}
		if (m == 0) {
			if (n - i > SERIAL_MAX_LINE)
				i++;
			else
				break;
			continue;
		}
		for (j = i + (size_t)m; j < n && p[j] != '\n'; j++)
			;
		if (j == n) {
			if (n - i > SERIAL_MAX_LINE) {
				i++;
				continue;
			}
			break; /* undecided: hold from i */
		}
		if (p[j - 1] != '\r') {
			i = j + 1; /* a bare newline: ours, up to there */
			continue;
		}
		/* a kernel record: from the last timestamp before "\r\n" */
		size_t k = s_last_ts(p, i, j);

		s_emit(sc, p, out, k, emit, arg);
		sc->kernel_records++;
		out = i = j + 1;
	}
	s_emit(sc, p, out, i, emit, arg);
	return i;
}

void serial_scan_feed(serial_scan_t *sc, const char *data, size_t len,
		      serial_emit_fn *emit, void *arg)
{
	size_t used;

	if (sc->hold.len == 0) {
		/* the common case: nothing held, scan in place */
		used = s_scan(sc, data, len, emit, arg);
		buf_append(&sc->hold, data + used, len - used);
		return;
	}
	buf_append(&sc->hold, data, len);
	used = s_scan(sc, (const char *)sc->hold.data, sc->hold.len, emit, arg);
	memmove(sc->hold.data, sc->hold.data + used, sc->hold.len - used);
	sc->hold.len -= used;
	sc->hold.data[sc->hold.len] = '\0';
}
