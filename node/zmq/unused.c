/* The parts of libzmq and czmq labmesh never uses, for a link against
 * their static archives (meson.build: zmq_static).
 *
 * Debian builds libzmq with PGM, NORM and GSSAPI and czmq with systemd
 * socket activation; the shared libraries map all of them (and what they
 * need: krb5, libsystemd, gcrypt...) into every node, 1.8 MiB of an idle
 * node's resident memory for code it never runs. Linked statically, the
 * objects for those transports still name their libraries' entry points;
 * they are defined here. A node only binds and connects tcp://, ipc://
 * and inproc:// endpoints (node_setup.c, node_peer.c, ctl.c), so none of
 * them is ever called; if one were, the process stops and says which.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "node/zmq/unused.h"

static void s_unused(const char *name)
{
	fprintf(stderr, "labmesh: %s called: a ZeroMQ transport or mechanism"
		" this build leaves out (PGM, NORM, GSSAPI)\n", name);
	abort();
}

#define UNUSED_FN(name) \
	void name(void) { s_unused(#name); }
UNUSED_ENTRY_POINTS(UNUSED_FN)

/* data: handles and name types those APIs export */
const void *const NORM_INSTANCE_INVALID = NULL;
const void *const NORM_SESSION_INVALID = NULL;
const void *const NORM_OBJECT_INVALID = NULL;
const void *const NORM_NODE_ANY = NULL;
void *GSS_C_NT_HOSTBASED_SERVICE = NULL;
void *GSS_C_NT_USER_NAME = NULL;

/* libzmq starts and stops PGM with its first and last context, used or
 * not: nothing to start */
bool pgm_init(void *error)
{
	(void)error;
	return true;
}

bool pgm_shutdown(void)
{
	return true;
}

/* systemd socket activation: czmq looks only when asked to (its
 * ZSYS_AUTO_USE_FD); no descriptors were passed */
int sd_listen_fds(int unset_environment)
{
	(void)unset_environment;
	return 0;
}

int sd_is_socket_inet(int fd, int family, int type, int listening,
		      unsigned short port)
{
	(void)fd, (void)family, (void)type, (void)listening, (void)port;
	return 0;
}

int sd_is_socket_unix(int fd, int type, int listening, const char *path,
		      size_t length)
{
	(void)fd, (void)type, (void)listening, (void)path, (void)length;
	return 0;
}

/* BSD's strlcpy (glibc 2.36 has none; libzmq's WebSocket engine, never
 * used here, takes it from libbsd) */
size_t strlcpy(char *dst, const char *src, size_t size)
{
	size_t n = strlen(src);

	if (size) {
		size_t k = n < size - 1 ? n : size - 1;

		memcpy(dst, src, k);
		dst[k] = '\0';
	}
	return n;
}
