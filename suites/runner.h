/*
 * runner: run one suite on a board through its transport.
 *
 *   1. check the suite's needs on the target (commands with `command -v`,
 *      kernel options in /proc/config.gz or /boot/config-$(uname -r), the
 *      arch from `uname -m`, root from `id -u`): a missing need is SKIP
 *      with the reason;
 *   2. build its C sources on the host for the board's arch (host cc when
 *      the arch is the host's, else the lab recipe's cross_compile prefix),
 *      static by default, cached by a hash of sources, flags and compiler;
 *      a failed build is ERROR "build failed" with the compiler's log;
 *   3. put run.sh, its files and the binary into a fresh directory on the
 *      target, run `sh ./run.sh` there with LABMESH_DIR, LABMESH_TMP,
 *      LABMESH_SUITE and LABMESH_ARCH and the suite's timeout, streaming
 *      output to the progress callback and the log;
 *   4. parse, hold metrics to their declarations, apply the criteria (the
 *      suite's, then the board's override), remove the target directory.
 *
 * The result is always returned (ERROR with a reason when the run could
 * not happen); only misuse returns a negative code.
 */
#ifndef LABMESH_SUITES_RUNNER_H
#define LABMESH_SUITES_RUNNER_H

#include "labs/lab.h"
#include "suites/catalog.h"
#include "suites/result.h"
#include "transports/transport.h"

#define SUITE_MAX_OUTPUT (16 * 1024 * 1024) /* run.sh output kept to parse */
#define SUITE_MAX_BUILD_LOG (256 * 1024)
#define SUITE_BUILD_TIMEOUT_MS (300 * 1000)
#define SUITE_SETUP_TIMEOUT_MS (60 * 1000) /* needs check, mkdir, cleanup */

enum suite_phase {
	SUITE_PHASE_NEEDS = 0, /* checking needs */
	SUITE_PHASE_BUILD,     /* building on the host */
	SUITE_PHASE_DEPLOY,    /* copying to the target */
	SUITE_PHASE_RUN,       /* running; line is set for each output line */
	SUITE_PHASE_DONE,      /* res is set */
};

/* Progress: line is one line of run.sh output (RUN phase) or NULL. */
typedef void(suite_progress_fn)(void *arg, const suite_def_t *def,
				enum suite_phase phase, const char *line,
				const suite_result_t *res);

typedef struct {
	const lab_config_t *lab;    /* recipes (cross_compile); may be NULL */
	const lab_board_t *board;   /* arch and criteria overrides; may be NULL */
	const char *cache_dir;      /* host build cache (created); NULL: none */
	const char *log_dir;        /* logs kept here (created); NULL: none */
	const char *host_cc;        /* NULL: "cc" */
	suite_progress_fn *progress;
	void *progress_arg;
} suite_run_opts_t;

/* What kernel the board runs. */
typedef struct {
	char *release; /* uname -r */
	char *machine; /* uname -m */
	char *version; /* /proc/version */
} suite_kernel_t;

int suite_kernel_identity(transport_t *t, suite_kernel_t *ret);
void suite_kernel_clear(suite_kernel_t *k);

/*
 * Run def on the board behind t. arch is the board's machine (uname -m;
 * NULL: asked from the target). Returns 0 and *ret_res (the caller's).
 */
int suite_run(transport_t *t, const suite_def_t *def, const char *arch,
	      const suite_run_opts_t *opts, suite_result_t **ret_res);

/*
 * Judge def on output the lab already holds instead of running run.sh:
 * a `kunit` suite on the boot console the lab captured (the KTAP of the
 * tests the kernel ran before init). The output (len bytes, not
 * NUL-terminated) is kept as the suite's log in opts->log_dir, parsed by
 * def's parser as an exit status 0 run, and held to the suite's criteria
 * and the board's. Returns 0 and *ret_res (the caller's), or -EINVAL.
 */
int suite_judge_output(const suite_def_t *def, const char *out, size_t len,
		       const suite_run_opts_t *opts, suite_result_t **ret_res);

/* The host's machine name (uname -m), borrowed. */
const char *suite_host_arch(void);

#endif
