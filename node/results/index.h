/*
 * index: turns verified `run` records into rows of the results index
 * (see results.h for the tables). An index_t caches the prepared
 * statements and the interned strings so bulk indexing (reindex, the
 * benchmark) costs one decode and a few inserts per record.
 */
#ifndef LABMESH_NODE_INDEX_H
#define LABMESH_NODE_INDEX_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "proto/record.h"

typedef struct index index_t;

/* Prepare an indexer on db (creating the tables). 0 and *ret_ix or -errno. */
int index_new(sqlite3 *db, index_t **ret_ix);
void index_destroy(index_t **p);

/*
 * Decode, verify and index the record at bytes. Returns 1 indexed, 0 not
 * a run or already indexed, PROTO_E_* for bad bytes, -errno.
 */
int index_put(index_t *ix, const uint8_t *bytes, size_t len);
/* Whether the run record id is indexed already. */
bool index_has_run(index_t *ix, const uint8_t *id);

/* Index an already decoded and verified record (its id in head.id). */
int index_put_decoded(index_t *ix, const record_t *rec);

/* Drop every index table (they are a cache). 0 or -errno. */
int index_drop(sqlite3 *db);

#endif
