/*
 * mp: canonical msgpack. Every labmesh object is one msgpack value in
 * canonical form:
 *   - integers in their shortest encoding; non-negative values always in
 *     the positive fixint / uint family, negative ones in the int family;
 *   - str, bin, array and map lengths in their shortest header;
 *   - str is valid UTF-8 (no overlongs, surrogates or > U+10FFFF) and
 *     contains no NUL;
 *   - floats are float64 only, never NaN or infinite;
 *   - maps have str keys in bytewise order, each key once;
 *   - no ext types, no reserved byte 0xc1, nothing after the value.
 *
 * Encoding goes through msgpack-c's packer (which already picks the
 * shortest forms). An encoder either builds a buffer or, in compare mode,
 * checks the bytes it would produce against an expected buffer without
 * storing anything: decoders use that to require that what they accepted
 * re-encodes to the very same bytes.
 *
 * Decoding is ours: an OpenSSH-sshbuf-like cursor over borrowed bytes.
 * Each getter peeks, checks the length against what REMAINS, then
 * consumes; on error the cursor is left where it was and nothing is
 * written to ret_* arguments. Container counts are checked against the
 * bytes that remain before a caller allocates anything.
 */
#ifndef LABMESH_PROTO_MP_H
#define LABMESH_PROTO_MP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <limits.h> /* msgpack.h needs CHAR_MIN; must precede it */
#include <msgpack.h>

#include "proto/error.h"
#include "proto/caps.h"

/* ---- encoder ---- */

typedef struct mp_enc {
	msgpack_packer pk;
	msgpack_sbuffer sbuf;
	const uint8_t *expect; /* compare mode: the bytes we must produce */
	size_t expect_len;
	size_t off;     /* compare mode: bytes produced so far */
	bool mismatch;  /* compare mode: a produced byte differed */
	bool compare;
	int err;        /* first error (sticky); 0 while all is well */
} mp_enc_t;

/* Start an encoder that builds a buffer (initial room: hint bytes). */
void mp_enc_init(mp_enc_t *e, size_t hint);
/* Start a compare-mode encoder against expect (borrowed, len bytes). */
void mp_enc_init_compare(mp_enc_t *e, const void *expect, size_t len);
/* Release the buffer (if not stolen). Safe to call twice. */
void mp_enc_free(mp_enc_t *e);
/*
 * Build mode: the first error, or 0 and the encoded bytes in *ret_data
 * (caller frees) and *ret_len. The encoder is emptied either way.
 */
int mp_enc_finish(mp_enc_t *e, uint8_t **ret_data, size_t *ret_len);
/*
 * Compare mode: 0 if exactly the expected bytes were produced,
 * PROTO_E_NONCANONICAL otherwise (or the first encoder error).
 */
int mp_enc_compare_result(const mp_enc_t *e);
/* Bytes produced so far. */
size_t mp_enc_len(const mp_enc_t *e);
/* Build mode: borrowed view of the bytes so far. */
const uint8_t *mp_enc_data(const mp_enc_t *e);
/* Record an error (first one wins): used by schema encoders. */
void mp_enc_fail(mp_enc_t *e, int err);

void mp_put_nil(mp_enc_t *e);
void mp_put_bool(mp_enc_t *e, bool v);
void mp_put_uint(mp_enc_t *e, uint64_t v);
void mp_put_int(mp_enc_t *e, int64_t v);
/* NaN or infinite sets PROTO_E_NAN. */
void mp_put_f64(mp_enc_t *e, double v);
/* A NUL-terminated string; NULL encodes as "". */
void mp_put_str(mp_enc_t *e, const char *s);
void mp_put_strn(mp_enc_t *e, const char *s, size_t n);
void mp_put_bin(mp_enc_t *e, const void *p, size_t n);
/* bin of n bytes, or nil when p is NULL. */
void mp_put_bin_or_nil(mp_enc_t *e, const void *p, size_t n);
void mp_put_array(mp_enc_t *e, uint32_t n);
void mp_put_map(mp_enc_t *e, uint32_t n);
/* Append bytes that already are one canonical value (no checks). */
void mp_put_raw(mp_enc_t *e, const void *p, size_t n);

/* ---- decoder ---- */

enum mp_type {
	MP_NIL = 1,
	MP_BOOL,
	MP_UINT, /* non-negative integer */
	MP_INT,  /* negative integer */
	MP_FLOAT,
	MP_STR,
	MP_BIN,
	MP_ARRAY,
	MP_MAP,
};

typedef struct mp_reader {
	const uint8_t *start;
	const uint8_t *p;
	size_t left;
} mp_reader_t;

