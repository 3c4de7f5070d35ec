/*
 * wire: the node's view of the proto library — keys, signed records, node
 * descriptors, requests, advert bodies and node-to-node messages, reduced
 * to what the daemon needs. wire.c is the only node file that calls
 * proto's codecs, so the daemon's logic reads in its own terms.
 *
 * Everything decoded here comes from outside: every function checks the
 * bytes strictly (proto's decoders) and verifies signatures over the
 * received bytes. Pointers in decoded structs borrow from the input bytes
 * unless said otherwise.
 */
#ifndef LABMESH_NODE_WIRE_H
#define LABMESH_NODE_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "labs/lab.h"
#include "node/store/store.h"
#include "proto/caps.h"
#include "proto/keys.h"
#include "proto/record.h"
#include "proto/request.h"
#include "proto/types.h"
#include "proto/msg.h"

#define WIRE_KEY_BYTES 32
#define WIRE_ID_BYTES 32
#define WIRE_Z85_LEN 40

/* Caps of the daemon (peer-controllable quantities). */
#define WIRE_MAX_MSG PROTO_MAX_MSG           /* one message, any type */
#define WIRE_MAX_HELLO PROTO_MAX_MSG_PREAUTH /* a message before hello */
#define WIRE_MAX_BATCH_RECORDS PROTO_MAX_BATCH /* records per message */
#define WIRE_MAX_BATCH_BYTES (PROTO_MAX_MSG - 4096)
#define WIRE_MAX_VECTOR PROTO_MAX_VECTOR     /* entries per vector message */
#define WIRE_MAX_DESCS 32                    /* descriptors we send/take */
#define WIRE_MAX_REQUEST_IDS PROTO_MAX_IDS   /* ids per request-ids */

typedef struct {
	key_pair_t kp;
	uint8_t pk[WIRE_KEY_BYTES];      /* Ed25519 public key: the id */
	char curve_pk[WIRE_Z85_LEN + 1]; /* CURVE key pair, Z85 */
	char curve_sk[WIRE_Z85_LEN + 1];
} wire_key_t;

/* Load the key at path, or make and save one when missing (mode 0600).
 * 0 or -errno; *ret_err gets a one-line reason on failure (caller frees). */
int wire_key_load_or_make(const char *path, wire_key_t *ret_key,
			  char **ret_err);
/* Make a fresh key pair and write path and path.pub; 0 or -errno. */
int wire_key_generate(const char *path, bool force, wire_key_t *ret_key,
		      char **ret_err);
void wire_key_wipe(wire_key_t *key);
/* Ed25519 public key -> Z85 CURVE public key (41 bytes with NUL). */
int wire_curve_public(const uint8_t *pk, char *ret_z85);

void wire_hex(const uint8_t *p, size_t n, char *out); /* out: 2n + 1 */
int wire_unhex(const char *hex, uint8_t *out, size_t n);

/* Record kinds the daemon authors or displays. */
enum wire_kind {
	WIRE_KIND_ADVERT = 1,
	WIRE_KIND_ACCEPT,
	WIRE_KIND_DECLINE,
	WIRE_KIND_EVENT,
	WIRE_KIND_RUN,
};

/* A decoded and verified record; body borrows from the bytes. */
typedef struct {
	uint8_t id[WIRE_ID_BYTES];
	uint8_t author[WIRE_KEY_BYTES];
	uint8_t prev_id[WIRE_ID_BYTES];
	uint64_t seq;
	int kind;
	int64_t ts_ms;
} wire_record_t;

/* Decode strictly and verify the signature over bytes. 0 or -errno. */
int wire_record_verify(const uint8_t *bytes, size_t len, wire_record_t *ret);
/* The store's row of a verified record r whose signed bytes are bytes;
 * the row borrows from both. */
store_rec_t wire_store_rec(const wire_record_t *r, const uint8_t *bytes,
			   size_t len);
/* Sign the next record of our feed: tmpl has head.kind and the body
 * filled; seq, prev and ts are set here. The returned bytes are the
 * caller's. 0 or a negative code. */
