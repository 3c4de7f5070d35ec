/*
 * results_synth: synthetic `run` records signed with real keys, for the
 * results tests and the query benchmark (the jobs that produce real runs
 * from boards sit elsewhere). A synth_feed_t is one author's feed (key,
 * seq, head); a synth_run_t builds a run body that owns its strings.
 * Not part of the daemon: linked only into tests and benchmarks.
 */
#ifndef LABMESH_NODE_RESULTS_SYNTH_H
#define LABMESH_NODE_RESULTS_SYNTH_H

#include "node/store/store.h"

#include "proto/keys.h"
#include "proto/record.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
	key_pair_t key;
	uint64_t seq;     /* of the last record made */
	uint8_t head[32]; /* its id */
} synth_feed_t;

/* A feed whose key derives from seed_byte (deterministic). */
void synth_feed_init(synth_feed_t *f, uint8_t seed_byte);

typedef struct synth_run synth_run_t;

/* A run of board in lab on a kernel (tree, branch, commit may be ""). */
synth_run_t *synth_run_new(const char *lab, const char *board,
			   const char *arch, const char *tree,
			   const char *branch, const char *commit);
void synth_run_destroy(synth_run_t **p);
/* Kernel build facts (defaults: defconfig, gcc 12, BUILD_PASS). */
void synth_run_build(synth_run_t *r, const char *config, const char *compiler,
		     enum build_status build);
/* Start a suite; cases and metrics go to the last suite started. */
void synth_suite(synth_run_t *r, const char *name, uint64_t start_ms,
		 uint64_t end_ms, enum proto_status status);
void synth_case(synth_run_t *r, const char *path, enum proto_status status,
		uint64_t duration_ms, const char *message);
void synth_metric(synth_run_t *r, const char *name, double value,
		  const char *unit, enum metric_better better);
/* A log blob of the last suite (id derived from the name and tag). */
void synth_log(synth_run_t *r, const char *name, uint8_t tag);
/* A log blob of the last suite with a given id (a real blob's). */
void synth_log_blob(synth_run_t *r, const char *name, const uint8_t id[32]);
/* A log blob of the run itself, e.g. "build" (id as synth_log's). */
void synth_run_log(synth_run_t *r, const char *name, uint8_t tag);
/* The run's request id (has_request). */
void synth_request(synth_run_t *r, const uint8_t id[32]);

/*
 * Sign the run as the next record of feed f (ts_ms as its time) and put
 * it in the store. Returns 0 with the bytes in *ret_bytes / *ret_len
 * (caller frees; both may be NULL) and the id in ret_id (may be NULL), a
 * PROTO_E_* code, or -errno (also when the store does not add it).
 */
int synth_publish(synth_feed_t *f, store_t *store, synth_run_t *r,
		  uint64_t ts_ms, uint8_t **ret_bytes, size_t *ret_len,
		  uint8_t ret_id[32]);
/* The same for any record: rec's head (seq, prev, time) is set here. */
int synth_publish_record(synth_feed_t *f, store_t *store, record_t *rec,
			 uint64_t ts_ms, uint8_t **ret_bytes, size_t *ret_len,
			 uint8_t ret_id[32]);

#endif

/* ---- a whole synthetic network's results ---- */

typedef struct {
	unsigned commits;  /* kernel commits tested */
	unsigned labs;     /* labs (one feed each) */
	unsigned boards;   /* boards per lab */
	unsigned suites;   /* suites per run */
	unsigned cases;    /* cases per suite */
	unsigned metrics;  /* metrics per suite */
	unsigned batch;    /* runs per store transaction */
	uint64_t t0_ms;    /* time of the first commit's runs */
} synth_params_t;

/* Defaults: 3 commits, 2 labs x 2 boards, 3 suites x 20 cases, 2 metrics. */
void synth_params_default(synth_params_t *p);

/*
 * Fill HOME/store.db with one run per (commit, lab, board): statuses,
 * durations and metric values derive from a hash of their coordinates,
 * so the same parameters always give the same records. Lab 1's tree is
 * not https (exports must cope); some messages hold XML/JSON specials.
 * With index, the results index is built after the records are stored.
 * Returns 0 and the number of cases in *ret_cases, or -errno / PROTO_E_*.
 */
int synth_dataset(const char *home, const synth_params_t *p, bool index,
		  uint64_t *ret_cases);

/* The 40-hex commit of synthetic commit number i. */
void synth_commit(unsigned i, char out[41]);
