/*
 * exec_build: the executor's kernel. Artifact kernels are blobs the node
 * already fetched. Git kernels are fetched, shallow, into the lab's mirror
 * (HOME/work/git/<hash of the URL>) and built with the lab's recipe for
 * the board's arch inside bubblewrap without network, with the recipe's
 * timeout, the log captured; results are cached in
 * HOME/work/build-cache/<hash of commit, config, arch, recipe>.
 *
 * Values from the request (URL, branch, commit, config) are never put in
 * a shell command: git gets them as separate arguments after "--", the
 * recipe (the operator's shell text) gets them as environment variables
 * LABMESH_URL, LABMESH_BRANCH, LABMESH_COMMIT, LABMESH_CONFIG,
 * LABMESH_ARCH and LABMESH_OUT (where it leaves vmlinuz and, optionally,
 * initrd.img and the selftests it built, kselftest/, which are packed
 * into a cpio archive for the board's initramfs).
 */
#include "node/jobs/exec_child.h"

#include "node/jobs/builds.h"
#include "node/jobs/cpio.h"
#include "node/store/blob.h"
#include "proto/mem.h"
#include "proto/types.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char *s_own(exec_kernel_t *k, char *s)
{
	for (size_t i = 0; i < sizeof(k->owned) / sizeof(k->owned[0]); i++) {
		if (!k->owned[i]) {
			k->owned[i] = s;
			return s;
		}
	}
	return s; /* never more than the array holds */
}

void exec_kernel_clear(exec_kernel_t *k)
{
	for (size_t i = 0; i < sizeof(k->owned) / sizeof(k->owned[0]); i++)
		free(k->owned[i]);
	free(k->kernel_path);
	free(k->initrd_path);
	free(k->kselftest_path);
	free(k->build_text);
	memset(k, 0, sizeof(*k));
}

/*
 * Run argv (no shell) with stdout and stderr to logfd, in its own process
 * group, killed after timeout_s. Returns the exit status, -ETIMEDOUT, or
 * -errno.
 */
static int s_spawn(char *const *argv, int logfd, int timeout_s)
{
	struct timespec t0, now;
	int wstatus = 0;
	pid_t pid = fork();

	if (pid < 0)
		return -errno;
	if (pid == 0) {
		setpgid(0, 0);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		int nul = open("/dev/null", O_RDONLY);

		dup2(nul, STDIN_FILENO);
		dup2(logfd, STDOUT_FILENO);
		dup2(logfd, STDERR_FILENO);
		execvp(argv[0], argv);
		dprintf(logfd, "cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	setpgid(pid, pid);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		pid_t r = waitpid(pid, &wstatus, WNOHANG);

		if (r == pid)
			break;
		if (r < 0 && errno != EINTR)
			return -errno;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec - t0.tv_sec >= timeout_s) {
			kill(-pid, SIGKILL);
			waitpid(pid, NULL, 0);
			return -ETIMEDOUT;
		}
		usleep(20000);
	}
	kill(-pid, SIGKILL); /* nothing it started outlives it */
	return WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus);
}

static void s_hash_hex(const char *const *parts, size_t n, char out[33])
{
	crypto_generichash_state st;
	uint8_t h[16];

	crypto_generichash_init(&st, NULL, 0, sizeof(h));
	for (size_t i = 0; i < n; i++)
		crypto_generichash_update(&st, (const uint8_t *)parts[i],
					  strlen(parts[i]) + 1);
	crypto_generichash_final(&st, h, sizeof(h));
	proto_hex(h, sizeof(h), out);
}

