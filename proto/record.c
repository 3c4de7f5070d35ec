/*
 * record: the signed envelope around every record body. See record.h for
 * the wire form; record_body.c holds the bodies. Decoding order: size cap,
 * envelope fields (version before kind before anything kind-specific),
 * body, trailing bytes, re-encode comparison, then the signature (the
 * costliest check last) and the id.
 */
#include "proto/record.h"
#include "proto/codec.h"
#include "proto/mem.h"

#include <stdlib.h>
#include <string.h>

#define RECORD_FIELDS 8

static const char *const s_kinds[] = {
	[RECORD_ADVERT] = "advert",   [RECORD_ACCEPT] = "accept",
	[RECORD_DECLINE] = "decline", [RECORD_EVENT] = "event",
	[RECORD_RUN] = "run",	      [RECORD_VERDICT] = "verdict",
	[RECORD_KNOWN] = "known",
	[RECORD_BISECT] = "bisect",
};

bool record_kind_known(int kind)
{
	return kind >= RECORD_ADVERT && kind <= RECORD_KIND_MAX &&
	       s_kinds[kind] != NULL;
}

const char *record_kind_name(int kind)
{
	if (!record_kind_known(kind))
		return "?";
	return s_kinds[kind];
}

const char *verdict_kind_name(int verdict)
{
	static const char *const names[] = {
		[VERDICT_CONFIRMED] = "confirmed",
		[VERDICT_FLAKY] = "flaky",
		[VERDICT_BOARD_SPECIFIC] = "board-specific",
	};
	if (verdict < VERDICT_CONFIRMED || verdict > VERDICT_KIND_MAX)
		return "?";
	return names[verdict];
}

const char *bisect_state_name(int state)
{
	static const char *const names[] = {
		[BISECT_RUNNING] = "running",
		[BISECT_DONE] = "done",
		[BISECT_FAILED] = "failed",
	};
	if (state < BISECT_RUNNING || state > BISECT_STATE_MAX)
		return "?";
	return names[state];
}

const char *bisect_verdict_name(int verdict)
{
	static const char *const names[] = {
		[BISECT_PENDING] = "pending",
		[BISECT_GOOD] = "good",
		[BISECT_BAD] = "bad",
		[BISECT_LOST] = "lost",
	};
	if (verdict < BISECT_PENDING || verdict > BISECT_VERDICT_MAX)
		return "?";
	return names[verdict];
}

const char *board_state_name(int state)
{
	static const char *const names[] = {
		[BOARD_IDLE] = "idle",
		[BOARD_BUSY] = "busy",
		[BOARD_OFFLINE] = "offline",
		[BOARD_MAINTENANCE] = "maintenance",
	};
	if (state < BOARD_IDLE || state > BOARD_STATE_MAX)
		return "?";
	return names[state];
}

const char *decline_reason_name(int reason)
{
	static const char *const names[] = {
		[DECLINE_POLICY] = "policy",
		[DECLINE_NO_BOARD] = "no-board",
		[DECLINE_QUOTA] = "quota",
		[DECLINE_EXPIRED] = "expired",
		[DECLINE_UNSUPPORTED] = "unsupported",
		[DECLINE_BUSY] = "busy",
		[DECLINE_OTHER] = "other",
	};
	if (reason < DECLINE_POLICY || reason > DECLINE_REASON_MAX)
		return "?";
	return names[reason];
}

const char *job_state_name(int state)
{
	static const char *const names[] = {
		[JOB_QUEUED] = "queued",     [JOB_FETCHING] = "fetching",
		[JOB_BUILDING] = "building", [JOB_BOOTING] = "booting",
		[JOB_RUNNING] = "running",   [JOB_DONE] = "done",
		[JOB_ERROR] = "error",	     [JOB_CANCELLED] = "cancelled",
	};
	if (state < JOB_QUEUED || state > JOB_STATE_MAX)
		return "?";
	return names[state];
}

const char *build_status_name(int status)
{
	static const char *const names[] = {
		[BUILD_NONE] = "none",
		[BUILD_PASS] = "pass",
		[BUILD_FAIL] = "fail",
		[BUILD_ERROR] = "error",
	};
	if (status < BUILD_NONE || status > BUILD_STATUS_MAX)
		return "?";
	return names[status];
}

/* Everything before sig; the same for signing and for re-encoding. */
static void s_encode_unsigned(mp_enc_t *e, const record_t *rec,
			      const uint8_t author[32])
{
	const record_head_t *h = &rec->head;

	mp_put_array(e, RECORD_FIELDS);
	mp_put_uint(e, RECORD_VERSION);
	mp_put_uint(e, h->kind);
	mp_put_bin(e, author, 32);
	mp_put_uint(e, h->seq);
	mp_put_bin_or_nil(e, h->has_prev ? h->prev_id : NULL, 32);
	mp_put_uint(e, h->ts_ms);
	record_body_encode(e, rec);
}

