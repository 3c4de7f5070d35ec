/*
 * reply: the runner's reading of what a board prints in answer to the
 * runner's own small commands (kernel identity, needs check, work
 * directory). Those bytes come from the board, maybe through a serial
 * console with junk in front of a line: each reader is bounded, cleans
 * what it keeps to printable ASCII, and never fails on bad input.
 * Internal to the suites component (the runner and its fuzz harness).
 */
#ifndef LABMESH_SUITES_REPLY_H
#define LABMESH_SUITES_REPLY_H

#include "proto/buf.h"
#include "suites/runner.h"

#include <stdbool.h>
#include <stddef.h>

#define SUITE_REPLY_MAX_ID 256   /* bytes of a tagged value (kernel identity, dir) */
#define SUITE_REPLY_MAX_NAME 128 /* bytes of a need's name */

/*
 * The value after tag on the first line of out (len bytes) holding tag,
 * cleaned (printable ASCII, trailing blanks dropped, at most
 * SUITE_REPLY_MAX_ID bytes), or NULL when no line holds it. The caller
 * frees it.
 */
char *suite_reply_tagged(const char *out, size_t len, const char *tag);

/*
 * The answer to the kernel identity command ("LMKR:<uname -r>",
 * "LMKM:<uname -m>", "LMKV:</proc/version>" lines). Returns 0 with
 * release and machine set (version may be NULL), or -EPROTO with *ret
 * cleared.
 */
int suite_reply_kernel(const char *out, size_t len, suite_kernel_t *ret);

/* What the needs check said is missing. */
typedef struct {
	size_t n_commands; /* "LMNEED:command NAME" lines */
	size_t n_kconfig;  /* "LMNEED:kconfig NAME" lines */
	bool root;         /* "LMNEED:root UID": not uid 0 */
	bool noconfig;     /* "LMNEED:noconfig": kconfig needs not checked */
} suite_needs_reply_t;

/*
 * The answer to the needs check, which ends with "LMNEED:done". Appends
 * to why ("; " between parts) what is missing: "needs root (uid U)",
 * "missing commands: a, b", "kernel options not set: X, Y". Returns 0, or
 * -EPROTO when the answer never got to its end (nothing appended).
 */
int suite_reply_needs(const char *out, size_t len, buf_t *why, suite_needs_reply_t *ret);

#endif
