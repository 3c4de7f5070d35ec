/*
 * types: small value types and validators shared by records, requests and
 * messages: byte slices, the test status enum, and the syntax checks the
 * decoders apply to names, paths, commits and endpoints (also handy for
 * config validation elsewhere), hex helpers and the BLAKE2b-256 id.
 */
#ifndef LABMESH_PROTO_TYPES_H
#define LABMESH_PROTO_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto/caps.h"

/* A borrowed byte range (points into a buffer someone else owns). */
typedef struct {
	const uint8_t *p;
	size_t len;
} proto_bytes_t;

/* Test case / suite / run status (KCIDB's six). 0 is never valid. */
enum proto_status {
	PROTO_PASS = 1,
	PROTO_FAIL,
	PROTO_ERROR,
	PROTO_SKIP,
	PROTO_MISS,
	PROTO_DONE,
};
#define PROTO_STATUS_MAX PROTO_DONE

/* "PASS", "FAIL"...; "?" out of range. Borrowed. */
const char *proto_status_name(int status);
/* Parse "PASS" etc. (upper case); 0 or -EINVAL. */
int proto_status_parse(const char *s, enum proto_status *ret_status);

/* [A-Za-z0-9][A-Za-z0-9._-]*, 1..PROTO_MAX_NAME bytes. */
bool proto_name_ok(const char *s);
/* Edit distance (Levenshtein) of two short strings, for "did you mean";
 * SIZE_MAX when either is longer than PROTO_MAX_NAME bytes. */
size_t proto_name_distance(const char *a, const char *b);
/* Segments [A-Za-z0-9_-]+ joined by '.', 1..PROTO_MAX_PATH bytes. */
bool proto_path_ok(const char *s);
/* Exactly 40 lowercase hex digits. */
bool proto_commit_ok(const char *s);
/* The same three checks on n bytes (not NUL-terminated). */
bool proto_name_okn(const char *s, size_t n);
bool proto_path_okn(const char *s, size_t n);
bool proto_commit_okn(const char *s, size_t n);
/* tcp://HOST:PORT (HOST a name, IPv4 or [IPv6], PORT 1..65535). */
bool proto_endpoint_ok(const char *s);
/* Printable UTF-8 text (tab, newline allowed; no other controls). */
bool proto_text_ok(const char *s, size_t len);

/* Lowercase hex of n bytes into out (2n+1 bytes, NUL-terminated). */
void proto_hex(const void *p, size_t n, char *out);
/* Exactly 2n hex digits (either case) into out; 0 or -EINVAL. */
int proto_unhex(const char *s, void *out, size_t n);

/* BLAKE2b-256 of data: the id of records, requests and blobs. */
void proto_id(const void *data, size_t len, uint8_t ret_id[PROTO_ID_LEN]);

#endif
