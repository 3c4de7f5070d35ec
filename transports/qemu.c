/*
 * qemu: the qemu boot method. qemu_boot() starts qemu-system-<arch> (or the
 * board's configured binary) with the kernel, initrd or rootfs, kernel
 * arguments, memory and CPUs from the board config, the console on a
 * socketpair (QEMU's stdio chardev, the serial port alone: no monitor, as
 * QEMU's multiplexer stops reading input for good when the guest's UART
 * fills before its driver opens it, e.g. typed at a long boot),
 * no network unless the board's extra arguments bring one, -no-reboot,
 * TCG unless the extra arguments ask for an accelerator (a /dev/kvm that
 * opens is no proof that KVM can run a guest, e.g. nested without VMX);
 * then opens the serial transport on the console and waits for a shell.
 * The console goes through a relay (relay.h) that reads QEMU's side all
 * the while, so the guest never waits on a console nobody reads.
 * qemu_halt() quits QEMU: SIGTERM, then SIGKILL, and reaps it.
 *
 * No QEMU outlives its board, even when the node is SIGKILLed: the child
 * asks for SIGKILL when its parent dies (PR_SET_PDEATHSIG, checked against
 * a race with getppid), and its pid is kept in the workdir (qemu.pid) so a
 * later boot in the same workdir kills a survivor. PR_SET_PDEATHSIG fires
 * when the creating THREAD exits: call qemu_boot from a thread that lives
 * as long as the board.
 */
#include "transports/backend.h"
#include "transports/qemu.h"
#include "transports/relay.h"
#include "transports/serial.h"

#include "proto/buf.h"
#include "proto/log.h"
#include "proto/mem.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define QEMU_BOOT_TIMEOUT_S 120 /* to a shell, when the board does not say */
#define QEMU_MEMORY_MB 512
#define QEMU_QUIT_MS 3000       /* per step: SIGTERM, SIGKILL */
#define QEMU_MAX_ARGS 128
#define QEMU_LOG_TAIL 400       /* bytes of qemu.log quoted in errors */
#define QEMU_SETTLE_MS 1500     /* PL011: console quiet this long before typing */

typedef struct {
	pid_t pid;
	int console; /* our end of the console, through the relay */
	relay_t *relay; /* drains QEMU's console all the while */
	char *pidfile;
	char *logfile;
	long long boot_ms;
} qemu_t;

static long long s_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static const char *s_arch(const board_t *b)
{
	return b->cfg->arch && *b->cfg->arch ? b->cfg->arch : "x86_64";
}

static bool s_is_arm64(const char *arch)
{
	return !strcmp(arch, "aarch64") || !strcmp(arch, "arm64");
}

/* qemu-system-<arch> for the board's arch. */
static char *s_binary(const board_t *b)
{
	const char *arch = s_arch(b);

	if (b->cfg->boot.qemu && *b->cfg->boot.qemu)
		return xstrdup(b->cfg->boot.qemu);
	if (s_is_arm64(arch))
		return xstrdup("qemu-system-aarch64");
	if (!strncmp(arch, "arm", 3))
		return xstrdup("qemu-system-arm");
	if (!strcmp(arch, "amd64"))
		return xstrdup("qemu-system-x86_64");
	return xasprintf("qemu-system-%s", arch);
}

static const char *s_console_dev(const char *arch)
{
	if (s_is_arm64(arch) || !strncmp(arch, "arm", 3))
		return "ttyAMA0";
	if (!strncmp(arch, "riscv", 5))
		return "ttyS0";
	return "ttyS0";
}

static bool s_has_arg(const lab_boot_t *boot, const char *prefix)
{
	for (size_t i = 0; i < boot->n_qemu_args; i++) {
		if (boot->qemu_args[i] && !strncmp(boot->qemu_args[i], prefix, strlen(prefix)))
			return true;
	}
	return false;
}

typedef struct {
	char *v[QEMU_MAX_ARGS + 1];
	int n;
} s_argv_t;

static void s_add(s_argv_t *a, char *s)
{
	if (a->n < QEMU_MAX_ARGS)
		a->v[a->n++] = s;
	else
		free(s);
}

static void s_argv_free(s_argv_t *a)
{
	for (int i = 0; i < a->n; i++)
		free(a->v[i]);
	a->n = 0;
}