/* A cursor over len borrowed bytes. */
void mp_reader_init(mp_reader_t *r, const void *data, size_t len);
/* Bytes consumed so far / still to read. */
size_t mp_reader_offset(const mp_reader_t *r);
size_t mp_reader_left(const mp_reader_t *r);
/* 0 when everything was consumed, PROTO_E_TRAILING otherwise. */
int mp_reader_end(const mp_reader_t *r);

/*
 * The type of the next value; PROTO_E_TRUNCATED at the end, PROTO_E_EXT
 * for ext, PROTO_E_FLOAT for float32, PROTO_E_TYPE for 0xc1.
 */
int mp_peek_type(const mp_reader_t *r, enum mp_type *ret_type);
/* True when the next value is nil (does not consume). */
bool mp_peek_nil(const mp_reader_t *r);

int mp_get_nil(mp_reader_t *r);
int mp_get_bool(mp_reader_t *r, bool *ret_v);
/* The full getters behind the in-line fast paths below. */
int mp_get_uint_full(mp_reader_t *r, uint64_t *ret_v);
int mp_get_uint_max_full(mp_reader_t *r, uint64_t max, uint64_t *ret_v);
int mp_get_array_exact_full(mp_reader_t *r, uint32_t n);

/*
 * Records are mostly small arrays and small integers: their one-byte
 * forms are decoded in line, everything else by the full getters.
 */
static inline int mp_get_uint(mp_reader_t *r, uint64_t *ret_v)
{
	if (r->left > 0 && r->p[0] <= 0x7f) {
		*ret_v = r->p[0];
		r->p++;
		r->left--;
		return 0;
	}
	return mp_get_uint_full(r, ret_v);
}

/* A uint no larger than max, else PROTO_E_RANGE. */
static inline int mp_get_uint_max(mp_reader_t *r, uint64_t max,
				  uint64_t *ret_v)
{
	if (r->left > 0 && r->p[0] <= 0x7f && r->p[0] <= max) {
		*ret_v = r->p[0];
		r->p++;
		r->left--;
		return 0;
	}
	return mp_get_uint_max_full(r, max, ret_v);
}
/* Any integer that fits in int64_t (else PROTO_E_RANGE). */
int mp_get_int(mp_reader_t *r, int64_t *ret_v);
int mp_get_f64(mp_reader_t *r, double *ret_v);
/*
 * A str of at most max bytes (else PROTO_E_TOOBIG), validated (UTF-8, no
 * NUL). *ret_s points into the input and is NOT NUL-terminated.
 */
int mp_get_str(mp_reader_t *r, size_t max, const char **ret_s,
	       size_t *ret_len);
/*
 * A str of at most max bytes WITHOUT the UTF-8/NUL check: only for
 * callers that then check a stricter ASCII syntax themselves (names,
 * paths, hex), which refuses every byte that check would.
 */
int mp_get_str_raw(mp_reader_t *r, size_t max, const char **ret_s,
		   size_t *ret_len);
/* A bin of at most max bytes; *ret_p points into the input. */
int mp_get_bin(mp_reader_t *r, size_t max, const uint8_t **ret_p,
	       size_t *ret_len);
/* A bin of exactly n bytes copied to out, else PROTO_E_LENGTH. */
int mp_get_bin_exact(mp_reader_t *r, size_t n, void *out);
/*
 * An array header. Fails with PROTO_E_COUNT if count * min_elem bytes
 * (min_elem >= 1: the least bytes one element can take) do not remain,
 * and PROTO_E_TOOMANY if count > max.
 */
int mp_get_array(mp_reader_t *r, size_t min_elem, uint32_t max,
		 uint32_t *ret_n);
/* An array header of exactly n elements, else PROTO_E_ARITY. */
static inline int mp_get_array_exact(mp_reader_t *r, uint32_t n)
{
	/* fixarray of n, with at least n bytes after it */
	if (n <= 15 && r->left > n && r->p[0] == 0x90 + n) {
		r->p++;
		r->left--;
		return 0;
	}
	return mp_get_array_exact_full(r, n);
}
/* A map header (checks 2 * count bytes remain, and count <= max). */
int mp_get_map(mp_reader_t *r, uint32_t max, uint32_t *ret_n);
/*
 * Order check for map keys: 0 if key (klen bytes) sorts strictly after
 * prev (plen bytes; prev NULL for the first key), else PROTO_E_UNSORTED or
 * PROTO_E_DUPKEY.
 */
int mp_key_order(const char *prev, size_t plen, const char *key,
		 size_t klen);
/* Consume one whole canonical value of any type, at most depth deep. */
int mp_skip(mp_reader_t *r, unsigned depth);
/* 0 if data is exactly one canonical msgpack value (PROTO_MAX_DEPTH). */
int mp_validate(const void *data, size_t len);

/* True if the n bytes at s are valid UTF-8 (shortest forms, scalars). */
bool mp_utf8_ok(const void *s, size_t n);

#endif