static int s_git(int logfd, char *const *args)
{
	char *argv[16] = { "git", "-c", "protocol.ext.allow=never", "-c",
			   "protocol.fd.allow=never" };
	size_t n = 5;

	for (size_t i = 0; args[i] && n < 15; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	return s_spawn(argv, logfd, EXEC_GIT_TIMEOUT_S);
}

static void s_mkdirs(const char *path)
{
	char *p = xstrdup(path);

	for (char *c = p + 1; *c; c++) {
		if (*c != '/')
			continue;
		*c = '\0';
		mkdir(p, 0700);
		*c = '/';
	}
	mkdir(p, 0700);
	free(p);
}

static int64_t s_mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static bool s_has_commit(const char *mirror, const char *commit, int logfd)
{
	char *want = xasprintf("%s^{commit}", commit);
	int rc = s_git(logfd, (char *const[]){ "-C", (char *)mirror, "cat-file",
					       "-e", "--", want, NULL });

	free(want);
	return rc == 0;
}

/*
 * The mirror of the URL (root/git/<hash of the URL>), held (*ret_lock: a
 * shared lock of its .lock, so builds_evict leaves it while a job uses
 * it); made when missing, shallow (s_fetch_commit).
 */
static char *s_mirror(const char *root, const char *url, int logfd,
		      int *ret_lock)
{
	const char *parts[] = { url };
	char hex[33], *mirror, *path;
	int fd;

	s_hash_hex(parts, 1, hex);
	mirror = xasprintf("%s/git/%s", root, hex);
	path = xasprintf("%s/git", root);
	s_mkdirs(path);
	free(path);
	path = xasprintf("%s.lock", mirror);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	free(path);
	if (fd < 0 || flock(fd, LOCK_SH) < 0) {
		if (fd >= 0)
			close(fd);
		free(mirror);
		return NULL;
	}
	*ret_lock = fd;
	if (access(mirror, F_OK) == 0)
		return mirror;
	path = xasprintf("%s/labmesh-shallow", mirror);
	if (s_git(logfd, (char *const[]){ "init", "-q", "--bare", "--", mirror,
					  NULL }) != 0 ||
	    (fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600)) < 0) {
		builds_rmtree(mirror);
		free(path);
		free(mirror);
		return NULL;
	}
	close(fd);
	free(path);
	return mirror;
}

static int s_fetch_git(const char *mirror, const char *url, const char *how,
		       const char *what, int logfd)
{
	return s_git(logfd, (char *const[]){ "-C", (char *)mirror, "fetch",
					     "-q", "--no-tags", (char *)how,
					     "--", (char *)url, (char *)what,
					     NULL });
}

/*
 * Fetch the commit into the mirror, one fetch at a time (a lock of its
 * folder). A mirror s_mirror made shallow (MIRROR/labmesh-shallow) takes
 * the request's branch (all branches without one) at depth 1, then the
 * commit itself at depth 1 (an older commit of the branch), then, if the
 * server gives neither, the branch's whole history, and is whole from
 * then on. A failed fetch is fine when the commit is there after it.
 */
