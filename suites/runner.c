/*
 * runner: needs check, host build, deploy, run, parse and criteria for one
 * suite on one board. See runner.h.
 *
 * suite_run reads as that list of steps, each an s_step_* function
 * sharing one struct run; s_check_needs and s_build, above them, do the
 * work of the needs and build steps.
 */
#include "suites/runner.h"
#include "suites/criteria.h"
#include "suites/parse.h"
#include "suites/reply.h"
#include "proto/buf.h"
#include "proto/mem.h"
#include "transports/proc.h"

#include <errno.h>
#include <fcntl.h>
#include <sodium.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#define RUNNER_MAX_SMALL_OUTPUT (64 * 1024) /* needs, identity, mkdir */
#define RUNNER_MAX_SOURCE (4 * 1024 * 1024) /* one C source file */

/* ---- small helpers ---------------------------------------------------- */

static int64_t s_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

const char *suite_host_arch(void)
{
	static char arch[65];

	if (!arch[0]) {
		struct utsname u;
		if (uname(&u) == 0)
			snprintf(arch, sizeof(arch), "%s", u.machine);
		else
			snprintf(arch, sizeof(arch), "unknown");
	}
	return arch;
}

/* The canonical name of an architecture (uname -m spelling). */
static const char *s_arch_canon(const char *a)
{
	if (!strcmp(a, "amd64") || !strcmp(a, "x86-64"))
		return "x86_64";
	if (!strcmp(a, "arm64"))
		return "aarch64";
	if (!strcmp(a, "i686") || !strcmp(a, "i586") || !strcmp(a, "i486"))
		return "i386";
	return a;
}

static bool s_same_arch(const char *a, const char *b)
{
	return strcmp(s_arch_canon(a), s_arch_canon(b)) == 0;
}

static int s_mkdirs(const char *path)
{
	char *p = xstrdup(path);
	int r = 0;

	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, 0755) < 0 && errno != EEXIST) {
			r = -errno;
			break;
		}
		*s = '/';
	}
	if (r == 0 && mkdir(p, 0755) < 0 && errno != EEXIST)
		r = -errno;
	free(p);
	return r;
}

/* ---- output capture --------------------------------------------------- */

#define RUNNER_MAX_STAMPS 65536 /* stdout lines timed per suite run */

/* When a line of stdout arrived: its end (the offset past its '\n'). */
struct stamp {
	size_t end;
	int64_t ms;
};

struct stamps {
	struct stamp *v;
	size_t n, alloc;
};

struct capture {
	buf_t out;         /* stdout, to parse */
	struct stamps st;  /* when each line of it arrived */
	FILE *log;         /* both streams, as they come */
	char line[SUITE_MAX_LINE + 1];
	size_t line_len;
	const suite_def_t *def;
	const suite_run_opts_t *opts;
	bool progress;
};

static void s_stamp_lines(struct stamps *st, size_t base, const char *data,
			  size_t len)
{
	int64_t now = -1;

	for (const char *p = data; (p = memchr(p, '\n', len - (size_t)(p - data)));
	     p++) {
		if (st->n == RUNNER_MAX_STAMPS)
			return;
		if (now < 0)
			now = s_now_ms();
		if (st->n == st->alloc) {
			st->alloc = st->alloc ? st->alloc * 2 : 256;
			st->v = xreallocarray(st->v, st->alloc, sizeof(*st->v));
		}
		st->v[st->n].end = base + (size_t)(p - data) + 1;
		st->v[st->n++].ms = now;
		if ((size_t)(p - data) + 1 == len)
			return;
	}
}

static void s_line_done(struct capture *c)
{
	c->line[c->line_len] = '\0';
	for (size_t i = 0; i < c->line_len; i++) {
		if (c->line[i] == '\0')
			c->line[i] = '?';
	}
	if (c->line_len && c->line[c->line_len - 1] == '\r')
		c->line[c->line_len - 1] = '\0';
	c->opts->progress(c->opts->progress_arg, c->def, SUITE_PHASE_RUN, c->line, NULL);
	c->line_len = 0;
}

