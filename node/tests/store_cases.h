/*
 * store_cases: the store's contract as unit-test cases, run on every
 * implementation of store.h: store.c's SQLite store (test_store.c) and
 * the simulator's shared pool (node/sim/sim_store.c, test_sim_store.c).
 * Each case takes a fresh store and leaves what later cases of
 * test_store.c count on (13 records, 4 evidence rows, 3 feeds).
 */
#ifndef LABMESH_NODE_TESTS_STORE_CASES_H
#define LABMESH_NODE_TESTS_STORE_CASES_H

#include "node/store/store.h"

/* A fake record: id derived from (author, seq, variant); bytes = id. */
typedef struct {
	uint8_t id[32], author[32], prev[32], bytes[40];
	store_rec_t r;
} fake_t;

void store_fake(fake_t *f, uint8_t author, uint64_t seq, uint8_t variant,
		const uint8_t *prev);

/* Feed extension, duplicates, gaps, broken chains, equivocation. */
void store_case_feed(store_t *s);
/* Forwarded evidence pairs, after store_case_feed. */
void store_case_pairs(store_t *s);
/* Requests with expiry. */
void store_case_requests(store_t *s);

#endif
