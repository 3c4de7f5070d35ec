/*
 * lease: signed lease operations and the lab's signed replies. See
 * lease.h for the forms. Same shape as request.c's cancel: one encoder
 * for signing and for the re-encoding comparison, strict field
 * decoders, the signature last.
 */
#include "proto/lease.h"
#include "proto/codec.h"
#include "proto/mem.h"

#include <stdlib.h>
#include <string.h>

#define LEASE_FIELDS 10
#define REPLY_FIELDS 8

static const char *const s_ops[] = {
	[LEASE_TAKE] = "take",	 [LEASE_RENEW] = "renew",
	[LEASE_RELEASE] = "release", [LEASE_EXEC] = "exec",
	[LEASE_PUT] = "put",	 [LEASE_PUT_END] = "put-end",
	[LEASE_GET] = "get",	 [LEASE_POWER] = "power",
	[LEASE_CONSOLE] = "console",
};

const char *lease_op_name(int op)
{
	if (op < LEASE_TAKE || op > LEASE_OP_MAX)
		return "?";
	return s_ops[op];
}

/* ---- lease operation ---- */

static void s_encode_lease(mp_enc_t *e, const uint8_t submitter[32],
			   const lease_t *l)
{
	mp_put_array(e, LEASE_FIELDS);
	mp_put_uint(e, LEASE_VERSION);
	mp_put_bin(e, submitter, 32);
	mp_put_uint(e, l->op);
	mp_put_str(e, l->lab);
	mp_put_str(e, l->board);
	mp_put_uint(e, l->seq);
	mp_put_uint(e, l->value);
	mp_put_str(e, l->arg ? l->arg : "");
	mp_put_bin(e, l->data_len ? l->data : (const uint8_t *)"",
		   l->data_len);
}

/* The ranges lease_decode checks, for the encoder too. */
static int s_lease_ranges(const lease_t *l)
{
	if (l->op < LEASE_TAKE || l->op > LEASE_OP_MAX || l->seq == 0)
		return PROTO_E_RANGE;
	if (!proto_name_ok(l->lab) || !proto_name_ok(l->board))
		return PROTO_E_SYNTAX;
	if ((l->op == LEASE_TAKE || l->op == LEASE_RENEW) &&
	    (l->value == 0 || l->value > LEASE_MAX_MS))
		return PROTO_E_RANGE;
	if (l->op == LEASE_POWER && l->value > LEASE_POWER_CYCLE)
		return PROTO_E_RANGE;
	if (l->data_len > LEASE_MAX_DATA ||
	    (l->arg && strlen(l->arg) > PROTO_MAX_TEXT))
		return PROTO_E_TOOBIG;
	return 0;
}

int lease_sign(const lease_t *l, const key_pair_t *key, uint8_t **ret_data,
	       size_t *ret_len, uint8_t ret_id[32])
{
	mp_enc_t e;
	uint8_t *data;
	size_t len;
	int r = s_lease_ranges(l);

	if (r < 0)
		return r;
	mp_enc_init(&e, 256 + l->data_len);
	s_encode_lease(&e, key->pk, l);
	r = enc_sign_finish(&e, LEASE_SIG_PREFIX, key, &data, &len);
	if (r < 0)
		return r;
	if (len > PROTO_MAX_LEASE) {
		free(data);
		return PROTO_E_TOOBIG;
	}
	proto_id(data, len, ret_id);
	*ret_data = data;
	*ret_len = len;
	return 0;
}

/* A name field into a fixed buffer of PROTO_MAX_NAME + 1. */
static int s_name(mp_reader_t *r, char *out)
{
	const char *s;
	size_t n;
	int e = mp_get_str_raw(r, PROTO_MAX_NAME, &s, &n);

	if (e < 0)
		return e;
	if (!proto_name_okn(s, n))
		return PROTO_E_SYNTAX;
	memcpy(out, s, n);
	out[n] = '\0';
	return 0;
}

/* The head both signed forms start with: their array of fields, and
 * the version this decoder reads. */
static int s_head(mp_reader_t *r, size_t fields, uint32_t *ret_version)
{
	uint64_t v;
	int e;

	if ((e = mp_get_array_exact(r, fields)) < 0 ||
	    (e = mp_get_uint(r, &v)) < 0)
		return e;
	if (v != LEASE_VERSION)
		return PROTO_E_VERSION;
	*ret_version = (uint32_t)v;
	return 0;
}

static int s_lease_fields(mp_reader_t *r, lease_t *l)
{
	const char *s;
	size_t n;
	uint64_t v;
	int e;

	if ((e = s_head(r, LEASE_FIELDS, &l->version)) < 0 ||
	    (e = mp_get_bin_exact(r, 32, l->submitter)) < 0 ||
	    (e = mp_get_uint(r, &v)) < 0)
		return e;
	if (v < LEASE_TAKE || v > LEASE_OP_MAX)
		return PROTO_E_RANGE;
	l->op = (enum lease_op)v;
	if ((e = s_name(r, l->lab)) < 0 || (e = s_name(r, l->board)) < 0 ||
	    (e = mp_get_uint(r, &l->seq)) < 0 ||
	    (e = mp_get_uint(r, &l->value)) < 0 ||
	    (e = mp_get_str(r, PROTO_MAX_TEXT, &s, &n)) < 0)
		return e;
	memcpy(l->argbuf, s, n);
	l->argbuf[n] = '\0';
	l->arg = l->argbuf;
	if ((e = mp_get_bin(r, LEASE_MAX_DATA, &l->data, &l->data_len)) < 0)
		return e;
	return s_lease_ranges(l);
}

