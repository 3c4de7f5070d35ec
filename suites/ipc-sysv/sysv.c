/*
 * ipc-sysv: System V message queues, semaphores and shared memory, as TAP.
 *
 * Every object is IPC_PRIVATE and removed with IPC_RMID before exit, even
 * when a case fails. A kernel built without CONFIG_SYSVIPC answers ENOSYS:
 * the suite then SKIPs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/wait.h>
#include <unistd.h>

#define PLAN 11

struct s_msg {
	long mtype;
	char text[32];
};

union s_semun {
	int val;
	struct semid_ds *buf;
	unsigned short *array;
};

static int s_n;

static void s_ok(int ok, const char *name)
{
	printf("%sok %d - %s\n", ok ? "" : "not ", ++s_n, name);
	fflush(stdout);
}

static int s_send(int q, long type, const char *text)
{
	struct s_msg m;

	m.mtype = type;
	snprintf(m.text, sizeof(m.text), "%s", text);
	return msgsnd(q, &m, sizeof(m.text), IPC_NOWAIT);
}

static void t_msg(void)
{
	int q = msgget(IPC_PRIVATE, IPC_CREAT | 0600), ok, e;
	struct s_msg m;
	struct msqid_ds ds;

	ok = q >= 0 && s_send(q, 1, "first") == 0 && s_send(q, 2, "second") == 0 &&
	     s_send(q, 1, "third") == 0;
	s_ok(ok && msgctl(q, IPC_STAT, &ds) == 0 && ds.msg_qnum == 3, "msg.send_and_count");
	/* type 2 first, then FIFO order among type 1 */
	ok = ok && msgrcv(q, &m, sizeof(m.text), 2, IPC_NOWAIT) > 0 && strcmp(m.text, "second") == 0;
	ok = ok && msgrcv(q, &m, sizeof(m.text), 0, IPC_NOWAIT) > 0 && strcmp(m.text, "first") == 0;
	ok = ok && msgrcv(q, &m, sizeof(m.text), 0, IPC_NOWAIT) > 0 && strcmp(m.text, "third") == 0;
	s_ok(ok, "msg.receive_by_type_and_order");
	errno = 0;
	s_ok(q >= 0 && msgrcv(q, &m, sizeof(m.text), 0, IPC_NOWAIT) < 0 && errno == ENOMSG,
	     "msg.empty_nowait_enomsg");
	ok = q >= 0 && msgctl(q, IPC_RMID, NULL) == 0;
	e = q >= 0 ? msgsnd(q, &m, sizeof(m.text), IPC_NOWAIT) : 0;
	s_ok(ok && e < 0 && (errno == EINVAL || errno == EIDRM), "msg.removed_queue_rejects");
}

static void t_sem(void)
{
	int s = semget(IPC_PRIVATE, 1, IPC_CREAT | 0600), ok, st = -1;
	union s_semun arg = { .val = 2 };
	struct sembuf down = { 0, -1, IPC_NOWAIT }, undo = { 0, -1, SEM_UNDO };
	pid_t pid;

	ok = s >= 0 && semctl(s, 0, SETVAL, arg) == 0 && semctl(s, 0, GETVAL) == 2;
	s_ok(ok, "sem.setval_getval");
	ok = ok && semop(s, &down, 1) == 0 && semop(s, &down, 1) == 0 && semctl(s, 0, GETVAL) == 0;
	s_ok(ok, "sem.decrement");
	errno = 0;
	s_ok(s >= 0 && semop(s, &down, 1) < 0 && errno == EAGAIN, "sem.zero_nowait_eagain");
	/* a child takes one with SEM_UNDO and exits: the kernel gives it back */
	arg.val = 1;
	if (s >= 0)
		semctl(s, 0, SETVAL, arg);
	pid = s >= 0 ? fork() : -1;
	if (pid == 0)
		_exit(semop(s, &undo, 1) == 0 && semctl(s, 0, GETVAL) == 0 ? 0 : 1);
	if (pid > 0)
		waitpid(pid, &st, 0);
	s_ok(pid > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0 && semctl(s, 0, GETVAL) == 1,
	     "sem.sem_undo_on_exit");
	if (s >= 0)
		semctl(s, 0, IPC_RMID);
}

static void t_shm(void)
{
	int id = shmget(IPC_PRIVATE, 65536, IPC_CREAT | 0600), st = -1;
	char *p = id >= 0 ? shmat(id, NULL, 0) : (char *)-1;
	struct shmid_ds ds;
	pid_t pid;

	s_ok(p != (char *)-1 && shmctl(id, IPC_STAT, &ds) == 0 && ds.shm_nattch == 1 &&
		     ds.shm_segsz == 65536,
	     "shm.attach_and_stat");
	if (p != (char *)-1)
		strcpy(p, "parent");
	pid = p != (char *)-1 ? fork() : -1;
	if (pid == 0) {
		int ok = strcmp(p, "parent") == 0;
		strcpy(p + 1024, "child");
		_exit(ok ? 0 : 1);
	}
	if (pid > 0)
		waitpid(pid, &st, 0);
	s_ok(pid > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0 && strcmp(p + 1024, "child") == 0,
	     "shm.shared_across_fork");
	s_ok(p != (char *)-1 && shmdt(p) == 0 && shmctl(id, IPC_STAT, &ds) == 0 &&
		     ds.shm_nattch == 0,
	     "shm.detach_updates_nattch");
	if (id >= 0)
		shmctl(id, IPC_RMID, NULL);
}

int main(void)
{
	int probe = msgget(IPC_PRIVATE, IPC_CREAT | 0600);

	if (probe < 0 && errno == ENOSYS) {
		printf("1..0 # SKIP kernel without System V IPC (CONFIG_SYSVIPC)\n");
		return 0;
	}
	if (probe >= 0)
		msgctl(probe, IPC_RMID, NULL);
	printf("1..%d\n", PLAN);
	t_msg();
	t_sem();
	t_shm();
	if (s_n != PLAN)
		printf("# plan mismatch: %d cases\n", s_n);
	return 0;
}
