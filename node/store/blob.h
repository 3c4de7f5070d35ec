/*
 * blob: the node's content-addressed files — kernel images, initrds, logs —
 * under HOME/blobs/<2 hex>/<64 hex>, named by the BLAKE2b-256 of their
 * bytes (proto_id). A blob is written to a temporary file in HOME/blobs/tmp
 * and renamed into place only once its hash is verified, so a file under
 * its id is always whole and right.
 *
 * Partial downloads live in HOME/blobs/tmp/<64 hex>.part and survive a
 * restart: a fetch resumes from their size.
 */
#ifndef LABMESH_NODE_BLOB_H
#define LABMESH_NODE_BLOB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BLOB_ID_BYTES 32
#define BLOB_MAX_SIZE (2ULL * 1024 * 1024 * 1024) /* one blob, any source */

/* HOME/blobs/<2>/<64> (the caller frees). */
char *blob_path(const char *home, const uint8_t id[BLOB_ID_BYTES]);
/* HOME/blobs/tmp/<64>.part (the caller frees). */
char *blob_part_path(const char *home, const uint8_t id[BLOB_ID_BYTES]);
bool blob_have(const char *home, const uint8_t id[BLOB_ID_BYTES]);
/*
 * Mark a blob used now (the node calls this when it reads or serves one),
 * so retention (node/results/results_gc.c) evicts the least recently used
 * first, even on noatime mounts. 0 or -errno.
 */
int blob_touch(const char *home, const uint8_t id[BLOB_ID_BYTES]);

/* Hash a file (at most BLOB_MAX_SIZE bytes). 0 or -errno (-EFBIG). */
int blob_hash_file(const char *path, uint8_t ret_id[BLOB_ID_BYTES],
		   uint64_t *ret_size);
/* Copy a file into the store; 0 and its id, or -errno. */
int blob_put_file(const char *home, const char *src,
		  uint8_t ret_id[BLOB_ID_BYTES]);
/* Store n bytes; 0 and their id, or -errno. */
int blob_put_mem(const char *home, const void *p, size_t n,
		 uint8_t ret_id[BLOB_ID_BYTES]);
/* A finished .part file: verify its hash against id and move it into
 * place. 0, -EBADMSG (wrong bytes: the part is removed) or -errno. */
int blob_commit_part(const char *home, const uint8_t id[BLOB_ID_BYTES]);

#endif
