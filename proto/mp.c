/*
 * mp: canonical msgpack encoder (on msgpack-c's packer) and strict bounded
 * reader. See mp.h for the rules. Layout: UTF-8 check, encoder, reader
 * head parsing (the one place that knows the format bytes), typed getters,
 * generic skip/validate.
 */
#include "proto/mp.h"
#include "proto/mem.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- UTF-8 ---- */

/* Length of the valid sequence starting at s (n bytes left), or 0. */
static size_t s_utf8_seq(const uint8_t *s, size_t n)
{
	uint8_t c = s[0], lo = 0x80, hi = 0xbf;
	size_t len, i;

	if (c >= 0xc2 && c <= 0xdf)
		len = 2;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4;
	else
		return 0;
	if (c == 0xe0)
		lo = 0xa0; /* overlong */
	else if (c == 0xed)
		hi = 0x9f; /* surrogates */
	else if (c == 0xf0)
		lo = 0x90; /* overlong */
	else if (c == 0xf4)
		hi = 0x8f; /* > U+10FFFF */
	if (n < len || s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < len; i++) {
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	}
	return len;
}

/* 0, PROTO_E_UTF8 or (when nul_ok is false) PROTO_E_NUL. */
static int s_str_check(const uint8_t *s, size_t n, bool nul_ok)
{
	const uint64_t high = 0x8080808080808080ull;
	const uint64_t ones = 0x0101010101010101ull;
	size_t i = 0;

	while (i < n) {
		if (n - i >= 8) {
			uint64_t v;
			memcpy(&v, s + i, 8);
			/* all ASCII and (for strings) no zero byte: skip 8 */
			if (!(v & high) &&
			    (nul_ok || !((v - ones) & ~v & high))) {
				i += 8;
				continue;
			}
		}
		if (s[i] < 0x80) {
			if (s[i] == 0 && !nul_ok)
				return PROTO_E_NUL;
			i++;
			continue;
		}
		size_t len = s_utf8_seq(s + i, n - i);
		if (len == 0)
			return PROTO_E_UTF8;
		i += len;
	}
	return 0;
}

bool mp_utf8_ok(const void *s, size_t n)
{
	return s_str_check(s, n, true) == 0;
}

/* ---- encoder ---- */

/* Compare mode: check the bytes the packer would write, store nothing. */
static int s_compare(void *data, const char *buf, size_t len)
{
	mp_enc_t *e = data;
	const uint8_t *x = e->expect + e->off, *y = (const uint8_t *)buf;
	bool same = true;

	if (len > e->expect_len - e->off) {
		e->mismatch = true;
		return 0;
	}
	/* most writes are a head of 1..9 bytes: compare in line */
	if (len <= 9) {
		for (size_t i = 0; i < len; i++)
			same &= x[i] == y[i];
	} else {
		same = memcmp(x, y, len) == 0;
	}
	if (same)
		e->off += len;
	else
		e->mismatch = true;
	return 0;
}

/* Build mode: append to the buffer (aborting on out-of-memory). */
static int s_write(void *data, const char *buf, size_t len)
{
	mp_enc_t *e = data;
	msgpack_sbuffer *sb = &e->sbuf;

	if (len > sb->alloc - sb->size) {
		size_t need, n = sb->alloc ? sb->alloc : 256;
		if (!size_add_ok(sb->size, len, &need))
			abort(); /* cannot happen: we never encode that much */
		while (n < need)
			n = n > SIZE_MAX / 2 ? need : n * 2;
		sb->data = xrealloc(sb->data, n);
		sb->alloc = n;
	}
	memcpy(sb->data + sb->size, buf, len);
	sb->size += len;
	return 0;
}

void mp_enc_init(mp_enc_t *e, size_t hint)
{
	memset(e, 0, sizeof(*e));
	if (hint) {
		e->sbuf.data = xmalloc(hint);
		e->sbuf.alloc = hint;
	}
	msgpack_packer_init(&e->pk, e, s_write);
}