static void s_capture_fn(void *arg, enum transport_stream stream, const char *data,
			 size_t len)
{
	struct capture *c = arg;

	if (stream == TRANSPORT_STDOUT) {
		size_t base = c->out.len;

		buf_append(&c->out, data, len);
		s_stamp_lines(&c->st, base, data, len);
	}
	if (c->log)
		fwrite(data, 1, len, c->log);
	if (!c->progress)
		return;
	for (size_t i = 0; i < len; i++) {
		if (data[i] == '\n') {
			s_line_done(c);
			continue;
		}
		if (c->line_len < SUITE_MAX_LINE)
			c->line[c->line_len++] = data[i];
	}
}

static void s_small_fn(void *arg, enum transport_stream stream, const char *data,
		       size_t len)
{
	buf_t *b = arg;

	if (stream == TRANSPORT_STDOUT)
		buf_append(b, data, len);
}

/* Run a short command of ours and collect its stdout. */
static int s_run_small(transport_t *t, const char *cmd, buf_t *out, int *ret_status)
{
	buf_init(out, RUNNER_MAX_SMALL_OUTPUT);
	return transport_run(t, cmd, SUITE_SETUP_TIMEOUT_MS, s_small_fn, out, ret_status);
}

static void s_log(FILE *log, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void s_log(FILE *log, const char *fmt, ...)
{
	va_list ap;

	if (!log)
		return;
	va_start(ap, fmt);
	vfprintf(log, fmt, ap);
	va_end(ap);
	fflush(log);
}

/* ---- kernel identity -------------------------------------------------- */

int suite_kernel_identity(transport_t *t, suite_kernel_t *ret)
{
	buf_t out;
	int status = 0, r;

	memset(ret, 0, sizeof(*ret));
	r = s_run_small(t, "echo \"LMKR:$(uname -r)\"; echo \"LMKM:$(uname -m)\"; "
			   "echo \"LMKV:$(cat /proc/version 2>/dev/null)\"",
			&out, &status);
	if (r == 0)
		r = suite_reply_kernel((const char *)out.data, out.len, ret);
	buf_free(&out);
	if (r < 0)
		suite_kernel_clear(ret);
	return r;
}

void suite_kernel_clear(suite_kernel_t *k)
{
	free(k->release);
	free(k->machine);
	free(k->version);
	memset(k, 0, sizeof(*k));
}

/* ---- needs ------------------------------------------------------------ */

/* Checks the target; *ret_reason is why the suite cannot run (NULL: it
 * can). Returns a negative code when the check itself failed. */
static int s_check_needs(transport_t *t, const suite_def_t *d, const char *arch,
			 FILE *log, char **ret_reason)
{
	buf_t cmd, out, why;
	suite_needs_reply_t nr;
	int status = 0, r = 0;
	bool arch_ok = d->n_need_arch == 0;

	*ret_reason = NULL;
	buf_init(&why, SUITE_MAX_REASON);
	for (size_t i = 0; i < d->n_need_arch; i++) {
		if (s_same_arch(d->need_arch[i], arch))
			arch_ok = true;
	}
	if (!arch_ok) {
		buf_printf(&why, "arch %s not among", arch);
		for (size_t i = 0; i < d->n_need_arch; i++)
			buf_printf(&why, " %s", d->need_arch[i]);
	}
	if (!d->n_need_commands && !d->n_need_kconfig && !d->need_root)
		goto done;

	/* every name below was validated to [A-Za-z0-9_.+-] by the catalog */
	buf_init(&cmd, 0);
	if (d->n_need_commands) {
		buf_puts(&cmd, "for c in");
		for (size_t i = 0; i < d->n_need_commands; i++)
			buf_printf(&cmd, " %s", d->need_commands[i]);
		buf_puts(&cmd, "; do command -v \"$c\" >/dev/null 2>&1 || echo \"LMNEED:command $c\"; done; ");
	}
	if (d->need_root)
		buf_puts(&cmd, "u=$(id -u 2>/dev/null); [ \"$u\" = 0 ] || echo \"LMNEED:root $u\"; ");
	if (d->n_need_kconfig) {
		buf_puts(&cmd, "if [ -r /proc/config.gz ]; then "
			       "conf=$( (zcat /proc/config.gz || gzip -dc /proc/config.gz) 2>/dev/null); "
			       "elif [ -r \"/boot/config-$(uname -r)\" ]; then "
			       "conf=$(cat \"/boot/config-$(uname -r)\"); else conf=; fi; "
			       "if [ -n \"$conf\" ]; then for k in");
		for (size_t i = 0; i < d->n_need_kconfig; i++)
			buf_printf(&cmd, " %s", d->need_kconfig[i]);
		buf_puts(&cmd, "; do echo \"$conf\" | grep -q \"^$k=[ym]\" || echo \"LMNEED:kconfig $k\"; done; "
			       "else echo \"LMNEED:noconfig\"; fi; ");
	}
	buf_puts(&cmd, "echo LMNEED:done");
	r = s_run_small(t, buf_str(&cmd), &out, &status);
	buf_free(&cmd);
	if (r < 0) {
		buf_free(&out);
		goto done;
	}
	s_log(log, "# needs check output:\n%.*s", (int)out.len, (const char *)out.data);
	r = suite_reply_needs((const char *)out.data, out.len, &why, &nr);
	if (r == 0 && nr.noconfig)
		s_log(log, "# needs: kernel config not readable, kconfig needs not checked\n");
	buf_free(&out);
done:
	if (r == 0 && why.len)
		*ret_reason = buf_steal(&why);
	buf_free(&why);
	return r;
}

/* ---- build ------------------------------------------------------------ */

static void s_buf_fn(void *arg, enum transport_stream stream, const char *data, size_t len)
{
	buf_append(arg, data, len);
}

/* The compiler for the board's arch; NULL with *ret_err when none. */
static char *s_compiler(const suite_run_opts_t *o, const char *arch, char **ret_err)
{
	if (s_same_arch(arch, suite_host_arch()))
		return xstrdup(o->host_cc ? o->host_cc : "cc");
	if (o->lab) {
		for (size_t i = 0; i < o->lab->n_recipes; i++) {
			const lab_recipe_t *rc = &o->lab->recipes[i];
			if (rc->arch && rc->cross_compile && s_same_arch(rc->arch, arch))
				return xasprintf("%sgcc", rc->cross_compile);
		}
	}
	*ret_err = xasprintf("no compiler for arch %s: the host is %s and no lab recipe "
			     "gives a cross_compile prefix for it", arch, suite_host_arch());
	return NULL;
}

static int s_hash_file(crypto_generichash_state *st, const char *path)
{
	char buf[65536];
	size_t total = 0, n;
	FILE *f = fopen(path, "rb");

	if (!f)
		return -errno;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0) {
		total += n;
		if (total > RUNNER_MAX_SOURCE) {
			fclose(f);
			return -EFBIG;
		}
		crypto_generichash_update(st, (const unsigned char *)buf, n);
	}
	fclose(f);
	return 0;
}

