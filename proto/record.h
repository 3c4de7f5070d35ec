/*
 * record: signed records, the one data model that replicates.
 *
 * Wire form (canonical msgpack, see mp.h), an array of 8:
 *   [version, kind, author, seq, prev_id, ts_ms, body, sig]
 *   version  uint, RECORD_VERSION
 *   kind     uint, enum record_kind
 *   author   bin 32, Ed25519 public key of the feed
 *   seq      uint >= 1, position in the author's feed
 *   prev_id  nil when seq is 1, else bin 32: the id of record seq-1
 *   ts_ms    uint, milliseconds since the epoch (author's clock)
 *   body     array, per kind (record_body.c documents each layout)
 *   sig      bin 64, Ed25519 by author over
 *            RECORD_SIG_PREFIX (18 bytes, NUL included) || the encoded
 *            bytes from the array header up to (not including) sig
 * id = BLAKE2b-256 of the whole encoded record.
 *
 * record_decode() is the full strict path: size cap, strict decode of
 * envelope and body, re-encode to the very same bytes, signature over
 * the received bytes, id. Body structs point into memory the record owns
 * (an arena) and stay valid until record_destroy().
 *
 * To build, fill a record_t (head.kind, head.seq, head.has_prev and
 * head.prev_id, head.ts_ms and the body for that kind; pointers are
 * borrowed) and call record_sign(); it encodes, signs, then runs the
 * result through record_decode() so it never emits what peers refuse.
 */
#ifndef LABMESH_PROTO_RECORD_H
#define LABMESH_PROTO_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto/arena.h"
#include "proto/keys.h"
#include "proto/caps.h"
#include "proto/types.h"

#define RECORD_VERSION 1
#define RECORD_SIG_PREFIX "labmesh-record-v1" /* signed with its NUL */

enum record_kind {
	RECORD_ADVERT = 1,
	RECORD_ACCEPT,
	RECORD_DECLINE,
	RECORD_EVENT,
	RECORD_RUN,
	RECORD_VERDICT = 6,
	RECORD_KNOWN = 7,
	RECORD_BISECT = 8,
};
#define RECORD_KIND_MAX RECORD_BISECT
/* record_verify passes kinds up to this one: records of kinds a newer
 * version made are stored and passed on unread (record_decode refuses
 * them: nothing here reads their bodies), so one author's feed never
 * stops at a node that is older than the author's. */
#define RECORD_KIND_LIMIT 32

/* "advert", "accept"...; "?" out of range. Borrowed. */
const char *record_kind_name(int kind);
/* Whether kind is one this version encodes and decodes (the numbers up
 * to RECORD_KIND_MAX have gaps). */
bool record_kind_known(int kind);

/* ---- advert: the lab and its boards (latest seq wins) ---- */

enum board_state {
	BOARD_IDLE = 1,
	BOARD_BUSY,
	BOARD_OFFLINE,
	BOARD_MAINTENANCE,
};
#define BOARD_STATE_MAX BOARD_MAINTENANCE
const char *board_state_name(int state);

typedef struct {
	const char *key;   /* 1..PROTO_MAX_INFO_KEY, name syntax */
	const char *value; /* text, PROTO_MAX_SHORT */
} proto_kv_t;

typedef struct {
	const char *name;	 /* name syntax */
	const char *arch;	 /* name syntax */
	const char *machine;	 /* text, PROTO_MAX_SHORT, may be "" */
	const char *const *tags; /* name syntax each, PROTO_MAX_TAGS */
	size_t n_tags;
	const char *transport; /* name syntax: local, ssh, serial, adb... */
	const char *boot;      /* name syntax: none, qemu, command */
	enum board_state state;
	uint32_t queue_len; /* jobs waiting for this board */
} record_board_t;

