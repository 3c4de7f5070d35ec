/*
 * caps: every named cap on a quantity that bytes from outside control.
 * Decoders check these before allocating; encoders refuse to produce what
 * the decoders would refuse. Changing one changes what peers accept, so
 * raise caps only with a format version bump in mind.
 */
#ifndef LABMESH_PROTO_CAPS_H
#define LABMESH_PROTO_CAPS_H

/* Whole objects (encoded bytes). */
#define PROTO_MAX_RECORD (256 * 1024)	  /* one signed record */
#define PROTO_MAX_REQUEST (64 * 1024)	  /* one signed test request */
#define PROTO_MAX_CANCEL 256		  /* one signed cancel */
#define PROTO_MAX_DESC 4096		  /* one signed node descriptor */
#define PROTO_MAX_LEASE (64 * 1024)	  /* one signed lease op or reply */
#define PROTO_MAX_RELAY (PROTO_MAX_LEASE + 1024) /* one relay message */
#define PROTO_MAX_MSG (1024 * 1024)	  /* one node-to-node message */
#define PROTO_MAX_MSG_PREAUTH (16 * 1024) /* before a peer said hello */
#define PROTO_MAX_DEPTH 16		  /* msgpack nesting, generic reader */

/* Strings (bytes of UTF-8, without NUL). */
#define PROTO_MAX_NAME 64      /* lab, board, arch, tag, suite, transport... */
#define PROTO_MAX_PATH 255     /* test case path, metric name */
#define PROTO_MAX_SHORT 128    /* machine, compiler, branch, unit, version */
#define PROTO_MAX_URL 1024     /* git tree URL */
#define PROTO_MAX_ENDPOINT 256 /* tcp://host:port */
#define PROTO_MAX_TEXT 4096    /* free text: event text, decline text... */
#define PROTO_MAX_MESSAGE 1024 /* one test case message */
#define PROTO_MAX_INFO_KEY 32  /* advert info map key */

/* Lists. */
#define PROTO_MAX_BOARDS 256		  /* boards per advert, per accept */
#define PROTO_MAX_TAGS 32		  /* tags per board or selector */
#define PROTO_MAX_SUITES 64		  /* suites per request, run, advert */
#define PROTO_MAX_CASES 8192		  /* test cases per suite */
#define PROTO_MAX_METRICS 1024		  /* metrics per suite */
#define PROTO_MAX_LOGS 16		  /* log blobs per suite or run */
#define PROTO_MAX_INFO 32		  /* advert info entries */
#define PROTO_MAX_SEL_LABS 64		  /* labs in a request selector */
#define PROTO_MAX_SEL_BOARDS 256	  /* boards in a request selector */
#define PROTO_MAX_ENDPOINTS 8		  /* endpoints per node descriptor */
#define PROTO_MAX_PEERS 64		  /* descriptors per peers message */
#define PROTO_MAX_BATCH 64		  /* records per records message */
#define PROTO_MAX_IDS 1024		  /* ids per request-ids message */
#define PROTO_MAX_VECTOR 1024		  /* entries per vector message */
#define PROTO_MAX_WANT 1024		  /* records asked for by one want */
#define PROTO_MAX_CREDIT 1024		  /* credit granted by one message */
#define PROTO_MAX_BLOB_CHUNK (256 * 1024) /* bytes per blob-data */
#define PROTO_MAX_BISECT_STEPS 256	  /* steps in one bisect record */

/* Ranges. */
#define PROTO_MAX_RERUNS 64 /* re-runs one verdict counts, per side */
#define PROTO_MAX_PRIORITY 100 /* request priority 0..100, higher first */
/* Times a request or cancel may carry (ms since the epoch): up to
 * 2100-01-01, so that they fit an int64 with room and are never wrapped */
#define PROTO_MAX_TIME_MS 4102444800000ULL
/* A request's expires_ms - created_ms, whatever the lab; a lab's own cap
 * (node.max_request_lifetime) is at most this: a submitter must not decide
 * how long every node keeps and re-sends its request */
#define PROTO_MAX_REQUEST_LIFETIME_MS (30ULL * 24 * 3600 * 1000)

/* Leases: bytes of data in one lease operation or reply; the longest
 * lease any lab may grant; nodes a relayed message may cross. */
#define LEASE_MAX_DATA (48 * 1024)
#define LEASE_MAX_MS (7ULL * 24 * 3600 * 1000)
#define PROTO_MAX_HOPS 8
#define PROTO_MAX_BLOB_HOPS 4 /* nodes lacking a blob that may relay one ask */

/* Fixed sizes. */
#define PROTO_KEY_LEN 32    /* Ed25519 public key = node / submitter id */
#define PROTO_ID_LEN 32	    /* BLAKE2b-256 id of a record, request, blob */
#define PROTO_SIG_LEN 64    /* Ed25519 signature */
#define PROTO_NONCE_LEN 16  /* request nonce */
#define PROTO_COMMIT_LEN 40 /* git commit, lowercase hex */

#endif
