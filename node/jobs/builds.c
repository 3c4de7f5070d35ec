/*
 * builds: config specs checked against a recipe, the build storage's
 * paths, its disk budget (least recently used first) and build log
 * excerpts. See builds.h for the spec grammar and the storage layout.
 *
 * Layout: config specs; storage paths; removing and measuring trees;
 * eviction; log excerpts.
 */
#include "node/jobs/builds.h"

#include "proto/buf.h"
#include "proto/mem.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define BUILDS_MAX_ENTRIES 4096 /* entries considered by one eviction */
#define BUILDS_EXCERPT_READ (64 * 1024) /* log bytes read for an excerpt */

/* ---- config specs ------------------------------------------------------ */

static bool s_chars(const char *s, size_t n, const char *extra)
{
	for (size_t i = 0; i < n; i++) {
		char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '_' || c == '-' ||
		      c == '.' || strchr(extra, c)))
			return false;
	}
	return n > 0;
}

static bool s_ends(const char *s, size_t n, const char *suffix)
{
	size_t k = strlen(suffix);

	return n >= k && memcmp(s + n - k, suffix, k) == 0;
}

/* A fragment: a relative path in the tree ending in .config, no "..". */
static bool s_fragment_ok(const char *s, size_t n)
{
	if (!s_chars(s, n, "/") || s[0] == '/' || s[0] == '-' ||
	    !s_ends(s, n, ".config") || n == strlen(".config"))
		return false;
	for (size_t i = 0; i + 1 < n; i++)
		if (s[i] == '.' && s[i + 1] == '.' &&
		    (i == 0 || s[i - 1] == '/') && (i + 2 == n || s[i + 2] == '/'))
			return false;
	return true;
}

static bool s_listed(const lab_recipe_t *r, const char *s, size_t n)
{
	for (size_t i = 0; i < r->n_configs; i++)
		if (strlen(r->configs[i]) == n && memcmp(r->configs[i], s, n) == 0)
			return true;
	return false;
}

static void s_names(const lab_recipe_t *r, char *out, size_t osz)
{
	size_t used = 0;

	out[0] = '\0';
	for (size_t i = 0; i < r->n_configs && used + 1 < osz; i++) {
		int k = snprintf(out + used, osz - used, "%s%s", i ? ", " : "",
				 r->configs[i]);

		if (k < 0)
			break;
		used += (size_t)k < osz - used ? (size_t)k : osz - used - 1;
	}
}

static int s_check_base(const lab_recipe_t *r, const char *arch,
			const char *s, size_t n, char *why, size_t wsz)
{
	char names[512];

	if (r->n_configs) {
		if (s_listed(r, s, n))
			return 0;
		s_names(r, names, sizeof(names));
		snprintf(why, wsz, "config %.*s is not one this lab builds for %s"
			 " (recipe configs: %s)", (int)(n > 64 ? 64 : n), s, arch,
			 names);
		return -EINVAL;
	}
	if (s_chars(s, n, "") && s_ends(s, n, "config"))
		return 0;
	snprintf(why, wsz, "config base '%.*s' is not a make target ending in"
		 " config (tinyconfig, defconfig, ..._defconfig)",
		 (int)(n > 64 ? 64 : n), s);
	return -EINVAL;
}

int builds_config_check(const lab_recipe_t *r, const char *arch,
			const char *spec, char *why, size_t wsz)
{
	const char *p = spec, *plus;
	size_t nfrag = 0;
	int rc;

	if (!r) {
		snprintf(why, wsz, "no build recipe for %s", arch);
		return -ENOENT;
	}
	if (!spec || !*spec)
		return 0;
	plus = strchr(p, '+');
	rc = s_check_base(r, arch, p, plus ? (size_t)(plus - p) : strlen(p),
			  why, wsz);
	while (rc == 0 && plus) {
		size_t n;

		p = plus + 1;
		plus = strchr(p, '+');
		n = plus ? (size_t)(plus - p) : strlen(p);
		if (++nfrag > BUILDS_MAX_FRAGMENTS) {
			snprintf(why, wsz, "config: more than %d fragments",
				 BUILDS_MAX_FRAGMENTS);
			return -EINVAL;
		}
		if (!s_fragment_ok(p, n)) {
			snprintf(why, wsz, "config fragment '%.*s' is not a"
				 " path in the tree ending in .config"
				 " (kernel/configs/kvm_guest.config)",
				 (int)(n > 64 ? 64 : n), p);
			return -EINVAL;
		}
	}
	return rc;
}