int wire_record_sign(const wire_key_t *key, const record_t *tmpl,
		     uint64_t seq, const uint8_t *prev_id, int64_t ts_ms,
		     uint8_t **ret_bytes, size_t *ret_len,
		     wire_record_t *ret_rec);
/* Whether signing tmpl at the head of the verified record bytes (same
 * seq, prev, ts) gives those very bytes: the body is unchanged. */
bool wire_record_same_body(const wire_key_t *key, const record_t *tmpl,
			   const uint8_t *bytes, size_t len);
/* The full record, decoded strictly with its signature checked over
 * bytes (proto's record_t, for code that reads a body): 0 and *ret (free
 * with record_destroy), or a negative code; *ret untouched on error. */
int wire_record_decode(const uint8_t *bytes, size_t len, record_t **ret);
/* Sign rec as it stands (head filled by the caller) with kp: for signers
 * outside the daemon's own feed (synthetic runs). The returned bytes are
 * the caller's; ret_id gets the id. 0 or a negative code. */
int wire_record_sign_as(const key_pair_t *kp, const record_t *rec,
			uint8_t **ret_bytes, size_t *ret_len, uint8_t *ret_id);
/* A synthetic event record for tests (labmesh debug append-records). */
void wire_event_tmpl(record_t *tmpl, uint64_t n, char *text, size_t textsz);

/* Advert: encode the lab's boards; decode one for display. */
typedef struct {
	char *name, *arch, *machine, *tags, *transport, *boot, *state;
	char *builds; /* what the lab builds for this arch ("": nothing) */
	int64_t queue;
	/* from the advert's info notes "maint.I" and "busy.I"; NULL/0 when
	 * absent: the maintenance reason and end (0: none), who holds it */
	char *reason;
	int64_t until_ms;
	char *request, *submitter; /* short ids */
	char *submitter_name;      /* from the lab's policy.names, or NULL */
	int64_t since_ms;
	/* "lease.I": the lease holding it, its holder, until when */
	char *lease, *holder, *holder_name;
	int64_t lease_until_ms;
	/* "health.I": why its health check took it offline, or NULL */
	char *health;
} wire_board_t;

typedef struct {
	char *lab;
	wire_board_t *boards;
	size_t n_boards;
} wire_advert_t;

/* Fill tmpl with the advert of cfg; free with wire_advert_tmpl_free. */
void wire_advert_tmpl(const lab_config_t *cfg, const uint8_t *node_id,
		      const int *states, const uint32_t *queues,
		      record_t *tmpl);
void wire_advert_tmpl_free(record_t *tmpl);
/* Decode a verified advert record's bytes; owned strings; 0 or -errno. */
int wire_advert_decode(const uint8_t *bytes, size_t len, wire_advert_t *ret);
void wire_advert_free(wire_advert_t *a);

/* Signed node descriptor. */
typedef struct {
	uint8_t id[WIRE_KEY_BYTES];
	char lab[LAB_MAX_NAME + 1];
	char endpoint[256];
	int64_t ts_ms;
} wire_desc_t;

int wire_desc_make(const wire_key_t *key, const char *lab,
		   const char *endpoint, uint8_t **ret_bytes, size_t *ret_len);
int wire_desc_verify(const uint8_t *bytes, size_t len, wire_desc_t *ret);

/* A signed test request: verify it, and that it lives (expires - created)
 * at most max_lifetime_ms; its id and expiry. 0, PROTO_E_LIFETIME (longer),
 * PROTO_E_TIME (a time past PROTO_MAX_TIME_MS) or another negative code. */
int wire_request_verify(const uint8_t *bytes, size_t len,
			uint64_t max_lifetime_ms, uint8_t *ret_id,
			int64_t *ret_expires_ms);

/* The full request, decoded strictly with its signature checked: 0 and
 * *ret (free with request_destroy), or a negative code. */
int wire_request_decode(const uint8_t *bytes, size_t len, request_t **ret);
/* Sign req (a submitter's) or a cancel of request_id with kp: the bytes
 * are the caller's, ret_id gets their id. 0 or a negative code. */
int wire_request_sign(const request_t *req, const key_pair_t *kp,
		      uint8_t **ret_bytes, size_t *ret_len, uint8_t *ret_id);