static void s_fetch_commit(const char *mirror, const request_kernel_t *k,
			   int logfd)
{
	const char *parts[] = { k->url };
	char hex[33], *refspec, *one, *mark;
	int fd = open(mirror, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	bool shallow;
	const char *how;

	if (fd >= 0)
		flock(fd, LOCK_EX);
	mark = xasprintf("%s/labmesh-shallow", mirror);
	shallow = access(mark, F_OK) == 0;
	/* (--no-tags twice does what once does) */
	how = shallow ? "--depth=1" : "--no-tags";
	s_hash_hex(parts, 1, hex);
	refspec = *k->branch ? xasprintf("+refs/heads/%s:refs/lm/%s/head",
					 k->branch, hex) :
			       xasprintf("+refs/heads/*:refs/lm/%s/*", hex);
	/* a commit that is no branch's head keeps a ref: gc leaves it */
	one = xasprintf("+%s:refs/lm/%s/commits/%s", k->commit, hex, k->commit);
	if (!s_has_commit(mirror, k->commit, logfd))
		s_fetch_git(mirror, k->url, how, refspec, logfd);
	if (!s_has_commit(mirror, k->commit, logfd))
		s_fetch_git(mirror, k->url, how, one, logfd);
	if (shallow && !s_has_commit(mirror, k->commit, logfd) &&
	    s_fetch_git(mirror, k->url, "--unshallow", refspec, logfd) == 0)
		unlink(mark);
	free(one);
	free(refspec);
	free(mark);
	if (fd >= 0)
		close(fd);
}

/*
 * Fetch the commit into the tree's mirror. 0 or -errno with *ret_error;
 * *ret_lock holds the mirror (see s_mirror).
 */
static int s_fetch(const char *root, const request_kernel_t *k, int logfd,
		   char **ret_mirror, int *ret_lock, char **ret_error)
{
	char *mirror = s_mirror(root, k->url, logfd, ret_lock);

	if (!mirror) {
		*ret_error = xstrdup("cannot make the git mirror");
		return -EIO;
	}
	if (!s_has_commit(mirror, k->commit, logfd))
		s_fetch_commit(mirror, k, logfd);
	if (!s_has_commit(mirror, k->commit, logfd)) {
		*ret_error = xasprintf("commit %s does not exist in %s%s%s"
				       "%s", k->commit, k->url,
				       *k->branch ? " (branch " : "",
				       *k->branch ? k->branch : "",
				       *k->branch ? ")" : "");
		free(mirror);
		return -ENOENT;
	}
	builds_touch(mirror);
	*ret_mirror = mirror;
	return 0;
}

static const lab_recipe_t *s_recipe(const lab_config_t *cfg, const char *arch)
{
	for (size_t i = 0; i < cfg->n_recipes; i++)
		if (strcmp(cfg->recipes[i].arch, arch) == 0)
			return &cfg->recipes[i];
	return NULL;
}

/* Where one build happens: the kept tree (src/, build/) and its output. */
typedef struct {
	const lab_recipe_t *recipe;
	const request_kernel_t *k;
	const char *arch;
	char *mirror; /* whose objects src reads: its real path */
	char *src, *build, *out, *ccache;
	char jobs[16], ccache_max[32];
} s_site_t;

/* Build in the site's tree with the recipe, in bubblewrap, no network. */
static int s_sandbox(const s_site_t *st, int logfd)
{
	const lab_recipe_t *r = st->recipe;
	const request_kernel_t *k = st->k;
	char *argv[96];
	size_t n = 0;

	/* a build takes the CPUs for minutes: the lab's node, boards and
	 * other jobs go first */
	argv[n++] = "nice";
	argv[n++] = "-n";
	argv[n++] = "10";
	argv[n++] = "bwrap";
	argv[n++] = "--unshare-net";
	argv[n++] = "--unshare-pid";
	argv[n++] = "--die-with-parent";
	argv[n++] = "--new-session";
	argv[n++] = "--ro-bind", argv[n++] = "/", argv[n++] = "/";
	argv[n++] = "--dev", argv[n++] = "/dev";
	argv[n++] = "--proc", argv[n++] = "/proc";
	argv[n++] = "--tmpfs", argv[n++] = "/tmp";
	/* git in the tree (the kernel's setlocalversion) reads the mirror's
	 * objects: seen again where the lab keeps its builds under /tmp */
	argv[n++] = "--ro-bind", argv[n++] = st->mirror, argv[n++] = st->mirror;
	argv[n++] = "--bind", argv[n++] = st->src, argv[n++] = st->src;
	argv[n++] = "--bind", argv[n++] = st->build, argv[n++] = st->build;
	argv[n++] = "--bind", argv[n++] = st->out, argv[n++] = st->out;
	argv[n++] = "--bind", argv[n++] = st->ccache, argv[n++] = st->ccache;
	argv[n++] = "--chdir", argv[n++] = st->src;
	argv[n++] = "--setenv", argv[n++] = "LABMESH_URL", argv[n++] = (char *)k->url;
	argv[n++] = "--setenv", argv[n++] = "LABMESH_BRANCH", argv[n++] = (char *)k->branch;
	argv[n++] = "--setenv", argv[n++] = "LABMESH_COMMIT", argv[n++] = (char *)k->commit;
	argv[n++] = "--setenv", argv[n++] = "LABMESH_CONFIG", argv[n++] = (char *)k->config;
	argv[n++] = "--setenv", argv[n++] = "LABMESH_ARCH", argv[n++] = (char *)st->arch;
	argv[n++] = "--setenv", argv[n++] = "LABMESH_KARCH",
	argv[n++] = (char *)builds_karch(st->arch);
	argv[n++] = "--setenv", argv[n++] = "LABMESH_SRC", argv[n++] = st->src;
	argv[n++] = "--setenv", argv[n++] = "LABMESH_BUILD", argv[n++] = st->build;
	argv[n++] = "--setenv", argv[n++] = "LABMESH_OUT", argv[n++] = st->out;
	argv[n++] = "--setenv", argv[n++] = "LABMESH_JOBS", argv[n++] = (char *)st->jobs;
	argv[n++] = "--setenv", argv[n++] = "CROSS_COMPILE",
	argv[n++] = r->cross_compile ? r->cross_compile : "";
	argv[n++] = "--setenv", argv[n++] = "CCACHE_DIR", argv[n++] = st->ccache;
	/* messages in plain ASCII: the log's excerpts go into records (LANG
	 * too: the kernel's Makefile unexports LC_ALL) */
	argv[n++] = "--setenv", argv[n++] = "LC_ALL", argv[n++] = "C";
	argv[n++] = "--setenv", argv[n++] = "LANG", argv[n++] = "C";
	argv[n++] = "--setenv", argv[n++] = "CCACHE_MAXSIZE",
	argv[n++] = (char *)st->ccache_max;
	argv[n++] = "--", argv[n++] = "/bin/sh", argv[n++] = "-c";
	argv[n++] = r->command;
	argv[n] = NULL;
	return s_spawn(argv, logfd, r->timeout_s > 0 ? r->timeout_s : 3600);
}

/* The compiler: what the recipe left in OUT/compiler, else the
 * toolchain's gcc --version. */
static char *s_compiler(const lab_recipe_t *r, const char *out)
{
	char *path = xasprintf("%s/compiler", out), *line = NULL;
	FILE *f = fopen(path, "re");
	char buf[256];

	free(path);
	if (f) {
		if (fgets(buf, sizeof(buf), f)) {
			buf[strcspn(buf, "\n")] = '\0';
			buf[PROTO_MAX_SHORT - 8] = '\0';
			for (char *p = buf; *p; p++)
				if ((unsigned char)*p < 0x20 ||
				    (unsigned char)*p >= 0x7f)
					*p = '?';
			line = *buf ? xstrdup(buf) : NULL;
		}
		fclose(f);
		if (line)
			return line;
	}
	return builds_gcc_version(r->cross_compile);
}

/* Write len bytes to path (a new file); 0 or -errno. */
static int s_write_file(const char *path, const char *text, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, text, len);
	close(fd);
	return n == (ssize_t)len ? 0 : -EIO;
}