void mp_enc_init_compare(mp_enc_t *e, const void *expect, size_t len)
{
	memset(e, 0, sizeof(*e));
	e->compare = true;
	e->expect = expect;
	e->expect_len = len;
	msgpack_packer_init(&e->pk, e, s_compare);
}

void mp_enc_free(mp_enc_t *e)
{
	free(e->sbuf.data);
	e->sbuf.data = NULL;
	e->sbuf.size = e->sbuf.alloc = 0;
}

int mp_enc_finish(mp_enc_t *e, uint8_t **ret_data, size_t *ret_len)
{
	int r = e->err;

	if (r == 0 && e->compare)
		r = -EINVAL;
	if (r < 0) {
		mp_enc_free(e);
		return r;
	}
	if (!e->sbuf.data)
		e->sbuf.data = xmalloc(1);
	*ret_data = (uint8_t *)e->sbuf.data;
	*ret_len = e->sbuf.size;
	e->sbuf.data = NULL;
	e->sbuf.size = e->sbuf.alloc = 0;
	return 0;
}

int mp_enc_compare_result(const mp_enc_t *e)
{
	if (e->err)
		return e->err;
	if (!e->compare || e->mismatch || e->off != e->expect_len)
		return PROTO_E_NONCANONICAL;
	return 0;
}

size_t mp_enc_len(const mp_enc_t *e)
{
	return e->compare ? e->off : e->sbuf.size;
}

const uint8_t *mp_enc_data(const mp_enc_t *e)
{
	return (const uint8_t *)e->sbuf.data;
}

void mp_enc_fail(mp_enc_t *e, int err)
{
	if (e->err == 0)
		e->err = err;
}

/*
 * Compare mode does not go through the packer: it forms the canonical head
 * of each value itself and checks it against the expected bytes in line
 * (a record's re-encoding is a few hundred small heads). The heads are the
 * shortest forms msgpack-c's packer picks in build mode; every sign-then-
 * decode round trip in the tests fails if the two ever disagree.
 */
static void s_cmp_head(mp_enc_t *e, uint8_t tag, uint64_t v, size_t w)
{
	uint8_t b[9];

	b[0] = tag;
	for (size_t i = 0; i < w; i++)
		b[1 + i] = (uint8_t)(v >> (8 * (w - 1 - i)));
	s_compare(e, (const char *)b, 1 + w);
}

static void s_cmp_uint(mp_enc_t *e, uint64_t v)
{
	if (v < 0x80)
		s_cmp_head(e, (uint8_t)v, 0, 0);
	else if (v <= 0xff)
		s_cmp_head(e, 0xcc, v, 1);
	else if (v <= 0xffff)
		s_cmp_head(e, 0xcd, v, 2);
	else if (v <= 0xffffffff)
		s_cmp_head(e, 0xce, v, 4);
	else
		s_cmp_head(e, 0xcf, v, 8);
}

/* A length head: fix form up to fixmax (if fix), then 8/16/32-bit forms. */
struct len_forms {
	uint8_t fix, fixmax, t8, t16, t32;
};

static const struct len_forms s_str_forms = {0xa0, 31, 0xd9, 0xda, 0xdb};
static const struct len_forms s_bin_forms = {0, 0, 0xc4, 0xc5, 0xc6};
static const struct len_forms s_array_forms = {0x90, 15, 0, 0xdc, 0xdd};
static const struct len_forms s_map_forms = {0x80, 15, 0, 0xde, 0xdf};

static void s_cmp_len(mp_enc_t *e, uint64_t n, const struct len_forms *f)
{
	if (f->fix && n <= f->fixmax)
		s_cmp_head(e, (uint8_t)(f->fix | n), 0, 0);
	else if (f->t8 && n <= 0xff)
		s_cmp_head(e, f->t8, n, 1);
	else if (n <= 0xffff)
		s_cmp_head(e, f->t16, n, 2);
	else
		s_cmp_head(e, f->t32, n, 4);
}

