/*
 * codec: helpers shared by the schema codecs of records, requests,
 * descriptors and messages (internal to proto/; not for other
 * components). Field decoders copy what they keep into an arena; the
 * string kinds are:
 *   name  [A-Za-z0-9][A-Za-z0-9._-]*, up to PROTO_MAX_NAME
 *   path  [A-Za-z0-9_-]+ segments joined by '.', up to PROTO_MAX_PATH
 *   text  any UTF-8 without NUL, up to a given cap (may be empty)
 * Signing helpers put the domain prefix (with its NUL) before the bytes.
 */
#ifndef LABMESH_PROTO_CODEC_H
#define LABMESH_PROTO_CODEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto/arena.h"
#include "proto/keys.h"
#include "proto/mp.h"

int dec_text(mp_reader_t *r, arena_t *a, size_t max, const char **ret);
int dec_name(mp_reader_t *r, arena_t *a, const char **ret);
/* A name, or "" when allow_empty. */
int dec_name_opt(mp_reader_t *r, arena_t *a, const char **ret);
int dec_path(mp_reader_t *r, arena_t *a, const char **ret);
/* 40 lowercase hex, or "" when allow_empty. */
int dec_commit(mp_reader_t *r, arena_t *a, bool allow_empty,
	       const char **ret);
/* A list of names, min..max entries. */
int dec_names(mp_reader_t *r, arena_t *a, uint32_t min, uint32_t max,
	      const char *const **ret_list, size_t *ret_n);
/* A uint in lo..hi. */
int dec_u32(mp_reader_t *r, uint32_t lo, uint32_t hi, uint32_t *ret);
/* bin 32, or nil (*ret_has false, out zeroed). */
int dec_id_opt(mp_reader_t *r, bool *ret_has, uint8_t out[32]);

/* Encode a list of strings (NULL entries as ""). */
void enc_strs(mp_enc_t *e, const char *const *list, size_t n);
/* A size_t count as an array header; counts past UINT32_MAX fail. */
void enc_array(mp_enc_t *e, size_t n);

/* Ed25519 over prefix (with NUL) || data[0..len). */
void sig_make(const char *prefix, const uint8_t *data, size_t len,
	      const key_pair_t *key, uint8_t ret_sig[64]);
/* 0 or PROTO_E_SIG. */
int sig_check(const char *prefix, const uint8_t *data, size_t len,
	      const uint8_t sig[64], const uint8_t pk[32]);

/*
 * Finish a signed object: e holds everything before sig; appends the
 * signature and returns the bytes (caller frees) or the encoder error.
 */
int enc_sign_finish(mp_enc_t *e, const char *prefix, const key_pair_t *key,
		    uint8_t **ret_data, size_t *ret_len);

/* Record bodies (record_body.c): the body array of rec->head.kind. */
struct record;
int record_body_decode(mp_reader_t *r, arena_t *a, struct record *rec);
void record_body_encode(mp_enc_t *e, const struct record *rec);

#endif
