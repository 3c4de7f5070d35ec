/*
 * sshd_fixture: a private OpenSSH server on a loopback port for the ssh
 * transport's tests and benchmark — its own host key, its own sshd_config
 * (ListenAddress 127.0.0.1, UsePAM no, keys only), a fresh client key in
 * its authorized_keys, and a known_hosts file pinning its host key (plus
 * one pinning a different key, to show a mismatch is refused).
 */
#ifndef LABMESH_TRANSPORTS_TESTS_SSHD_FIXTURE_H
#define LABMESH_TRANSPORTS_TESTS_SSHD_FIXTURE_H

#include <stdbool.h>
#include <sys/types.h>

#define SSHD_FIXTURE_PATH 256

typedef struct {
	char dir[64];                        /* everything lives here */
	char identity[SSHD_FIXTURE_PATH];    /* client private key */
	char known_hosts[SSHD_FIXTURE_PATH]; /* pins the server's host key */
	char wrong_known_hosts[SSHD_FIXTURE_PATH]; /* pins another key */
	char user[64];                       /* who we log in as */
	int port;
	pid_t pid;
} sshd_fixture_t;

/* Why sshd cannot run here (not root, no sshd binary), or NULL. */
const char *sshd_fixture_unavailable(void);
/* Start sshd on 127.0.0.1:port; 0 or -errno with a reason in err. */
int sshd_fixture_start(sshd_fixture_t *f, int port, char *err, size_t errsz);
/* Stop sshd and remove its directory. */
void sshd_fixture_stop(sshd_fixture_t *f);

#endif
