/*
 * exec_child: what the executor process shares between its files —
 * progress lines and getting the job's kernel (exec_build.c).
 */
#ifndef LABMESH_NODE_EXEC_CHILD_H
#define LABMESH_NODE_EXEC_CHILD_H

#include "labs/lab.h"
#include "proto/record.h"
#include "proto/request.h"

#include <stdarg.h>

#define EXEC_GIT_TIMEOUT_S 600 /* one git fetch */
/* The executor reads the 32-byte seed of its job's one-off key here. */
#define EXEC_KEY_FD 3
#define EXEC_KEY_FD_STR "3"

/* Print one progress line for the node (stdout). */
void exec_say(int state, unsigned idx, unsigned count, const char *suite,
	      const char *fmt, ...) __attribute__((format(printf, 5, 6)));

typedef struct {
	run_kernel_t id;     /* kernel identity for the run record */
	char *kernel_path;   /* to boot; NULL: the board's own */
	char *initrd_path;
	/* the selftests the build shipped ($LABMESH_OUT/kselftest/) as a cpio
	 * archive to append to the board's initramfs; NULL: none */
	char *kselftest_path;
	bool has_kselftest_blob;
	uint8_t kselftest_blob[32];
	char build_log[512]; /* "" when nothing was built */
	/* git kernels: how the build went, for the run's "build" suite */
	bool built;          /* a build was tried (or taken from the cache) */
	bool cached;         /* taken from the lab's finished builds */
	int64_t build_ms;    /* the build's duration (the original's if cached) */
	char *build_text;    /* the failing lines, or how it went */
	char *owned[8];      /* strings the identity points to */
} exec_kernel_t;

/*
 * Get the request's kernel for board: none (the identity is filled from
 * the board later), artifact (the blobs in the home), git (fetch into the
 * lab's mirror, build with the lab's recipe in a sandbox, cached). 0, or
 * -errno with *ret_error saying why (caller frees).
 */
int exec_kernel(const char *home, const char *dir, const lab_config_t *cfg,
		const lab_board_t *board, const request_t *req,
		exec_kernel_t *ret, char **ret_error);
void exec_kernel_clear(exec_kernel_t *k);

/* The internal child commands' "--name value" pairs: *ret[k] is set to
 * the value given for names[k] (left as it is when absent). */
void jobs_child_opts(int argc, char **argv, const char *const *names,
		     const char ***ret, size_t n);

#endif
