/*
 * runner: needs check, host build, deploy, run, parse and criteria for one
 * suite on one board. See runner.h.
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

struct capture {
	buf_t out;         /* stdout, to parse */
	FILE *log;         /* both streams, as they come */
	char line[SUITE_MAX_LINE + 1];
	size_t line_len;
	const suite_def_t *def;
	const suite_run_opts_t *opts;
	bool progress;
};

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

	if (stream == TRANSPORT_STDOUT)
		buf_append(&c->out, data, len);
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

static void s_noop_progress(void *arg, const suite_def_t *def, enum suite_phase phase,
			    const char *line, const suite_result_t *res)
{
}

static suite_result_t *s_finish(suite_result_t *res, const suite_def_t *d,
				const suite_run_opts_t *o, FILE *log, int64_t start)
{
	res->duration_ms = s_now_ms() - start;
	s_log(log, "\n# result: %s (%s)\n", suite_status_name(res->status),
	      res->reason ? res->reason : "");
	for (size_t i = 0; i < res->n_cases; i++)
		s_log(log, "#   %-5s %s%s%s\n", suite_status_name(res->cases[i].status),
		      res->cases[i].path, res->cases[i].message ? "  " : "",
		      res->cases[i].message ? res->cases[i].message : "");
	for (size_t i = 0; i < res->n_metrics; i++)
		s_log(log, "#   metric %s %.17g %s\n", res->metrics[i].name,
		      res->metrics[i].value, res->metrics[i].unit);
	o->progress(o->progress_arg, d, SUITE_PHASE_DONE, NULL, res);
	return res;
}

