/*
 * desc: signed node descriptors. See desc.h for the wire form.
 */
#include "proto/desc.h"
#include "proto/codec.h"
#include "proto/mem.h"
#include "proto/types.h"

#include <stdlib.h>
#include <string.h>

#define DESC_FIELDS 8

static void s_encode_unsigned(mp_enc_t *e, const node_desc_t *d,
			      const uint8_t node_id[32])
{
	mp_put_array(e, DESC_FIELDS);
	mp_put_uint(e, DESC_VERSION);
	mp_put_bin(e, node_id, 32);
	mp_put_str(e, d->lab);
	enc_strs(e, d->endpoints, d->n_endpoints);
	mp_put_str(e, d->software);
	mp_put_uint(e, d->ts_ms);
	mp_put_uint(e, d->epoch);
}

static int s_dec_endpoints(mp_reader_t *r, arena_t *a, node_desc_t *d)
{
	uint32_t n;
	int e = mp_get_array(r, 8, PROTO_MAX_ENDPOINTS, &n);

	if (e < 0)
		return e;
	const char **list = arena_array(a, n ? n : 1, sizeof(*list));
	for (uint32_t i = 0; i < n; i++) {
		if ((e = dec_text(r, a, PROTO_MAX_ENDPOINT, &list[i])) < 0)
			return e;
		if (!proto_endpoint_ok(list[i]))
			return PROTO_E_SYNTAX;
	}
	d->endpoints = list;
	d->n_endpoints = n;
	return 0;
}

static int s_dec_fields(mp_reader_t *r, arena_t *a, node_desc_t *d)
{
	uint64_t v;
	int e;

	if ((e = mp_get_array_exact(r, DESC_FIELDS)) < 0 ||
	    (e = mp_get_uint(r, &v)) < 0)
		return e;
	if (v != DESC_VERSION)
		return PROTO_E_VERSION;
	d->version = (uint32_t)v;
	if ((e = mp_get_bin_exact(r, 32, d->node_id)) < 0 ||
	    (e = dec_name(r, a, &d->lab)) < 0 ||
	    (e = s_dec_endpoints(r, a, d)) < 0 ||
	    (e = dec_text(r, a, PROTO_MAX_SHORT, &d->software)) < 0 ||
	    (e = mp_get_uint(r, &d->ts_ms)) < 0 ||
	    (e = mp_get_uint(r, &d->epoch)) < 0)
		return e;
	return d->epoch == 0 ? PROTO_E_RANGE : 0;
}

static int s_decode(const uint8_t *data, size_t len, node_desc_t *d)
{
	mp_reader_t r;
	mp_enc_t e;
	size_t signed_len;
	int err;

	mp_reader_init(&r, data, len);
	if ((err = s_dec_fields(&r, d->arena, d)) < 0)
		return err;
	signed_len = mp_reader_offset(&r);
	if ((err = mp_get_bin_exact(&r, 64, d->sig)) < 0 ||
	    (err = mp_reader_end(&r)) < 0)
		return err;
	mp_enc_init_compare(&e, data, len);
	s_encode_unsigned(&e, d, d->node_id);
	mp_put_bin(&e, d->sig, 64);
	if ((err = mp_enc_compare_result(&e)) < 0)
		return err;
	return sig_check(DESC_SIG_PREFIX, data, signed_len, d->sig,
			 d->node_id);
}

int desc_decode(const void *data, size_t len, node_desc_t **ret_desc)
{
	node_desc_t *d;
	int err;

	if (len > PROTO_MAX_DESC)
		return PROTO_E_TOOBIG;
	d = xzalloc(sizeof(*d));
	d->arena = arena_new(len * 2 + 256);
	err = s_decode(data, len, d);
	if (err < 0) {
		desc_destroy(&d);
		return err;
	}
	proto_id(data, len, d->id);
	*ret_desc = d;
	return 0;
}

void desc_destroy(node_desc_t **p)
{
	if (!p || !*p)
		return;
	arena_destroy(&(*p)->arena);
	free(*p);
	*p = NULL;
}

int desc_encode(const node_desc_t *d, uint8_t **ret_data, size_t *ret_len)
{
	mp_enc_t e;

	mp_enc_init(&e, 256);
	s_encode_unsigned(&e, d, d->node_id);
	mp_put_bin(&e, d->sig, 64);
	return mp_enc_finish(&e, ret_data, ret_len);
}

int desc_sign(const node_desc_t *d, const key_pair_t *key,
	      uint8_t **ret_data, size_t *ret_len, uint8_t ret_id[32])
{
	mp_enc_t e;
	uint8_t *data;
	size_t len;
	node_desc_t *check = NULL;
	int r;

	mp_enc_init(&e, 256);
	s_encode_unsigned(&e, d, key->pk);
	r = enc_sign_finish(&e, DESC_SIG_PREFIX, key, &data, &len);
	if (r < 0)
		return r;
	r = desc_decode(data, len, &check);
	if (r < 0) {
		free(data);
		return r;
	}
	memcpy(ret_id, check->id, 32);
	desc_destroy(&check);
	*ret_data = data;
	*ret_len = len;
	return 0;
}