/* Run `cc --version`: its output is part of the cache key. */
static int s_compiler_version(const char *cc, buf_t *ver, char **ret_log)
{
	char err[256];
	proc_spec_t ps;
	int status = -1, r;

	proc_spec_init(&ps);
	proc_arg(&ps, cc);
	proc_arg(&ps, "--version");
	ps.timeout_ms = 30000;
	ps.fn = s_buf_fn;
	ps.arg = ver;
	r = proc_run(&ps, &status, err, sizeof(err));
	if (r < 0 || status != 0) {
		*ret_log = xasprintf("compiler %s does not run: %s", cc,
				     r < 0 ? err : buf_str(ver));
		return -ENOENT;
	}
	return 0;
}

/* The cache key, in hex: compiler identity, flags, sources. */
static int s_cache_key(const suite_def_t *d, const char *cc, char ret_hex[33],
		       char **ret_log)
{
	crypto_generichash_state st;
	unsigned char h[16];
	buf_t ver;
	int r;

	crypto_generichash_init(&st, NULL, 0, sizeof(h));
	buf_init(&ver, 4096);
	r = s_compiler_version(cc, &ver, ret_log);
	if (r < 0) {
		buf_free(&ver);
		return r;
	}
	crypto_generichash_update(&st, (const unsigned char *)cc, strlen(cc) + 1);
	crypto_generichash_update(&st, ver.data, ver.len);
	buf_free(&ver);
	crypto_generichash_update(&st, (const unsigned char *)(d->build_static ? "S" : "D"), 1);
	for (size_t i = 0; i < d->n_cflags; i++)
		crypto_generichash_update(&st, (const unsigned char *)d->cflags[i],
					  strlen(d->cflags[i]) + 1);
	crypto_generichash_update(&st, (const unsigned char *)"|", 1);
	for (size_t i = 0; i < d->n_ldflags; i++)
		crypto_generichash_update(&st, (const unsigned char *)d->ldflags[i],
					  strlen(d->ldflags[i]) + 1);
	for (size_t i = 0; i < d->n_sources; i++) {
		char *src = xasprintf("%s/%s", d->dir, d->sources[i]);
		crypto_generichash_update(&st, (const unsigned char *)d->sources[i],
					  strlen(d->sources[i]) + 1);
		r = s_hash_file(&st, src);
		free(src);
		if (r < 0) {
			*ret_log = xasprintf("source %s: %s", d->sources[i], strerror(-r));
			return r;
		}
	}
	crypto_generichash_final(&st, h, sizeof(h));
	sodium_bin2hex(ret_hex, 33, h, sizeof(h));
	return 0;
}