typedef struct {
	const char *lab;	   /* name syntax */
	uint8_t node_id[32];	   /* the node's public key (= author) */
	const char *description;   /* text, PROTO_MAX_TEXT, may be "" */
	const char *software;	   /* text, PROTO_MAX_SHORT: "labmesh 0.1.0" */
	const char *const *suites; /* suites this lab runs, PROTO_MAX_SUITES */
	size_t n_suites;
	/* Free-form lab facts (location, contact...). Encoded sorted by key
	 * (the encoder sorts); duplicate keys are refused. */
	const proto_kv_t *info;
	size_t n_info;
	const record_board_t *boards; /* PROTO_MAX_BOARDS */
	size_t n_boards;
} record_advert_t;

/* ---- accept / decline: a lab's answer to a request ---- */

/* A board the request selected that the lab would not give it. */
typedef struct {
	const char *board; /* name syntax */
	const char *text;  /* why (the rule), text, PROTO_MAX_MESSAGE, not "" */
} record_refusal_t;

typedef struct {
	uint8_t request_id[32];
	const char *const *boards; /* 1..PROTO_MAX_BOARDS names */
	size_t n_boards;
	/* the boards refused meanwhile (a board's submitters, maintenance,
	 * offline...), 0..PROTO_MAX_BOARDS; none: not on the wire at all */
	const record_refusal_t *refused;
	size_t n_refused;
} record_accept_t;

enum decline_reason {
	DECLINE_POLICY = 1,  /* submitter not allowed here */
	DECLINE_NO_BOARD,    /* no board matches the selector */
	DECLINE_QUOTA,	     /* submitter over quota */
	DECLINE_EXPIRED,     /* request expired before we saw it */
	DECLINE_UNSUPPORTED, /* kernel form, arch or suite not supported */
	DECLINE_BUSY,	     /* queue full */
	DECLINE_OTHER,
};
#define DECLINE_REASON_MAX DECLINE_OTHER
const char *decline_reason_name(int reason);

typedef struct {
	uint8_t request_id[32];
	enum decline_reason reason;
	const char *text; /* text, PROTO_MAX_TEXT, may be "" */
} record_decline_t;

/* ---- event: job progress ---- */

enum job_state {
	JOB_QUEUED = 1,
	JOB_FETCHING,
	JOB_BUILDING,
	JOB_BOOTING,
	JOB_RUNNING, /* suite_index of suite_count, suite = its name */
	JOB_DONE,
	JOB_ERROR,
	JOB_CANCELLED,
};
#define JOB_STATE_MAX JOB_CANCELLED
const char *job_state_name(int state);

typedef struct {
	bool has_request; /* false: a local run (no request), nil */
	uint8_t request_id[32];
	const char *board; /* name syntax */
	enum job_state state;
	uint32_t suite_index; /* RUNNING: 1..suite_count; else 0 */
	uint32_t suite_count; /* 0..PROTO_MAX_SUITES */
	const char *suite;    /* RUNNING: name syntax; else "" */
	const char *text;     /* text, PROTO_MAX_TEXT, may be "" */
} record_event_t;

/* ---- run: the result of one request on one board ---- */

enum build_status {
	BUILD_NONE = 1, /* nothing built: artifact or running kernel */
	BUILD_PASS,
	BUILD_FAIL,
	BUILD_ERROR,
};
#define BUILD_STATUS_MAX BUILD_ERROR
const char *build_status_name(int status);

enum metric_better {
	METRIC_NEUTRAL = 0,
	METRIC_HIGHER, /* higher is better */
	METRIC_LOWER,  /* lower is better */
};
#define METRIC_BETTER_MAX METRIC_LOWER

typedef struct {
	const char *tree_url; /* text, PROTO_MAX_URL, may be "" */
	const char *branch;   /* text, PROTO_MAX_SHORT, may be "" */
	const char *commit;   /* 40 lowercase hex, or "" if unknown */
	const char *config;   /* text, PROTO_MAX_SHORT: defconfig, may be "" */
	const char *arch;     /* name syntax */
	const char
		*describe; /* text, PROTO_MAX_SHORT: uname -r, git describe */
	bool has_kernel_blob;
	uint8_t kernel_blob[32];
	bool has_initrd_blob;
	uint8_t initrd_blob[32];
	enum build_status build;
	const char *compiler; /* text, PROTO_MAX_SHORT, may be "" */
} run_kernel_t;

