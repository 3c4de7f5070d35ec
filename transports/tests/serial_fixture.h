/*
 * serial_fixture: far ends for the serial transport's tests and benchmark
 * — a shell on the slave side of a fresh pty, socat relays (pty path, TCP,
 * unix socket) in front of a shell on its own pty, and a transport over an
 * already open fd.
 */
#ifndef LABMESH_TRANSPORTS_TESTS_SERIAL_FIXTURE_H
#define LABMESH_TRANSPORTS_TESTS_SERIAL_FIXTURE_H

#include "transports/transport.h"

#include <stdbool.h>
#include <sys/types.h>

/* Fork argv (a shell) with the slave of a new pty as its controlling tty
 * and stdio; *ret_master is our end. 0 or -errno. */
int fixture_pty_shell(char *const argv[], int *ret_master, pid_t *ret_pid);
/* Start socat with the two addresses; returns its pid or -errno. */
pid_t fixture_socat(const char *a, const char *b);
bool fixture_have(const char *prog);
/* Kill (SIGKILL) and reap a child we started. */
void fixture_kill(pid_t pid);
/* A serial transport over fd (owned by the caller). */
int fixture_transport_fd(const lab_board_t *board, int fd, transport_t **ret_t);
/* Open with retries while the far end starts (up to timeout_ms). */
int fixture_transport_open(const lab_board_t *board, int timeout_ms,
			   transport_t **ret_t, char **ret_err);

#endif
