/*
 * serial_connect: reaching a serial console — a tty device (termios: the
 * baud rate, 8N1, raw, no flow control), a pty path, a unix stream socket
 * or raw TCP (ser2net) — then handing the fd to the session (serial.c).
 */
#include "transports/serial.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

static long long s_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

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

