/*
 * serial_fixture: see serial_fixture.h.
 */
#include "transports/tests/serial_fixture.h"
#include "transports/backend.h"
#include "transports/serial.h"

#include "proto/mem.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

int fixture_pty_shell(char *const argv[], int *ret_master, pid_t *ret_pid)
{
	int m = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	pid_t pid;

	if (m < 0 || grantpt(m) < 0 || unlockpt(m) < 0)
		return -errno;
	pid = fork();
	if (pid < 0) {
		close(m);
		return -errno;
	}
	if (pid == 0) {
		int sl;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		setsid();
		sl = open(ptsname(m), O_RDWR); /* becomes the controlling tty */
		if (sl < 0)
			_exit(127);
		ioctl(sl, TIOCSCTTY, 0);
		dup2(sl, 0);
		dup2(sl, 1);
		dup2(sl, 2);
		if (sl > 2)
			close(sl);
		setenv("PS1", "$ ", 1);
		setenv("ENV", "/dev/null", 1);
		execvp(argv[0], argv);
		_exit(127);
	}
	*ret_master = m;
	*ret_pid = pid;
	return 0;
}

pid_t fixture_socat(const char *a, const char *b)
{
	pid_t pid = fork();

	if (pid < 0)
		return -errno;
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		setsid();
		dup2(null, 0);
		execlp("socat", "socat", a, b, (char *)NULL);
		_exit(127);
	}
	return pid;
}

bool fixture_have(const char *prog)
{
	char *cmd = xasprintf("command -v %s >/dev/null 2>&1", prog);
	int r = system(cmd);

	free(cmd);
	return r == 0;
}

void fixture_kill(pid_t pid)
{
	if (pid <= 0)
		return;
	kill(-pid, SIGKILL); /* its session's group: the shell under it too */
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

int fixture_transport_fd(const lab_board_t *board, int fd, transport_t **ret_t)
{
	transport_t *t = xzalloc(sizeof(*t));
	char err[256];
	int r;

	t->board = board;
	t->output_cap = TRANSPORT_MAX_OUTPUT;
	r = transport_workdir(NULL, &t->workdir, &t->own_workdir, err, sizeof(err));
	if (r == 0)
		r = serial_open_fd(t, fd);
	if (r < 0) {
		fprintf(stderr, "serial_open_fd: %s\n", t->err);
		t->ops = NULL;
		transport_close(&t);
		return r;
	}
	*ret_t = t;
	return 0;
}

int fixture_transport_open(const lab_board_t *board, int timeout_ms,
			   transport_t **ret_t, char **ret_err)
{
	int r = -ETIMEDOUT;

	for (int waited = 0; waited <= timeout_ms; waited += 100) {
		*ret_err = NULL;
		r = transport_open(board, NULL, ret_t, ret_err);
		if (r == 0 || waited + 100 > timeout_ms)
			return r;
		free(*ret_err);
		*ret_err = NULL;
		usleep(100 * 1000);
	}
	return r;
}
