/*
 * request: signed test requests and cancels. See request.h for the wire
 * forms. Same shape as record.c: encode everything before sig with one
 * function used both to sign and to re-encode for the comparison, strict
 * field decoders, signature last.
 */
#include "proto/request.h"
#include "proto/codec.h"
#include "proto/mem.h"

#include <stdlib.h>
#include <string.h>

#define REQUEST_FIELDS 10
#define CANCEL_FIELDS 5

/* ---- kernel ---- */

static void s_enc_kernel(mp_enc_t *e, const request_kernel_t *k)
{
	switch (k->type) {
	case REQUEST_KERNEL_NONE:
		mp_put_array(e, 1);
		mp_put_uint(e, k->type);
		return;
	case REQUEST_KERNEL_GIT:
		mp_put_array(e, 5);
		mp_put_uint(e, k->type);
		break;
	case REQUEST_KERNEL_ARTIFACT:
		mp_put_array(e, 9);
		mp_put_uint(e, k->type);
		mp_put_bin(e, k->kernel_blob, 32);
		mp_put_bin_or_nil(e, k->has_initrd_blob ? k->initrd_blob : NULL,
				  32);
		mp_put_str(e, k->describe);
		mp_put_str(e, k->arch);
		break;
	default:
		mp_enc_fail(e, PROTO_E_KIND);
		return;
	}
	mp_put_str(e, k->url);
	mp_put_str(e, k->branch);
	mp_put_str(e, k->commit);
	mp_put_str(e, k->config);
}

/* url, branch, commit, config: required for git, optional otherwise. */
static int s_dec_identity(mp_reader_t *r, arena_t *a, request_kernel_t *k)
{
	bool git = k->type == REQUEST_KERNEL_GIT;
	int e;

	if ((e = dec_text(r, a, PROTO_MAX_URL, &k->url)) < 0)
		return e;
	if (git && !k->url[0])
		return PROTO_E_EMPTY;
	if ((e = dec_text(r, a, PROTO_MAX_SHORT, &k->branch)) < 0 ||
	    (e = dec_commit(r, a, !git, &k->commit)) < 0)
		return e;
	return dec_text(r, a, PROTO_MAX_SHORT, &k->config);
}

static int s_dec_kernel(mp_reader_t *r, arena_t *a, request_kernel_t *k)
{
	static const uint32_t arity[] = {1, 5, 9};
	uint64_t t;
	uint32_t n;
	int e;

	if ((e = mp_get_array(r, 1, UINT32_MAX, &n)) < 0)
		return e;
	if (n == 0)
		return PROTO_E_ARITY;
	if ((e = mp_get_uint(r, &t)) < 0)
		return e;
	if (t > REQUEST_KERNEL_MAX)
		return PROTO_E_KIND;
	if (n != arity[t])
		return PROTO_E_ARITY;
	k->type = t;
	if (t == REQUEST_KERNEL_NONE) {
		k->url = k->branch = k->commit = k->config = "";
		k->describe = k->arch = "";
		return 0;
	}
	if (t == REQUEST_KERNEL_ARTIFACT) {
		if ((e = mp_get_bin_exact(r, 32, k->kernel_blob)) < 0 ||
		    (e = dec_id_opt(r, &k->has_initrd_blob, k->initrd_blob)) <
			    0 ||
		    (e = dec_text(r, a, PROTO_MAX_SHORT, &k->describe)) < 0 ||
		    (e = dec_name(r, a, &k->arch)) < 0)
			return e;
	} else {
		k->describe = k->arch = "";
	}
	return s_dec_identity(r, a, k);
}

/* ---- selector ---- */

static void s_enc_selector(mp_enc_t *e, const request_selector_t *s)
{
	mp_put_array(e, 5);
	mp_put_str(e, s->arch);
	enc_strs(e, s->tags, s->n_tags);
	enc_strs(e, s->labs, s->n_labs);
	enc_strs(e, s->boards, s->n_boards);
	mp_put_uint(e, s->max_per_lab);
}

