/*
 * errno-contract: a sampler of system-call error contracts, printed as TAP.
 *
 * Each case sets up a situation, makes one call that must fail, and checks
 * both the -1 return and the exact errno the kernel ABI promises. Programs
 * branch on these values (EEXIST to detect races, ENOENT to create, EINTR
 * to retry); a kernel that returns another code breaks them silently.
 * Scratch files live under LABMESH_TMP (argv[1]).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PLAN 29

static int s_n;
static char s_dir[3072];

static void s_expect(long ret, int want, const char *name)
{
	int e = errno;

	if (ret == -1 && e == want) {
		printf("ok %d - %s\n", ++s_n, name);
	} else {
		printf("not ok %d - %s\n", ++s_n, name);
		printf("# got ret=%ld errno=%d (%s), want errno=%d (%s)\n", ret, e, strerror(e),
		       want, strerror(want));
	}
	fflush(stdout);
}

static const char *s_path(const char *leaf)
{
	static char buf[4][4096];
	static int k;

	k = (k + 1) % 4;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", s_dir, leaf);
	return buf[k];
}

static void s_setup(void)
{
	int fd;

	mkdir(s_path("dir"), 0700);
	mkdir(s_path("full"), 0700);
	fd = open(s_path("full/f"), O_CREAT | O_WRONLY, 0600);
	if (fd >= 0)
		close(fd);
	fd = open(s_path("file"), O_CREAT | O_WRONLY, 0600);
	if (fd >= 0) {
		if (write(fd, "not an executable\n", 18) != 18)
			printf("# short write\n");
		close(fd);
	}
	chmod(s_path("file"), 0644);
	symlink("loop2", s_path("loop1"));
	symlink("loop1", s_path("loop2"));
}

static void s_cleanup(void)
{
	unlink(s_path("full/f"));
	rmdir(s_path("full"));
	rmdir(s_path("dir"));
	unlink(s_path("file"));
	unlink(s_path("loop1"));
	unlink(s_path("loop2"));
	unlink(s_path("new"));
}

static void t_files(void)
{
	char longname[512];

	s_expect(open(s_path("missing"), O_RDONLY), ENOENT, "open.enoent");
	s_expect(open(s_path("dir"), O_WRONLY), EISDIR, "open.eisdir");
	s_expect(open(s_path("file/x"), O_RDONLY), ENOTDIR, "open.enotdir");
	s_expect(open(s_path("file"), O_CREAT | O_EXCL | O_WRONLY, 0600), EEXIST, "open.eexist");
	s_expect(open(s_path("file"), O_RDONLY | O_DIRECTORY), ENOTDIR, "open.o_directory_enotdir");
	s_expect(open(s_path("loop1"), O_RDONLY), ELOOP, "open.eloop");
	memset(longname, 'n', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = 0;
	s_expect(open(s_path(longname), O_RDONLY), ENAMETOOLONG, "open.enametoolong");
	s_expect(mkdir(s_path("dir"), 0700), EEXIST, "mkdir.eexist");
	s_expect(mkdir(s_path("missing/sub"), 0700), ENOENT, "mkdir.enoent");
	s_expect(rmdir(s_path("full")), ENOTEMPTY, "rmdir.enotempty");
	s_expect(rmdir(s_path("file")), ENOTDIR, "rmdir.enotdir");
	s_expect(unlink(s_path("dir")), EISDIR, "unlink.eisdir");
	s_expect(rename(s_path("dir"), s_path("dir/inside")), EINVAL, "rename.einval_into_self");
	s_expect(rename(s_path("dir"), s_path("file")), ENOTDIR, "rename.enotdir_dir_over_file");
	s_expect(link(s_path("dir"), s_path("new")), EPERM, "link.eperm_on_directory");
	s_expect(chdir(s_path("file")), ENOTDIR, "chdir.enotdir");
	s_expect(truncate(s_path("dir"), 0), EISDIR, "truncate.eisdir");
}

static void t_fds(void)
{
	int fd[2], closed;
	char c = 0;

	closed = dup(1);
	close(closed);
	s_expect(write(closed, &c, 1), EBADF, "write.ebadf");
	s_expect(read(closed, &c, 1), EBADF, "read.ebadf");
	s_expect(close(closed), EBADF, "close.ebadf");
	s_expect(dup2(closed, 100), EBADF, "dup2.ebadf");
	if (pipe(fd) == 0) {
		s_expect(lseek(fd[0], 0, SEEK_SET), ESPIPE, "lseek.espipe_on_pipe");
		close(fd[0]);
		close(fd[1]);
	} else {
		s_expect(0, ESPIPE, "lseek.espipe_on_pipe");
	}
}

static void t_process(void)
{
	struct timespec bad = { 0, 2000000000L };
	pid_t pid = fork();
	int st;

	if (pid == 0)
		_exit(0);
	if (pid > 0)
		waitpid(pid, &st, 0);
	/* a just-reaped pid is free; pids are not reused this quickly */
	s_expect(kill(pid, 0), ESRCH, "kill.esrch");
	s_expect(kill(getpid(), 12345), EINVAL, "kill.einval_bad_signal");
	s_expect(waitpid(-1, &st, WNOHANG), ECHILD, "waitpid.echild");
	s_expect(nanosleep(&bad, NULL), EINVAL, "nanosleep.einval_nsec");
	s_expect(socket(12345, SOCK_STREAM, 0), EAFNOSUPPORT, "socket.eafnosupport");
}

/* exec of a non-executable file (EACCES even for root) and of a text file
 * without #! (ENOEXEC): run in a child that reports errno as exit code. */
static int s_exec_errno(const char *path, int mode)
{
	char *argv[] = { (char *)path, NULL };
	pid_t pid;
	int st;

	chmod(path, mode);
	pid = fork();
	if (pid == 0) {
		execv(path, argv);
		_exit(errno & 0xff);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

static void t_exec(void)
{
	int e;

	e = s_exec_errno(s_path("file"), 0644);
	errno = e;
	s_expect(-1, EACCES, "execve.eacces_not_executable");
	e = s_exec_errno(s_path("file"), 0755);
	errno = e;
	s_expect(-1, ENOEXEC, "execve.enoexec_bad_format");
}

int main(int argc, char **argv)
{
	snprintf(s_dir, sizeof(s_dir), "%s/errno.%d", argc > 1 ? argv[1] : "/tmp", (int)getpid());
	if (mkdir(s_dir, 0700) < 0) {
		printf("1..0 # SKIP cannot make scratch dir %s: %s\n", s_dir, strerror(errno));
		return 0;
	}
	s_setup();
	printf("1..%d\n", PLAN);
	t_files();
	t_fds();
	t_process();
	t_exec();
	s_cleanup();
	rmdir(s_dir);
	if (s_n != PLAN)
		printf("# plan mismatch: %d cases\n", s_n);
	return 0;
}