/* Compile into a temporary beside bin, then rename it into place, so a
 * cached binary is always a whole one. *ret_log is the compiler's log. */
static int s_compile(const suite_def_t *d, const char *cc, const char *dir, const char *bin,
		     char **ret_log)
{
	char *tmp = xasprintf("%s/.%s.%d", dir, d->output, (int)getpid());
	char err[256];
	proc_spec_t ps;
	int status = -1, r;
	buf_t log;

	buf_init(&log, SUITE_MAX_BUILD_LOG);
	proc_spec_init(&ps);
	proc_arg(&ps, cc);
	for (size_t i = 0; i < d->n_cflags; i++)
		proc_arg(&ps, d->cflags[i]);
	proc_arg(&ps, "-o");
	proc_arg(&ps, tmp);
	for (size_t i = 0; i < d->n_sources; i++)
		proc_arg(&ps, d->sources[i]);
	if (d->build_static)
		proc_arg(&ps, "-static");
	for (size_t i = 0; i < d->n_ldflags; i++)
		proc_arg(&ps, d->ldflags[i]);
	proc_env(&ps, "LC_ALL=C"); /* plain quotes in the messages we show */
	ps.cwd = d->dir;
	ps.timeout_ms = SUITE_BUILD_TIMEOUT_MS;
	ps.fn = s_buf_fn;
	ps.arg = &log;
	buf_printf(&log, "$ %s", cc);
	for (size_t i = 1; i < ps.argc; i++)
		buf_printf(&log, " %s", ps.argv[i]);
	buf_puts(&log, "\n");
	r = proc_run(&ps, &status, err, sizeof(err));
	if (r < 0 || status != 0) {
		unlink(tmp);
		*ret_log = xasprintf("%s%s%s", buf_str(&log), r < 0 ? err : "",
				     r < 0 ? "\n" : "");
		r = r < 0 ? r : -EIO;
	} else if (rename(tmp, bin) < 0) {
		r = -errno;
		*ret_log = xasprintf("%s: %s", bin, strerror(errno));
		unlink(tmp);
	} else {
		*ret_log = buf_steal(&log);
	}
	buf_free(&log);
	free(tmp);
	return r;
}

/*
 * Build def's binary for arch; *ret_bin is its host path (the caller's).
 * On failure *ret_log says why (compiler output included).
 */