const char *builds_karch(const char *arch)
{
	static const char *const map[][2] = {
		{ "aarch64", "arm64" },	     { "arm", "arm" },
		{ "armv5tel", "arm" },	     { "armv6l", "arm" },
		{ "armv7l", "arm" },	     { "i386", "i386" },
		{ "i686", "i386" },	     { "x86_64", "x86_64" },
		{ "riscv32", "riscv" },	     { "riscv64", "riscv" },
		{ "ppc", "powerpc" },	     { "ppc64", "powerpc" },
		{ "ppc64le", "powerpc" },    { "s390x", "s390" },
		{ "mips", "mips" },	     { "mipsel", "mips" },
		{ "mips64", "mips" },	     { "mips64el", "mips" },
		{ "loongarch64", "loongarch" }, { "sh4", "sh" },
		{ "m68k", "m68k" },	     { "sparc64", "sparc" },
	};

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (strcmp(map[i][0], arch) == 0)
			return map[i][1];
	return arch;
}

/* ---- storage ----------------------------------------------------------- */

char *builds_root(const char *home, const lab_config_t *cfg)
{
	if (cfg && cfg->build_dir && *cfg->build_dir)
		return xstrdup(cfg->build_dir);
	return xasprintf("%s/work", home);
}

void builds_touch(const char *path)
{
	utimensat(AT_FDCWD, path, NULL, 0);
}

static int s_rm_one(const char *path, const struct stat *st, int type,
		    struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (type == FTW_DP)
		return rmdir(path) < 0 && errno != ENOENT ? -1 : 0;
	return unlink(path) < 0 && errno != ENOENT ? -1 : 0;
}

int builds_rmtree(const char *path)
{
	struct stat st;

	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISDIR(st.st_mode))
		return unlink(path) < 0 ? -errno : 0;
	/* files of a sandboxed build may be read-only: make them writable
	 * by removing from the leaves up (FTW_DEPTH) */
	return nftw(path, s_rm_one, 32, FTW_DEPTH | FTW_PHYS) < 0 ? -EIO : 0;
}

static uint64_t s_du_total;

static int s_du_one(const char *path, const struct stat *st, int type,
		    struct FTW *ftw)
{
	(void)path;
	(void)type;
	(void)ftw;
	s_du_total += (uint64_t)st->st_blocks * 512;
	return 0;
}

uint64_t builds_du(const char *path)
{
	s_du_total = 0;
	nftw(path, s_du_one, 32, FTW_PHYS);
	return s_du_total;
}

/* ---- eviction ---------------------------------------------------------- */

typedef struct {
	char *path;
	int64_t mtime;
} s_entry_t;

static int s_by_age(const void *a, const void *b)
{
	const s_entry_t *x = a, *y = b;

	return x->mtime < y->mtime ? -1 : x->mtime > y->mtime;
}

static void s_list(const char *root, const char *sub, s_entry_t *e,
		   size_t *n)
{
	char *dir = xasprintf("%s/%s", root, sub);
	DIR *d = opendir(dir);
	struct dirent *de;

	while (d && (de = readdir(d)) && *n < BUILDS_MAX_ENTRIES) {
		struct stat st;
		char *p;

		if (de->d_name[0] == '.')
			continue;
		p = xasprintf("%s/%s", dir, de->d_name);
		if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
			e[*n].path = p;
			e[(*n)++].mtime = (int64_t)st.st_mtime;
		} else {
			free(p);
		}
	}
	if (d)
		closedir(d);
	free(dir);
}

/* Whether another process holds path's lock (path.lock), for trees. */
static bool s_busy(const char *path)
{
	char *lock = xasprintf("%s.lock", path);
	int fd = open(lock, O_RDWR | O_CLOEXEC);
	bool busy = false;

	free(lock);
	if (fd < 0)
		return false;
	busy = flock(fd, LOCK_EX | LOCK_NB) < 0;
	close(fd);
	return busy;
}