static void s_build_argv(const board_t *b, const board_kernel_t *k, s_argv_t *a)
{
	const lab_boot_t *boot = &b->cfg->boot;
	const char *arch = s_arch(b);
	const char *append = k->append && *k->append ? k->append : NULL;

	s_add(a, s_binary(b));
	if (boot->machine && *boot->machine) {
		s_add(a, xstrdup("-machine"));
		s_add(a, xstrdup(boot->machine));
	} else if (s_is_arm64(arch)) {
		s_add(a, xstrdup("-machine"));
		s_add(a, xstrdup("virt"));
	}
	/* aarch64: cortex-a57 by default, as TCG runs it ten times faster
	 * than "max" (which emulates pointer authentication) */
	if ((boot->cpu && *boot->cpu) || s_is_arm64(arch)) {
		s_add(a, xstrdup("-cpu"));
		s_add(a, xstrdup(boot->cpu && *boot->cpu ? boot->cpu : "cortex-a57"));
	}
	s_add(a, xstrdup("-m"));
	s_add(a, xasprintf("%d", boot->memory_mb > 0 ? boot->memory_mb : QEMU_MEMORY_MB));
	s_add(a, xstrdup("-smp"));
	s_add(a, xasprintf("%d", boot->cpus > 0 ? boot->cpus : 1));
	s_add(a, xstrdup("-kernel"));
	s_add(a, xstrdup(k->kernel));
	if (k->initrd && *k->initrd) {
		s_add(a, xstrdup("-initrd"));
		s_add(a, xstrdup(k->initrd));
	}
	s_add(a, xstrdup("-append"));
	if (append && strstr(append, "console="))
		s_add(a, xstrdup(append));
	else
		s_add(a, xasprintf("console=%s panic=-1%s%s", s_console_dev(arch),
				   append ? " " : "", append ? append : ""));
	if (boot->rootfs && *boot->rootfs) {
		s_add(a, xstrdup("-drive"));
		s_add(a, xasprintf("file=%s,if=virtio,format=raw,snapshot=on", boot->rootfs));
	}
	/* the console on stdio, nothing else (no monitor) */
	s_add(a, xstrdup("-display"));
	s_add(a, xstrdup("none"));
	s_add(a, xstrdup("-chardev"));
	s_add(a, xstrdup("stdio,id=con0,signal=off"));
	s_add(a, xstrdup("-serial"));
	s_add(a, xstrdup("chardev:con0"));
	s_add(a, xstrdup("-monitor"));
	s_add(a, xstrdup("none"));
	s_add(a, xstrdup("-no-reboot"));
	if (!s_has_arg(boot, "-nic") && !s_has_arg(boot, "-net") &&
	    !s_has_arg(boot, "-netdev")) {
		s_add(a, xstrdup("-nic"));
		s_add(a, xstrdup("none"));
	}
	for (size_t i = 0; i < boot->n_qemu_args; i++) {
		if (boot->qemu_args[i])
			s_add(a, xstrdup(boot->qemu_args[i]));
	}
	a->v[a->n] = NULL;
}

/* Is pid a QEMU (the pidfile may be stale and the pid reused)? */
static bool s_is_qemu(pid_t pid)
{
	char path[64], buf[256] = "";
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	return strstr(buf, "qemu") != NULL;
}

/* A QEMU left by a node that died before it could halt it. */
static void s_kill_stale(const char *pidfile)
{
	FILE *f = fopen(pidfile, "r");
	int pid = 0;

	if (!f)
		return;
	if (fscanf(f, "%d", &pid) == 1 && pid > 1 && s_is_qemu(pid)) {
		log_debug("killing stale qemu %d from %s", pid, pidfile);
		kill(pid, SIGKILL);
	}
	fclose(f);
	unlink(pidfile);
}