/*
 * A new checkout at src that reads the mirror's objects (what `clone
 * --shared` makes, but also of a shallow mirror, whose clone would copy).
 */
static int s_share(const char *mirror, const char *src, int logfd)
{
	char *abs = realpath(mirror, NULL), *line, *path;
	int rc;

	if (!abs ||
	    s_git(logfd, (char *const[]){ "init", "-q", "--", (char *)src,
					  NULL }) != 0) {
		free(abs);
		return -EIO;
	}
	line = xasprintf("%s/objects\n", abs);
	path = xasprintf("%s/.git/objects/info/alternates", src);
	rc = s_write_file(path, line, strlen(line));
	free(path);
	free(line);
	free(abs);
	return rc;
}

/*
 * The mirror's shallow list (its commits whose parents it lacks) in the
 * checkout too, so git there (the kernel's setlocalversion) does not look
 * for them; none when the mirror has none. 0 or -errno.
 */
static int s_share_shallow(const char *mirror, const char *src)
{
	char *from = xasprintf("%s/shallow", mirror);
	char *to = xasprintf("%s/.git/shallow", src), buf[4096];
	int in = open(from, O_RDONLY | O_CLOEXEC), out = -1, rc = 0;
	ssize_t n;

	free(from);
	if (in < 0) {
		rc = unlink(to) == 0 || errno == ENOENT ? 0 : -EIO;
		free(to);
		return rc;
	}
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	free(to);
	if (out < 0)
		rc = -EIO;
	while (rc == 0 && (n = read(in, buf, sizeof(buf))) != 0)
		if (n < 0 || write(out, buf, (size_t)n) != n)
			rc = -EIO;
	close(in);
	if (out >= 0)
		close(out);
	return rc;
}