static int s_dec_selector(mp_reader_t *r, arena_t *a, request_selector_t *s)
{
	int e;

	if ((e = mp_get_array_exact(r, 5)) < 0 ||
	    (e = dec_name_opt(r, a, &s->arch)) < 0 ||
	    (e = dec_names(r, a, 0, PROTO_MAX_TAGS, &s->tags, &s->n_tags)) <
		    0 ||
	    (e = dec_names(r, a, 0, PROTO_MAX_SEL_LABS, &s->labs, &s->n_labs)) <
		    0 ||
	    (e = dec_names(r, a, 0, PROTO_MAX_SEL_BOARDS, &s->boards,
			   &s->n_boards)) < 0)
		return e;
	return dec_u32(r, 0, PROTO_MAX_BOARDS, &s->max_per_lab);
}

/* ---- request ---- */

static void s_encode_unsigned(mp_enc_t *e, const request_t *q,
			      const uint8_t submitter[32])
{
	mp_put_array(e, REQUEST_FIELDS);
	mp_put_uint(e, REQUEST_VERSION);
	mp_put_bin(e, submitter, 32);
	mp_put_uint(e, q->created_ms);
	mp_put_uint(e, q->expires_ms);
	mp_put_bin(e, q->nonce, PROTO_NONCE_LEN);
	mp_put_uint(e, q->priority);
	s_enc_kernel(e, &q->kernel);
	enc_strs(e, q->suites, q->n_suites);
	s_enc_selector(e, &q->select);
}

static int s_dec_fields(mp_reader_t *r, arena_t *a, request_t *q)
{
	uint64_t v;
	int e;

	if ((e = mp_get_array_exact(r, REQUEST_FIELDS)) < 0 ||
	    (e = mp_get_uint(r, &v)) < 0)
		return e;
	if (v != REQUEST_VERSION)
		return PROTO_E_VERSION;
	q->version = (uint32_t)v;
	if ((e = mp_get_bin_exact(r, 32, q->submitter)) < 0 ||
	    (e = mp_get_uint(r, &q->created_ms)) < 0 ||
	    (e = mp_get_uint(r, &q->expires_ms)) < 0)
		return e;
	if (q->created_ms > PROTO_MAX_TIME_MS ||
	    q->expires_ms > PROTO_MAX_TIME_MS)
		return PROTO_E_TIME;
	if (q->expires_ms <= q->created_ms)
		return PROTO_E_RANGE;
	if (q->expires_ms - q->created_ms > PROTO_MAX_REQUEST_LIFETIME_MS)
		return PROTO_E_LIFETIME;
	if ((e = mp_get_bin_exact(r, PROTO_NONCE_LEN, q->nonce)) < 0 ||
	    (e = dec_u32(r, 0, PROTO_MAX_PRIORITY, &q->priority)) < 0 ||
	    (e = s_dec_kernel(r, a, &q->kernel)) < 0 ||
	    (e = dec_names(r, a, 1, PROTO_MAX_SUITES, &q->suites,
			   &q->n_suites)) < 0)
		return e;
	return s_dec_selector(r, a, &q->select);
}

static int s_decode(const uint8_t *data, size_t len, request_t *q)
{
	mp_reader_t r;
	mp_enc_t e;
	size_t signed_len;
	int err;

	mp_reader_init(&r, data, len);
	if ((err = s_dec_fields(&r, q->arena, q)) < 0)
		return err;
	signed_len = mp_reader_offset(&r);
	if ((err = mp_get_bin_exact(&r, 64, q->sig)) < 0 ||
	    (err = mp_reader_end(&r)) < 0)
		return err;
	mp_enc_init_compare(&e, data, len);
	s_encode_unsigned(&e, q, q->submitter);
	mp_put_bin(&e, q->sig, 64);
	if ((err = mp_enc_compare_result(&e)) < 0)
		return err;
	return sig_check(REQUEST_SIG_PREFIX, data, signed_len, q->sig,
			 q->submitter);
}

int request_decode(const void *data, size_t len, request_t **ret_req)
{
	request_t *q;
	int err;

	if (len > PROTO_MAX_REQUEST)
		return PROTO_E_TOOBIG;
	q = xzalloc(sizeof(*q));
	q->arena = arena_new(len * 2 + 256);
	err = s_decode(data, len, q);
	if (err < 0) {
		request_destroy(&q);
		return err;
	}
	proto_id(data, len, q->id);
	*ret_req = q;
	return 0;
}

void request_destroy(request_t **p)
{
	if (!p || !*p)
		return;
	arena_destroy(&(*p)->arena);
	free(*p);
	*p = NULL;
}

