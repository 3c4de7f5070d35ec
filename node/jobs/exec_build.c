/*
 * exec_build: the executor's kernel. Artifact kernels are blobs the node
 * already fetched. Git kernels are fetched into the lab's mirror
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
 * initrd.img).
 */
#include "node/jobs/exec_child.h"

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

/* Fetch the commit into the mirror; 0 or -errno with *ret_error. */
static int s_fetch(const char *home, const request_kernel_t *k, int logfd,
		   char **ret_mirror, char **ret_error)
{
	const char *parts[] = { k->url };
	char hex[33], *mirror, *refspec, *want;
	int rc;

	s_hash_hex(parts, 1, hex);
	mirror = xasprintf("%s/work/git/%s", home, hex);
	if (access(mirror, F_OK) != 0) {
		char *dir = xasprintf("%s/work/git", home);

		mkdir(dir, 0700);
		free(dir);
		rc = s_git(logfd, (char *const[]){ "init", "-q", "--bare",
						   "--", mirror, NULL });
		if (rc != 0) {
			*ret_error = xstrdup("cannot make the git mirror");
			free(mirror);
			return -EIO;
		}
	}
	refspec = *k->branch ? xasprintf("+refs/heads/%s:refs/lm/%s/head", k->branch, hex) :
			       xasprintf("+refs/heads/*:refs/lm/%s/*", hex);
	rc = s_git(logfd, (char *const[]){ "-C", mirror, "fetch", "-q",
					   "--no-tags", "--", (char *)k->url,
					   refspec, NULL });
	free(refspec);
	want = xasprintf("%s^{commit}", k->commit);
	if (s_git(logfd, (char *const[]){ "-C", mirror, "cat-file", "-e",
					  "--", want, NULL }) != 0)
		*ret_error = xasprintf("commit %s does not exist in %s%s%s"
				       "%s", k->commit, k->url,
				       *k->branch ? " (branch " : "",
				       *k->branch ? k->branch : "",
				       *k->branch ? ")" : "");
	free(want);
	if (*ret_error) {
		free(mirror);
		return -ENOENT;
	}
	(void)rc; /* a failed fetch is fine when the commit is there */
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

/* Build src with the recipe into out, in bubblewrap, no network. */
static int s_sandbox(const lab_recipe_t *rc_, const request_kernel_t *k,
		     const char *arch, const char *src, const char *out,
		     int logfd)
{
	char *argv[64];
	size_t n = 0;

	argv[n++] = "bwrap";
	argv[n++] = "--unshare-net";
	argv[n++] = "--unshare-pid";
	argv[n++] = "--die-with-parent";
	argv[n++] = "--new-session";
	argv[n++] = "--ro-bind", argv[n++] = "/", argv[n++] = "/";
	argv[n++] = "--dev", argv[n++] = "/dev";
	argv[n++] = "--proc", argv[n++] = "/proc";
	argv[n++] = "--tmpfs", argv[n++] = "/tmp";
	argv[n++] = "--bind", argv[n++] = (char *)src, argv[n++] = (char *)src;
	argv[n++] = "--bind", argv[n++] = (char *)out, argv[n++] = (char *)out;
	argv[n++] = "--chdir", argv[n++] = (char *)src;
	argv[n++] = "--setenv", argv[n++] = "LABMESH_URL", argv[n++] = (char *)k->url;
	argv[n++] = "--setenv", argv[n++] = "LABMESH_BRANCH", argv[n++] = (char *)k->branch;
	argv[n++] = "--setenv", argv[n++] = "LABMESH_COMMIT", argv[n++] = (char *)k->commit;
	argv[n++] = "--setenv", argv[n++] = "LABMESH_CONFIG", argv[n++] = (char *)k->config;
	argv[n++] = "--setenv", argv[n++] = "LABMESH_ARCH", argv[n++] = (char *)arch;
	argv[n++] = "--setenv", argv[n++] = "LABMESH_OUT", argv[n++] = (char *)out;
	argv[n++] = "--setenv", argv[n++] = "CROSS_COMPILE",
	argv[n++] = rc_->cross_compile ? rc_->cross_compile : "";
	argv[n++] = "--", argv[n++] = "/bin/sh", argv[n++] = "-c";
	argv[n++] = rc_->command;
	argv[n] = NULL;
	return s_spawn(argv, logfd, rc_->timeout_s > 0 ? rc_->timeout_s : 3600);
}

static int s_build(const char *home, const char *dir, const lab_config_t *cfg,
		   const lab_board_t *board, const request_kernel_t *k,
		   exec_kernel_t *ret, char **ret_error)
{
	const lab_recipe_t *r = s_recipe(cfg, board->arch);
	const char *parts[5] = { k->commit, k->config, board->arch,
				 r ? r->command : "", r && r->cross_compile ?
				 r->cross_compile : "" };
	char hex[33], *cache, *out, *src, *mirror = NULL, *vm, *ok;
	int logfd, rc;

	if (!r) {
		*ret_error = xasprintf("no build recipe for %s", board->arch);
		return -ENOENT;
	}
	s_hash_hex(parts, 5, hex);
	cache = xasprintf("%s/work/build-cache/%s", home, hex);
	out = xasprintf("%s/out", cache);
	vm = xasprintf("%s/vmlinuz", out);
	ok = xasprintf("%s/ok", cache);
	snprintf(ret->build_log, sizeof(ret->build_log), "%s/build.log", cache);
	if (access(ok, F_OK) == 0) {
		exec_say(JOB_BUILDING, 0, 0, NULL, "cached build of %.12s",
			 k->commit);
		rc = 0;
		goto done;
	}
	{
		char *p = xasprintf("%s/work/build-cache", home);

		mkdir(p, 0700);
		free(p);
	}
	mkdir(cache, 0700);
	mkdir(out, 0700);
	logfd = open(ret->build_log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
		     0600);
	exec_say(JOB_BUILDING, 0, 0, NULL, "fetching %.12s", k->commit);
	rc = s_fetch(home, k, logfd, &mirror, ret_error);
	src = xasprintf("%s/src", dir);
	/* a tree left by an interrupted attempt goes first */
	s_spawn((char *const[]){ "rm", "-rf", "--", src, NULL }, logfd, 300);
	if (rc == 0 && (s_git(logfd, (char *const[]){ "clone", "-q", "--shared",
					"--no-checkout", "--", mirror, src,
					NULL }) != 0 ||
			s_git(logfd, (char *const[]){ "-C", src, "checkout", "-q",
					"--detach", (char *)k->commit,
					"--", NULL }) != 0)) {
		*ret_error = xasprintf("cannot check out %s", k->commit);
		rc = -EIO;
	}
	if (rc == 0) {
		exec_say(JOB_BUILDING, 0, 0, NULL, "building %.12s for %s",
			 k->commit, board->arch);
		rc = s_sandbox(r, k, board->arch, src, out, logfd);
		if (rc == -ETIMEDOUT)
			*ret_error = xasprintf("build timed out");
		else if (rc != 0)
			*ret_error = xasprintf("build failed (exit %d)", rc);
		else if (access(vm, R_OK) != 0)
			*ret_error = xasprintf("the recipe left no vmlinuz");
		rc = *ret_error ? -EIO : 0;
	}
	if (rc == 0)
		close(open(ok, O_WRONLY | O_CREAT | O_CLOEXEC, 0600));
	if (logfd >= 0)
		close(logfd);
	free(src);
	free(mirror);
done:
	ret->id.build = rc == 0 ? BUILD_PASS :
			rc == -ENOENT ? BUILD_ERROR : BUILD_FAIL;
	if (rc == 0) {
		char *initrd = xasprintf("%s/initrd.img", out);

		ret->kernel_path = xstrdup(vm);
		if (blob_put_file(home, vm, ret->id.kernel_blob) == 0)
			ret->id.has_kernel_blob = true;
		if (access(initrd, R_OK) == 0) {
			ret->initrd_path = initrd;
			if (blob_put_file(home, initrd, ret->id.initrd_blob) == 0)
				ret->id.has_initrd_blob = true;
		} else {
			free(initrd);
		}
	}
	free(cache);
	free(out);
	free(vm);
	free(ok);
	return rc;
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
	return s_build(home, dir, cfg, board, k, ret, ret_error);
}