static int s_build(const suite_def_t *d, const char *arch, const suite_run_opts_t *o,
		   char **ret_bin, char **ret_log, bool *ret_cached)
{
	char hex[33];
	char *cc, *dir = NULL, *bin = NULL;
	struct stat sb;
	int r;

	*ret_bin = NULL;
	*ret_log = NULL;
	*ret_cached = false;
	cc = s_compiler(o, arch, ret_log);
	if (!cc)
		return -ENOENT;
	if (d->n_cflags + d->n_ldflags + d->n_sources + 5 > PROC_MAX_ARGS) {
		*ret_log = xasprintf("too many compiler arguments (at most %d)", PROC_MAX_ARGS);
		r = -E2BIG;
		goto out;
	}
	r = s_cache_key(d, cc, hex, ret_log);
	if (r < 0)
		goto out;
	if (o->cache_dir)
		dir = xasprintf("%s/%s-%s", o->cache_dir, d->name, hex);
	else
		dir = xasprintf("/tmp/labmesh-build-%s-%s-%d", d->name, hex, (int)getpid());
	bin = xasprintf("%s/%s", dir, d->output);
	if (o->cache_dir && stat(bin, &sb) == 0 && S_ISREG(sb.st_mode)) {
		*ret_cached = true;
	} else {
		r = s_mkdirs(dir);
		if (r < 0) {
			*ret_log = xasprintf("build dir %s: %s", dir, strerror(-r));
			goto out;
		}
		r = s_compile(d, cc, dir, bin, ret_log);
		if (r < 0)
			goto out;
	}
	*ret_bin = bin;
	bin = NULL;
out:
	free(cc);
	free(dir);
	free(bin);
	return r;
}

/* ---- the run ---------------------------------------------------------- */

/*
 * One suite's run, shared by its steps. A step returns 0 to go on, 1 when
 * the run ends there as res says (SKIP), or a negative code when it ends
 * as an ERROR with res's reason.
 */
struct run {
	transport_t *t;
	const suite_def_t *d;
	suite_run_opts_t o;
	suite_result_t *res;
	FILE *log;
	int64_t start;
	char arch[33];  /* the board's, sanitised */
	char *bin;      /* the built binary on the host, or NULL */
	char *rdir;     /* the directory on the board, or NULL */
	char *qdir;     /* rdir, quoted for the shell */
	buf_t out;      /* run.sh's stdout */
	struct stamps st; /* when its lines arrived */
	int64_t run_ms; /* when run.sh started */
	bool timed_out; /* run.sh was killed at the suite's timeout */
	int status;     /* else its exit status */
};

static void s_noop_progress(void *arg, const suite_def_t *def, enum suite_phase phase,
			    const char *line, const suite_result_t *res)
{
}

static void s_finish(struct run *run)
{
	suite_result_t *res = run->res;
	FILE *log = run->log;

	res->duration_ms = s_now_ms() - run->start;
	s_log(log, "\n# result: %s (%s)\n", suite_status_name(res->status),
	      res->reason ? res->reason : "");
	for (size_t i = 0; i < res->n_cases; i++)
		s_log(log, "#   %-5s %s%s%s\n", suite_status_name(res->cases[i].status),
		      res->cases[i].path, res->cases[i].message ? "  " : "",
		      res->cases[i].message ? res->cases[i].message : "");
	for (size_t i = 0; i < res->n_metrics; i++)
		s_log(log, "#   metric %s %.17g %s\n", res->metrics[i].name,
		      res->metrics[i].value, res->metrics[i].unit);
	run->o.progress(run->o.progress_arg, run->d, SUITE_PHASE_DONE, NULL, res);
}

/* The run's log, when a log directory was given and can be made. */
static void s_open_log(struct run *run)
{
	const suite_run_opts_t *o = &run->o;
	char *logpath;

	if (o->log_dir && s_mkdirs(o->log_dir) == 0) {
		logpath = xasprintf("%s/%s.log", o->log_dir, run->d->name);
		run->log = fopen(logpath, "w");
		if (run->log)
			run->res->log = logpath;
		else
			free(logpath);
	}
	s_log(run->log, "# labmesh: suite %s version %d on board %s\n", run->d->name,
	      run->d->version, o->board && o->board->name ? o->board->name : "(unnamed)");
}

/* The board's arch, from the target itself unless given. */
static int s_step_arch(struct run *run, const char *arch)
{
	suite_kernel_t k = { 0 };
	transport_t *t = run->t;
	int r;

	if (!arch) {
		r = suite_kernel_identity(t, &k);
		if (r < 0) {
			run->res->status = SUITE_ERROR;
			suite_result_set_reason(run->res, "cannot reach the board: %s",
						transport_error(t)[0] ? transport_error(t) : strerror(-r));
			return r;
		}
		arch = k.machine;
	}
	suite_path_sanitize(run->arch, sizeof(run->arch), arch, strlen(arch), 1);
	suite_kernel_clear(&k);
	s_log(run->log, "# arch %s\n", run->arch);
	return 0;
}

