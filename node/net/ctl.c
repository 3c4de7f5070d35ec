/*
 * ctl: the client side of the control socket.
 */
#include "node/net/ctl.h"

#include "proto/mem.h"

#include <czmq.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

char *ctl_endpoint(const char *home)
{
	struct sockaddr_un sa;

	if (strlen(home) + 1 + strlen(CTL_NAME) >= sizeof(sa.sun_path))
		return NULL;
	return xasprintf("ipc://%s/%s", home, CTL_NAME);
}

bool ctl_running(const char *home)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	bool up;
	int fd;

	if ((size_t)snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/%s", home,
			     CTL_NAME) >= sizeof(sa.sun_path))
		return false;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return false;
	up = connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0;
	close(fd);
	return up;
}

static int s_recv_reply(zsock_t *req, bool *ret_ok, char **ret_body)
{
	zmsg_t *msg = zmsg_recv(req);
	zframe_t *status, *body;
	char *text;

	if (!msg)
		return -ETIMEDOUT;
	status = zmsg_first(msg);
	body = zmsg_next(msg);
	if (!status || !body || zframe_size(body) > CTL_MAX_REPLY) {
		zmsg_destroy(&msg);
		return -EBADMSG;
	}
	text = xmalloc(zframe_size(body) + 1);
	memcpy(text, zframe_data(body), zframe_size(body));
	text[zframe_size(body)] = '\0';
	*ret_ok = zframe_streq(status, "ok");
	*ret_body = text;
	zmsg_destroy(&msg);
	return 0;
}

/* The request itself: process-wide state is left as it is. */
static int s_request(const char *home, const char *command, bool json,
		     size_t nargs, const char *const *args, const size_t *lens,
		     int timeout_ms, bool *ret_ok, char **ret_body)
{
	char *ep = ctl_endpoint(home);
	zsock_t *req;
	zmsg_t *msg;
	int rc;

	req = zsock_new(ZMQ_REQ);
	if (!req || zsock_connect(req, "%s", ep) < 0) {
		zsock_destroy(&req);
		free(ep);
		return -ECONNREFUSED;
	}
	free(ep);
	zsock_set_linger(req, 0);
	zsock_set_rcvtimeo(req, timeout_ms);
	zsock_set_sndtimeo(req, timeout_ms);
	zsock_set_maxmsgsize(req, CTL_MAX_REPLY + 4096);
	msg = zmsg_new();
	zmsg_addstr(msg, command);
	zmsg_addstr(msg, json ? "json" : "text");
	for (size_t i = 0; i < nargs; i++)
		zmsg_addmem(msg, args[i], lens ? lens[i] : strlen(args[i]));
	rc = zmsg_send(&msg, req) < 0 ? -EIO : 0;
	zmsg_destroy(&msg);
	if (rc == 0)
		rc = s_recv_reply(req, ret_ok, ret_body);
	zsock_destroy(&req);
	return rc;
}

/* -ENAMETOOLONG, -ECONNREFUSED when no node listens, or 0. */
static int s_reachable(const char *home)
{
	char *ep = ctl_endpoint(home);

	if (!ep)
		return -ENAMETOOLONG;
	free(ep);
	return ctl_running(home) ? 0 : -ECONNREFUSED;
}

int ctl_ask(const char *home, const char *command, bool json, size_t nargs,
	    const char *const *args, const size_t *lens, int timeout_ms,
	    bool *ret_ok, char **ret_body)
{
	int rc = s_reachable(home);

	if (rc < 0)
		return rc;
	return s_request(home, command, json, nargs, args, lens, timeout_ms,
			 ret_ok, ret_body);
}

int ctl_call(const char *home, const char *command, bool json, size_t nargs,
	     const char *const *args, const size_t *lens, int timeout_ms,
	     bool *ret_ok, char **ret_body)
{
	int rc = s_reachable(home);

	if (rc < 0)
		return rc;
	zsys_set_logstream(NULL);
	zsys_handler_set(NULL);
	return s_request(home, command, json, nargs, args, lens, timeout_ms,
			 ret_ok, ret_body);
}
