/*
 * serial_console: the console as a person types on it. The bytes typed
 * go to the line as they are, and what the board says back within a
 * short wait comes out raw, past the scanner and the framing. Coming
 * from framed commands (echo off; a file put leaves the line without
 * CR to NL), `stty sane` is typed first; the next framed command
 * interrupts what was left running and finds the prompt again
 * (serial_sync), as the person may have left the shell in any state.
 */
#include "transports/serial_int.h"
#include "transports/backend.h"

#include <errno.h>
#include <poll.h>
#include <unistd.h>

#define SERIAL_CONSOLE_QUIET_MS 80 /* silence that ends a read early */

int serial_console(transport_t *t, const void *in, size_t n, int wait_ms,
		   transport_output_fn *fn, void *arg)
{
	serial_t *s = t->priv;
	long long start = serial_now_ms(), end = start + wait_ms;
	bool got = false;
	int r = 0;

	/* typed as it is, not framed: stty sane turns echo and output
	 * processing back on, which a frame's end marker would not survive */
	if (!s->need_sync &&
	    (r = serial_write(t, "stty sane\n", 10, start + 5000)) < 0)
		return r;
	s->need_sync = true;
	if (n && (r = serial_write(t, in, n, start + 5000)) < 0)
		return r;
	while (!s->eof) {
		long long now = serial_now_ms();
		long long left = (got ? SERIAL_CONSOLE_QUIET_MS : end - now);
		struct pollfd pfd = { .fd = s->fd, .events = POLLIN };
		ssize_t k;

		if (now >= end || left <= 0)
			break;
		if (left > end - now)
			left = end - now;
		r = poll(&pfd, 1, (int)left);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		k = read(s->fd, s->rbuf, sizeof(s->rbuf));
		if (k < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (k <= 0) {
			s->eof = true;
			break;
		}
		got = true;
		if (t->console_fn)
			t->console_fn(t->console_arg, TRANSPORT_STDOUT, s->rbuf,
				      (size_t)k);
		fn(arg, TRANSPORT_STDOUT, s->rbuf, (size_t)k);
	}
	if (s->eof) {
		transport_set_error(t, "the console closed");
		return -EPIPE;
	}
	return 0;
}
