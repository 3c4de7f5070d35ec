/*
 * signals: POSIX signal delivery semantics, printed as TAP.
 *
 * Each case exercises one kernel path (handler entry, masking and pending
 * sets, default actions, real-time queueing, alternate stacks, synchronous
 * waits). A regression here breaks every program that relies on signals,
 * from shells to init. Cases that need a child fork one, so a broken case
 * cannot take the others down. Every wait is bounded by alarm().
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PLAN 13

static int s_n;
static volatile sig_atomic_t s_hits;
static volatile sig_atomic_t s_value;
static volatile sig_atomic_t s_code;
static volatile uintptr_t s_where;

static void s_ok(int ok, const char *name)
{
	printf("%sok %d - %s\n", ok ? "" : "not ", ++s_n, name);
	fflush(stdout);
}

static void s_count(int sig)
{
	(void)sig;
	s_hits++;
}

static void s_info(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	s_hits++;
	s_value = si->si_value.sival_int;
	s_code = si->si_code;
}

static void s_stackaddr(int sig)
{
	int local;

	(void)sig;
	s_where = (uintptr_t)&local;
}

static void s_handle(int sig, void (*fn)(int), int flags)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fn;
	sa.sa_flags = flags;
	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
}

static void s_mask(int how, int sig)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(how, &set, NULL);
}

/*
 * Fork a child that waits for a signal; return the signal it died of.
 * The child says when it is ready over a pipe, so a slow board cannot
 * make the signal arrive before the disposition is set.
 */
static int s_child_killed_by(int sig, int ignore)
{
	int st, fd[2];
	char c = 0;
	pid_t pid;

	if (pipe(fd) < 0)
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (ignore)
			signal(sig, SIG_IGN);
		alarm(10);
		if (write(fd[1], &c, 1) != 1)
			_exit(98);
		for (;;)
			pause();
	}
	close(fd[1]);
	if (read(fd[0], &c, 1) != 1)
		c = 1;
	close(fd[0]);
	kill(pid, sig);
	if (ignore) {
		usleep(50000);
		kill(pid, SIGKILL);
	}
	if (waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFSIGNALED(st) ? WTERMSIG(st) : -1;
}

static void t_handler(void)
{
	s_hits = 0;
	s_handle(SIGUSR1, s_count, 0);
	raise(SIGUSR1);
	s_ok(s_hits == 1, "handler_runs");
}

static void t_mask_pending(void)
{
	sigset_t pend;
	int pending, before;

	s_hits = 0;
	s_handle(SIGUSR1, s_count, 0);
	s_mask(SIG_BLOCK, SIGUSR1);
	raise(SIGUSR1);
	sigpending(&pend);
	pending = sigismember(&pend, SIGUSR1);
	before = s_hits;
	s_mask(SIG_UNBLOCK, SIGUSR1);
	s_ok(pending == 1 && before == 0 && s_hits == 1, "mask_defers_delivery");
}

static void t_coalesce(void)
{
	s_hits = 0;
	s_handle(SIGUSR2, s_count, 0);
	s_mask(SIG_BLOCK, SIGUSR2);
	raise(SIGUSR2);
	raise(SIGUSR2);
	raise(SIGUSR2);
	s_mask(SIG_UNBLOCK, SIGUSR2);
	s_ok(s_hits == 1, "standard_signals_coalesce");
}

static void t_rt_queue(void)
{
	struct sigaction sa;
	union sigval v = { .sival_int = 4242 };
	int i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = s_info;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGRTMIN, &sa, NULL);
	s_hits = 0;
	s_mask(SIG_BLOCK, SIGRTMIN);
	for (i = 0; i < 3; i++)
		sigqueue(getpid(), SIGRTMIN, v);
	s_mask(SIG_UNBLOCK, SIGRTMIN);
	s_ok(s_hits == 3, "rt_signals_queue");
	s_ok(s_value == 4242 && s_code == SI_QUEUE, "sigqueue_value");
}

static void t_defaults(void)
{
	s_ok(s_child_killed_by(SIGKILL, 0) == SIGKILL, "sigkill_terminates");
	s_ok(s_child_killed_by(SIGTERM, 0) == SIGTERM, "sigterm_default_action");
	/* an ignored SIGTERM must not kill: the child then dies by SIGKILL */
	s_ok(s_child_killed_by(SIGTERM, 1) == SIGKILL, "sig_ign_ignores");
}

static void t_sigchld(void)
{
	sigset_t none;
	pid_t pid;

	s_hits = 0;
	s_handle(SIGCHLD, s_count, 0);
	s_mask(SIG_BLOCK, SIGCHLD);
	pid = fork();
	if (pid == 0)
		_exit(0);
	sigemptyset(&none);
	alarm(5);
	s_handle(SIGALRM, s_count, 0);
	while (s_hits == 0)
		sigsuspend(&none);
	alarm(0);
	waitpid(pid, NULL, 0);
	s_mask(SIG_UNBLOCK, SIGCHLD);
	s_handle(SIGCHLD, SIG_DFL, 0);
	s_ok(s_hits == 1, "sigchld_on_child_exit");
}

static void t_eintr(void)
{
	int fd[2], r, e;
	char c;

	if (pipe(fd) < 0) {
		s_ok(0, "no_sa_restart_gives_eintr");
		return;
	}
	s_handle(SIGALRM, s_count, 0);
	alarm(1);
	r = read(fd[0], &c, 1);
	e = errno;
	alarm(0);
	close(fd[0]);
	close(fd[1]);
	s_ok(r < 0 && e == EINTR, "no_sa_restart_gives_eintr");
}

static void t_altstack(void)
{
	static char stack[64 * 1024];
	stack_t ss;

	ss.ss_sp = stack;
	ss.ss_size = sizeof(stack);
	ss.ss_flags = 0;
	if (sigaltstack(&ss, NULL) < 0) {
		s_ok(0, "sigaltstack_used");
		return;
	}
	s_where = 0;
	s_handle(SIGUSR1, s_stackaddr, SA_ONSTACK);
	raise(SIGUSR1);
	s_ok(s_where >= (uintptr_t)stack && s_where < (uintptr_t)stack + sizeof(stack),
	     "sigaltstack_used");
	ss.ss_flags = SS_DISABLE;
	sigaltstack(&ss, NULL);
}

static void t_sigtimedwait(void)
{
	sigset_t set;
	struct timespec ts = { 0, 50 * 1000 * 1000 };
	int got, r, e;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	kill(getpid(), SIGUSR1);
	got = sigtimedwait(&set, NULL, &ts);
	r = sigtimedwait(&set, NULL, &ts);
	e = errno;
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	s_ok(got == SIGUSR1, "sigtimedwait_takes_pending");
	s_ok(r < 0 && e == EAGAIN, "sigtimedwait_times_out");
}

int main(void)
{
	printf("1..%d\n", PLAN);
	t_handler();
	t_mask_pending();
	t_coalesce();
	t_rt_queue();
	t_defaults();
	t_sigchld();
	t_eintr();
	t_altstack();
	t_sigtimedwait();
	if (s_n != PLAN)
		printf("# plan mismatch: %d cases\n", s_n);
	return 0;
}