typedef struct {
	const char *path;	  /* path syntax, relative to the suite */
	enum proto_status status; /* PASS FAIL ERROR SKIP MISS (DONE too) */
	uint64_t duration_ms;
	const char *message; /* text, PROTO_MAX_MESSAGE, may be "" */
} run_case_t;

typedef struct {
	const char *name; /* path syntax */
	double value;	  /* finite */
	const char *unit; /* text, PROTO_MAX_NAME, may be "" */
	enum metric_better better;
} run_metric_t;

typedef struct {
	const char *name; /* name syntax: "console", "output"... */
	uint8_t blob_id[32];
} run_log_t;

typedef struct {
	const char *name;    /* name syntax */
	const char *version; /* text, PROTO_MAX_SHORT, may be "" */
	enum proto_status status;
	uint64_t duration_ms;
	uint64_t start_ms, end_ms; /* end_ms >= start_ms */
	const run_case_t *cases;   /* PROTO_MAX_CASES */
	size_t n_cases;
	const run_metric_t *metrics; /* PROTO_MAX_METRICS */
	size_t n_metrics;
	const run_log_t *logs; /* PROTO_MAX_LOGS */
	size_t n_logs;
	/* why the suite as a whole ended as it did (SKIP: a need missing on
	 * the board; ERROR: it could not run), text, PROTO_MAX_MESSAGE;
	 * NULL or "" for none, and then not on the wire at all */
	const char *reason;
} run_suite_t;

typedef struct {
	bool has_request; /* false: a local run, nil on the wire */
	uint8_t request_id[32];
	const char *board; /* name syntax */
	const char *lab;   /* name syntax */
	run_kernel_t kernel;
	const run_suite_t *suites; /* PROTO_MAX_SUITES */
	size_t n_suites;
	const run_log_t
		*logs; /* whole-run logs (boot console), PROTO_MAX_LOGS */
	size_t n_logs;
	enum proto_status status; /* overall */
} record_run_t;

/* ---- verdict: what re-running a regression said ---- */

enum verdict_kind {
	VERDICT_CONFIRMED = 1,	/* failed every re-run, here and elsewhere */
	VERDICT_FLAKY,		/* passed some re-runs: see runs / passes */
	VERDICT_BOARD_SPECIFIC, /* fails on this board, passes on others */
};
#define VERDICT_KIND_MAX VERDICT_BOARD_SPECIFIC
const char *verdict_kind_name(int verdict);

typedef struct {
	uint8_t run_id[32];   /* the run record that showed the regression */
	const char *lab;      /* name syntax: the run's lab */
	const char *board;    /* name syntax: the run's board */
	const char *path;     /* path syntax: suite.path that regressed */
	enum verdict_kind verdict;
	uint32_t runs;	      /* re-runs on the board, 0..PROTO_MAX_RERUNS */
	uint32_t passes;      /* of them passed, <= runs */
	uint32_t other_runs;  /* re-runs on other boards of the same arch */
	uint32_t other_passes; /* of them passed, <= other_runs */
	const char *text;     /* text, PROTO_MAX_TEXT, may be "" */
} record_verdict_t;

/* ---- known: a maintainer's mark on a known failure ---- */

/*
 * The latest mark of an author for one (path, board, arch) replaces the
 * earlier ones; a mark applies until expires_ms (a drop is a mark that
 * expires at its own ts_ms).
 */
typedef struct {
	const char *path;  /* path syntax: suite.path, or a suite name */
	const char *board; /* board glob (* ? [), text PROTO_MAX_NAME, "" any */
	const char *arch;  /* name syntax, or "" for any */
	const char *link;  /* text, PROTO_MAX_URL, may be "" */
	uint64_t expires_ms; /* 1..PROTO_MAX_TIME_MS */
	const char *text;  /* text, PROTO_MAX_MESSAGE, may be "" */
} record_known_t;
/* ---- bisect: a bisection of a regression, as it stands ---- */

