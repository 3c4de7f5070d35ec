/*
 * bisectview: the bisections held in a store (bisect records, the latest
 * of each bisection) and their JSON: what `labmesh bisect --show ID
 * --json` and `--list --json` print and the dashboard's /api/bisect and
 * /api/bisections answer, byte for byte.
 */
#ifndef LABMESH_NODE_BISECTVIEW_H
#define LABMESH_NODE_BISECTVIEW_H

#include "proto/buf.h"
#include "proto/json.h"
#include "proto/record.h"

#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BISECTVIEW_MIN_PREFIX 6 /* hex digits of a bisection id people type */

/* Whether prefix is 6..64 lowercase hex digits. */
bool bisectview_prefix_ok(const char *prefix);

/*
 * The latest record of the bisection id (32 bytes) or, id NULL, of the one
 * bisection whose id, or one of whose records' ids, starts with prefix.
 * 0 and *ret (record_destroy it), -ENOENT, -EINVAL when the prefix names
 * several bisections, or -EIO.
 */
int bisectview_find(sqlite3 *db, const uint8_t *id, const char *prefix,
		    record_t **ret);

/* The latest record of every bisection in db (store order): 0 and the
 * array (bisectview_free it), or -EIO. */
int bisectview_all(sqlite3 *db, record_t ***ret, size_t *ret_n);
void bisectview_free(record_t **v, size_t n);

/* One bisect record as a JSON object into j. */
void bisectview_json(json_t *j, const record_t *rec);
/* recs as JSON (one object, or an array when array) and a newline into
 * out: 0, or -E2BIG past out's cap. */
int bisectview_json_of(record_t *const *recs, size_t n, bool array,
		       buf_t *out);

#endif