static int s_step_needs(struct run *run)
{
	char *reason = NULL;
	int r;

	run->o.progress(run->o.progress_arg, run->d, SUITE_PHASE_NEEDS, NULL, NULL);
	r = s_check_needs(run->t, run->d, run->arch, run->log, &reason);
	if (r < 0) {
		run->res->status = SUITE_ERROR;
		suite_result_set_reason(run->res, "needs check failed: %s",
					transport_error(run->t)[0] ? transport_error(run->t)
								   : strerror(-r));
		return r;
	}
	if (!reason)
		return 0;
	run->res->status = SUITE_SKIP;
	suite_result_set_reason(run->res, "%s", reason);
	free(reason);
	return 1;
}

/* The build log's first error line (file:line: error: ...), or its start. */
static void s_first_error(const char *blog, char *first, size_t size)
{
	const char *e = blog ? strstr(blog, "error:") : NULL;
	const char *nl;

	if (e) {
		while (e > blog && e[-1] != '\n')
			e--;
		nl = strchr(e, '\n');
		suite_text_clean(first, size, e, nl ? (size_t)(nl - e) : strlen(e));
	} else if (blog) {
		suite_text_clean(first, size, blog, strlen(blog));
	}
}

static int s_step_build(struct run *run)
{
	char first[SUITE_MAX_MESSAGE + 1] = "";
	char *blog = NULL;
	bool cached = false;
	int r;

	run->o.progress(run->o.progress_arg, run->d, SUITE_PHASE_BUILD, NULL, NULL);
	r = s_build(run->d, run->arch, &run->o, &run->bin, &blog, &cached);
	s_log(run->log, "# build%s:\n%s\n", cached ? " (cached)" : "", blog ? blog : "");
	if (r < 0) {
		s_first_error(blog, first, sizeof(first));
		run->res->status = SUITE_ERROR;
		suite_result_set_reason(run->res, "build failed: %s%s", first,
					run->res->log ? " (see the log)" : "");
	}
	free(blog);
	return r;
}

/* A fresh directory on the board, with a tmp/ in it, into run->rdir. */
static int s_make_dir(struct run *run)
{
	const suite_run_opts_t *o = &run->o;
	const char *base = o->board && o->board->transport.workdir
				   ? o->board->transport.workdir : "/tmp";
	char *cmd, *qbase, *qtmpl, *tmpl;
	int status = -1, r;
	buf_t mk;

	tmpl = xasprintf("%s/labmesh-%s.XXXXXX", base, run->d->name);
	qtmpl = proc_shell_quote(tmpl);
	qbase = proc_shell_quote(base);
	free(tmpl);
	cmd = xasprintf("mkdir -p %s 2>/dev/null; d=$(mktemp -d %s) && mkdir \"$d/tmp\" && "
			"echo \"LMDIR:$d\"", qbase, qtmpl);
	free(qbase);
	free(qtmpl);
	r = s_run_small(run->t, cmd, &mk, &status);
	free(cmd);
	if (r == 0 && status == 0)
		run->rdir = suite_reply_tagged((const char *)mk.data, mk.len, "LMDIR:");
	buf_free(&mk);
	if (!run->rdir || run->rdir[0] != '/' || strchr(run->rdir, '\'')) {
		run->res->status = SUITE_ERROR;
		suite_result_set_reason(run->res, "cannot make a directory on the board: %s",
					r < 0 ? transport_error(run->t) : "mktemp failed");
		free(run->rdir);
		run->rdir = NULL;
		return r < 0 ? r : -EIO;
	}
	return 0;
}