enum bisect_state {
	BISECT_RUNNING = 1,
	BISECT_DONE,   /* first_bad names the first bad commit */
	BISECT_FAILED, /* text says why it stopped */
};
#define BISECT_STATE_MAX BISECT_FAILED
const char *bisect_state_name(int state);

enum bisect_verdict {
	BISECT_PENDING = 1, /* submitted, no answer yet */
	BISECT_GOOD,	    /* the test passed */
	BISECT_BAD,	    /* the test failed */
	BISECT_LOST,	    /* no answer (the lab went away, a build or boot
			     * error): the commit was tried again */
};
#define BISECT_VERDICT_MAX BISECT_LOST
const char *bisect_verdict_name(int verdict);

typedef struct {
	const char *commit;  /* 40 lowercase hex */
	enum bisect_verdict verdict;
	bool has_request;
	uint8_t request_id[32];
	const char *lab;   /* name syntax, or "" (not known yet) */
	const char *board; /* name syntax, or "" */
	bool has_run;
	uint8_t run_id[32]; /* the run record the verdict was read from */
} bisect_step_t;

typedef struct {
	uint8_t bisection[32]; /* the bisection's id: the hash of what was
				* asked (bisect.h), the same in every record
				* of one bisection */
	uint8_t submitter[32]; /* the key that asked */
	const char *tree_url;  /* text, PROTO_MAX_URL */
	const char *good;      /* 40 lowercase hex */
	const char *bad;       /* 40 lowercase hex */
	const char *test;      /* path syntax: SUITE or SUITE/CASE path */
	const char *config;    /* text, PROTO_MAX_SHORT, may be "" */
	const char *arch;      /* name syntax or "" */
	uint32_t n_commits;    /* commits in good..bad */
	enum bisect_state state;
	const char *first_bad; /* DONE: 40 lowercase hex; else "" */
	const char *text;      /* text, PROTO_MAX_TEXT, may be "" */
	const bisect_step_t *steps; /* in order, PROTO_MAX_BISECT_STEPS */
	size_t n_steps;
} record_bisect_t;

/* ---- the record ---- */

typedef struct {
	uint32_t version;
	enum record_kind kind;
	uint8_t author[32];
	uint64_t seq;
	bool has_prev; /* false iff seq == 1 */
	uint8_t prev_id[32];
	uint64_t ts_ms;
	uint8_t sig[64]; /* decoded records only */
	uint8_t id[32];	 /* decoded records only */
} record_head_t;

typedef struct record {
	record_head_t head;
	union {
		record_advert_t advert;
		record_accept_t accept;
		record_decline_t decline;
		record_event_t event;
		record_run_t run;
		record_verdict_t verdict;
		record_known_t known;
		record_bisect_t bisect;
	};
	arena_t *arena; /* private: owns what the body points to */
} record_t;

/*
 * Encode and sign rec (see the top comment for what must be filled; the
 * author is key->pk). Returns 0 with the bytes in *ret_data (caller
 * frees with free()), *ret_len and the id in ret_id, or a PROTO_E_* code
 * saying why the record would be refused (nothing written then).
 */
int record_sign(const record_t *rec, const key_pair_t *key, uint8_t **ret_data,
		size_t *ret_len, uint8_t ret_id[32]);

/*
 * Full strict decode and verify of len bytes at data (borrowed; the
 * record copies what it keeps). Returns 0 and a new record in *ret_rec
 * (destroy with record_destroy), or a PROTO_E_* code.
 */
int record_decode(const void *data, size_t len, record_t **ret_rec);
void record_destroy(record_t **p);

/*
 * The bytes of a decoded record again (head.author and head.sig as
 * decoded; body as it stands). Equal to the received bytes for any
 * record record_decode accepted. Caller frees *ret_data.
 */
int record_encode(const record_t *rec, uint8_t **ret_data, size_t *ret_len);

/*
 * Fast path: checks the envelope strictly (but a kind up to
 * RECORD_KIND_LIMIT), the body only as canonical msgpack (not per kind),
 * and the signature; fills *ret_head with id. For routing/storing;
 * anything that reads the body uses record_decode.
 */
int record_verify(const void *data, size_t len, record_head_t *ret_head);

#endif