int lease_decode(const void *data, size_t len, lease_t *ret)
{
	lease_t *l = ret;
	mp_reader_t r;
	mp_enc_t e;
	size_t signed_len;
	int err;

	if (len > PROTO_MAX_LEASE)
		return PROTO_E_TOOBIG;
	memset(l, 0, sizeof(*l));
	mp_reader_init(&r, data, len);
	if ((err = s_lease_fields(&r, l)) < 0)
		return err;
	signed_len = mp_reader_offset(&r);
	if ((err = mp_get_bin_exact(&r, 64, l->sig)) < 0 ||
	    (err = mp_reader_end(&r)) < 0)
		return err;
	mp_enc_init_compare(&e, data, len);
	s_encode_lease(&e, l->submitter, l);
	mp_put_bin(&e, l->sig, 64);
	if ((err = mp_enc_compare_result(&e)) < 0 ||
	    (err = sig_check(LEASE_SIG_PREFIX, data, signed_len, l->sig,
			     l->submitter)) < 0)
		return err;
	proto_id(data, len, l->id);
	return 0;
}

int lease_encode(const lease_t *l, uint8_t **ret_data, size_t *ret_len)
{
	mp_enc_t e;

	mp_enc_init(&e, 256 + l->data_len);
	s_encode_lease(&e, l->submitter, l);
	mp_put_bin(&e, l->sig, 64);
	return mp_enc_finish(&e, ret_data, ret_len);
}

/* ---- reply ---- */

static void s_encode_reply(mp_enc_t *e, const uint8_t node[32],
			   const lease_reply_t *p)
{
	mp_put_array(e, REPLY_FIELDS);
	mp_put_uint(e, LEASE_VERSION);
	mp_put_bin(e, node, 32);
	mp_put_bin(e, p->op_id, 32);
	mp_put_uint(e, p->index);
	mp_put_bool(e, p->final);
	mp_put_int(e, p->status);
	mp_put_bin(e, p->data_len ? p->data : (const uint8_t *)"",
		   p->data_len);
}

int lease_reply_sign(const lease_reply_t *p, const key_pair_t *key,
		     uint8_t **ret_data, size_t *ret_len)
{
	mp_enc_t e;

	if (p->data_len > LEASE_MAX_DATA)
		return PROTO_E_TOOBIG;
	mp_enc_init(&e, 256 + p->data_len);
	s_encode_reply(&e, key->pk, p);
	return enc_sign_finish(&e, LEASE_REPLY_SIG_PREFIX, key, ret_data,
			       ret_len);
}

static int s_reply_fields(mp_reader_t *r, lease_reply_t *p)
{
	int e;

	if ((e = s_head(r, REPLY_FIELDS, &p->version)) < 0 ||
	    (e = mp_get_bin_exact(r, 32, p->node)) < 0 ||
	    (e = mp_get_bin_exact(r, 32, p->op_id)) < 0 ||
	    (e = mp_get_uint(r, &p->index)) < 0 ||
	    (e = mp_get_bool(r, &p->final)) < 0 ||
	    (e = mp_get_int(r, &p->status)) < 0)
		return e;
	return mp_get_bin(r, LEASE_MAX_DATA, &p->data, &p->data_len);
}

int lease_reply_decode(const void *data, size_t len, lease_reply_t *ret)
{
	lease_reply_t p;
	mp_reader_t r;
	mp_enc_t e;
	size_t signed_len;
	int err;

	if (len > PROTO_MAX_LEASE)
		return PROTO_E_TOOBIG;
	memset(&p, 0, sizeof(p));
	mp_reader_init(&r, data, len);
	if ((err = s_reply_fields(&r, &p)) < 0)
		return err;
	signed_len = mp_reader_offset(&r);
	if ((err = mp_get_bin_exact(&r, 64, p.sig)) < 0 ||
	    (err = mp_reader_end(&r)) < 0)
		return err;
	mp_enc_init_compare(&e, data, len);
	s_encode_reply(&e, p.node, &p);
	mp_put_bin(&e, p.sig, 64);
	if ((err = mp_enc_compare_result(&e)) < 0 ||
	    (err = sig_check(LEASE_REPLY_SIG_PREFIX, data, signed_len, p.sig,
			     p.node)) < 0)
		return err;
	*ret = p;
	return 0;
}

int lease_reply_encode(const lease_reply_t *p, uint8_t **ret_data,
		       size_t *ret_len)
{
	mp_enc_t e;

	mp_enc_init(&e, 256 + p->data_len);
	s_encode_reply(&e, p->node, p);
	mp_put_bin(&e, p->sig, 64);
	return mp_enc_finish(&e, ret_data, ret_len);
}