/* run.sh, the suite's files, then the binary, into run->rdir. */
static int s_put_files(struct run *run)
{
	const suite_def_t *d = run->d;
	size_t nput = 1 + d->n_files + (run->bin ? 1 : 0);
	char *local, *remote;
	int r;

	for (size_t i = 0; i < nput; i++) {
		if (i == 0) {
			local = xasprintf("%s/run.sh", d->dir);
			remote = xasprintf("%s/run.sh", run->rdir);
		} else if (i <= d->n_files) {
			local = xasprintf("%s/%s", d->dir, d->files[i - 1]);
			remote = xasprintf("%s/%s", run->rdir, d->files[i - 1]);
		} else {
			local = xstrdup(run->bin);
			remote = xasprintf("%s/%s", run->rdir, d->output);
		}
		r = transport_put(run->t, local, remote);
		s_log(run->log, "# put %s -> %s: %s\n", local, remote,
		      r < 0 ? transport_error(run->t) : "ok");
		free(local);
		free(remote);
		if (r < 0) {
			run->res->status = SUITE_ERROR;
			suite_result_set_reason(run->res, "cannot copy to the board: %s",
						transport_error(run->t));
			return r;
		}
	}
	return 0;
}

static int s_step_deploy(struct run *run)
{
	int r;

	run->o.progress(run->o.progress_arg, run->d, SUITE_PHASE_DEPLOY, NULL, NULL);
	r = s_make_dir(run);
	if (r < 0)
		return r;
	run->qdir = proc_shell_quote(run->rdir);
	return s_put_files(run);
}

/* Run run.sh; a timeout still goes on to be parsed and judged. */
static int s_step_run(struct run *run)
{
	const suite_def_t *d = run->d;
	struct capture cap;
	char *cmd;
	int r;

	run->o.progress(run->o.progress_arg, d, SUITE_PHASE_RUN, NULL, NULL);
	cmd = xasprintf("cd %s && LABMESH_DIR=%s LABMESH_TMP=%s/tmp LABMESH_SUITE=%s "
			"LABMESH_ARCH=%s LABMESH_TRANSPORT=%s sh ./run.sh </dev/null",
			run->qdir, run->qdir, run->qdir, d->name, run->arch,
			transport_kind(run->t));
	s_log(run->log, "# run (timeout %d s): %s\n", d->timeout_s, cmd);
	memset(&cap, 0, sizeof(cap));
	buf_init(&cap.out, SUITE_MAX_OUTPUT);
	cap.log = run->log;
	cap.def = d;
	cap.opts = &run->o;
	cap.progress = true;
	run->run_ms = s_now_ms();
	r = transport_run(run->t, cmd, d->timeout_s * 1000, s_capture_fn, &cap, &run->status);
	free(cmd);
	if (cap.line_len)
		s_line_done(&cap);
	run->out = cap.out;
	run->st = cap.st;
	if (r < 0 && r != -ETIMEDOUT) {
		run->res->status = SUITE_ERROR;
		suite_result_set_reason(run->res, "run failed: %s", transport_error(run->t));
		return r;
	}
	run->timed_out = r == -ETIMEDOUT;
	s_log(run->log, "\n# %s\n", run->timed_out ? "timed out" : "exited");
	if (r == 0)
		s_log(run->log, "# exit status %d\n", run->status);
	return 0;
}

static const struct stamp *s_stamp_at(const struct stamps *st, size_t end)
{
	size_t lo = 0, hi = st->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (st->v[mid].end < end)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < st->n && st->v[lo].end == end ? &st->v[lo] : NULL;
}

static const suite_result_t *s_sort_res;

static int s_cmp_at(const void *a, const void *b)
{
	size_t x = s_sort_res->cases[*(const size_t *)a].at;
	size_t y = s_sort_res->cases[*(const size_t *)b].at;

	return x < y ? -1 : x > y;
}

/*
 * A case the output gives no time for gets its wall clock: from the
 * previous result line's arrival (run.sh's start for the first) to its
 * own. Cases whose lines arrived together stay unknown (-1): the host
 * cannot tell them apart.
 */
static void s_case_times(struct run *run)
{
	suite_result_t *res = run->res;
	size_t *order = xcalloc(res->n_cases + 1, sizeof(*order));
	int64_t prev = run->run_ms;
	size_t n = 0;

	for (size_t i = 0; i < res->n_cases; i++)
		if (res->cases[i].at)
			order[n++] = i;
	s_sort_res = res;
	qsort(order, n, sizeof(*order), s_cmp_at);
	for (size_t i = 0; i < n; i++) {
		suite_case_t *c = &res->cases[order[i]];
		const struct stamp *s = s_stamp_at(&run->st, c->at);

		if (!s)
			continue;
		if (c->duration_ms < 0 && s->ms > prev)
			c->duration_ms = s->ms - prev;
		prev = s->ms;
	}
	free(order);
}