int wire_cancel_sign(const uint8_t *request_id, uint64_t ts_ms,
		     const key_pair_t *kp, uint8_t **ret_bytes,
		     size_t *ret_len, uint8_t *ret_id);

/* A short description of a wire_* or proto error code; borrowed. */
const char *wire_strerror(int err);

/* Messages */
enum wire_type {
	WIRE_HELLO = 1,
	WIRE_PEERS,
	WIRE_REQUEST,
	WIRE_REQUEST_IDS,
	WIRE_VECTOR,
	WIRE_WANT,
	WIRE_RECORDS,
	WIRE_CREDIT,
	WIRE_PING,
	WIRE_DIGEST,
	WIRE_RANGES,
	WIRE_PEERS_DELTA,
	WIRE_REQUEST_SUMMARY,
	WIRE_REQUEST_IDS_IN,
	WIRE_SUBDIGEST,
	WIRE_SUBRANGES,
	WIRE_OTHER, /* valid but not handled here (blobs) */
};

typedef proto_bytes_t wire_bytes_t;
typedef msg_vec_entry_t wire_vec_t;
typedef msg_digest_range_t wire_range_t;
#define WIRE_DIGEST_RANGES PROTO_DIGEST_RANGES
typedef msg_req_bucket_t wire_req_bucket_t;
typedef msg_sub_range_t wire_sub_range_t;
#define WIRE_MAX_REQ_BUCKETS PROTO_MAX_REQ_BUCKETS

/* A decoded message: the arrays are owned (wire_msg_free); byte views
 * borrow from the message bytes. */
typedef struct {
	enum wire_type type;
	wire_bytes_t desc;          /* hello */
	const wire_bytes_t *items;        /* peers: descriptors; records: records;
				     * request: one request; request-ids and
				     * request-ids-in: ids; peers-delta:
				     * descriptors that joined */
	size_t n_items;
	const uint8_t *gone;        /* peers-delta: n_gone ids that left */
	size_t n_gone;
	const wire_vec_t *vec;            /* vector, ranges, subranges */
	size_t n_vec;
	uint64_t mask;              /* ranges: the ranges it holds in full;
				     * subranges: the sub-ranges */
	uint32_t range;             /* subdigest, subranges */
	const wire_sub_range_t *subs; /* subdigest: n_subs */
	size_t n_subs;
	const wire_range_t *ranges; /* digest: WIRE_DIGEST_RANGES */
	const wire_req_bucket_t *req_sum; /* request-summary: n_buckets */
	const uint32_t *buckets;    /* request-ids-in: n_buckets */
	size_t n_buckets;
	uint8_t author[WIRE_KEY_BYTES]; /* want */
	uint64_t from;
	uint64_t max;               /* want: records; credit: bytes */
	uint64_t nonce;             /* ping */
	bool pong;                  /* ping: a reply */
	msg_t *msg;                 /* private */
	wire_bytes_t *owned;        /* private */
} wire_msg_t;

int wire_msg_decode(const uint8_t *bytes, size_t len, wire_msg_t *ret);
void wire_msg_free(wire_msg_t *m);

/* Encoders: the returned bytes are the caller's. 0 or -errno. */
/* digest: announce MSG_FEATURE_DIGEST, MSG_FEATURE_PEERS_DELTA,
 * MSG_FEATURE_REQ_SUMMARY and MSG_FEATURE_SUBDIGEST (false
 * only to test mixed versions);
 * answer: set MSG_HELLO_ANSWER (see proto/msg.h) */
int wire_hello(const uint8_t *desc, size_t desc_len, bool digest,
	       bool answer, uint8_t **ret, size_t *ret_len);
int wire_peers(const wire_bytes_t *descs, size_t n, uint8_t **ret,
	       size_t *ret_len);
/* to a peer that takes them: the descriptors that joined our table and
 * the ids (WIRE_KEY_BYTES each) that left it since our last message */
int wire_peers_delta(const wire_bytes_t *descs, size_t n,
		     const uint8_t (*gone)[WIRE_KEY_BYTES], size_t n_gone,
		     uint8_t **ret, size_t *ret_len);