static void s_child(s_argv_t *a, int con, const char *workdir,
		    const char *logfile, pid_t parent)
{
	int log;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(127); /* the parent died before the prctl */
	setpgid(0, 0);
	log = open(logfile, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (dup2(con, 0) < 0 || dup2(con, 1) < 0 || log < 0 || dup2(log, 2) < 0)
		_exit(127);
	if (chdir(workdir) < 0)
		_exit(127);
	close_range(3, ~0U, 0);
	signal(SIGPIPE, SIG_DFL);
	execvp(a->v[0], a->v);
	dprintf(2, "exec %s: %s\n", a->v[0], strerror(errno));
	_exit(127);
}

static char *s_log_tail(const char *path)
{
	char buf[QEMU_LOG_TAIL + 1], q[2 * QEMU_LOG_TAIL];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	off_t end;
	ssize_t n = 0;

	if (fd < 0)
		return xstrdup("");
	end = lseek(fd, 0, SEEK_END);
	if (end > QEMU_LOG_TAIL)
		lseek(fd, end - QEMU_LOG_TAIL, SEEK_SET);
	else
		lseek(fd, 0, SEEK_SET);
	n = read(fd, buf, QEMU_LOG_TAIL);
	close(fd);
	if (n <= 0)
		return xstrdup("");
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
		n--;
	return xstrdup(log_quote(q, sizeof(q), buf, (size_t)n));
}

/* Whether name (a path, or a command looked up in PATH) can be run. */
static bool s_runnable(const char *name)
{
	const char *path = getenv("PATH");
	bool ok = false;
	char *dirs, *save = NULL;

	if (strchr(name, '/'))
		return access(name, X_OK) == 0;
	dirs = xstrdup(path && *path ? path : "/usr/bin:/bin");
	for (char *d = strtok_r(dirs, ":", &save); d && !ok;
	     d = strtok_r(NULL, ":", &save)) {
		char *full = xasprintf("%s/%s", *d ? d : ".", name);

		ok = access(full, X_OK) == 0;
		free(full);
	}
	free(dirs);
	return ok;
}

static int s_spawn(board_t *b, qemu_t *q, s_argv_t *a, char **ret_err)
{
	pid_t parent = getpid(), pid;
	int sv[2];
	FILE *f;

	if (!s_runnable(a->v[0])) {
		*ret_err = xasprintf("QEMU is missing: cannot run %s (install"
				     " it: Debian's qemu-system-x86 or"
				     " qemu-system-arm; or set the board's"
				     " boot.qemu)", a->v[0]);
		return -ENOENT;
	}

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
		*ret_err = xasprintf("socketpair: %s", strerror(errno));
		return -errno;
	}
	pid = fork();
	if (pid < 0) {
		*ret_err = xasprintf("fork: %s", strerror(errno));
		close(sv[0]);
		close(sv[1]);
		return -EAGAIN;
	}
	if (pid == 0) {
		close(sv[0]);
		s_child(a, sv[1], b->workdir, q->logfile, parent);
	}
	close(sv[1]);
	q->pid = pid;
	/* drained from now on, whether or not the transport is reading */
	q->relay = relay_new(sv[0], &q->console);
	if (!q->relay) {
		*ret_err = xasprintf("console relay: %s", strerror(errno));
		return -EAGAIN;
	}
	f = fopen(q->pidfile, "w");
	if (f) {
		fprintf(f, "%d\n", (int)pid);
		fclose(f);
	}
	return 0;
}

/*
 * QEMU's PL011 (arm) wedges for good when input fills its FIFO before the
 * guest driver starts: Linux clears the pending receive interrupt at
 * start-up and QEMU sends no more bytes into a full FIFO. So on arm nothing
 * is typed until the board has printed something and then gone quiet for
 * QEMU_SETTLE_MS. What is read here still goes to the console log.
 */
static void s_settle(board_t *b, qemu_t *q, long long deadline_ms)
{
	const char *arch = s_arch(b);
	long long last = 0;
	char buf[4096];

	if (!s_is_arm64(arch) && strncmp(arch, "arm", 3))
		return;
	while (s_now_ms() < deadline_ms) {
		struct pollfd pfd = { .fd = q->console, .events = POLLIN };
		ssize_t n;

		if (last && s_now_ms() - last >= QEMU_SETTLE_MS)
			return;
		if (poll(&pfd, 1, 100) <= 0)
			continue;
		n = read(q->console, buf, sizeof(buf));
		if (n <= 0)
			return; /* QEMU is gone: the transport will say so */
		if (b->opts.console_fn)
			b->opts.console_fn(b->opts.console_arg, TRANSPORT_STDOUT, buf,
					   (size_t)n);
		last = s_now_ms();
	}
}

