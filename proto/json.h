/*
 * json: a small streaming JSON writer into a buf_t, for `--json` output,
 * KCIDB exports and anything else we hand to other programs.
 *
 * Strings often come from the network or from a board's console, so the
 * writer never emits invalid JSON whatever it is given: every control
 * character is escaped (\n, \t... or \u00XX), DEL and U+2028/U+2029 too,
 * and bytes that are not valid UTF-8 (stray continuation bytes, overlong
 * forms, surrogates, code points past U+10FFFF, truncated sequences) are
 * each replaced by U+FFFD. Doubles must be finite: NaN and infinities are
 * written as null. Numbers are formatted in the C locale convention (the
 * process must not set LC_NUMERIC to a comma locale).
 *
 * Usage:
 *
 *	buf_t b;
 *	json_t j;
 *	buf_init(&b, 0);
 *	json_init(&j, &b, JSON_PRETTY);
 *	json_obj_open(&j);
 *	json_key_str(&j, "board", name);
 *	json_key(&j, "cases");
 *	json_arr_open(&j);
 *	json_int(&j, 3);
 *	json_arr_close(&j);
 *	json_obj_close(&j);
 *	if (json_finish(&j) < 0) ...;   // b holds the document (+ "\n" if pretty)
 *
 * Errors are sticky: after the first one (buffer cap reached: -ENOSPC;
 * nesting deeper than JSON_MAX_DEPTH: -E2BIG; a call out of place, such as
 * a value in an object without a key or an unbalanced close: -EINVAL) every
 * call returns it and writes nothing more. So callers may check only
 * json_finish(). Misuse is our own bug, but it is reported, not asserted.
 *
 * json_t is a plain struct so it can live on the stack; its fields are
 * private to json.c.
 */
#ifndef LABMESH_PROTO_JSON_H
#define LABMESH_PROTO_JSON_H

#include "proto/buf.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define JSON_MAX_DEPTH 64 /* nested objects/arrays */

enum {
	JSON_COMPACT = 0, /* {"a":1,"b":[true,null]} */
	JSON_PRETTY = 1,  /* two-space indent, one member per line */
};

typedef struct {
	buf_t *out;
	int flags;
	int err;
	int depth;
	bool after_key;                 /* a key was written, value due */
	bool done;                      /* a top-level value was written */
	bool in_obj[JSON_MAX_DEPTH + 1];
	size_t count[JSON_MAX_DEPTH + 1]; /* members written at each level */
} json_t;

/* Start writing one JSON value into out (appended to what is there). */
void json_init(json_t *j, buf_t *out, int flags);
/* 0 if the document is complete and nothing failed, else the sticky
 * error (-EINVAL when containers are still open). Pretty output gets a
 * final newline here. */
int json_finish(json_t *j);

int json_obj_open(json_t *j);
int json_obj_close(json_t *j);
int json_arr_open(json_t *j);
int json_arr_close(json_t *j);
/* An object member's key; the next call writes its value. */
int json_key(json_t *j, const char *key);

/* A NUL-terminated string; NULL is written as null. */
int json_str(json_t *j, const char *s);
/* n bytes, which may hold NUL (written as \u0000). */
int json_strn(json_t *j, const void *s, size_t n);
int json_int(json_t *j, int64_t v);
int json_uint(json_t *j, uint64_t v);
/* A finite double, shortest form that reads back exactly; else null. */
int json_double(json_t *j, double v);
int json_bool(json_t *j, bool v);
int json_null(json_t *j);

/* key + value in one call */
int json_key_str(json_t *j, const char *key, const char *s);
int json_key_int(json_t *j, const char *key, int64_t v);
int json_key_uint(json_t *j, const char *key, uint64_t v);
int json_key_double(json_t *j, const char *key, double v);
int json_key_bool(json_t *j, const char *key, bool v);
int json_key_null(json_t *j, const char *key);

/*
 * Append n bytes to out as a quoted JSON string with the escaping and
 * UTF-8 repair described above. Returns 0 or -ENOSPC (buffer cap).
 */
int json_escape(buf_t *out, const void *s, size_t n);

#endif