/*
 * Compare mode, one-byte heads (fixint, fixstr, fixarray: nearly every
 * value of a record) and the body after them, in one step: the same
 * check as s_cmp_len + s_compare, without forming the head.
 */
static inline void s_cmp_fix(mp_enc_t *e, uint8_t head, const void *body,
			     size_t n)
{
	size_t off = e->off;

	if (e->expect_len - off < 1 + n || e->expect[off] != head ||
	    (n && memcmp(e->expect + off + 1, body, n) != 0)) {
		e->mismatch = true;
		return;
	}
	e->off = off + 1 + n;
}

void mp_put_nil(mp_enc_t *e)
{
	if (e->compare)
		s_cmp_head(e, 0xc0, 0, 0);
	else
		msgpack_pack_nil(&e->pk);
}

void mp_put_bool(mp_enc_t *e, bool v)
{
	if (v)
		msgpack_pack_true(&e->pk);
	else
		msgpack_pack_false(&e->pk);
}

void mp_put_uint(mp_enc_t *e, uint64_t v)
{
	if (e->compare && v < 0x80)
		s_cmp_fix(e, (uint8_t)v, NULL, 0);
	else if (e->compare)
		s_cmp_uint(e, v);
	else
		msgpack_pack_uint64(&e->pk, v);
}

void mp_put_int(mp_enc_t *e, int64_t v)
{
	msgpack_pack_int64(&e->pk, v);
}

void mp_put_f64(mp_enc_t *e, double v)
{
	uint64_t u;

	if (!isfinite(v))
		mp_enc_fail(e, PROTO_E_NAN);
	memcpy(&u, &v, sizeof(u));
	if (e->compare)
		s_cmp_head(e, 0xcb, u, 8);
	else
		msgpack_pack_double(&e->pk, v);
}

void mp_put_strn(mp_enc_t *e, const char *s, size_t n)
{
	if (n > UINT32_MAX) {
		mp_enc_fail(e, PROTO_E_TOOBIG);
		return;
	}
	if (e->compare && n <= 31) {
		s_cmp_fix(e, (uint8_t)(0xa0 | n), s, n);
		return;
	}
	if (e->compare) {
		s_cmp_len(e, n, &s_str_forms);
		s_compare(e, s, n);
		return;
	}
	msgpack_pack_str(&e->pk, n);
	if (n)
		msgpack_pack_str_body(&e->pk, s, n);
}

void mp_put_str(mp_enc_t *e, const char *s)
{
	if (!s)
		s = "";
	mp_put_strn(e, s, strlen(s));
}

void mp_put_bin(mp_enc_t *e, const void *p, size_t n)
{
	if (n > UINT32_MAX) {
		mp_enc_fail(e, PROTO_E_TOOBIG);
		return;
	}
	if (e->compare) {
		s_cmp_len(e, n, &s_bin_forms);
		s_compare(e, p, n);
		return;
	}
	msgpack_pack_bin(&e->pk, n);
	if (n)
		msgpack_pack_bin_body(&e->pk, p, n);
}

void mp_put_bin_or_nil(mp_enc_t *e, const void *p, size_t n)
{
	if (p)
		mp_put_bin(e, p, n);
	else
		mp_put_nil(e);
}

void mp_put_array(mp_enc_t *e, uint32_t n)
{
	if (e->compare && n <= 15)
		s_cmp_fix(e, (uint8_t)(0x90 | n), NULL, 0);
	else if (e->compare)
		s_cmp_len(e, n, &s_array_forms);
	else
		msgpack_pack_array(&e->pk, n);
}

void mp_put_map(mp_enc_t *e, uint32_t n)
{
	if (e->compare)
		s_cmp_len(e, n, &s_map_forms);
	else
		msgpack_pack_map(&e->pk, n);
}

