/*
 * lease_sess: the lab's side of a lease holder's operations. lease_use
 * checks that the operation is the holder's (key, lease held, sequence
 * above the last) and hands it to the board's session child, started on
 * first use; the child's answers become signed replies on the way back.
 *
 * Frames on the session socket (SOCK_SEQPACKET: one frame a message):
 *   node -> child: op u8, op_id [32], value u64 LE, arg_len u16 LE, arg,
 *                  data (the rest)
 *   child -> node: op_id [32], index u32 LE, final u8, status i64 LE,
 *                  data (the rest, <= LEASE_MAX_DATA)
 */
#include "node/jobs/jobs_int.h"

#include "proto/mem.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define SESS_FD 3
#define SESS_SOCKBUF (4 * 1024 * 1024)
#define SESS_REPLY_HEAD (32 + 4 + 1 + 8)
#define SESS_KILL_GRACE_MS 3000
#define SESS_MAX_DYING 16

static void s_fail(jobs_t *j, const uint8_t op_id[32], int err,
		   const char *why)
{
	lease_relay_reply(j, op_id, 0, true, err, why, strlen(why));
}

void lease_use(jobs_t *j, const lease_t *l, const uint8_t *bytes, size_t len)
{
	const lab_config_t *cfg = j->ctx.cfg;
	jobs_slot_t *s = NULL;
	char why[300];

	(void)bytes;
	(void)len;
	for (size_t i = 0; i < cfg->n_boards && !strcmp(l->lab, cfg->name); i++)
		if (strcmp(cfg->boards[i].name, l->board) == 0)
			s = &j->slots[i];
	if (!s) {
		snprintf(why, sizeof(why), "lab %s has no board %s", cfg->name,
			 l->board);
		s_fail(j, l->id, -ENOENT, why);
	} else if (!s->lease_on) {
		snprintf(why, sizeof(why), "board %s/%s is not leased (take a"
			 " lease first: labmesh lease)", l->lab, l->board);
		s_fail(j, l->id, -EPERM, why);
	} else if (sodium_memcmp(s->lease_holder, l->submitter, 32) != 0) {
		snprintf(why, sizeof(why), "board %s/%s is leased to another"
			 " key: only the lease holder may use it", l->lab,
			 l->board);
		s_fail(j, l->id, -EPERM, why);
	} else if (l->seq <= s->lease_seq) {
		s_fail(j, l->id, -EALREADY, "operation replayed or out of"
		       " order");
	} else {
		size_t bi = (size_t)(s - j->slots);

		s->lease_seq = l->seq;
		jobs_lease_save_seq(j, bi);
		if (!s->sess_pid && sess_start(j, bi) < 0)
			s_fail(j, l->id, -EIO, "cannot start the lease session");
		else if (sess_send(j, bi, l) < 0)
			s_fail(j, l->id, -EBUSY, "the lease session is busy:"
			       " try again");
	}
}

/* ---- the session child ---- */

static size_t s_dying_n;
static struct {
	pid_t pid;
	int64_t kill_ms;
} s_dying[SESS_MAX_DYING];