/*
 * The kept checkout of the tree at the commit: made once per site sharing
 * the mirror's objects, then moved to each commit, so unchanged files keep
 * their times and make rebuilds only what changed. A checkout that cannot
 * move (its mirror was evicted, a killed build left git's index.lock) is
 * made again, with an empty build folder.
 */
static int s_checkout(const char *tree, const char *mirror, const s_site_t *st,
		      const char *commit, int logfd)
{
	const char *src = st->src;

	for (int attempt = 0; attempt < 2; attempt++) {
		if (access(src, F_OK) != 0 && s_share(mirror, src, logfd) < 0)
			return -EIO;
		if (s_share_shallow(mirror, src) == 0 &&
		    s_git(logfd, (char *const[]){ "-C", (char *)src, "checkout",
						  "-q", "-f", "--detach",
						  (char *)commit, "--", NULL }) == 0 &&
		    s_git(logfd, (char *const[]){ "-C", (char *)src, "clean",
						  "-q", "-f", "-d", "-x", NULL }) == 0)
			return 0;
		dprintf(logfd, "labmesh: the kept tree %s cannot move to %s:"
			" making it again\n", tree, commit);
		builds_rmtree(tree);
		s_mkdirs(tree);
		s_mkdirs(st->build); /* the recipe's LABMESH_BUILD, made anew */
	}
	return -EIO;
}

/* The site of (tree, arch, config, recipe) under root, locked (ret_lock). */
static int s_site(const char *root, const request_kernel_t *k,
		  const lab_recipe_t *r, const char *arch,
		  unsigned long long budget, s_site_t *st, char **ret_tree,
		  int *ret_lock)
{
	const char *parts[5] = { k->url, arch, k->config, r->command,
				 r->cross_compile ? r->cross_compile : "" };
	char hex[33], *tree, *lock;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int fd;

	s_hash_hex(parts, 5, hex);
	tree = xasprintf("%s/trees/%s", root, hex);
	lock = xasprintf("%s.lock", tree);
	s_mkdirs(tree);
	fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	free(lock);
	if (fd < 0 || flock(fd, LOCK_EX) < 0) {
		if (fd >= 0)
			close(fd);
		free(tree);
		return -EIO;
	}
	builds_touch(tree);
	st->recipe = r;
	st->k = k;
	st->arch = arch;
	st->src = xasprintf("%s/src", tree);
	st->build = xasprintf("%s/build", tree);
	st->ccache = xasprintf("%s/ccache", root);
	s_mkdirs(st->build);
	s_mkdirs(st->ccache);
	snprintf(st->jobs, sizeof(st->jobs), "%ld", cpus > 0 ? cpus : 1);
	snprintf(st->ccache_max, sizeof(st->ccache_max), "%lluM",
		 budget / 5 / (1024 * 1024) + 1);
	*ret_tree = tree;
	*ret_lock = fd;
	return 0;
}

static void s_site_clear(s_site_t *st)
{
	free(st->mirror);
	free(st->src);
	free(st->build);
	free(st->ccache);
}

/* Remove "DIR/" from the lines of an excerpt: paths read as the tree's. */
static char *s_strip(char *text, const char *dir)
{
	char *pre = xasprintf("%s/", dir), *p;
	size_t n = strlen(pre);

	while ((p = strstr(text, pre)))
		memmove(p, p + n, strlen(p + n) + 1);
	free(pre);
	return text;
}

