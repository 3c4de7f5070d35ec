/*
 * local: the host itself as the board. Commands run through /bin/sh -c in
 * the session's scratch directory, in their own session (proc.c), so a
 * timeout kills everything the command started. put/get are file copies
 * that keep the mode bits; relative target paths are in the scratch dir.
 */
#include "transports/backend.h"
#include "transports/proc.h"

#include "proto/mem.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define LOCAL_COPY_CHUNK (128 * 1024)

static int s_run(transport_t *t, const char *cmd, int timeout_ms,
		 transport_output_fn *fn, void *arg, int *ret_status)
{
	char err[256];
	proc_spec_t s;
	int r;

	proc_spec_init(&s);
	proc_arg(&s, "/bin/sh");
	proc_arg(&s, "-c");
	proc_arg(&s, cmd);
	s.cwd = t->workdir;
	s.timeout_ms = timeout_ms;
	s.fn = fn;
	s.arg = arg;
	r = proc_run(&s, ret_status, err, sizeof(err));
	if (r < 0)
		transport_set_error(t, "local: %s", err);
	return r;
}

static char *s_target_path(transport_t *t, const char *path)
{
	if (path[0] == '/')
		return xstrdup(path);
	return xasprintf("%s/%s", t->workdir, path);
}

static int s_write_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Copy src to dst with src's mode bits. */
static int s_copy(transport_t *t, const char *src, const char *dst)
{
	char *buf = NULL;
	struct stat st;
	int in, out = -1, r = 0;
	ssize_t n;

	in = open(src, O_RDONLY | O_CLOEXEC);
	if (in < 0 || fstat(in, &st) < 0) {
		r = -errno;
		transport_set_error(t, "local: %s: %s", src, strerror(-r));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		r = -EINVAL;
		transport_set_error(t, "local: %s: not a regular file", src);
		goto out;
	}
	out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (out < 0) {
		r = -errno;
		transport_set_error(t, "local: %s: %s", dst, strerror(-r));
		goto out;
	}
	buf = xmalloc(LOCAL_COPY_CHUNK);
	while ((n = read(in, buf, LOCAL_COPY_CHUNK)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		r = n < 0 ? -errno : s_write_all(out, buf, (size_t)n);
		if (r < 0)
			break;
	}
	if (r == 0 && fchmod(out, st.st_mode & 07777) < 0)
		r = -errno;
	if (r < 0)
		transport_set_error(t, "local: copy %s to %s: %s", src, dst,
				    strerror(-r));
out:
	if (out >= 0 && close(out) < 0 && r == 0) {
		r = -errno;
		transport_set_error(t, "local: %s: %s", dst, strerror(-r));
	}
	if (in >= 0)
		close(in);
	free(buf);
	return r;
}

static int s_put(transport_t *t, const char *local, const char *remote)
{
	char *dst = s_target_path(t, remote);
	int r = s_copy(t, local, dst);

	free(dst);
	return r;
}

static int s_get(transport_t *t, const char *remote, const char *local)
{
	char *src = s_target_path(t, remote);
	int r = s_copy(t, src, local);

	free(src);
	return r;
}

static void s_close(transport_t *t)
{
}

static const struct transport_ops s_ops = {
	.name = "local",
	.run = s_run,
	.put = s_put,
	.get = s_get,
	.close = s_close,
};

int local_open(transport_t *t)
{
	t->ops = &s_ops;
	t->priv = NULL;
	return 0;
}