static void s_step_judge(struct run *run)
{
	const suite_def_t *d = run->d;
	suite_result_t *res = run->res;

	suite_parse_output(d->parser, (const char *)run->out.data, run->out.len,
			   run->timed_out ? -1 : run->status, res);
	s_case_times(run);
	if (run->out.truncated)
		suite_result_add_note(res, "output cut at %d bytes", SUITE_MAX_OUTPUT);
	buf_free(&run->out);
	suite_result_declare_metrics(res, d->metrics, d->n_metrics);
	if (run->timed_out && res->status != SUITE_SKIP) {
		char *notes = res->reason;
		res->reason = NULL;
		res->status = SUITE_ERROR;
		suite_result_set_reason(res, "timed out after %d s", d->timeout_s);
		if (notes)
			suite_result_add_note(res, "%s", notes);
		free(notes);
	}
	suite_criteria_apply(res, &d->criteria,
			     suite_criteria_for_board(run->o.board, d->name));
}

static void s_remove_dir(struct run *run)
{
	char *cmd = xasprintf("rm -rf %s", run->qdir);
	int status = -1;

	if (transport_run(run->t, cmd, SUITE_SETUP_TIMEOUT_MS, NULL, NULL, &status) < 0)
		s_log(run->log, "# cleanup of %s failed: %s\n", run->rdir,
		      transport_error(run->t));
	free(cmd);
}

/* Log the result, report it done, and release what the steps left. */
static void s_end(struct run *run)
{
	s_finish(run);
	if (run->log)
		fclose(run->log);
	if (run->bin && !run->o.cache_dir) {
		char *slash = strrchr(run->bin, '/');
		unlink(run->bin);
		if (slash) {
			*slash = '\0';
			rmdir(run->bin);
		}
	}
	buf_free(&run->out);
	free(run->st.v);
	free(run->bin);
	free(run->rdir);
	free(run->qdir);
}

int suite_run(transport_t *t, const suite_def_t *d, const char *arch,
	      const suite_run_opts_t *opts, suite_result_t **ret_res)
{
	struct run run = { .t = t, .d = d, .start = s_now_ms() };
	int rc;

	if (!t || !d || !ret_res)
		return -EINVAL;
	if (opts)
		run.o = *opts;
	if (!run.o.progress)
		run.o.progress = s_noop_progress;
	run.res = suite_result_new(d->name, d->version);
	*ret_res = run.res;
	s_open_log(&run);

	rc = s_step_arch(&run, arch);
	if (rc == 0)
		rc = s_step_needs(&run);
	if (rc == 0 && d->has_build)
		rc = s_step_build(&run);
	if (rc == 0)
		rc = s_step_deploy(&run);
	if (rc == 0)
		rc = s_step_run(&run);
	if (rc == 0)
		s_step_judge(&run);
	if (run.rdir)
		s_remove_dir(&run);
	s_end(&run);
	return 0;
}

int suite_judge_output(const suite_def_t *d, const char *out, size_t len,
		       const suite_run_opts_t *opts, suite_result_t **ret_res)
{
	struct run run = { .d = d, .start = s_now_ms() };

	if (!d || !ret_res || (!out && len))
		return -EINVAL;
	if (opts)
		run.o = *opts;
	if (!run.o.progress)
		run.o.progress = s_noop_progress;
	run.res = suite_result_new(d->name, d->version);
	*ret_res = run.res;
	s_open_log(&run);
	s_log(run.log, "# the board's console, as the lab captured it\n");
	if (run.log && len)
		fwrite(out, 1, len, run.log);
	suite_parse_output(d->parser, out ? out : "", len, 0, run.res);
	suite_result_declare_metrics(run.res, d->metrics, d->n_metrics);
	suite_criteria_apply(run.res, &d->criteria,
			     suite_criteria_for_board(run.o.board, d->name));
	s_end(&run);
	return 0;
}