/* Why the build failed, with the lines of its log that say so. */
static char *s_failure(int rc, const s_site_t *st, const char *log,
		       int timeout_s)
{
	char *tail, *why;

	if (rc == -ETIMEDOUT)
		return xasprintf("build timed out after %d s", timeout_s);
	if (rc != 0) {
		tail = s_strip(builds_log_excerpt(log, 6, 900, true), st->src);
		why = xasprintf("build failed (exit %d)%s%s", rc,
				*tail ? ": " : "", tail);
		free(tail);
		return why;
	}
	tail = builds_log_excerpt(log, BUILDS_LOG_TAIL, 600, false);
	why = xasprintf("the recipe left no image: expected %s/vmlinuz"
			" ($LABMESH_OUT/vmlinuz); the build log ends: %s",
			st->out, *tail ? tail : "(empty)");
	free(tail);
	return why;
}

/* Fetch, check out and build into out; 0 or -errno with *ret_error. */
static int s_make(const char *root,
		  const lab_config_t *cfg, const lab_recipe_t *r,
		  const lab_board_t *board, const request_kernel_t *k,
		  const char *out, exec_kernel_t *ret, char **ret_error)
{
	s_site_t st = { 0 };
	char *mirror = NULL, *tree = NULL, *vm = xasprintf("%s/vmlinuz", out);
	int logfd, lockfd = -1, mirrorfd = -1, rc;

	logfd = open(ret->build_log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
		     0600);
	exec_say(JOB_BUILDING, 0, 0, NULL, "fetching %.12s", k->commit);
	rc = s_fetch(root, k, logfd, &mirror, &mirrorfd, ret_error);
	if (rc == 0 && s_site(root, k, r, board->arch, cfg->build_budget, &st,
			      &tree, &lockfd) < 0) {
		*ret_error = xstrdup("cannot lock the build tree");
		rc = -EIO;
	}
	st.out = (char *)out;
	if (rc == 0 && !(st.mirror = realpath(mirror, NULL)))
		rc = -EIO;
	if (rc == 0 && s_checkout(tree, mirror, &st, k->commit, logfd) < 0) {
		*ret_error = xasprintf("cannot check out %s", k->commit);
		rc = -EIO;
	}
	if (rc == 0) {
		exec_say(JOB_BUILDING, 0, 0, NULL, "building %.12s for %s",
			 k->commit, board->arch);
		rc = s_sandbox(&st, logfd);
		if (rc != 0 || access(vm, R_OK) != 0) {
			*ret_error = s_failure(rc, &st, ret->build_log,
					       r->timeout_s);
			rc = -EIO;
		}
	}
	if (tree) {
		char *c = rc == 0 ? s_compiler(r, out) : NULL;

		if (c)
			ret->id.compiler = s_own(ret, c);
		builds_touch(tree);
	}
	if (lockfd >= 0)
		close(lockfd);
	if (logfd >= 0)
		close(logfd);
	builds_evict(root, cfg->build_budget, tree);
	if (mirrorfd >= 0)
		close(mirrorfd);
	s_site_clear(&st);
	free(tree);
	free(mirror);
	free(vm);
	return rc;
}
/* A finished build's duration and compiler, kept beside it. */
static void s_save_meta(const char *cache, int64_t ms, const char *compiler)
{
	char *path = xasprintf("%s/meta", cache);
	FILE *f = fopen(path, "we");

	if (f) {
		fprintf(f, "%lld\n%s\n", (long long)ms, compiler ? compiler : "");
		fclose(f);
	}
	free(path);
}

static void s_load_meta(const char *cache, exec_kernel_t *ret)
{
	char *path = xasprintf("%s/meta", cache), line[256];
	FILE *f = fopen(path, "re");

	free(path);
	if (!f)
		return;
	if (fgets(line, sizeof(line), f))
		ret->build_ms = strtoll(line, NULL, 10);
	if (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (*line)
			ret->id.compiler = s_own(ret, xstrdup(line));
	}
	fclose(f);
}

/*
 * The selftests the recipe installed in out/kselftest/, as the archive
 * out/kselftest.cpio (made once, also for a build cached before) under
 * /opt/labmesh/kselftest, stored as a blob. None when there are none.
 */
