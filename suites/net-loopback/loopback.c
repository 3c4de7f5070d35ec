/*
 * net-loopback: TCP and UDP over 127.0.0.1, printed as TAP.
 *
 * Ports are chosen by the kernel (bind to port 0), so parallel runs never
 * collide. Every blocking call has SO_RCVTIMEO/SO_SNDTIMEO or a poll
 * timeout. When the loopback interface is down the whole suite SKIPs.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define PLAN 11
#define BULK_BYTES (256 * 1024)
#define IO_TIMEOUT_S 5

static int s_n;

static void s_ok(int ok, const char *name)
{
	printf("%sok %d - %s\n", ok ? "" : "not ", ++s_n, name);
	fflush(stdout);
}

static void s_timeouts(int fd)
{
	struct timeval tv = { IO_TIMEOUT_S, 0 };

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

static struct sockaddr_in s_lo(unsigned short port)
{
	struct sockaddr_in a;

	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_port = htons(port);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	return a;
}

/* A bound socket of `type` on 127.0.0.1:0; its address goes to *ret_addr. */
static int s_bound(int type, struct sockaddr_in *ret_addr)
{
	struct sockaddr_in a = s_lo(0);
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, type, 0);

	if (fd < 0)
		return -1;
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
	    getsockname(fd, (struct sockaddr *)&a, &len) < 0 ||
	    (type == SOCK_STREAM && listen(fd, 8) < 0)) {
		close(fd);
		return -1;
	}
	s_timeouts(fd);
	*ret_addr = a;
	return fd;
}

static int s_connect(struct sockaddr_in *a)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd < 0)
		return -1;
	s_timeouts(fd);
	if (connect(fd, (struct sockaddr *)a, sizeof(*a)) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static int s_lo_up(void)
{
	FILE *f = fopen("/sys/class/net/lo/flags", "r");
	unsigned int flags = 0;
	int n;

	if (!f)
		return 1; /* no sysfs: let the sockets tell */
	n = fscanf(f, "%x", &flags);
	fclose(f);
	return n == 1 && (flags & 1);
}

static void t_tcp(void)
{
	struct sockaddr_in a, peer, local;
	socklen_t pl = sizeof(peer), ll = sizeof(local);
	int ls = s_bound(SOCK_STREAM, &a), c = -1, s = -1, one = 1, ok;
	char buf[64];

	if (ls >= 0)
		c = s_connect(&a);
	if (c >= 0)
		s = accept(ls, (struct sockaddr *)&peer, &pl);
	ok = s >= 0 && getsockname(c, (struct sockaddr *)&local, &ll) == 0 &&
	     local.sin_port == peer.sin_port;
	s_ok(ok, "tcp.connect_accept_addresses_match");
	s_ok(s >= 0 && write(c, "ping", 4) == 4 && read(s, buf, sizeof(buf)) == 4 &&
		     memcmp(buf, "ping", 4) == 0 && write(s, "pong", 4) == 4 &&
		     read(c, buf, sizeof(buf)) == 4 && memcmp(buf, "pong", 4) == 0,
	     "tcp.send_recv_both_ways");
	s_ok(s >= 0 && setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) == 0,
	     "tcp.nodelay_settable");
	/* half close: the peer reads EOF but can still send back */
	ok = s >= 0 && shutdown(c, SHUT_WR) == 0 && read(s, buf, sizeof(buf)) == 0 &&
	     write(s, "late", 4) == 4 && read(c, buf, sizeof(buf)) == 4;
	s_ok(ok, "tcp.shutdown_wr_half_close");
	if (s >= 0)
		close(s);
	if (c >= 0)
		close(c);
	if (ls >= 0)
		close(ls);
}

