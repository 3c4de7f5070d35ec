/*
 * board_lock: one lock per board of a state home, HOME/work/locks/NAME,
 * held (flock) by whoever uses the board: the node while a job or a
 * lease holds it, `labmesh run` while it runs. Nobody waits for it: the
 * node tries again at its next tick, `labmesh run` says who has it.
 */
#include "transports/transport.h"

#include "proto/mem.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* dir and its parents, as `labmesh run` makes its logs' folder in a home
 * that does not exist yet */
static void s_mkdirs(char *dir)
{
	for (char *p = dir + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		mkdir(dir, 0700);
		*p = '/';
	}
	mkdir(dir, 0700);
}

int board_lock(const char *home, const char *board, int *ret_fd)
{
	char *dir = xasprintf("%s/work/locks", home), *path;
	int fd, r = 0;

	s_mkdirs(dir);
	path = xasprintf("%s/%s", dir, board);
	free(dir);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	free(path);
	if (fd < 0)
		return -errno;
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		r = errno == EWOULDBLOCK ? -EBUSY : -errno;
		close(fd);
		return r;
	}
	*ret_fd = fd;
	return 0;
}
