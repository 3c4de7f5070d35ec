/*
 * msg: node-to-node messages. Each is one canonical msgpack array whose
 * first element is the type tag:
 *
 *   [HELLO, version, features, desc]       desc: bin, signed descriptor
 *   [PEERS, [desc...]]                     bin each, PROTO_MAX_PEERS
 *   [REQUEST, req]                         bin: signed request bytes
 *   [REQUEST_IDS, [id...]]                 bin 32 each, PROTO_MAX_IDS
 *   [VECTOR, [[author, seq]...]]           PROTO_MAX_VECTOR, authors
 *                                          strictly ascending (bytewise)
 *   [WANT, author, from_seq, max]          from_seq >= 1,
 *                                          max 0..PROTO_MAX_WANT (0: stop
 *                                          serving our last want of that
 *                                          feed; only to a peer with
 *                                          MSG_FEATURE_WANT_STOP)
 *   [RECORDS, [rec...]]                    bin each, 1..PROTO_MAX_BATCH
 *   [CREDIT, n]                            n 1..PROTO_MAX_CREDIT
 *   [BLOB_GET, blob_id, offset, length]    length 1..PROTO_MAX_BLOB_CHUNK
 *   [BLOB_GET, blob_id, offset, length, hops]
 *                                          hops 1..PROTO_MAX_BLOB_HOPS: how
 *                                          many nodes that lack the blob
 *                                          may still relay this ask (the
 *                                          short form: hops 0); only to a
 *                                          peer with MSG_FEATURE_BLOB_RELAY
 *   [BLOB_DATA, blob_id, offset, total, data]
 *                                          data bin <= PROTO_MAX_BLOB_CHUNK,
 *                                          offset + len(data) <= total
 *   [PING, nonce] / [PONG, nonce]          nonce uint
 *   [CANCEL, cancel]                       bin: signed cancel bytes
 *   [LEASE, op]                            bin <= PROTO_MAX_LEASE: a signed
 *                                          take/renew/release (floods)
 *   [RELAY, to, hops, op]                  to bin 32 (the lab's node id),
 *                                          hops 0..PROTO_MAX_HOPS, op bin
 *                                          <= PROTO_MAX_LEASE: a signed
 *                                          lease operation on its way
 *   [RELAY_BACK, op_id, hops, reply]       op_id bin 32, hops as above,
 *                                          reply bin <= PROTO_MAX_LEASE:
 *                                          a signed lease reply going back
 *                                          the way op_id came
 *   [DIGEST, [[count, hash]...]]           exactly PROTO_DIGEST_RANGES
 *                                          ranges of the sender's vector:
 *                                          count <= UINT32_MAX, hash uint;
 *                                          only to a peer with
 *                                          MSG_FEATURE_DIGEST
 *   [RANGES, mask, [[author, seq]...]]     mask uint (bit i: range i), the
 *                                          entries as in VECTOR: the answer
 *                                          to a digest, every entry of the
 *                                          sender's in the ranges of mask
 *   [SUBDIGEST, range, [[sub, count, hash]...]]
 *                                          range < PROTO_DIGEST_RANGES;
 *                                          the sub-ranges of that range
 *                                          (the next 6 bits of the key)
 *                                          that hold entries, sub strictly
 *                                          ascending < PROTO_DIGEST_RANGES,
 *                                          count >= 1: the answer to a
 *                                          digest for a large range that
 *                                          differs; only to a peer with
 *                                          MSG_FEATURE_SUBDIGEST
 *   [SUBRANGES, range, mask, [[author, seq]...]]
 *                                          the answer to a subdigest: the
 *                                          sender's entries in the
 *                                          sub-ranges of mask of range
 *   [REQUEST_SUMMARY, [[bucket, count, hash]...]]
 *                                          PROTO_MAX_REQ_BUCKETS, buckets
 *                                          strictly ascending, count >= 1:
 *                                          the sender's unexpired requests
 *                                          by when they expire (bucket:
 *                                          expires_ms /
 *                                          PROTO_REQ_BUCKET_MS), each the
 *                                          count and XOR of msg_req_hash of
 *                                          its ids; only to a peer with
 *                                          MSG_FEATURE_REQ_SUMMARY
 *   [REQUEST_IDS_IN, [bucket...], [id...]] buckets strictly ascending
 *                                          (PROTO_MAX_REQ_BUCKETS), ids as
 *                                          in REQUEST_IDS: the answer to a
 *                                          summary, the ids of every
 *                                          request the sender holds in the
 *                                          buckets that differ
 *
 * Nested signed objects (descriptors, requests, records, cancels) travel
 * as bin and are returned as borrowed slices of the message bytes: the
 * node decodes and verifies each with desc_decode / request_decode /
 * record_decode / cancel_decode over exactly those bytes. The slices and
 * lists of a decoded message stay valid while BOTH the message and the
 * input buffer live.
 */
