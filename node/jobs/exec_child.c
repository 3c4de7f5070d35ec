/*
 * exec_child: the executor, `labmesh exec-job --home H --config C --board
 * B --dir D`, started by the node for one job (exec.c). It reads the
 * request from D/request, gets the kernel (none: the board as it is;
 * artifact: the blobs the node fetched; git: exec_build.c), boots the
 * board by its method, runs the suites, stores the console and suite logs
 * as blobs, and writes the signed run record to D/run.rec. Progress goes
 * to stdout, one line per step (see exec.c for the format).
 *
 * The run record is signed at seq 1 as a vehicle only, with the job's
 * one-off key whose seed the node passes on descriptor --key-fd (the
 * executor never reads the node's own key): the node checks that key
 * signed it, then appends its body as the next record of its feed.
 */
#include "node/jobs/exec_child.h"

#include "node/store/blob.h"
#include "node/store/wire.h"
#include "node/jobs/cpio.h"
#include "node/jobs/jobs.h"
#include "proto/log.h"
#include "proto/mem.h"
#include "proto/record.h"
#include "suites/criteria.h"
#include "suites/parse.h"
#include "suites/runner.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <sodium.h>
#include <unistd.h>

#define EXEC_MAX_CONSOLE (8 * 1024 * 1024) /* console log kept per job */