int request_encode(const request_t *req, uint8_t **ret_data, size_t *ret_len)
{
	mp_enc_t e;

	mp_enc_init(&e, 512);
	s_encode_unsigned(&e, req, req->submitter);
	mp_put_bin(&e, req->sig, 64);
	return mp_enc_finish(&e, ret_data, ret_len);
}

int request_sign(const request_t *req, const key_pair_t *key,
		 uint8_t **ret_data, size_t *ret_len, uint8_t ret_id[32])
{
	mp_enc_t e;
	uint8_t *data;
	size_t len;
	request_t *check = NULL;
	int r;

	mp_enc_init(&e, 512);
	s_encode_unsigned(&e, req, key->pk);
	r = enc_sign_finish(&e, REQUEST_SIG_PREFIX, key, &data, &len);
	if (r < 0)
		return r;
	r = request_decode(data, len, &check);
	if (r < 0) {
		free(data);
		return r;
	}
	memcpy(ret_id, check->id, 32);
	request_destroy(&check);
	*ret_data = data;
	*ret_len = len;
	return 0;
}

/* ---- cancel ---- */

static void s_encode_cancel(mp_enc_t *e, const uint8_t submitter[32],
			    const uint8_t request_id[32], uint64_t ts_ms)
{
	mp_put_array(e, CANCEL_FIELDS);
	mp_put_uint(e, REQUEST_VERSION);
	mp_put_bin(e, submitter, 32);
	mp_put_bin(e, request_id, 32);
	mp_put_uint(e, ts_ms);
}

int cancel_sign(const uint8_t request_id[32], uint64_t ts_ms,
		const key_pair_t *key, uint8_t **ret_data, size_t *ret_len,
		uint8_t ret_id[32])
{
	mp_enc_t e;
	uint8_t *data;
	size_t len;
	int r;

	mp_enc_init(&e, 160);
	s_encode_cancel(&e, key->pk, request_id, ts_ms);
	r = enc_sign_finish(&e, CANCEL_SIG_PREFIX, key, &data, &len);
	if (r < 0)
		return r;
	proto_id(data, len, ret_id);
	*ret_data = data;
	*ret_len = len;
	return 0;
}

static int s_cancel_fields(mp_reader_t *r, request_cancel_t *c)
{
	uint64_t v;
	int e;

	if ((e = mp_get_array_exact(r, CANCEL_FIELDS)) < 0 ||
	    (e = mp_get_uint(r, &v)) < 0)
		return e;
	if (v != REQUEST_VERSION)
		return PROTO_E_VERSION;
	c->version = (uint32_t)v;
	if ((e = mp_get_bin_exact(r, 32, c->submitter)) < 0 ||
	    (e = mp_get_bin_exact(r, 32, c->request_id)) < 0)
		return e;
	if ((e = mp_get_uint(r, &c->ts_ms)) < 0)
		return e;
	return c->ts_ms > PROTO_MAX_TIME_MS ? PROTO_E_TIME : 0;
}

int cancel_decode(const void *data, size_t len, request_cancel_t *ret)
{
	request_cancel_t c;
	mp_reader_t r;
	mp_enc_t e;
	size_t signed_len;
	int err;

	if (len > PROTO_MAX_CANCEL)
		return PROTO_E_TOOBIG;
	mp_reader_init(&r, data, len);
	if ((err = s_cancel_fields(&r, &c)) < 0)
		return err;
	signed_len = mp_reader_offset(&r);
	if ((err = mp_get_bin_exact(&r, 64, c.sig)) < 0 ||
	    (err = mp_reader_end(&r)) < 0)
		return err;
	mp_enc_init_compare(&e, data, len);
	s_encode_cancel(&e, c.submitter, c.request_id, c.ts_ms);
	mp_put_bin(&e, c.sig, 64);
	if ((err = mp_enc_compare_result(&e)) < 0 ||
	    (err = sig_check(CANCEL_SIG_PREFIX, data, signed_len, c.sig,
			     c.submitter)) < 0)
		return err;
	proto_id(data, len, c.id);
	*ret = c;
	return 0;
}

int cancel_encode(const request_cancel_t *c, uint8_t **ret_data,
		  size_t *ret_len)
{
	mp_enc_t e;

	mp_enc_init(&e, 160);
	s_encode_cancel(&e, c->submitter, c->request_id, c->ts_ms);
	mp_put_bin(&e, c->sig, 64);
	return mp_enc_finish(&e, ret_data, ret_len);
}