#ifndef LABMESH_PROTO_MSG_H
#define LABMESH_PROTO_MSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto/arena.h"
#include "proto/caps.h"
#include "proto/types.h"

#define PROTO_VERSION 1 /* node-to-node protocol, sent in hello */

/* Feature flags in hello (unknown bits are ignored by peers). */
#define MSG_FEATURE_BLOBS (1u << 0)  /* serves blob-get */
#define MSG_FEATURE_CANCEL (1u << 1) /* understands cancel */
#define MSG_FEATURE_LEASE (1u << 2)  /* takes lease, relay, relay-back */
#define MSG_FEATURE_BLOB_RELAY (1u << 3) /* takes blob-get with hops */
#define MSG_FEATURE_DIGEST (1u << 4) /* takes digest and ranges */
/* stops a relay's pushes of a feed by a vector entry of it */
#define MSG_FEATURE_PUSH (1u << 5)
/* takes peers-delta: after the first peers message of a session, what
 * joined and left the sender's table */
#define MSG_FEATURE_PEERS_DELTA (1u << 6)
/* takes a want with max 0: the rest of our last want of that feed is
 * not sent (we asked another peer for it meanwhile) */
#define MSG_FEATURE_WANT_STOP (1u << 7)
/* takes request-summary and request-ids-in: a new session's requests are
 * compared by buckets of their expiry, and only the ids of the buckets
 * that differ are sent */
#define MSG_FEATURE_REQ_SUMMARY (1u << 8)
/* takes subdigest and subranges: a large range that differs is compared
 * by its sub-ranges before its entries are sent */
#define MSG_FEATURE_SUBDIGEST (1u << 9)
/* Not a feature: set in a hello that answers a hello which restarted the
 * session. Its receiver starts a new session too, but does not answer,
 * so two hellos that cross cannot echo back and forth. */
#define MSG_HELLO_ANSWER (1u << 31)

/* Ranges of the author key space in a digest message. */
#define PROTO_DIGEST_RANGES 64
/* Requests in a request summary: by the hour they expire in; at most this
 * many buckets (a node holding more sends request-ids instead). */
#define PROTO_REQ_BUCKET_MS (3600ULL * 1000)
#define PROTO_MAX_REQ_BUCKETS 256

enum msg_type {
	MSG_HELLO = 1,
	MSG_PEERS,
	MSG_REQUEST,
	MSG_REQUEST_IDS,
	MSG_VECTOR,
	MSG_WANT,
	MSG_RECORDS,
	MSG_CREDIT,
	MSG_BLOB_GET,
	MSG_BLOB_DATA,
	MSG_PING,
	MSG_PONG,
	MSG_CANCEL,
	MSG_LEASE,
	MSG_RELAY,
	MSG_RELAY_BACK,
	MSG_DIGEST,
	MSG_RANGES,
	MSG_PEERS_DELTA,
	MSG_REQUEST_SUMMARY,
	MSG_REQUEST_IDS_IN,
	MSG_SUBDIGEST,
	MSG_SUBRANGES,
};
#define MSG_TYPE_MAX MSG_SUBRANGES

/* "hello", "peers"...; "?" out of range. Borrowed. */
const char *msg_type_name(int type);

typedef struct {
	uint8_t author[32];
	uint64_t seq; /* highest seq held, >= 1 */
} msg_vec_entry_t;

typedef struct {
	uint32_t count; /* entries in the range */
	uint64_t hash;  /* XOR of their hashes */
} msg_digest_range_t;

