/*
 * ipc-posix: POSIX message queues, semaphores and shared memory, as TAP.
 *
 * Message queues need CONFIG_POSIX_MQUEUE (ENOSYS otherwise: those cases
 * SKIP). Named semaphores and shm_open live in /dev/shm; when it is not a
 * mounted tmpfs those cases SKIP with the reason, and the process-shared
 * unnamed semaphore still runs. Names carry our pid and are unlinked.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <mqueue.h>
#include <semaphore.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PLAN 9

static int s_n;

static void s_ok(int ok, const char *name)
{
	printf("%sok %d - %s\n", ok ? "" : "not ", ++s_n, name);
	fflush(stdout);
}

static void s_skip(const char *name, const char *why)
{
	printf("ok %d - %s # SKIP %s\n", ++s_n, name, why);
	fflush(stdout);
}

static void t_mq(void)
{
	static const char *names[] = { "mq.getattr_counts", "mq.priority_order",
				       "mq.full_nonblock_eagain", "mq.timedreceive_etimedout" };
	struct mq_attr attr = { .mq_maxmsg = 4, .mq_msgsize = 64 }, got;
	char name[64], buf[64];
	unsigned int prio = 0;
	struct timespec ts;
	mqd_t q;
	int ok, i, e;

	snprintf(name, sizeof(name), "/labmesh-mq-%d", (int)getpid());
	q = mq_open(name, O_CREAT | O_EXCL | O_RDWR | O_NONBLOCK, 0600, &attr);
	if (q == (mqd_t)-1) {
		for (i = 0; i < 4; i++)
			s_skip(names[i], errno == ENOSYS ? "no POSIX message queues in this kernel"
							 : "mq_open failed");
		return;
	}
	ok = mq_send(q, "low", 4, 1) == 0 && mq_send(q, "high", 5, 9) == 0 &&
	     mq_send(q, "mid", 4, 5) == 0;
	s_ok(ok && mq_getattr(q, &got) == 0 && got.mq_curmsgs == 3 && got.mq_maxmsg == 4, names[0]);
	ok = ok && mq_receive(q, buf, sizeof(buf), &prio) == 5 && strcmp(buf, "high") == 0 && prio == 9;
	ok = ok && mq_receive(q, buf, sizeof(buf), &prio) == 4 && strcmp(buf, "mid") == 0;
	ok = ok && mq_receive(q, buf, sizeof(buf), &prio) == 4 && strcmp(buf, "low") == 0;
	s_ok(ok, names[1]);
	for (i = 0; i < 4; i++)
		mq_send(q, "x", 2, 0);
	e = mq_send(q, "x", 2, 0) < 0 ? errno : 0;
	s_ok(e == EAGAIN, names[2]);
	while (mq_receive(q, buf, sizeof(buf), NULL) > 0)
		;
	attr.mq_flags = 0;
	mq_setattr(q, &attr, NULL);
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_nsec += 50 * 1000 * 1000;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	e = mq_timedreceive(q, buf, sizeof(buf), NULL, &ts) < 0 ? errno : 0;
	s_ok(e == ETIMEDOUT, names[3]);
	mq_close(q);
	mq_unlink(name);
}

static int s_devshm(void)
{
	FILE *f = fopen("/proc/mounts", "r");
	char dev[256], dir[256], type[64];
	int found = 0;

	if (!f)
		return 0;
	while (fscanf(f, "%255s %255s %63s %*[^\n]", dev, dir, type) == 3)
		if (strcmp(dir, "/dev/shm") == 0 && strcmp(type, "tmpfs") == 0)
			found = 1;
	fclose(f);
	return found;
}

static void t_named(void)
{
	char name[64];
	sem_t *s;
	int fd, ok, st = -1, v = -1;
	char *p;
	pid_t pid;

	if (!s_devshm()) {
		s_skip("sem.named_open_post_wait", "/dev/shm is not a mounted tmpfs");
		s_skip("shm.open_map_shared_across_fork", "/dev/shm is not a mounted tmpfs");
		s_skip("shm.unlink_removes_name", "/dev/shm is not a mounted tmpfs");
		return;
	}
	snprintf(name, sizeof(name), "/labmesh-sem-%d", (int)getpid());
	s = sem_open(name, O_CREAT | O_EXCL, 0600, 0);
	ok = s != SEM_FAILED && sem_post(s) == 0 && sem_getvalue(s, &v) == 0 && v == 1 &&
	     sem_trywait(s) == 0 && sem_trywait(s) < 0 && errno == EAGAIN;
	s_ok(ok, "sem.named_open_post_wait");
	if (s != SEM_FAILED) {
		sem_close(s);
		sem_unlink(name);
	}
	snprintf(name, sizeof(name), "/labmesh-shm-%d", (int)getpid());
	fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
	p = fd >= 0 && ftruncate(fd, 4096) == 0 ?
		    mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) :
		    MAP_FAILED;
	pid = p != MAP_FAILED ? fork() : -1;
	if (pid == 0) {
		strcpy(p, "from child");
		_exit(0);
	}
	if (pid > 0)
		waitpid(pid, &st, 0);
	s_ok(pid > 0 && WIFEXITED(st) && strcmp(p, "from child") == 0,
	     "shm.open_map_shared_across_fork");
	if (p != MAP_FAILED)
		munmap(p, 4096);
	if (fd >= 0)
		close(fd);
	ok = shm_unlink(name) == 0 && shm_open(name, O_RDWR, 0) < 0 && errno == ENOENT;
	s_ok(ok, "shm.unlink_removes_name");
}

/* an unnamed process-shared semaphore in shared anonymous memory */
static void t_unnamed(void)
{
	sem_t *s = mmap(NULL, sizeof(sem_t), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
			-1, 0);
	struct timespec ts;
	int ok = 0, st = -1;
	pid_t pid;

	if (s != MAP_FAILED && sem_init(s, 1, 0) == 0) {
		pid = fork();
		if (pid == 0) {
			usleep(20000);
			_exit(sem_post(s) == 0 ? 0 : 1);
		}
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += 5;
		ok = pid > 0 && sem_timedwait(s, &ts) == 0;
		if (pid > 0)
			waitpid(pid, &st, 0);
		ok = ok && WIFEXITED(st) && WEXITSTATUS(st) == 0;
		sem_destroy(s);
	}
	s_ok(ok, "sem.unnamed_pshared_across_fork");
	if (s != MAP_FAILED)
		munmap(s, sizeof(sem_t));
	/* timed wait on a zero semaphore must time out, not return early */
	s = mmap(NULL, sizeof(sem_t), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ok = s != MAP_FAILED && sem_init(s, 1, 0) == 0;
	if (ok) {
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 30 * 1000 * 1000;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		ok = sem_timedwait(s, &ts) < 0 && errno == ETIMEDOUT;
		sem_destroy(s);
	}
	s_ok(ok, "sem.timedwait_etimedout");
	if (s != MAP_FAILED)
		munmap(s, sizeof(sem_t));
}

int main(void)
{
	printf("1..%d\n", PLAN);
	t_mq();
	t_named();
	t_unnamed();
	if (s_n != PLAN)
		printf("# plan mismatch: %d cases\n", s_n);
	return 0;
}