/* A transport on the console, as transport_open would make one. */
static int s_open_console(board_t *b, qemu_t *q, int timeout_ms, char **ret_err)
{
	transport_t *t = xzalloc(sizeof(*t));
	int r;

	t->board = b->cfg;
	t->output_cap = b->opts.output_cap ? b->opts.output_cap : TRANSPORT_MAX_OUTPUT;
	t->console_fn = b->opts.console_fn;
	t->console_arg = b->opts.console_arg;
	t->workdir = xstrdup(b->workdir);
	t->own_workdir = false;
	r = serial_open_fd_timeout(t, q->console, false, timeout_ms);
	if (r < 0) {
		char *tail = s_log_tail(q->logfile);

		*ret_err = xasprintf("board %s: qemu: %s%s%s", b->cfg->name ? b->cfg->name : "?",
				     t->err[0] ? t->err : strerror(-r),
				     *tail ? "; qemu.log: " : "", tail);
		free(tail);
		t->ops = NULL;
		transport_close(&t);
		return r;
	}
	b->t = t;
	return 0;
}

static void s_reap(qemu_t *q)
{
	long long t0;
	int sig[] = { SIGTERM, SIGKILL };

	if (q->pid <= 0)
		return;
	for (size_t i = 0; i < sizeof(sig) / sizeof(sig[0]); i++) {
		kill(q->pid, sig[i]);
		for (t0 = s_now_ms(); s_now_ms() - t0 < QEMU_QUIT_MS;) {
			pid_t w = waitpid(q->pid, NULL, WNOHANG);

			if (w == q->pid || (w < 0 && errno == ECHILD)) {
				q->pid = -1;
				return;
			}
			usleep(10 * 1000);
		}
	}
	waitpid(q->pid, NULL, 0);
	q->pid = -1;
}

static void s_free(qemu_t *q)
{
	if (!q)
		return;
	s_reap(q);
	relay_destroy(&q->relay);
	if (q->console >= 0)
		close(q->console);
	if (q->pidfile)
		unlink(q->pidfile);
	free(q->pidfile);
	free(q->logfile);
	free(q);
}

int qemu_boot(board_t *b, const board_kernel_t *k, char **ret_err)
{
	const lab_boot_t *boot = &b->cfg->boot;
	int secs = boot->boot_timeout_s > 0 ? boot->boot_timeout_s : QEMU_BOOT_TIMEOUT_S;
	s_argv_t a = { .n = 0 };
	qemu_t *q;
	long long t0;
	int r;

	*ret_err = NULL;
	if (b->qemu)
		qemu_halt(b);
	if (!k || !k->kernel || !*k->kernel) {
		*ret_err = xasprintf("board %s: qemu: no kernel to boot",
				     b->cfg->name ? b->cfg->name : "?");
		return -EINVAL;
	}
	q = xzalloc(sizeof(*q));
	q->pid = -1;
	q->console = -1;
	q->pidfile = xasprintf("%s/qemu.pid", b->workdir);
	q->logfile = xasprintf("%s/qemu.log", b->workdir);
	s_kill_stale(q->pidfile);
	s_build_argv(b, k, &a);
	t0 = s_now_ms();
	r = s_spawn(b, q, &a, ret_err);
	s_argv_free(&a);
	if (r == 0) {
		s_settle(b, q, t0 + 1000LL * secs);
		r = s_open_console(b, q, (int)(t0 + 1000LL * secs - s_now_ms()), ret_err);
	}
	if (r < 0) {
		s_free(q);
		return r;
	}
	q->boot_ms = s_now_ms() - t0;
	b->qemu = q;
	return 0;
}

void qemu_halt(board_t *b)
{
	if (!b || !b->qemu)
		return;
	s_free(b->qemu);
	b->qemu = NULL;
}

pid_t qemu_pid(board_t *b)
{
	qemu_t *q = b ? b->qemu : NULL;

	return q ? q->pid : -1;
}

long long qemu_boot_ms(board_t *b)
{
	qemu_t *q = b ? b->qemu : NULL;

	return q ? q->boot_ms : -1;
}