static void t_tcp_bulk(void)
{
	struct sockaddr_in a;
	int ls = s_bound(SOCK_STREAM, &a), c, st = -1;
	unsigned char buf[16384];
	unsigned long sum = 0, want = 0;
	long got = 0, i;
	ssize_t r;
	pid_t pid;

	for (i = 0; i < BULK_BYTES; i++)
		want += (unsigned char)(i * 13 + 1);
	pid = ls >= 0 ? fork() : -1;
	if (pid == 0) {
		int s = accept(ls, NULL, NULL);
		long off = 0;

		alarm(20);
		while (s >= 0 && off < BULK_BYTES) {
			size_t k;
			for (k = 0; k < sizeof(buf); k++)
				buf[k] = (unsigned char)((off + (long)k) * 13 + 1);
			if (write(s, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
				_exit(1);
			off += sizeof(buf);
		}
		_exit(s >= 0 ? 0 : 1);
	}
	c = pid > 0 ? s_connect(&a) : -1;
	while (c >= 0 && (r = read(c, buf, sizeof(buf))) > 0) {
		for (i = 0; i < r; i++)
			sum += buf[i];
		got += r;
	}
	if (pid > 0)
		waitpid(pid, &st, 0);
	s_ok(got == BULK_BYTES && sum == want && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	     "tcp.bulk_transfer_intact");
	if (c >= 0)
		close(c);
	if (ls >= 0)
		close(ls);
}

static void t_tcp_errors(void)
{
	struct sockaddr_in a;
	int fd = s_bound(SOCK_STREAM, &a), c, e, r, one = 1;

	/* close the listener: its port now refuses */
	if (fd >= 0)
		close(fd);
	c = socket(AF_INET, SOCK_STREAM, 0);
	r = c >= 0 ? connect(c, (struct sockaddr *)&a, sizeof(a)) : 0;
	e = errno;
	s_ok(fd >= 0 && r < 0 && e == ECONNREFUSED, "tcp.connect_refused_on_closed_port");
	if (c >= 0)
		close(c);
	fd = s_bound(SOCK_STREAM, &a);
	c = socket(AF_INET, SOCK_STREAM, 0);
	r = c >= 0 ? bind(c, (struct sockaddr *)&a, sizeof(a)) : 0;
	e = errno;
	s_ok(fd >= 0 && r < 0 && e == EADDRINUSE, "tcp.bind_in_use_eaddrinuse");
	if (c >= 0)
		close(c);
	/* nonblocking connect completes and poll reports it writable */
	c = socket(AF_INET, SOCK_STREAM, 0);
	if (c >= 0) {
		struct pollfd p = { .fd = c, .events = POLLOUT };
		int soerr = -1;
		socklen_t sl = sizeof(soerr);

		fcntl(c, F_SETFL, O_NONBLOCK);
		r = connect(c, (struct sockaddr *)&a, sizeof(a));
		one = (r == 0 || errno == EINPROGRESS) && poll(&p, 1, IO_TIMEOUT_S * 1000) == 1 &&
		      getsockopt(c, SOL_SOCKET, SO_ERROR, &soerr, &sl) == 0 && soerr == 0;
		close(c);
	} else {
		one = 0;
	}
	s_ok(fd >= 0 && one, "tcp.nonblocking_connect_completes");
	if (fd >= 0)
		close(fd);
}

static void t_udp(void)
{
	struct sockaddr_in a, b, from;
	socklen_t fl = sizeof(from);
	int s = s_bound(SOCK_DGRAM, &a), c = s_bound(SOCK_DGRAM, &b), ok, r, e;
	char big[2000], buf[100];

	ok = s >= 0 && c >= 0 &&
	     sendto(c, "dgram", 5, 0, (struct sockaddr *)&a, sizeof(a)) == 5 &&
	     recvfrom(s, buf, sizeof(buf), 0, (struct sockaddr *)&from, &fl) == 5 &&
	     memcmp(buf, "dgram", 5) == 0 && from.sin_port == b.sin_port;
	s_ok(ok, "udp.sendto_recvfrom");
	memset(big, 'b', sizeof(big));
	ok = s >= 0 && c >= 0 && sendto(c, big, sizeof(big), 0, (struct sockaddr *)&a, sizeof(a)) ==
					     (ssize_t)sizeof(big);
	r = ok ? recv(s, buf, sizeof(buf), MSG_TRUNC) : -1;
	s_ok(r == (int)sizeof(big), "udp.msg_trunc_reports_full_length");
	/* a connected UDP socket learns of ICMP port unreachable */
	if (s >= 0)
		close(s);
	r = -1;
	e = 0;
	if (c >= 0 && connect(c, (struct sockaddr *)&a, sizeof(a)) == 0 && send(c, "x", 1, 0) == 1) {
		r = recv(c, buf, sizeof(buf), 0);
		e = errno;
	}
	s_ok(r < 0 && e == ECONNREFUSED, "udp.connected_gets_econnrefused");
	if (c >= 0)
		close(c);
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	if (!s_lo_up()) {
		printf("1..0 # SKIP loopback interface lo is down\n");
		return 0;
	}
	printf("1..%d\n", PLAN);
	t_tcp();
	t_tcp_bulk();
	t_tcp_errors();
	t_udp();
	if (s_n != PLAN)
		printf("# plan mismatch: %d cases\n", s_n);
	return 0;
}