int wire_request(const uint8_t *req, size_t len, uint8_t **ret,
		 size_t *ret_len);
int wire_request_ids(const uint8_t (*ids)[WIRE_ID_BYTES], size_t n,
		     uint8_t **ret, size_t *ret_len);
/* Our requests by bucket (ascending, none empty); the answer to a peer's:
 * the buckets that differ (ascending) and every id of ours in them. */
int wire_request_summary(const wire_req_bucket_t *b, size_t n, uint8_t **ret,
			 size_t *ret_len);
int wire_request_ids_in(const uint32_t *buckets, size_t n_buckets,
			const uint8_t (*ids)[WIRE_ID_BYTES], size_t n,
			uint8_t **ret, size_t *ret_len);
int wire_vector(const wire_vec_t *v, size_t n, uint8_t **ret, size_t *ret_len);
/* Our digest (WIRE_DIGEST_RANGES ranges); the answer to one: every entry
 * of ours in the ranges of mask (v need not be sorted). */
int wire_digest(const wire_range_t *ranges, uint8_t **ret, size_t *ret_len);
int wire_ranges(uint64_t mask, const wire_vec_t *v, size_t n, uint8_t **ret,
		size_t *ret_len);
/* The sub-ranges of range that hold entries (ascending); the answer to
 * one: our entries in the sub-ranges of mask of range. */
int wire_subdigest(uint32_t range, const wire_sub_range_t *subs, size_t n,
		   uint8_t **ret, size_t *ret_len);
int wire_subranges(uint32_t range, uint64_t mask, const wire_vec_t *v,
		   size_t n, uint8_t **ret, size_t *ret_len);
int wire_want(const uint8_t *author, uint64_t from, uint64_t max,
	      uint8_t **ret, size_t *ret_len);
int wire_records(const wire_bytes_t *recs, size_t n, uint8_t **ret,
		 size_t *ret_len);
int wire_credit(uint64_t bytes, uint8_t **ret, size_t *ret_len);
int wire_ping(uint64_t nonce, bool pong, uint8_t **ret, size_t *ret_len);

/* ---- the jobs side ---- */

#include "proto/request.h"

/* A signed request, decoded strictly and verified; *ret is the caller's
 * (request_destroy). 0 or a negative code. */
int wire_request_open(const uint8_t *bytes, size_t len, request_t **ret);
/* A signed cancel, decoded strictly and verified (no allocation). */
int wire_cancel_open(const uint8_t *bytes, size_t len, request_cancel_t *ret);

/* Messages of the jobs side: the returned bytes are the caller's. 0 or
 * -errno. */
int wire_cancel(const uint8_t *cancel, size_t len, uint8_t **ret,
		size_t *ret_len);
/* hops: how many nodes that lack the blob may relay the ask (0: none,
 * the short form older nodes take). */
int wire_blob_get(const uint8_t *blob_id, uint64_t offset, uint32_t length,
		  uint32_t hops, uint8_t **ret, size_t *ret_len);
/* total 0: the blob is not held here. data borrowed. */
int wire_blob_data(const uint8_t *blob_id, uint64_t offset, uint64_t total,
		   const uint8_t *data, size_t len, uint8_t **ret,
		   size_t *ret_len);

/*
 * A job's one-off key: the node makes one per job and hands the seed to
 * that job's executor only, which signs its run record with it (seq 1, a
 * vehicle); the node then takes the body only from a record of that key.
 * wire_job_key: a fresh seed and its public key; 0 or -EIO.
 * wire_run_sign: sign tmpl (a run record) with the seed's key; the bytes
 * are the caller's. 0 or a negative code.
 * wire_run_open: decode and verify a run record signed by pk; *ret is the
 * caller's (record_destroy). -EPERM when it is no run record or another
 * key signed it; another negative code when it does not decode.
 */
int wire_job_key(uint8_t *ret_seed, uint8_t *ret_pk);
int wire_run_sign(const uint8_t *seed, const record_t *tmpl,
		  uint8_t **ret_bytes, size_t *ret_len);
int wire_run_open(const uint8_t *bytes, size_t len, const uint8_t *pk,
		  record_t **ret);

#endif