typedef struct {
	uint32_t sub;	/* < PROTO_DIGEST_RANGES */
	uint32_t count; /* entries in it, >= 1 */
	uint64_t hash;	/* XOR of their hashes */
} msg_sub_range_t;

typedef struct {
	uint32_t bucket; /* expires_ms / PROTO_REQ_BUCKET_MS */
	uint32_t count;  /* requests in it, >= 1 */
	uint64_t hash;   /* XOR of their msg_req_hash */
} msg_req_bucket_t;

/* A request's bucket, and the hash of its id in its bucket's XOR (the
 * id's first 8 bytes, little endian: ids are already hashes). */
uint32_t msg_req_bucket(uint64_t expires_ms);
uint64_t msg_req_hash(const uint8_t id[32]);

typedef struct msg {
	enum msg_type type;
	union {
		struct {
			uint32_t version;  /* PROTO_VERSION of the sender */
			uint64_t features; /* MSG_FEATURE_* */
			proto_bytes_t desc;
		} hello;
		/* MSG_PEERS: the sender's table (descs); MSG_PEERS_DELTA:
		 * the descriptors that joined it and the ids (n_gone * 32
		 * bytes) that left it since its last message */
		struct {
			const proto_bytes_t *descs;
			size_t n;
			const uint8_t *gone;
			size_t n_gone;
		} peers;
		proto_bytes_t request; /* MSG_REQUEST */
		proto_bytes_t cancel;  /* MSG_CANCEL */
		proto_bytes_t lease;   /* MSG_LEASE */
		struct {
			uint8_t id[32]; /* RELAY: to; RELAY_BACK: op_id */
			uint32_t hops;
			proto_bytes_t body;
		} relay; /* MSG_RELAY, MSG_RELAY_BACK */
		struct {
			const uint8_t *ids; /* n * 32 bytes */
			size_t n;
		} request_ids;
		struct {
			const msg_req_bucket_t *buckets;
			size_t n;
		} request_summary;
		struct {
			const uint32_t *buckets;
			size_t n_buckets;
			const uint8_t *ids; /* n * 32 bytes */
			size_t n;
		} request_ids_in;
		struct {
			const msg_vec_entry_t *entries;
			size_t n;
		} vector;
		struct {
			const msg_digest_range_t *ranges; /* PROTO_DIGEST_RANGES */
		} digest;
		struct {
			uint64_t mask;
			const msg_vec_entry_t *entries;
			size_t n;
		} ranges;
		struct {
			uint32_t range;
			const msg_sub_range_t *subs;
			size_t n;
		} subdigest;
		struct {
			uint32_t range;
			uint64_t mask;
			const msg_vec_entry_t *entries;
			size_t n;
		} subranges;
		struct {
			uint8_t author[32];
			uint64_t from_seq;
			uint32_t max;
		} want;
		struct {
			const proto_bytes_t *recs;
			size_t n;
		} records;
		uint32_t credit; /* MSG_CREDIT */
		struct {
			uint8_t blob_id[32];
			uint64_t offset;
			uint32_t length;
			uint32_t hops; /* 0: the short form */
		} blob_get;
		struct {
			uint8_t blob_id[32];
			uint64_t offset;
			uint64_t total;
			proto_bytes_t data;
		} blob_data;
		uint64_t nonce; /* MSG_PING, MSG_PONG */
	};
	arena_t *arena; /* private */
} msg_t;

/*
 * Encode m (pointers borrowed). Returns 0 with bytes in *ret_data (caller
 * frees) and *ret_len, or the PROTO_E_* code msg_decode would refuse the
 * result with (caps, ranges, sizes).
 */
int msg_encode(const msg_t *m, uint8_t **ret_data, size_t *ret_len);
/*
 * Strict decode of one message of at most max_len bytes (PROTO_MAX_MSG,
 * or PROTO_MAX_MSG_PREAUTH before hello); re-encodes and compares.
 * Returns 0 and a new message in *ret_msg (borrowing from data, see
 * above), or PROTO_E_*.
 */
int msg_decode(const void *data, size_t len, size_t max_len, msg_t **ret_msg);
void msg_destroy(msg_t **p);

#endif
