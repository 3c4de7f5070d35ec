/*
 * relay: a console drained for as long as the board runs (see relay.h).
 *
 * Layout: the held bytes of one direction (a buffer consumed from its
 * front); one pass of the thread's poll loop per event; the thread; the
 * relay's life.
 */
#include "transports/relay.h"

#include "proto/mem.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define RELAY_CHUNK 65536

/* Bytes read from one side, not yet written to the other. */
struct held {
	char *data;
	size_t off, len, alloc; /* data[off..len) is held */
};

struct relay {
	pthread_t thread;
	bool started;
	int stop[2];  /* a byte on stop[1] ends the thread */
	int board;    /* the board's console */
	int local;    /* the thread's end of the local pair */
	bool board_eof, local_eof, shut;
	struct held down, up; /* board to local, local to board */
};

static size_t s_held(const struct held *h)
{
	return h->len - h->off;
}

/* Read what fd has into h: 0, or -1 at end of file or on an error. */
static int s_fill(struct held *h, int fd)
{
	ssize_t n;

	if (h->off && h->off == h->len)
		h->off = h->len = 0;
	if (h->alloc - h->len < RELAY_CHUNK) {
		if (h->off) { /* compact before growing */
			memmove(h->data, h->data + h->off, h->len - h->off);
			h->len -= h->off;
			h->off = 0;
		}
		if (h->alloc - h->len < RELAY_CHUNK) {
			h->alloc = h->len + 2 * RELAY_CHUNK;
			h->data = xrealloc(h->data, h->alloc);
		}
	}
	n = read(fd, h->data + h->len, RELAY_CHUNK);
	if (n < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -1;
	if (n == 0)
		return -1;
	h->len += (size_t)n;
	return 0;
}

/* Write what h holds to fd: 0, or -1 when fd is gone. */
static int s_drain(struct held *h, int fd)
{
	ssize_t n = send(fd, h->data + h->off, h->len - h->off,
			 MSG_NOSIGNAL | MSG_DONTWAIT);

	if (n < 0 && errno == ENOTSOCK)
		n = write(fd, h->data + h->off, h->len - h->off);
	if (n < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -1;
	h->off += (size_t)n;
	return 0;
}

static short s_events(bool can_read, const struct held *out)
{
	return (short)((can_read ? POLLIN : 0) | (s_held(out) ? POLLOUT : 0));
}

/* One pass: false when the thread is done. */
static bool s_pass(struct relay *r)
{
	struct pollfd p[3] = {
		{ .fd = r->stop[0], .events = POLLIN },
		{ .fd = r->board, .events = s_events(!r->board_eof &&
			s_held(&r->down) < RELAY_MAX_HELD, &r->up) },
		{ .fd = r->local, .events = s_events(!r->local_eof &&
			s_held(&r->up) < RELAY_MAX_HELD, &r->down) },
	};

	if (r->board_eof)
		p[1].fd = -1;
	if (poll(p, 3, -1) < 0)
		return errno == EINTR;
	if (p[0].revents)
		return false;
	if ((p[1].revents & (POLLIN | POLLHUP | POLLERR)) && !r->board_eof &&
	    s_held(&r->down) < RELAY_MAX_HELD && s_fill(&r->down, r->board) < 0)
		r->board_eof = true;
	if ((p[1].revents & POLLOUT) && s_drain(&r->up, r->board) < 0)
		r->up.off = r->up.len; /* the board is gone: typing is moot */
	if ((p[2].revents & (POLLIN | POLLHUP | POLLERR)) && !r->local_eof &&
	    s_held(&r->up) < RELAY_MAX_HELD && s_fill(&r->up, r->local) < 0)
		r->local_eof = true;
	if ((p[2].revents & POLLOUT) && s_drain(&r->down, r->local) < 0)
		r->down.off = r->down.len;
	if (r->local_eof)
		r->down.off = r->down.len; /* nobody reads: keep draining */
	if (r->board_eof && !s_held(&r->down) && !r->shut) {
		/* all the board said was delivered: the local end reads EOF */
		shutdown(r->local, SHUT_WR);
		r->shut = true;
	}
	if (r->local_eof && r->board_eof)
		return false;
	return true;
}

static void *s_thread(void *arg)
{
	struct relay *r = arg;

	while (s_pass(r))
		;
	return NULL;
}

relay_t *relay_new(int board_fd, int *ret_fd)
{
	struct relay *r = xzalloc(sizeof(*r));
	int sv[2];

	r->board = board_fd;
	r->local = -1;
	r->stop[0] = r->stop[1] = -1;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		goto fail;
	r->local = sv[1];
	if (pipe2(r->stop, O_CLOEXEC) < 0 ||
	    fcntl(board_fd, F_SETFL, fcntl(board_fd, F_GETFL) | O_NONBLOCK) < 0 ||
	    fcntl(r->local, F_SETFL, O_NONBLOCK) < 0 ||
	    pthread_create(&r->thread, NULL, s_thread, r) != 0) {
		close(sv[0]);
		goto fail;
	}
	r->started = true;
	*ret_fd = sv[0];
	return r;
fail:
	relay_destroy(&r);
	return NULL;
}

void relay_destroy(relay_t **p)
{
	struct relay *r = p ? *p : NULL;

	if (!r)
		return;
	if (r->started) {
		while (write(r->stop[1], "x", 1) < 0 && errno == EINTR)
			;
		pthread_join(r->thread, NULL);
	}
	for (int i = 0; i < 2; i++)
		if (r->stop[i] >= 0)
			close(r->stop[i]);
	if (r->board >= 0)
		close(r->board);
	if (r->local >= 0)
		close(r->local);
	free(r->down.data);
	free(r->up.data);
	free(r);
	*p = NULL;
}