int suite_run(transport_t *t, const suite_def_t *d, const char *arch,
	      const suite_run_opts_t *opts, suite_result_t **ret_res)
{
	suite_run_opts_t o = { 0 };
	suite_result_t *res;
	suite_kernel_t k = { 0 };
	struct capture cap;
	char *reason = NULL, *bin = NULL, *blog = NULL, *rdir = NULL, *qdir = NULL;
	char *cmd = NULL, *logpath = NULL, clean_arch[33];
	FILE *log = NULL;
	int64_t start = s_now_ms();
	int r, status = -1;
	bool cached = false;
	buf_t out;

	if (!t || !d || !ret_res)
		return -EINVAL;
	if (opts)
		o = *opts;
	if (!o.progress)
		o.progress = s_noop_progress;
	res = suite_result_new(d->name, d->version);
	*ret_res = res;

	if (o.log_dir && s_mkdirs(o.log_dir) == 0) {
		logpath = xasprintf("%s/%s.log", o.log_dir, d->name);
		log = fopen(logpath, "w");
		if (log) {
			res->log = logpath;
			logpath = NULL;
		}
	}
	free(logpath);
	s_log(log, "# labmesh: suite %s version %d on board %s\n", d->name, d->version,
	      o.board && o.board->name ? o.board->name : "(unnamed)");

	/* the board's arch, from the target itself unless given */
	if (!arch) {
		r = suite_kernel_identity(t, &k);
		if (r < 0) {
			res->status = SUITE_ERROR;
			suite_result_set_reason(res, "cannot reach the board: %s",
						transport_error(t)[0] ? transport_error(t) : strerror(-r));
			goto done;
		}
		arch = k.machine;
	}
	suite_path_sanitize(clean_arch, sizeof(clean_arch), arch, strlen(arch), 1);
	s_log(log, "# arch %s\n", clean_arch);

	/* 1. needs */
	o.progress(o.progress_arg, d, SUITE_PHASE_NEEDS, NULL, NULL);
	r = s_check_needs(t, d, clean_arch, log, &reason);
	if (r < 0) {
		res->status = SUITE_ERROR;
		suite_result_set_reason(res, "needs check failed: %s",
					transport_error(t)[0] ? transport_error(t) : strerror(-r));
		goto done;
	}
	if (reason) {
		res->status = SUITE_SKIP;
		suite_result_set_reason(res, "%s", reason);
		goto done;
	}

	/* 2. build */
	if (d->has_build) {
		o.progress(o.progress_arg, d, SUITE_PHASE_BUILD, NULL, NULL);
		r = s_build(d, clean_arch, &o, &bin, &blog, &cached);
		s_log(log, "# build%s:\n%s\n", cached ? " (cached)" : "", blog ? blog : "");
		if (r < 0) {
			char first[SUITE_MAX_MESSAGE + 1] = "";
			const char *e = blog ? strstr(blog, "error:") : NULL;
			if (e) {
				while (e > blog && e[-1] != '\n')
					e--; /* the whole line: file:line: error: ... */
				const char *nl = strchr(e, '\n');
				suite_text_clean(first, sizeof(first), e,
						 nl ? (size_t)(nl - e) : strlen(e));
			} else if (blog) {
				suite_text_clean(first, sizeof(first), blog, strlen(blog));
			}
			res->status = SUITE_ERROR;
			suite_result_set_reason(res, "build failed: %s%s", first,
						res->log ? " (see the log)" : "");
			goto done;
		}
	}

	/* 3. deploy */
	o.progress(o.progress_arg, d, SUITE_PHASE_DEPLOY, NULL, NULL);
	{
		const char *base = o.board && o.board->transport.workdir
					   ? o.board->transport.workdir : "/tmp";
		char *qbase, *qtmpl, *tmpl;
		buf_t mk;

		tmpl = xasprintf("%s/labmesh-%s.XXXXXX", base, d->name);
		qtmpl = proc_shell_quote(tmpl);
		qbase = proc_shell_quote(base);
		free(tmpl);
		cmd = xasprintf("mkdir -p %s 2>/dev/null; d=$(mktemp -d %s) && mkdir \"$d/tmp\" && "
				"echo \"LMDIR:$d\"", qbase, qtmpl);
		free(qbase);
		free(qtmpl);
		r = s_run_small(t, cmd, &mk, &status);
		free(cmd);
		cmd = NULL;
		if (r == 0 && status == 0)
			rdir = suite_reply_tagged((const char *)mk.data, mk.len, "LMDIR:");
		buf_free(&mk);
		if (!rdir || rdir[0] != '/' || strchr(rdir, '\'')) {
			res->status = SUITE_ERROR;
			suite_result_set_reason(res, "cannot make a directory on the board: %s",
						r < 0 ? transport_error(t) : "mktemp failed");
			free(rdir);
			rdir = NULL;
			goto done;
		}
	}
	qdir = proc_shell_quote(rdir);
	{
		size_t nput = 1 + d->n_files + (bin ? 1 : 0);
		for (size_t i = 0; i < nput; i++) {
			char *local, *remote;
			if (i == 0) {
				local = xasprintf("%s/run.sh", d->dir);
				remote = xasprintf("%s/run.sh", rdir);
			} else if (i <= d->n_files) {
				local = xasprintf("%s/%s", d->dir, d->files[i - 1]);
				remote = xasprintf("%s/%s", rdir, d->files[i - 1]);
			} else {
				local = xstrdup(bin);
				remote = xasprintf("%s/%s", rdir, d->output);
			}
			r = transport_put(t, local, remote);
			s_log(log, "# put %s -> %s: %s\n", local, remote,
			      r < 0 ? transport_error(t) : "ok");
			free(local);
			free(remote);
			if (r < 0) {
				res->status = SUITE_ERROR;
				suite_result_set_reason(res, "cannot copy to the board: %s",
							transport_error(t));
				goto cleanup;
			}
		}
	}

	/* 4. run */
	o.progress(o.progress_arg, d, SUITE_PHASE_RUN, NULL, NULL);
	cmd = xasprintf("cd %s && LABMESH_DIR=%s LABMESH_TMP=%s/tmp LABMESH_SUITE=%s "
			"LABMESH_ARCH=%s sh ./run.sh </dev/null",
			qdir, qdir, qdir, d->name, clean_arch);
	s_log(log, "# run (timeout %d s): %s\n", d->timeout_s, cmd);
	memset(&cap, 0, sizeof(cap));
	buf_init(&cap.out, SUITE_MAX_OUTPUT);
	cap.log = log;
	cap.def = d;
	cap.opts = &o;
	cap.progress = true;
	r = transport_run(t, cmd, d->timeout_s * 1000, s_capture_fn, &cap, &status);
	if (cap.line_len)
		s_line_done(&cap);
	out = cap.out;
	if (r < 0 && r != -ETIMEDOUT) {
		res->status = SUITE_ERROR;
		suite_result_set_reason(res, "run failed: %s", transport_error(t));
		buf_free(&out);
		goto cleanup;
	}
	s_log(log, "\n# %s\n", r == -ETIMEDOUT ? "timed out" : "exited");
	if (r == 0)
		s_log(log, "# exit status %d\n", status);

	/* 5. parse and judge */
	suite_parse_output(d->parser, (const char *)out.data, out.len,
			   r == -ETIMEDOUT ? -1 : status, res);
	if (out.truncated)
		suite_result_add_note(res, "output cut at %d bytes", SUITE_MAX_OUTPUT);
	buf_free(&out);
	suite_result_declare_metrics(res, d->metrics, d->n_metrics);
	if (r == -ETIMEDOUT && res->status != SUITE_SKIP) {
		char *notes = res->reason;
		res->reason = NULL;
		res->status = SUITE_ERROR;
		suite_result_set_reason(res, "timed out after %d s", d->timeout_s);
		if (notes)
			suite_result_add_note(res, "%s", notes);
		free(notes);
	}
	suite_criteria_apply(res, &d->criteria, suite_criteria_for_board(o.board, d->name));

cleanup:
	free(cmd);
	cmd = xasprintf("rm -rf %s", qdir);
	if (transport_run(t, cmd, SUITE_SETUP_TIMEOUT_MS, NULL, NULL, &status) < 0)
		s_log(log, "# cleanup of %s failed: %s\n", rdir, transport_error(t));
done:
	s_finish(res, d, &o, log, start);
	if (log)
		fclose(log);
	suite_kernel_clear(&k);
	free(reason);
	if (bin && !o.cache_dir) {
		char *slash = strrchr(bin, '/');
		unlink(bin);
		if (slash) {
			*slash = '\0';
			rmdir(bin);
		}
	}
	free(bin);
	free(blog);
	free(rdir);
	free(qdir);
	free(cmd);
	return 0;
}
