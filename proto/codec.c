/*
 * codec: field helpers and signing shared by proto's schema codecs. See
 * codec.h.
 */
#include "proto/codec.h"
#include "proto/mem.h"
#include "proto/types.h"

#include <stdlib.h>
#include <string.h>

#include <sodium.h>

int dec_text(mp_reader_t *r, arena_t *a, size_t max, const char **ret)
{
	const char *s;
	size_t n;
	int e = mp_get_str(r, max, &s, &n);

	if (e < 0)
		return e;
	*ret = arena_strndup(a, s, n);
	return 0;
}

/*
 * An ASCII-syntax string (name, path, hex): the syntax check refuses every
 * byte the UTF-8/NUL check would, so the raw getter is enough.
 */
static int s_dec_checked(mp_reader_t *r, arena_t *a, size_t max,
			 bool (*okn)(const char *, size_t), bool allow_empty,
			 const char **ret)
{
	mp_reader_t save = *r;
	const char *s;
	size_t n;
	int e = mp_get_str_raw(r, max, &s, &n);

	if (e < 0)
		return e;
	if (n == 0 && !allow_empty) {
		*r = save;
		return PROTO_E_EMPTY;
	}
	if (n > 0 && !okn(s, n)) {
		*r = save;
		return PROTO_E_SYNTAX;
	}
	*ret = arena_strndup(a, s, n);
	return 0;
}

int dec_name(mp_reader_t *r, arena_t *a, const char **ret)
{
	return s_dec_checked(r, a, PROTO_MAX_NAME, proto_name_okn, false, ret);
}

int dec_name_opt(mp_reader_t *r, arena_t *a, const char **ret)
{
	return s_dec_checked(r, a, PROTO_MAX_NAME, proto_name_okn, true, ret);
}

int dec_path(mp_reader_t *r, arena_t *a, const char **ret)
{
	return s_dec_checked(r, a, PROTO_MAX_PATH, proto_path_okn, false, ret);
}

int dec_commit(mp_reader_t *r, arena_t *a, bool allow_empty,
	       const char **ret)
{
	return s_dec_checked(r, a, PROTO_COMMIT_LEN, proto_commit_okn,
			     allow_empty, ret);
}

int dec_names(mp_reader_t *r, arena_t *a, uint32_t min, uint32_t max,
	      const char *const **ret_list, size_t *ret_n)
{
	uint32_t n;
	int e = mp_get_array(r, 2, max, &n);

	if (e < 0)
		return e;
	if (n < min)
		return PROTO_E_EMPTY;
	const char **list = arena_array(a, n ? n : 1, sizeof(*list));
	for (uint32_t i = 0; i < n; i++) {
		e = dec_name(r, a, &list[i]);
		if (e < 0)
			return e;
	}
	*ret_list = list;
	*ret_n = n;
	return 0;
}

int dec_u32(mp_reader_t *r, uint32_t lo, uint32_t hi, uint32_t *ret)
{
	mp_reader_t save = *r;
	uint64_t v;
	int e = mp_get_uint_max(r, hi, &v);

	if (e < 0)
		return e;
	if (v < lo) {
		*r = save;
		return PROTO_E_RANGE;
	}
	*ret = (uint32_t)v;
	return 0;
}

int dec_id_opt(mp_reader_t *r, bool *ret_has, uint8_t out[32])
{
	if (mp_peek_nil(r)) {
		memset(out, 0, 32);
		*ret_has = false;
		return mp_get_nil(r);
	}
	int e = mp_get_bin_exact(r, 32, out);
	if (e < 0)
		return e;
	*ret_has = true;
	return 0;
}

void enc_array(mp_enc_t *e, size_t n)
{
	if (n > UINT32_MAX) {
		mp_enc_fail(e, PROTO_E_TOOMANY);
		return;
	}
	mp_put_array(e, (uint32_t)n);
}

void enc_strs(mp_enc_t *e, const char *const *list, size_t n)
{
	enc_array(e, n);
	for (size_t i = 0; i < n; i++)
		mp_put_str(e, list[i]);
}

/* prefix || data in one buffer (what Ed25519 signs): in stack when small. */
#define SIGNED_STACK 8192

static uint8_t *s_signed_msg(const char *prefix, const uint8_t *data,
			     size_t len, uint8_t *stack, size_t *ret_len)
{
	size_t plen = strlen(prefix) + 1, total;

	if (!size_add_ok(plen, len, &total))
		abort(); /* our callers cap len far below this */
	uint8_t *m = total <= SIGNED_STACK ? stack : xmalloc(total);
	memcpy(m, prefix, plen);
	memcpy(m + plen, data, len);
	*ret_len = total;
	return m;
}

void sig_make(const char *prefix, const uint8_t *data, size_t len,
	      const key_pair_t *key, uint8_t ret_sig[64])
{
	uint8_t stack[SIGNED_STACK];
	size_t mlen;
	uint8_t *m = s_signed_msg(prefix, data, len, stack, &mlen);

	crypto_sign_detached(ret_sig, NULL, m, mlen, key->sk);
	if (m != stack)
		free(m);
}

#ifdef PROTO_FUZZING
/*
 * Fuzz builds only (never linked into labmesh): a fuzzer cannot forge
 * signatures, so without this it could never reach the success paths and
 * the round-trip checks behind them. Signatures are covered by the unit
 * tests, which always use the real check.
 */
static int s_verify(const uint8_t sig[64], const uint8_t *m, size_t mlen,
		    const uint8_t pk[32])
{
	(void)sig, (void)m, (void)mlen, (void)pk;
	return 0;
}
#else
static int s_verify(const uint8_t sig[64], const uint8_t *m, size_t mlen,
		    const uint8_t pk[32])
{
	return crypto_sign_verify_detached(sig, m, mlen, pk);
}
#endif

int sig_check(const char *prefix, const uint8_t *data, size_t len,
	      const uint8_t sig[64], const uint8_t pk[32])
{
	uint8_t stack[SIGNED_STACK];
	size_t mlen;
	uint8_t *m = s_signed_msg(prefix, data, len, stack, &mlen);
	int r = s_verify(sig, m, mlen, pk);

	if (m != stack)
		free(m);
	return r == 0 ? 0 : PROTO_E_SIG;
}

int enc_sign_finish(mp_enc_t *e, const char *prefix, const key_pair_t *key,
		    uint8_t **ret_data, size_t *ret_len)
{
	uint8_t sig[64];

	if (e->err) {
		mp_enc_free(e);
		return e->err;
	}
	sig_make(prefix, mp_enc_data(e), mp_enc_len(e), key, sig);
	mp_put_bin(e, sig, sizeof(sig));
	return mp_enc_finish(e, ret_data, ret_len);
}