static void s_le_put(uint8_t *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t s_le_get(const uint8_t *p, int n)
{
	uint64_t v = 0;

	for (int i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

static int s_slot_of(jobs_t *j, int fd)
{
	for (size_t i = 0; i < j->ctx.cfg->n_boards; i++)
		if (j->slots[i].sess_fd == fd)
			return (int)i;
	return -1;
}

static int s_handle(zloop_t *loop, zmq_pollitem_t *item, void *arg)
{
	jobs_t *j = arg;
	int bi = s_slot_of(j, item->fd);
	uint8_t *buf;
	ssize_t n;

	(void)loop;
	if (bi < 0)
		return 0;
	buf = xmalloc(SESS_REPLY_HEAD + LEASE_MAX_DATA);
	n = recv(item->fd, buf, SESS_REPLY_HEAD + LEASE_MAX_DATA, MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
		free(buf);
		return 0;
	}
	if (n < SESS_REPLY_HEAD) {
		log_info("board %s: lease session ended",
			 j->ctx.cfg->boards[bi].name);
		sess_stop(j, (size_t)bi);
	} else {
		lease_relay_reply(j, buf, s_le_get(buf + 32, 4), buf[36] != 0,
			    (int64_t)s_le_get(buf + 37, 8),
			    buf + SESS_REPLY_HEAD,
			    (size_t)n - SESS_REPLY_HEAD);
	}
	free(buf);
	return 0;
}

static void s_child(jobs_t *j, int fd, pid_t parent, const char *board)
{
	const char *cfg = j->ctx.cfg->path;

	setpgid(0, 0);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(127);
	if (fd == SESS_FD ? fcntl(fd, F_SETFD, 0) < 0 : dup2(fd, SESS_FD) < 0)
		_exit(127);
	if (!cfg || strcmp(cfg, "(default)") == 0)
		cfg = "";
	execl(j->self_exe, "labmesh", "lease-session", "--home", j->home,
	      "--config", cfg, "--board", board, (char *)NULL);
	_exit(127);
}

int sess_start(jobs_t *j, size_t bi)
{
	jobs_slot_t *s = &j->slots[bi];
	int sv[2], size = SESS_SOCKBUF;
	pid_t parent = getpid(), pid;
	zmq_pollitem_t item = { 0 };

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return -errno;
	for (int k = 0; k < 2; k++) {
		setsockopt(sv[k], SOL_SOCKET, SO_SNDBUF, &size, sizeof(size));
		setsockopt(sv[k], SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	}
	pid = fork();
	if (pid < 0) {
		close(sv[0]);
		close(sv[1]);
		return -errno;
	}
	if (pid == 0)
		s_child(j, sv[1], parent, j->ctx.cfg->boards[bi].name);
	setpgid(pid, pid);
	close(sv[1]);
	s->sess_pid = pid;
	s->sess_fd = sv[0];
	item.fd = sv[0];
	item.events = ZMQ_POLLIN;
	zloop_poller(j->loop, &item, s_handle, j);
	log_info("board %s: lease session started (pid %d)",
		 j->ctx.cfg->boards[bi].name, (int)pid);
	return 0;
}

void sess_stop(jobs_t *j, size_t bi)
{
	jobs_slot_t *s = &j->slots[bi];

	if (s->sess_fd >= 0) {
		zmq_pollitem_t item = { .fd = s->sess_fd, .events = ZMQ_POLLIN };

		if (j->loop)
			zloop_poller_end(j->loop, &item);
		close(s->sess_fd);
		s->sess_fd = -1;
	}
	if (s->sess_pid > 0) {
		kill(-s->sess_pid, SIGTERM);
		if (s_dying_n < SESS_MAX_DYING) {
			s_dying[s_dying_n].pid = s->sess_pid;
			s_dying[s_dying_n].kill_ms = jobs_now() +
						     SESS_KILL_GRACE_MS;
			s_dying_n++;
		} else {
			kill(-s->sess_pid, SIGKILL);
			waitpid(s->sess_pid, NULL, 0);
		}
	}
	s->sess_pid = 0;
}

bool sess_dying(void)
{
	return s_dying_n > 0;
}

void sess_tick(jobs_t *j)
{
	int64_t now = jobs_now();

	(void)j;
	for (size_t i = 0; i < s_dying_n;) {
		if (waitpid(s_dying[i].pid, NULL, WNOHANG) != 0) {
			s_dying[i] = s_dying[--s_dying_n];
			continue;
		}
		if (now >= s_dying[i].kill_ms)
			kill(-s_dying[i].pid, SIGKILL);
		i++;
	}
}

int sess_send(jobs_t *j, size_t bi, const lease_t *l)
{
	jobs_slot_t *s = &j->slots[bi];
	size_t alen = strlen(l->arg), n = 43 + alen + l->data_len;
	uint8_t *f = xmalloc(n);
	ssize_t w;

	f[0] = (uint8_t)l->op;
	memcpy(f + 1, l->id, 32);
	s_le_put(f + 33, l->value, 8);
	s_le_put(f + 41, alen, 2);
	memcpy(f + 43, l->arg, alen);
	if (l->data_len)
		memcpy(f + 43 + alen, l->data, l->data_len);
	w = send(s->sess_fd, f, n, MSG_DONTWAIT | MSG_NOSIGNAL);
	free(f);
	return w == (ssize_t)n ? 0 : -EAGAIN;
}
