/*
 * Unit test of the console relay (relay.c): a "board" writes 4 MiB to its
 * console (more than any socket buffer holds) while nobody reads the local
 * end, and its blocking writes all complete; then the local end reads
 * every byte in order, types a line the board receives, and reads end of
 * file once the board closed its console.
 */
#include "transports/relay.h"
#include "proto/tests/check.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define TEST_BYTES (4 * 1024 * 1024)

int check_failures;

static char s_byte(size_t i)
{
	return (char)('a' + (i * 7 + i / 4096) % 26);
}

/* The board: blocking writes of the whole pattern, nobody reading. */
static bool s_board_writes(int fd)
{
	char buf[8192];

	for (size_t off = 0; off < TEST_BYTES; off += sizeof(buf)) {
		for (size_t i = 0; i < sizeof(buf); i++)
			buf[i] = s_byte(off + i);
		for (size_t done = 0; done < sizeof(buf);) {
			ssize_t n = write(fd, buf + done, sizeof(buf) - done);

			if (n <= 0)
				return false;
			done += (size_t)n;
		}
	}
	return true;
}

int main(void)
{
	int sv[2], local = -1, board_flags;
	relay_t *r;
	size_t got = 0, bad = 0;
	char buf[65536];
	ssize_t n;

	CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0);
	r = relay_new(sv[0], &local);
	CHECK(r && local >= 0);
	/* the relay set its side non-blocking; the board's side blocks */
	board_flags = fcntl(sv[1], F_GETFL);
	CHECK(!(board_flags & O_NONBLOCK));
	CHECK(s_board_writes(sv[1]));
	CHECK(write(local, "typed\n", 6) == 6);
	for (size_t k = 0; k < 6;) {
		n = read(sv[1], buf + k, 6 - k);
		if (n <= 0)
			break;
		k += (size_t)n;
		if (k == 6)
			CHECK(memcmp(buf, "typed\n", 6) == 0);
	}
	close(sv[1]);
	while ((n = read(local, buf, sizeof(buf))) > 0) {
		for (ssize_t i = 0; i < n; i++)
			bad += buf[i] != s_byte(got + (size_t)i);
		got += (size_t)n;
	}
	CHECK(n == 0);
	CHECK(got == TEST_BYTES && bad == 0);
	close(local);
	relay_destroy(&r);
	CHECK(r == NULL);
	relay_destroy(&r);
	if (CHECK_DONE())
		return 1;
	printf("relay OK: %d bytes held while nobody read\n", TEST_BYTES);
	return 0;
}