int record_sign(const record_t *rec, const key_pair_t *key, uint8_t **ret_data,
		size_t *ret_len, uint8_t ret_id[32])
{
	mp_enc_t e;
	uint8_t *data;
	size_t len;
	record_t *check = NULL;
	int r;

	mp_enc_init(&e, 1024);
	s_encode_unsigned(&e, rec, key->pk);
	r = enc_sign_finish(&e, RECORD_SIG_PREFIX, key, &data, &len);
	if (r < 0)
		return r;
	/* Emit only what every peer's strict decoder accepts. */
	r = record_decode(data, len, &check);
	if (r < 0) {
		free(data);
		return r;
	}
	memcpy(ret_id, check->head.id, 32);
	record_destroy(&check);
	*ret_data = data;
	*ret_len = len;
	return 0;
}

/* version, kind (1..max_kind), author, seq, prev_id, ts_ms into h. */
static int s_decode_head(mp_reader_t *r, record_head_t *h, uint64_t max_kind)
{
	uint64_t v;
	int e;

	if ((e = mp_get_array_exact(r, RECORD_FIELDS)) < 0)
		return e;
	if ((e = mp_get_uint(r, &v)) < 0)
		return e;
	if (v != RECORD_VERSION)
		return PROTO_E_VERSION;
	h->version = (uint32_t)v;
	if ((e = mp_get_uint(r, &v)) < 0)
		return e;
	if (v < RECORD_ADVERT || v > max_kind)
		return PROTO_E_KIND;
	h->kind = (enum record_kind)v;
	if ((e = mp_get_bin_exact(r, 32, h->author)) < 0 ||
	    (e = mp_get_uint(r, &h->seq)) < 0)
		return e;
	if (h->seq == 0)
		return PROTO_E_RANGE;
	if ((e = dec_id_opt(r, &h->has_prev, h->prev_id)) < 0)
		return e;
	if (h->has_prev != (h->seq > 1))
		return PROTO_E_PREV;
	return mp_get_uint(r, &h->ts_ms);
}

/* sig, nothing after it, then the signature over the received bytes. */
static int s_decode_tail(mp_reader_t *r, const uint8_t *data, record_head_t *h)
{
	size_t signed_len = mp_reader_offset(r);
	int e;

	if ((e = mp_get_bin_exact(r, 64, h->sig)) < 0 ||
	    (e = mp_reader_end(r)) < 0)
		return e;
	return sig_check(RECORD_SIG_PREFIX, data, signed_len, h->sig,
			 h->author);
}

static int s_decode(const uint8_t *data, size_t len, record_t *rec)
{
	mp_reader_t r;
	mp_reader_t sigpos;
	mp_enc_t e;
	int err;

	mp_reader_init(&r, data, len);
	if ((err = s_decode_head(&r, &rec->head, RECORD_KIND_MAX)) < 0 ||
	    (err = record_body_decode(&r, rec->arena, rec)) < 0)
		return err;
	sigpos = r;
	if ((err = mp_get_bin_exact(&r, 64, rec->head.sig)) < 0 ||
	    (err = mp_reader_end(&r)) < 0)
		return err;
	mp_enc_init_compare(&e, data, len);
	s_encode_unsigned(&e, rec, rec->head.author);
	mp_put_bin(&e, rec->head.sig, 64);
	if ((err = mp_enc_compare_result(&e)) < 0)
		return err;
	return s_decode_tail(&sigpos, data, &rec->head);
}

int record_decode(const void *data, size_t len, record_t **ret_rec)
{
	record_t *rec;
	int err;

	if (len > PROTO_MAX_RECORD)
		return PROTO_E_TOOBIG;
	/* strings and lists never need more than a few times the input; the
	 * record itself lives in its arena too */
	arena_t *arena = arena_new(len * 2 + sizeof(*rec) + 256);
	rec = arena_alloc(arena, sizeof(*rec));
	rec->arena = arena;
	arena_mirror(arena, data, len);
	err = s_decode(data, len, rec);
	if (err < 0) {
		record_destroy(&rec);
		return err;
	}
	proto_id(data, len, rec->head.id);
	*ret_rec = rec;
	return 0;
}

void record_destroy(record_t **p)
{
	if (!p || !*p)
		return;
	arena_t *arena = (*p)->arena;
	*p = NULL;
	arena_destroy(&arena); /* frees the record as well */
}

int record_encode(const record_t *rec, uint8_t **ret_data, size_t *ret_len)
{
	mp_enc_t e;

	mp_enc_init(&e, 1024);
	s_encode_unsigned(&e, rec, rec->head.author);
	mp_put_bin(&e, rec->head.sig, 64);
	return mp_enc_finish(&e, ret_data, ret_len);
}

int record_verify(const void *data, size_t len, record_head_t *ret_head)
{
	record_head_t h;
	mp_reader_t r;
	int e;

	if (len > PROTO_MAX_RECORD)
		return PROTO_E_TOOBIG;
	mp_reader_init(&r, data, len);
	if ((e = s_decode_head(&r, &h, RECORD_KIND_LIMIT)) < 0)
		return e;
	/* the body: canonical msgpack, one array, within the depth cap */
	enum mp_type t;
	if ((e = mp_peek_type(&r, &t)) < 0)
		return e;
	if (t != MP_ARRAY)
		return PROTO_E_TYPE;
	if ((e = mp_skip(&r, PROTO_MAX_DEPTH)) < 0 ||
	    (e = s_decode_tail(&r, data, &h)) < 0)
		return e;
	proto_id(data, len, h.id);
	*ret_head = h;
	return 0;
}
