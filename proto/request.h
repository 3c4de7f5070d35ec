/*
 * request: a signed test request (by the submitter's key, not a feed) and
 * its signed cancel.
 *
 * Request wire form, an array of 10:
 *   [version, submitter, created_ms, expires_ms, nonce, priority,
 *    kernel, suites, selector, sig]
 *   version     uint, REQUEST_VERSION
 *   submitter   bin 32, Ed25519 public key
 *   created_ms, expires_ms  uint <= PROTO_MAX_TIME_MS, expires_ms >
 *               created_ms, expires_ms - created_ms <=
 *               PROTO_MAX_REQUEST_LIFETIME_MS
 *   nonce       bin 16 (random: two identical requests differ)
 *   priority    uint 0..PROTO_MAX_PRIORITY
 *   kernel      [0]                                        none
 *             | [1, url, branch, commit, config]           git
 *             | [2, kernel_blob, initrd_blob|nil, describe,
 *                arch, url, branch, commit, config]        artifact
 *   suites      [name...], 1..PROTO_MAX_SUITES
 *   selector    [arch, tags, labs, boards, max_per_lab]
 *   sig         bin 64, Ed25519 over REQUEST_SIG_PREFIX (NUL included)
 *               || the bytes from the array header up to sig
 * id = BLAKE2b-256 of the whole encoded request.
 *
 * Cancel wire form, an array of 5:
 *   [version, submitter, request_id, ts_ms, sig]
 *   sig over CANCEL_SIG_PREFIX (NUL included) || bytes before sig.
 * A cancel is valid only from the request's own submitter: the node
 * compares cancel.submitter with request.submitter.
 */
#ifndef LABMESH_PROTO_REQUEST_H
#define LABMESH_PROTO_REQUEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto/arena.h"
#include "proto/keys.h"
#include "proto/caps.h"
#include "proto/types.h"

#define REQUEST_VERSION 1
#define REQUEST_SIG_PREFIX "labmesh-request-v1"
#define CANCEL_SIG_PREFIX "labmesh-cancel-v1"

enum request_kernel_type {
	REQUEST_KERNEL_NONE = 0, /* test boards as they are */
	REQUEST_KERNEL_GIT,
	REQUEST_KERNEL_ARTIFACT,
};
#define REQUEST_KERNEL_MAX REQUEST_KERNEL_ARTIFACT

typedef struct {
	enum request_kernel_type type;
	/* git: url (text, PROTO_MAX_URL, non-empty), branch (text,
	 * PROTO_MAX_SHORT, may be ""), commit (40 lowercase hex), config
	 * (text, PROTO_MAX_SHORT, may be "": the lab's default).
	 * artifact: the same four describe where the image came from; each
	 * may be "" (commit "" or 40 hex). */
	const char *url;
	const char *branch;
	const char *commit;
	const char *config;
	/* artifact only */
	uint8_t kernel_blob[32];
	bool has_initrd_blob;
	uint8_t initrd_blob[32];
	const char *describe; /* text, PROTO_MAX_SHORT, may be "" */
	const char *arch;     /* name syntax: the image's arch */
} request_kernel_t;

typedef struct {
	const char *arch;	 /* name syntax, or "" for any */
	const char *const *tags; /* a board must have all; PROTO_MAX_TAGS */
	size_t n_tags;
	const char *const *labs; /* empty: any lab; PROTO_MAX_SEL_LABS */
	size_t n_labs;
	const char *const *boards; /* empty: any board; PROTO_MAX_SEL_BOARDS */
	size_t n_boards;
	uint32_t max_per_lab; /* 0: no limit; else 1..PROTO_MAX_BOARDS */
} request_selector_t;

typedef struct request {
	uint32_t version;
	uint8_t submitter[32];
	uint64_t created_ms;
	uint64_t expires_ms;
	uint8_t nonce[PROTO_NONCE_LEN];
	uint32_t priority;
	request_kernel_t kernel;
	const char *const *suites; /* name syntax each, 1..PROTO_MAX_SUITES */
	size_t n_suites;
	request_selector_t select;
	uint8_t sig[64]; /* decoded requests only */
	uint8_t id[32];	 /* decoded requests only */
	arena_t *arena;	 /* private */
} request_t;

/*
 * Encode and sign req (submitter = key->pk; version, sig, id ignored).
 * Returns 0 with bytes in *ret_data (caller frees), *ret_len and ret_id,
 * or a PROTO_E_* code saying why peers would refuse it.
 */
int request_sign(const request_t *req, const key_pair_t *key,
		 uint8_t **ret_data, size_t *ret_len, uint8_t ret_id[32]);
/*
 * Full strict decode + re-encode check + signature over the received
 * bytes + id. Expiry is NOT checked here (the node knows the time).
 */
int request_decode(const void *data, size_t len, request_t **ret_req);
void request_destroy(request_t **p);
/* The bytes of a decoded request again (submitter, sig as decoded). */
int request_encode(const request_t *req, uint8_t **ret_data, size_t *ret_len);

typedef struct {
	uint32_t version;
	uint8_t submitter[32];
	uint8_t request_id[32];
	uint64_t ts_ms;
	uint8_t sig[64];
	uint8_t id[32]; /* BLAKE2b-256 of the cancel's bytes */
} request_cancel_t;

/* Sign a cancel of request_id at ts_ms. Same conventions as above. */
int cancel_sign(const uint8_t request_id[32], uint64_t ts_ms,
		const key_pair_t *key, uint8_t **ret_data, size_t *ret_len,
		uint8_t ret_id[32]);
/* Strict decode + verify; no allocation. */
int cancel_decode(const void *data, size_t len, request_cancel_t *ret);
/* The bytes of a decoded cancel again. */
int cancel_encode(const request_cancel_t *c, uint8_t **ret_data,
		  size_t *ret_len);

#endif
