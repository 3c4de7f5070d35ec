/*
 * mmap: mmap/mprotect/munmap semantics, printed as TAP.
 *
 * Faults are caught with a SIGSEGV/SIGBUS handler and siglongjmp, so a
 * protection that the kernel fails to enforce shows as a failed case, and
 * one enforced too eagerly shows as a fault where none was expected.
 * File mappings use a file under LABMESH_TMP (argv[1]).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define PLAN 13

static int s_n;
static sigjmp_buf s_jmp;
static volatile sig_atomic_t s_sig;
static long s_page;

static void s_ok(int ok, const char *name)
{
	printf("%sok %d - %s\n", ok ? "" : "not ", ++s_n, name);
	fflush(stdout);
}

static void s_fault(int sig)
{
	s_sig = sig;
	siglongjmp(s_jmp, 1);
}

/* Return 0 if the access went through, else the signal that stopped it. */
static int s_try_write(volatile char *p, char v)
{
	s_sig = 0;
	if (sigsetjmp(s_jmp, 1) == 0)
		*p = v;
	return s_sig;
}

static int s_try_read(volatile char *p)
{
	volatile char c;

	s_sig = 0;
	if (sigsetjmp(s_jmp, 1) == 0)
		c = *p;
	(void)c;
	return s_sig;
}

static char *s_anon(size_t len, int prot, int flags)
{
	void *p = mmap(NULL, len, prot, flags | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static void t_anon(void)
{
	char *p = s_anon(4 * s_page, PROT_READ | PROT_WRITE, MAP_PRIVATE);
	int zero = 1;
	long i;

	if (!p) {
		s_ok(0, "anon.zero_filled");
		s_ok(0, "anon.read_write");
		return;
	}
	for (i = 0; i < 4 * s_page; i++)
		zero &= p[i] == 0;
	s_ok(zero, "anon.zero_filled");
	memset(p, 0x5a, 4 * s_page);
	s_ok(p[0] == 0x5a && p[4 * s_page - 1] == 0x5a, "anon.read_write");
	munmap(p, 4 * s_page);
}

static void t_protect(void)
{
	char *p = s_anon(s_page, PROT_NONE, MAP_PRIVATE);

	if (!p) {
		s_ok(0, "prot.none_read_faults");
		s_ok(0, "prot.readonly_write_faults");
		s_ok(0, "prot.restored_write_works");
		s_ok(0, "prot.munmapped_access_faults");
		return;
	}
	s_ok(s_try_read(p) == SIGSEGV, "prot.none_read_faults");
	mprotect(p, s_page, PROT_READ);
	s_ok(s_try_read(p) == 0 && s_try_write(p, 1) == SIGSEGV, "prot.readonly_write_faults");
	mprotect(p, s_page, PROT_READ | PROT_WRITE);
	s_ok(s_try_write(p, 7) == 0 && p[0] == 7, "prot.restored_write_works");
	munmap(p, s_page);
	s_ok(s_try_read(p) == SIGSEGV, "prot.munmapped_access_faults");
}

/* Child writes into the mapping; return what the parent sees afterwards. */
static int s_child_writes(char *p, char v)
{
	pid_t pid = fork();

	if (pid == 0) {
		p[0] = v;
		_exit(0);
	}
	if (pid < 0)
		return -1;
	waitpid(pid, NULL, 0);
	return p[0];
}

static void t_fork(void)
{
	char *sh = s_anon(s_page, PROT_READ | PROT_WRITE, MAP_SHARED);
	char *pr = s_anon(s_page, PROT_READ | PROT_WRITE, MAP_PRIVATE);

	if (!sh || !pr) {
		s_ok(0, "fork.map_shared_visible");
		s_ok(0, "fork.map_private_copy_on_write");
		return;
	}
	sh[0] = 1;
	pr[0] = 1;
	s_ok(s_child_writes(sh, 9) == 9, "fork.map_shared_visible");
	s_ok(s_child_writes(pr, 9) == 1, "fork.map_private_copy_on_write");
	munmap(sh, s_page);
	munmap(pr, s_page);
}

static void t_file(const char *dir)
{
	char path[4096], buf[16] = { 0 };
	char *sh = NULL, *pr = NULL;
	int fd, ok_sh = 0, ok_pr = 0, ok_bus = 0;

	snprintf(path, sizeof(path), "%s/mmap.%d", dir, (int)getpid());
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd >= 0 && ftruncate(fd, s_page) == 0) {
		sh = mmap(NULL, s_page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		pr = mmap(NULL, s_page, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	}
	if (sh && sh != MAP_FAILED && pr && pr != MAP_FAILED) {
		memcpy(sh, "shared-write", 12);
		ok_sh = msync(sh, s_page, MS_SYNC) == 0 && pread(fd, buf, 12, 0) == 12 &&
			memcmp(buf, "shared-write", 12) == 0;
		memcpy(pr, "PRIVATE", 7);
		ok_pr = pread(fd, buf, 7, 0) == 7 && memcmp(buf, "shared-", 7) == 0;
		/* shrink the file under the shared mapping: access beyond EOF is SIGBUS */
		ok_bus = ftruncate(fd, 0) == 0 && s_try_read(sh) == SIGBUS;
	}
	s_ok(ok_sh, "file.map_shared_writes_reach_file");
	s_ok(ok_pr, "file.map_private_writes_stay_private");
	s_ok(ok_bus, "file.access_beyond_eof_sigbus");
	if (sh && sh != MAP_FAILED)
		munmap(sh, s_page);
	if (pr && pr != MAP_FAILED)
		munmap(pr, s_page);
	if (fd >= 0)
		close(fd);
	unlink(path);
}

static void t_dontneed_einval(void)
{
	char *p = s_anon(s_page, PROT_READ | PROT_WRITE, MAP_PRIVATE);
	void *z;
	int e;

	if (p) {
		p[0] = 3;
		madvise(p, s_page, MADV_DONTNEED);
	}
	s_ok(p && p[0] == 0, "anon.madv_dontneed_zeroes");
	if (p)
		munmap(p, s_page);
	z = mmap(NULL, 0, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	e = errno;
	s_ok(z == MAP_FAILED && e == EINVAL, "einval_for_zero_length");
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : "/tmp";
	struct sigaction sa;

	s_page = sysconf(_SC_PAGESIZE);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = s_fault;
	sa.sa_flags = SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	printf("1..%d\n", PLAN);
	t_anon();
	t_protect();
	t_fork();
	t_file(dir);
	t_dontneed_einval();
	if (s_n != PLAN)
		printf("# plan mismatch: %d cases\n", s_n);
	return 0;
}