static int64_t s_wall_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void exec_say(int state, unsigned idx, unsigned count, const char *suite,
	      const char *fmt, ...)
{
	char text[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	for (char *p = text; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	printf("E %d %u %u %s %s\n", state, idx, count,
	       suite && *suite ? suite : "-", text);
	fflush(stdout);
}

static void s_console(void *arg, enum transport_stream stream,
		      const char *data, size_t len)
{
	buf_append(arg, data, len); /* capped: the rest is dropped */
}

static enum proto_status s_status(enum suite_status s)
{
	switch (s) {
	case SUITE_PASS:
		return PROTO_PASS;
	case SUITE_FAIL:
		return PROTO_FAIL;
	case SUITE_SKIP:
		return PROTO_SKIP;
	case SUITE_MISS:
		return PROTO_MISS;
	default:
		return PROTO_ERROR;
	}
}

/* Worse of two statuses for the overall verdict. */
static enum proto_status s_worse(enum proto_status a, enum proto_status b)
{
	static const int rank[] = { [PROTO_PASS] = 1, [PROTO_DONE] = 1,
				    [PROTO_SKIP] = 0, [PROTO_MISS] = 3,
				    [PROTO_FAIL] = 4, [PROTO_ERROR] = 5 };

	return rank[b] > rank[a] ? b : a;
}

/* One suite result into the record's form; strings borrowed from res. */
static void s_fill_suite(run_suite_t *rs, const suite_result_t *res,
			 int64_t start, int64_t end, const char *home,
			 run_log_t *log, size_t max_cases)
{
	size_t nl = strlen(res->name);
	run_case_t *cases;
	run_metric_t *mets;
	size_t nc = res->n_cases < max_cases ? res->n_cases : max_cases;

	rs->name = res->name;
	rs->version = "";
	rs->status = s_status(res->status);
	/* why a suite did not pass as a whole: SKIP (a need missing on the
	 * board), ERROR (it could not run), FAIL (what the criteria saw) */
	rs->reason = rs->status != PROTO_PASS && res->reason &&
			     strlen(res->reason) <= PROTO_MAX_MESSAGE ?
			     res->reason : "";
	rs->duration_ms = res->duration_ms > 0 ? (uint64_t)res->duration_ms : 0;
	rs->start_ms = (uint64_t)start;
	rs->end_ms = (uint64_t)(end >= start ? end : start);
	cases = xcalloc(nc + 1, sizeof(*cases));
	for (size_t i = 0; i < nc; i++) {
		const suite_case_t *c = &res->cases[i];
		const char *p = c->path;

		if (strncmp(p, res->name, nl) == 0 && p[nl] == '.')
			p += nl + 1;
		cases[i].path = p;
		cases[i].status = c->known ? PROTO_PASS : s_status(c->status);
		cases[i].duration_ms = c->duration_ms > 0 ?
					       (uint64_t)c->duration_ms : 0;
		cases[i].message = c->message ? c->message : "";
	}
	rs->cases = cases;
	rs->n_cases = nc;
	mets = xcalloc(res->n_metrics + 1, sizeof(*mets));
	for (size_t i = 0; i < res->n_metrics && i < PROTO_MAX_METRICS; i++) {
		mets[i].name = res->metrics[i].name;
		mets[i].value = res->metrics[i].value;
		mets[i].unit = res->metrics[i].unit;
		mets[i].better = res->metrics[i].better == SUITE_BETTER_LOWER ?
					 METRIC_LOWER : METRIC_HIGHER;
	}
	rs->metrics = mets;
	rs->n_metrics = res->n_metrics < PROTO_MAX_METRICS ? res->n_metrics :
							     PROTO_MAX_METRICS;
	rs->logs = NULL;
	rs->n_logs = 0;
	if (res->log && blob_put_file(home, res->log, log->blob_id) == 0) {
		log->name = "output";
		rs->logs = log;
		rs->n_logs = 1;
	}
}

typedef struct {
	const char *home, *dir;
	const lab_config_t *cfg;
	const lab_board_t *board;
	const request_t *req;
	catalog_t *cat;
	exec_kernel_t kern;
	suite_result_t **res;
	int64_t *start, *end;
	size_t n_res;
	buf_t console;
	char *release, *machine;
	char *error; /* why the job could not run */
	int64_t build_start, build_end; /* wall clock around the kernel step */
	uint8_t seed[32]; /* the job's one-off key */
} s_job_t;

/*
 * The build of a git kernel as a suite of its own, "build": its status,
 * duration, compiler and config, the failing lines as the message of its
 * one case, its duration as a metric and the build log as its output, so
 * query, the matrix, compare and the exports show a build like any test.
 */
static void s_fill_build(const s_job_t *jb, run_suite_t *rs, run_case_t *c,
			 run_metric_t *m, run_log_t log[2])
{
	const exec_kernel_t *k = &jb->kern;
	enum proto_status st = k->id.build == BUILD_PASS ? PROTO_PASS :
			       k->id.build == BUILD_FAIL ? PROTO_FAIL :
							   PROTO_ERROR;
	uint64_t ms = k->build_ms > 0 ? (uint64_t)k->build_ms : 0;

	memset(rs, 0, sizeof(*rs));
	rs->name = "build";
	rs->version = "";
	rs->status = st;
	rs->duration_ms = k->cached ? 0 : ms;
	rs->start_ms = (uint64_t)jb->build_start;
	rs->end_ms = (uint64_t)(jb->build_end >= jb->build_start ?
				jb->build_end : jb->build_start);
	c->path = "kernel";
	c->status = st;
	c->duration_ms = rs->duration_ms;
	c->message = k->build_text ? k->build_text : "";
	rs->cases = c;
	rs->n_cases = 1;
	m->name = "duration";
	m->value = (double)ms / 1000.0;
	m->unit = "s";
	m->better = METRIC_LOWER;
	rs->metrics = m;
	rs->n_metrics = 1;
	rs->logs = log;
	if (k->build_log[0] &&
	    blob_put_file(jb->home, k->build_log, log[0].blob_id) == 0)
		log[rs->n_logs++].name = "output";
	/* the selftests it shipped, for whoever boots this build */
	if (k->has_kselftest_blob) {
		memcpy(log[rs->n_logs].blob_id, k->kselftest_blob, 32);
		log[rs->n_logs++].name = "kselftest";
	}
	if (!rs->n_logs)
		rs->logs = NULL;
}

/* Write the signed run record to D/run.rec and tell the node its path. */
static int s_save_record(const s_job_t *jb, const uint8_t *bytes, size_t len)
{
	char *path = xasprintf("%s/run.rec", jb->dir);
	FILE *f = fopen(path, "wbe");
	int rc = 0;

	if (f && fwrite(bytes, 1, len, f) == len && fclose(f) == 0) {
		printf("R %s\n", path);
		fflush(stdout);
	} else {
		rc = -EIO;
	}
	free(path);
	return rc;
}

/* Sign the run record; with fewer cases when it would be too large. */
static int s_write_record(s_job_t *jb)
{
	const request_t *req = jb->req;
	record_t t = { .head.kind = RECORD_RUN, .head.seq = 1 };
	size_t nb = jb->kern.built ? 1 : 0; /* the build suite, first */
	run_suite_t *suites = xcalloc(jb->n_res + 2, sizeof(*suites));
	/* a log per suite, then the build suite's two (output, kselftest) */
	run_log_t *slogs = xcalloc(jb->n_res + 3, sizeof(*slogs));
	run_case_t bcase;
	run_metric_t bmetric;
	run_log_t runlogs[2];
	size_t n_runlogs = 0, max_cases = PROTO_MAX_CASES;
	enum proto_status overall = jb->error ? PROTO_ERROR : PROTO_PASS;
	uint8_t *bytes = NULL;
	size_t len = 0;
	int rc;

	if (jb->console.len &&
	    blob_put_mem(jb->home, jb->console.data, jb->console.len,
			 runlogs[n_runlogs].blob_id) == 0)
		runlogs[n_runlogs++].name = "console";
	if (jb->kern.build_log[0] &&
	    blob_put_file(jb->home, jb->kern.build_log,
			  runlogs[n_runlogs].blob_id) == 0)
		runlogs[n_runlogs++].name = "build";
	t.run.has_request = true;
	memcpy(t.run.request_id, req->id, 32);
	t.run.board = jb->board->name;
	t.run.lab = jb->cfg->name;
	t.run.kernel = jb->kern.id;
	t.run.kernel.arch = jb->machine && proto_name_ok(jb->machine) ?
				    jb->machine : jb->board->arch;
	if (!*t.run.kernel.describe && jb->release)
		t.run.kernel.describe = jb->release;
	t.run.logs = runlogs;
	t.run.n_logs = n_runlogs;
	if (nb)
		s_fill_build(jb, &suites[0], &bcase, &bmetric,
			     &slogs[jb->n_res + 1]);
	for (;;) {
		/* a build that failed is a FAIL of the kernel, not an error */
		overall = !jb->error ? PROTO_PASS :
			  jb->kern.id.build == BUILD_FAIL ? PROTO_FAIL :
							    PROTO_ERROR;
		for (size_t i = 0; i < jb->n_res; i++) {
			s_fill_suite(&suites[nb + i], jb->res[i], jb->start[i],
				     jb->end[i], jb->home, &slogs[nb + i],
				     max_cases);
			overall = s_worse(overall, suites[nb + i].status);
		}
		t.run.suites = suites;
		t.run.n_suites = jb->n_res + nb;
		t.run.status = overall;
		rc = wire_run_sign(jb->seed, &t, &bytes, &len);
		for (size_t i = nb; i < jb->n_res + nb; i++) {
			free((void *)suites[i].cases);
			free((void *)suites[i].metrics);
		}
		if (rc == 0 || max_cases == 0)
			break;
		max_cases /= 4; /* too large: keep fewer cases */
	}
	free(suites);
	free(slogs);
	if (rc == 0)
		rc = s_save_record(jb, bytes, len);
	free(bytes);
	return rc;
}

/* A suite judged on the boot console the lab captured (KUnit's KTAP,
 * printed before init), not run on the board. */
static bool s_from_console(const s_job_t *jb, const suite_def_t *d)
{
	return d && d->parser == SUITE_PARSER_KUNIT && jb->console.len > 0;
}

/* One suite: on the board b, from the console, or (no board: the boot
 * failed) an ERROR saying so. */
static suite_result_t *s_run_one(s_job_t *jb, board_t *b, size_t i,
				 const suite_run_opts_t *ro)
{
	const char *name = jb->req->suites[i];
	const suite_def_t *d = catalog_find(jb->cat, name);
	suite_result_t *res = NULL;

	if (s_from_console(jb, d)) {
		if (suite_judge_output(d, (const char *)jb->console.data,
				       jb->console.len, ro, &res) == 0)
			return res;
	} else if (d && b) {
		if (suite_run(board_transport(b), d, jb->machine, ro, &res) == 0 &&
		    res)
			return res;
	}
	suite_result_destroy(&res);
	res = suite_result_new(name, 0);
	res->status = SUITE_ERROR;
	if (!b)
		suite_result_set_reason(res, "not run: the board did not boot");
	return res;
}

/* Every suite of the request; b NULL when the board did not boot (the
 * suites read from its console are still judged). */
static void s_run_suites(s_job_t *jb, board_t *b)
{
	const request_t *req = jb->req;
	char *cache = xasprintf("%s/work/suite-cache", jb->home);
	char *logs = xasprintf("%s/logs", jb->dir);
	unsigned n = (unsigned)req->n_suites;

	for (size_t i = 0; i < req->n_suites; i++) {
		suite_run_opts_t ro = { .lab = jb->cfg, .board = jb->board,
					.cache_dir = cache, .log_dir = logs };

		exec_say(JOB_RUNNING, (unsigned)i + 1, n, req->suites[i],
			 "running suite %zu of %u", i + 1, n);
		jb->start[i] = s_wall_ms();
		jb->res[i] = s_run_one(jb, b, i, &ro);
		jb->end[i] = s_wall_ms();
		jb->n_res = i + 1;
	}
	free(cache);
	free(logs);
}

/* The board did not boot: what its console shows is still judged. */
static void s_run_console_only(s_job_t *jb)
{
	bool any = false;

	for (size_t i = 0; i < jb->req->n_suites; i++)
		any |= s_from_console(jb, catalog_find(jb->cat,
						       jb->req->suites[i]));
	if (any)
		s_run_suites(jb, NULL);
}

/*
 * The initramfs to boot with the selftests the build shipped appended
 * (jb->dir/initrd-kselftest.img), for a board the lab boots with an
 * initramfs; NULL when there is nothing to append or nowhere to.
 */
static char *s_kselftest_initrd(const s_job_t *jb)
{
	const char *base = jb->kern.initrd_path ? jb->kern.initrd_path :
			   jb->board->boot.initrd;
	char *out;
	int rc;

	if (!jb->kern.kselftest_path || !base || !*base ||
	    jb->board->boot.method == LAB_BOOT_NONE)
		return NULL;
	out = xasprintf("%s/initrd-kselftest.img", jb->dir);
	rc = cpio_concat(base, jb->kern.kselftest_path, out);
	if (rc < 0) {
		exec_say(JOB_BOOTING, 0, 0, NULL, "the selftests stay off the"
			 " board: cannot append them to %s: %s", base,
			 strerror(-rc));
		free(out);
		return NULL;
	}
	return out;
}

static void s_run(s_job_t *jb)
{
	transport_opts_t to = { .console_fn = s_console,
				.console_arg = &jb->console };
	board_kernel_t bk = { 0 };
	suite_kernel_t ki = { 0 };
	board_t *b = NULL;
	char *err = NULL, *work = xasprintf("%s/board", jb->dir);
	char *joined = NULL;
	int rc;

	to.workdir = work;
	bk.kernel = jb->kern.kernel_path;
	bk.initrd = jb->kern.initrd_path;
	if (jb->kern.kernel_path && (joined = s_kselftest_initrd(jb)))
		bk.initrd = joined;
	exec_say(JOB_BOOTING, 0, (unsigned)jb->req->n_suites, NULL,
		 "booting %s (%s)", jb->board->name,
		 lab_boot_name(jb->board->boot.method));
	rc = board_open(jb->board, bk.kernel ? &bk : NULL, &to, &b, &err);
	if (rc < 0) {
		jb->error = xasprintf("boot failed: %s", err ? err :
				      strerror(-rc));
		free(err);
		free(work);
		free(joined);
		s_run_console_only(jb);
		return;
	}
	if (suite_kernel_identity(board_transport(b), &ki) == 0) {
		jb->release = xstrdup(ki.release ? ki.release : "");
		jb->machine = xstrdup(ki.machine ? ki.machine : "");
	}
	suite_kernel_clear(&ki);
	s_run_suites(jb, b);
	board_close(&b);
	free(work);
	free(joined);
}

static int s_load(s_job_t *jb, const char *config, const char *board)
{
	char *path = xasprintf("%s/request", jb->dir), *err = NULL, *dir;
	uint8_t *bytes = xmalloc(PROTO_MAX_REQUEST);
	FILE *f = fopen(path, "rbe");
	size_t len = f ? fread(bytes, 1, PROTO_MAX_REQUEST, f) : 0;
	request_t *req = NULL;
	int rc;

	if (f)
		fclose(f);
	free(path);
	rc = wire_request_open(bytes, len, &req);
	free(bytes);
	if (rc < 0)
		return -EINVAL;
	jb->req = req;
	if (config && *config)
		rc = lab_config_load(config, (lab_config_t **)&jb->cfg, &err);
	else
		jb->cfg = lab_config_default();
	free(err);
	if (rc < 0 || !jb->cfg)
		return -EINVAL;
	jb->board = lab_config_board(jb->cfg, board);
	dir = catalog_default_dir(NULL);
	rc = dir ? catalog_load(dir, &jb->cat, &err) : -ENOENT;
	free(dir);
	free(err);
	return jb->board && rc == 0 ? 0 : -ENOENT;
}

/* The seed of the job's key from descriptor fd, which is then closed. */
static int s_read_seed(const char *fd_arg, uint8_t *seed)
{
	char *end = NULL;
	long fd = fd_arg ? strtol(fd_arg, &end, 10) : -1;
	ssize_t n;

	if (!fd_arg || !*fd_arg || *end || fd < 0 || fd > 1024)
		return -EINVAL;
	n = read((int)fd, seed, 32);
	close((int)fd);
	return n == 32 ? 0 : -EIO;
}

void jobs_child_opts(int argc, char **argv, const char *const *names,
		     const char ***ret, size_t n)
{
	for (int i = 1; i + 1 < argc; i += 2)
		for (size_t k = 0; k < n; k++)
			if (strcmp(argv[i], names[k]) == 0)
				*ret[k] = argv[i + 1];
}

int cmd_exec_job(int argc, char **argv)
{
	const char *home = NULL, *config = NULL, *board = NULL, *dir = NULL;
	const char *key_fd = NULL;
	s_job_t jb = { 0 };
	int rc;

	const char **v[] = { &home, &config, &board, &dir, &key_fd };
	static const char *const names[] = { "--home", "--config", "--board",
					      "--dir", "--key-fd" };

	jobs_child_opts(argc, argv, names, v, 5);
	if (!home || !board || !dir || s_read_seed(key_fd, jb.seed) < 0) {
		fprintf(stderr, "labmesh exec-job: started by the node only\n");
		return 2;
	}
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	signal(SIGPIPE, SIG_IGN);
	jb.home = home;
	jb.dir = dir;
	buf_init(&jb.console, EXEC_MAX_CONSOLE);
	if (s_load(&jb, config, board) < 0) {
		fprintf(stderr, "labmesh exec-job: cannot load the job in %s\n",
			dir);
		return 1;
	}
	jb.res = xcalloc(jb.req->n_suites + 1, sizeof(*jb.res));
	jb.start = xcalloc(jb.req->n_suites + 1, sizeof(*jb.start));
	jb.end = xcalloc(jb.req->n_suites + 1, sizeof(*jb.end));
	jb.build_start = s_wall_ms();
	rc = exec_kernel(home, dir, jb.cfg, jb.board, jb.req, &jb.kern,
			 &jb.error);
	jb.build_end = s_wall_ms();
	if (rc == 0)
		s_run(&jb);
	if (jb.error) {
		printf("X %s\n", jb.error);
		fflush(stdout);
	}
	rc = s_write_record(&jb);
	sodium_memzero(jb.seed, sizeof(jb.seed));
	for (size_t i = 0; i < jb.n_res; i++)
		suite_result_destroy(&jb.res[i]);
	free(jb.res);
	free(jb.start);
	free(jb.end);
	exec_kernel_clear(&jb.kern);
	buf_free(&jb.console);
	free(jb.release);
	free(jb.machine);
	free(jb.error);
	catalog_destroy(&jb.cat);
	lab_config_destroy((lab_config_t **)&jb.cfg);
	request_destroy((request_t **)&jb.req);
	return rc < 0 ? 1 : 0;
}