static void s_take_kselftest(const char *home, const char *out,
			     exec_kernel_t *ret)
{
	char *list = xasprintf("%s/kselftest/kselftest-list.txt", out);
	char *dir = xasprintf("%s/kselftest", out);
	char *cpio = xasprintf("%s/kselftest.cpio", out);
	int rc = 0;

	if (access(list, R_OK) == 0 && access(cpio, R_OK) != 0)
		rc = cpio_pack_dir(dir, "opt/labmesh/kselftest", cpio);
	if (rc < 0)
		exec_say(JOB_BUILDING, 0, 0, NULL, "cannot pack the selftests"
			 " of the build: %s", strerror(-rc));
	if (access(list, R_OK) == 0 && access(cpio, R_OK) == 0) {
		ret->kselftest_path = cpio;
		cpio = NULL;
		if (blob_put_file(home, ret->kselftest_path,
				  ret->kselftest_blob) == 0)
			ret->has_kselftest_blob = true;
	}
	free(list);
	free(dir);
	free(cpio);
}

static void s_take_image(const char *home, const char *out, exec_kernel_t *ret)
{
	char *vm = xasprintf("%s/vmlinuz", out);
	char *initrd = xasprintf("%s/initrd.img", out);

	ret->kernel_path = vm;
	if (blob_put_file(home, vm, ret->id.kernel_blob) == 0)
		ret->id.has_kernel_blob = true;
	if (access(initrd, R_OK) == 0) {
		ret->initrd_path = initrd;
		if (blob_put_file(home, initrd, ret->id.initrd_blob) == 0)
			ret->id.has_initrd_blob = true;
	} else {
		free(initrd);
	}
	s_take_kselftest(home, out, ret);
}

static void s_say_built(const request_kernel_t *k, const char *arch,
			exec_kernel_t *ret)
{
	ret->build_text = xasprintf("%s %.12s for %s in %lld s%s%s",
				    ret->cached ? "cached build of" : "built",
				    k->commit, arch,
				    (long long)(ret->build_ms / 1000),
				    *ret->id.compiler ? " with " : "",
				    ret->id.compiler);
}

static int s_build(const char *home, const lab_config_t *cfg,
		   const lab_board_t *board, const request_kernel_t *k,
		   exec_kernel_t *ret, char **ret_error)
{
	const lab_recipe_t *r = s_recipe(cfg, board->arch);
	const char *parts[5] = { k->commit, k->config, board->arch,
				 r ? r->command : "", r && r->cross_compile ?
				 r->cross_compile : "" };
	char hex[33], why[768], *root, *cache, *out, *ok;
	int64_t t0;
	int rc;

	ret->built = true;
	if (builds_config_check(r, board->arch, k->config, why,
				sizeof(why)) < 0) {
		*ret_error = xstrdup(why);
		ret->build_text = xstrdup(why);
		ret->id.build = BUILD_ERROR;
		return -ENOENT;
	}
	root = builds_root(home, cfg);
	s_hash_hex(parts, 5, hex);
	cache = xasprintf("%s/build-cache/%s", root, hex);
	out = xasprintf("%s/out", cache);
	ok = xasprintf("%s/ok", cache);
	snprintf(ret->build_log, sizeof(ret->build_log), "%s/build.log", cache);
	if (access(ok, F_OK) == 0) {
		exec_say(JOB_BUILDING, 0, 0, NULL, "cached build of %.12s",
			 k->commit);
		builds_touch(cache);
		s_load_meta(cache, ret);
		ret->cached = true;
		rc = 0;
	} else {
		/* what an interrupted or failed attempt left goes first */
		builds_rmtree(out);
		s_mkdirs(out);
		t0 = s_mono_ms();
		rc = s_make(root, cfg, r, board, k, out, ret, ret_error);
		ret->build_ms = s_mono_ms() - t0;
		if (rc == 0) {
			s_save_meta(cache, ret->build_ms, ret->id.compiler);
			close(open(ok, O_WRONLY | O_CREAT | O_CLOEXEC, 0600));
		}
	}
	ret->id.build = rc == 0 ? BUILD_PASS :
			rc == -ENOENT ? BUILD_ERROR : BUILD_FAIL;
	if (rc == 0) {
		s_take_image(home, out, ret);
		s_say_built(k, board->arch, ret);
	} else {
		ret->build_text = xstrdup(*ret_error ? *ret_error : "");
	}
	free(root);
	free(cache);
	free(out);
	free(ok);
	return rc;
}