uint64_t builds_evict(const char *root, uint64_t budget, const char *keep)
{
	static const char *const subs[] = { "build-cache", "trees", "git" };
	s_entry_t *e = xcalloc(BUILDS_MAX_ENTRIES, sizeof(*e));
	uint64_t total = builds_du(root);
	size_t n = 0;

	for (size_t i = 0; i < sizeof(subs) / sizeof(subs[0]); i++)
		s_list(root, subs[i], e, &n);
	qsort(e, n, sizeof(*e), s_by_age);
	for (size_t i = 0; i < n && total > budget; i++) {
		uint64_t size;

		if ((keep && strcmp(e[i].path, keep) == 0) || s_busy(e[i].path))
			continue;
		size = builds_du(e[i].path);
		if (builds_rmtree(e[i].path) == 0) {
			char *lock = xasprintf("%s.lock", e[i].path);

			unlink(lock); /* a tree's; nobody holds it (s_busy) */
			free(lock);
			total = total > size ? total - size : 0;
		}
	}
	for (size_t i = 0; i < n; i++)
		free(e[i].path);
	free(e);
	return total;
}

/* ---- toolchains -------------------------------------------------------- */

char *builds_gcc_version(const char *cross)
{
	char *gcc = xasprintf("%sgcc", cross ? cross : ""), buf[256];
	int fds[2], status = 0;
	size_t len = 0;
	ssize_t n;
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC) < 0) {
		free(gcc);
		return NULL;
	}
	pid = fork();
	if (pid == 0) {
		int nul = open("/dev/null", O_RDWR);

		dup2(nul, STDIN_FILENO);
		dup2(fds[1], STDOUT_FILENO);
		dup2(nul, STDERR_FILENO);
		execlp(gcc, gcc, "--version", (char *)NULL);
		_exit(127);
	}
	free(gcc);
	close(fds[1]);
	while (pid > 0 && len + 1 < sizeof(buf) &&
	       (n = read(fds[0], buf + len, sizeof(buf) - 1 - len)) > 0)
		len += (size_t)n;
	close(fds[0]);
	if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0)
		return NULL;
	buf[len] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	buf[120] = '\0'; /* within a record's compiler field */
	for (char *p = buf; *p; p++)
		if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)
			*p = '?';
	return *buf ? xstrdup(buf) : NULL;
}

/* ---- log excerpts ------------------------------------------------------ */

static bool s_errorish(const char *line, size_t n)
{
	static const char *const words[] = { "error", "Error", "ERROR",
					     "undefined reference" };

	for (size_t w = 0; w < sizeof(words) / sizeof(words[0]); w++) {
		size_t k = strlen(words[w]);

		for (size_t i = 0; i + k <= n; i++)
			if (memcmp(line + i, words[w], k) == 0)
				return true;
	}
	return false;
}

static void s_join(buf_t *b, const char *line, size_t n, size_t max)
{
	if (b->len)
		buf_puts(b, " | ");
	buf_append(b, line, n > max ? max : n);
}

char *builds_log_excerpt(const char *path, int lines, size_t max,
			 bool errors_first)
{
	FILE *f = fopen(path, "rbe");
	char *text = xmalloc(BUILDS_EXCERPT_READ + 1), *out;
	const char *starts[256];
	size_t lens[256], n = 0, len = 0, picked = 0;
	buf_t b;

	buf_init(&b, max);
	if (f) {
		if (fseek(f, 0, SEEK_END) == 0 && ftell(f) > BUILDS_EXCERPT_READ)
			fseek(f, -BUILDS_EXCERPT_READ, SEEK_END);
		else
			fseek(f, 0, SEEK_SET);
		len = fread(text, 1, BUILDS_EXCERPT_READ, f);
		fclose(f);
	}
	text[len] = '\0';
	for (size_t i = 0; i < len;) {
		size_t e = i;

		while (e < len && text[e] != '\n')
			e++;
		if (e > i) {
			if (n == 256) {
				memmove(starts, starts + 1, 255 * sizeof(*starts));
				memmove(lens, lens + 1, 255 * sizeof(*lens));
				n--;
			}
			starts[n] = text + i;
			lens[n++] = e - i;
		}
		i = e + 1;
	}
	for (size_t i = 0; errors_first && i < n && picked < (size_t)lines; i++)
		if (s_errorish(starts[i], lens[i])) {
			s_join(&b, starts[i], lens[i], 300);
			picked++;
		}
	for (size_t i = n > (size_t)lines ? n - (size_t)lines : 0;
	     !picked && i < n; i++)
		s_join(&b, starts[i], lens[i], 300);
	free(text);
	out = buf_steal(&b);
	/* plain ASCII: a cut can never split a character, and the text is
	 * safe in any record field */
	for (char *p = out; *p; p++)
		if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)
			*p = (unsigned char)*p >= 0x7f ? '?' : ' ';
	return out;
}