void mp_put_raw(mp_enc_t *e, const void *p, size_t n)
{
	e->pk.callback(e, p, n);
}

/* ---- reader: heads ---- */

struct head {
	enum mp_type type;
	size_t hlen; /* bytes of the head (format byte + fixed part) */
	uint64_t u;  /* MP_UINT value, MP_BOOL 0/1, else length/count */
	int64_t i;   /* MP_INT value */
	double f;    /* MP_FLOAT value */
};

void mp_reader_init(mp_reader_t *r, const void *data, size_t len)
{
	r->start = data;
	r->p = data;
	r->left = len;
}

size_t mp_reader_offset(const mp_reader_t *r)
{
	return (size_t)(r->p - r->start);
}

size_t mp_reader_left(const mp_reader_t *r)
{
	return r->left;
}

int mp_reader_end(const mp_reader_t *r)
{
	return r->left ? PROTO_E_TRAILING : 0;
}

static uint64_t s_be(const uint8_t *p, size_t n)
{
	uint64_t v = 0;

	for (size_t i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

/* Fixed-width part of a head: width bytes after the format byte. */
static int s_sized(const mp_reader_t *r, struct head *h, enum mp_type type,
		   size_t w, uint64_t min)
{
	if (r->left < 1 + w)
		return PROTO_E_TRUNCATED;
	h->type = type;
	h->hlen = 1 + w;
	h->u = s_be(r->p + 1, w);
	if (h->u < min) /* a shorter form would hold it */
		return PROTO_E_NONMINIMAL;
	/* str and bin carry their payload: it must be there */
	if ((type == MP_STR || type == MP_BIN) && h->u > r->left - h->hlen)
		return PROTO_E_TRUNCATED;
	return 0;
}

static int s_head_int(const mp_reader_t *r, struct head *h, size_t w)
{
	static const int64_t min_for[9] = {
		[1] = -32,
		[2] = -128,
		[4] = -32768,
		[8] = INT32_MIN,
	};

	if (r->left < 1 + w)
		return PROTO_E_TRUNCATED;
	uint64_t u = s_be(r->p + 1, w);
	int64_t v;
	if (w == 1)
		v = (int8_t)u;
	else if (w == 2)
		v = (int16_t)u;
	else if (w == 4)
		v = (int32_t)u;
	else
		memcpy(&v, &u, 8);
	if (v >= min_for[w])
		return PROTO_E_NONMINIMAL; /* fits a shorter or uint form */
	h->type = MP_INT;
	h->hlen = 1 + w;
	h->i = v;
	return 0;
}

static int s_head_float(const mp_reader_t *r, struct head *h)
{
	if (r->left < 9)
		return PROTO_E_TRUNCATED;
	uint64_t u = s_be(r->p + 1, 8);
	memcpy(&h->f, &u, 8);
	if (!isfinite(h->f))
		return PROTO_E_NAN;
	h->type = MP_FLOAT;
	h->hlen = 9;
	return 0;
}

static int s_head_fix(const mp_reader_t *r, struct head *h, enum mp_type t,
		      uint64_t u)
{
	h->type = t;
	h->hlen = 1;
	h->u = u;
	if (t == MP_STR && u > r->left - 1)
		return PROTO_E_TRUNCATED;
	return 0;
}

static int s_head_var(const mp_reader_t *r, struct head *h, uint8_t c)
{
	static const uint64_t s_uint_min[4] = {0x80, 0x100, 0x10000,
					       0x100000000ull};

	switch (c) {
	case 0xc0:
		return s_head_fix(r, h, MP_NIL, 0);
	case 0xc2:
	case 0xc3:
		return s_head_fix(r, h, MP_BOOL, c - 0xc2);
	case 0xc4:
		return s_sized(r, h, MP_BIN, 1, 0);
	case 0xc5:
		return s_sized(r, h, MP_BIN, 2, 0x100);
	case 0xc6:
		return s_sized(r, h, MP_BIN, 4, 0x10000);
	case 0xca:
		return PROTO_E_FLOAT;
	case 0xcb:
		return s_head_float(r, h);
	case 0xcc:
	case 0xcd:
	case 0xce:
	case 0xcf:
		return s_sized(r, h, MP_UINT, (size_t)1 << (c - 0xcc),
			       s_uint_min[c - 0xcc]);
	case 0xd0:
	case 0xd1:
	case 0xd2:
	case 0xd3:
		return s_head_int(r, h, (size_t)1 << (c - 0xd0));
	case 0xd9:
		return s_sized(r, h, MP_STR, 1, 32);
	case 0xda:
		return s_sized(r, h, MP_STR, 2, 0x100);
	case 0xdb:
		return s_sized(r, h, MP_STR, 4, 0x10000);
	case 0xdc:
		return s_sized(r, h, MP_ARRAY, 2, 16);
	case 0xdd:
		return s_sized(r, h, MP_ARRAY, 4, 0x10000);
	case 0xde:
		return s_sized(r, h, MP_MAP, 2, 16);
	case 0xdf:
		return s_sized(r, h, MP_MAP, 4, 0x10000);
	case 0xc7:
	case 0xc8:
	case 0xc9:
	case 0xd4:
	case 0xd5:
	case 0xd6:
	case 0xd7:
	case 0xd8:
		return PROTO_E_EXT;
	default: /* 0xc1: never used */
		return PROTO_E_TYPE;
	}
}

/* Parse the head of the next value without consuming anything. */
static int s_head(const mp_reader_t *r, struct head *h)
{
	if (r->left == 0)
		return PROTO_E_TRUNCATED;
	uint8_t c = r->p[0];
	if (c <= 0x7f)
		return s_head_fix(r, h, MP_UINT, c);
	if (c >= 0xe0) {
		h->type = MP_INT;
		h->hlen = 1;
		h->i = (int8_t)c;
		return 0;
	}
	if (c <= 0x8f)
		return s_head_fix(r, h, MP_MAP, c & 0x0f);
	if (c <= 0x9f)
		return s_head_fix(r, h, MP_ARRAY, c & 0x0f);
	if (c <= 0xbf)
		return s_head_fix(r, h, MP_STR, c & 0x1f);
	return s_head_var(r, h, c);
}

static void s_consume(mp_reader_t *r, size_t n)
{
	r->p += n;
	r->left -= n;
}

/* The head of the next value, which must be of type t. */
static int s_expect(const mp_reader_t *r, struct head *h, enum mp_type t)
{
	/* the common one-byte heads first: no general parse needed */
	if (r->left > 0) {
		uint8_t c = r->p[0];
		if (t == MP_UINT && c <= 0x7f)
			return s_head_fix(r, h, MP_UINT, c);
		if (t == MP_STR && c >= 0xa0 && c <= 0xbf)
			return s_head_fix(r, h, MP_STR, c & 0x1f);
		if (t == MP_ARRAY && c >= 0x90 && c <= 0x9f)
			return s_head_fix(r, h, MP_ARRAY, c & 0x0f);
	}
	int e = s_head(r, h);

	if (e < 0)
		return e;
	return h->type == t ? 0 : PROTO_E_TYPE;
}

/* ---- reader: typed getters ---- */

int mp_peek_type(const mp_reader_t *r, enum mp_type *ret_type)
{
	struct head h;
	int e = s_head(r, &h);

	if (e < 0)
		return e;
	*ret_type = h.type;
	return 0;
}

bool mp_peek_nil(const mp_reader_t *r)
{
	return r->left > 0 && r->p[0] == 0xc0;
}

int mp_get_nil(mp_reader_t *r)
{
	struct head h;
	int e = s_expect(r, &h, MP_NIL);

	if (e < 0)
		return e;
	s_consume(r, 1);
	return 0;
}

int mp_get_bool(mp_reader_t *r, bool *ret_v)
{
	struct head h;
	int e = s_expect(r, &h, MP_BOOL);

	if (e < 0)
		return e;
	s_consume(r, 1);
	*ret_v = h.u != 0;
	return 0;
}

int mp_get_uint_full(mp_reader_t *r, uint64_t *ret_v)
{
	struct head h;
	int e = s_expect(r, &h, MP_UINT);

	if (e < 0)
		return e;
	s_consume(r, h.hlen);
	*ret_v = h.u;
	return 0;
}

int mp_get_uint_max_full(mp_reader_t *r, uint64_t max, uint64_t *ret_v)
{
	struct head h;
	int e = s_expect(r, &h, MP_UINT);

	if (e < 0)
		return e;
	if (h.u > max)
		return PROTO_E_RANGE;
	s_consume(r, h.hlen);
	*ret_v = h.u;
	return 0;
}

int mp_get_int(mp_reader_t *r, int64_t *ret_v)
{
	struct head h;
	int e = s_head(r, &h);

	if (e < 0)
		return e;
	if (h.type == MP_UINT) {
		if (h.u > INT64_MAX)
			return PROTO_E_RANGE;
		h.i = (int64_t)h.u;
	} else if (h.type != MP_INT) {
		return PROTO_E_TYPE;
	}
	s_consume(r, h.hlen);
	*ret_v = h.i;
	return 0;
}

int mp_get_f64(mp_reader_t *r, double *ret_v)
{
	struct head h;
	int e = s_expect(r, &h, MP_FLOAT);

	if (e < 0)
		return e;
	s_consume(r, h.hlen);
	*ret_v = h.f;
	return 0;
}

int mp_get_str(mp_reader_t *r, size_t max, const char **ret_s, size_t *ret_len)
{
	struct head h;
	int e = s_expect(r, &h, MP_STR);

	if (e < 0)
		return e;
	if (h.u > max)
		return PROTO_E_TOOBIG;
	e = s_str_check(r->p + h.hlen, h.u, false);
	if (e < 0)
		return e;
	*ret_s = (const char *)r->p + h.hlen;
	*ret_len = h.u;
	s_consume(r, h.hlen + h.u);
	return 0;
}

int mp_get_str_raw(mp_reader_t *r, size_t max, const char **ret_s,
		   size_t *ret_len)
{
	struct head h;
	int e = s_expect(r, &h, MP_STR);

	if (e < 0)
		return e;
	if (h.u > max)
		return PROTO_E_TOOBIG;
	*ret_s = (const char *)r->p + h.hlen;
	*ret_len = h.u;
	s_consume(r, h.hlen + h.u);
	return 0;
}

int mp_get_bin(mp_reader_t *r, size_t max, const uint8_t **ret_p,
	       size_t *ret_len)
{
	struct head h;
	int e = s_expect(r, &h, MP_BIN);

	if (e < 0)
		return e;
	if (h.u > max)
		return PROTO_E_TOOBIG;
	*ret_p = r->p + h.hlen;
	*ret_len = h.u;
	s_consume(r, h.hlen + h.u);
	return 0;
}

int mp_get_bin_exact(mp_reader_t *r, size_t n, void *out)
{
	struct head h;
	int e = s_expect(r, &h, MP_BIN);

	if (e < 0)
		return e;
	if (h.u != n)
		return PROTO_E_LENGTH;
	memcpy(out, r->p + h.hlen, n);
	s_consume(r, h.hlen + n);
	return 0;
}

/* count elements of at least min_elem bytes each must fit in what is left. */
static bool s_count_fits(const mp_reader_t *r, const struct head *h,
			 size_t min_elem)
{
	size_t left = r->left - h->hlen;

	return min_elem == 0 || h->u <= left / min_elem;
}

int mp_get_array(mp_reader_t *r, size_t min_elem, uint32_t max, uint32_t *ret_n)
{
	struct head h;
	int e = s_expect(r, &h, MP_ARRAY);

	if (e < 0)
		return e;
	if (!s_count_fits(r, &h, min_elem ? min_elem : 1))
		return PROTO_E_COUNT;
	if (h.u > max)
		return PROTO_E_TOOMANY;
	s_consume(r, h.hlen);
	*ret_n = (uint32_t)h.u;
	return 0;
}

int mp_get_array_exact_full(mp_reader_t *r, uint32_t n)
{
	struct head h;
	int e = s_expect(r, &h, MP_ARRAY);

	if (e < 0)
		return e;
	if (!s_count_fits(r, &h, 1))
		return PROTO_E_COUNT;
	if (h.u != n)
		return PROTO_E_ARITY;
	s_consume(r, h.hlen);
	return 0;
}

int mp_get_map(mp_reader_t *r, uint32_t max, uint32_t *ret_n)
{
	struct head h;
	int e = s_expect(r, &h, MP_MAP);

	if (e < 0)
		return e;
	if (!s_count_fits(r, &h, 2))
		return PROTO_E_COUNT;
	if (h.u > max)
		return PROTO_E_TOOMANY;
	s_consume(r, h.hlen);
	*ret_n = (uint32_t)h.u;
	return 0;
}

int mp_key_order(const char *prev, size_t plen, const char *key, size_t klen)
{
	if (!prev)
		return 0;
	int c = memcmp(prev, key, plen < klen ? plen : klen);
	if (c == 0 && plen == klen)
		return PROTO_E_DUPKEY;
	if (c > 0 || (c == 0 && plen > klen))
		return PROTO_E_UNSORTED;
	return 0;
}

/* ---- reader: generic ---- */

static int s_skip_map(mp_reader_t *r, uint32_t n, unsigned depth)
{
	const char *prev = NULL, *key;
	size_t plen = 0, klen;
	int e;

	for (uint32_t i = 0; i < n; i++) {
		e = mp_get_str(r, UINT32_MAX, &key, &klen);
		if (e == 0)
			e = mp_key_order(prev, plen, key, klen);
		if (e == 0)
			e = mp_skip(r, depth);
		if (e < 0)
			return e;
		prev = key;
		plen = klen;
	}
	return 0;
}

static int s_skip_container(mp_reader_t *r, const struct head *h,
			    unsigned depth)
{
	uint32_t n;
	int e;

	if (depth == 0)
		return PROTO_E_DEPTH;
	if (h->type == MP_MAP) {
		e = mp_get_map(r, UINT32_MAX, &n);
		return e < 0 ? e : s_skip_map(r, n, depth - 1);
	}
	e = mp_get_array(r, 1, UINT32_MAX, &n);
	for (uint32_t i = 0; e == 0 && i < n; i++)
		e = mp_skip(r, depth - 1);
	return e;
}

int mp_skip(mp_reader_t *r, unsigned depth)
{
	mp_reader_t save = *r;
	struct head h;
	int e = s_head(r, &h);

	if (e < 0)
		return e;
	switch (h.type) {
	case MP_STR:
		e = s_str_check(r->p + h.hlen, h.u, false);
		if (e == 0)
			s_consume(r, h.hlen + h.u);
		break;
	case MP_BIN:
		s_consume(r, h.hlen + h.u);
		break;
	case MP_ARRAY:
	case MP_MAP:
		e = s_skip_container(r, &h, depth);
		break;
	default:
		s_consume(r, h.hlen);
		break;
	}
	if (e < 0)
		*r = save;
	return e;
}

int mp_validate(const void *data, size_t len)
{
	mp_reader_t r;
	int e;

	mp_reader_init(&r, data, len);
	e = mp_skip(&r, PROTO_MAX_DEPTH);
	return e < 0 ? e : mp_reader_end(&r);
}