/*
 * The node found a trusted lab's build of this kernel and fetched its
 * blobs (D/prebuilt, jobs_prebuilt.c): boot that, build nothing. 1 when
 * taken, 0 when there is none.
 */
static int s_prebuilt(const char *home, const char *dir,
		      const request_kernel_t *k, exec_kernel_t *ret)
{
	char *path = xasprintf("%s/prebuilt", dir), line[256];
	char kern[65] = "", initrd[65] = "", lab[65] = "", run[65] = "";
	char compiler[160] = "";
	FILE *f = fopen(path, "re");

	free(path);
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (strncmp(line, "compiler ", 9) == 0)
			snprintf(compiler, sizeof(compiler), "%s", line + 9);
		else if (sscanf(line, "kernel %64s", kern) != 1 &&
			 sscanf(line, "initrd %64s", initrd) != 1 &&
			 sscanf(line, "lab %64s", lab) != 1)
			sscanf(line, "run %64s", run);
	}
	fclose(f);
	if (proto_unhex(kern, ret->id.kernel_blob, 32) < 0)
		return 0;
	ret->id.has_kernel_blob = true;
	ret->kernel_path = blob_path(home, ret->id.kernel_blob);
	if (proto_unhex(initrd, ret->id.initrd_blob, 32) == 0) {
		ret->id.has_initrd_blob = true;
		ret->initrd_path = blob_path(home, ret->id.initrd_blob);
	}
	ret->id.compiler = s_own(ret, xstrdup(compiler));
	ret->id.build = BUILD_PASS;
	ret->built = true;
	ret->cached = true;
	exec_say(JOB_BUILDING, 0, 0, NULL, "booting the build of lab %s (run"
		 " %.12s) of %.12s: not building", lab, run, k->commit);
	ret->build_text = xasprintf("booted the build of lab %s (run %s) of"
				    " %.12s, built with %s; not built here",
				    lab, run, k->commit, compiler);
	return 1;
}

int exec_kernel(const char *home, const char *dir, const lab_config_t *cfg,
		const lab_board_t *board, const request_t *req,
		exec_kernel_t *ret, char **ret_error)
{
	const request_kernel_t *k = &req->kernel;

	memset(ret, 0, sizeof(*ret));
	ret->id.tree_url = "";
	ret->id.branch = "";
	ret->id.commit = "";
	ret->id.config = "";
	ret->id.describe = "";
	ret->id.compiler = "";
	ret->id.arch = board->arch;
	ret->id.build = BUILD_NONE;
	if (k->type == REQUEST_KERNEL_NONE)
		return 0;
	ret->id.tree_url = s_own(ret, xstrdup(k->url ? k->url : ""));
	ret->id.branch = s_own(ret, xstrdup(k->branch ? k->branch : ""));
	ret->id.commit = s_own(ret, xstrdup(k->commit ? k->commit : ""));
	ret->id.config = s_own(ret, xstrdup(k->config ? k->config : ""));
	if (k->type == REQUEST_KERNEL_ARTIFACT) {
		ret->id.describe = s_own(ret, xstrdup(k->describe));
		memcpy(ret->id.kernel_blob, k->kernel_blob, 32);
		ret->id.has_kernel_blob = true;
		ret->kernel_path = blob_path(home, k->kernel_blob);
		if (k->has_initrd_blob) {
			memcpy(ret->id.initrd_blob, k->initrd_blob, 32);
			ret->id.has_initrd_blob = true;
			ret->initrd_path = blob_path(home, k->initrd_blob);
		}
		exec_say(JOB_FETCHING, 0, 0, NULL, "kernel blobs at hand");
		return 0;
	}
	ret->id.describe = s_own(ret, xasprintf("%.12s", k->commit));
	if (s_prebuilt(home, dir, k, ret))
		return 0;
	return s_build(home, cfg, board, k, ret, ret_error);
}
