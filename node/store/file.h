/*
 * file: whole small files the node writes as they are (a signed request
 * kept for a job or saved by `labmesh submit --save`). Not for blobs,
 * which are hashed and renamed into place (blob.h).
 */
#ifndef LABMESH_NODE_FILE_H
#define LABMESH_NODE_FILE_H

#include <stddef.h>

/*
 * Create or truncate path and write the n bytes at p to it (no fsync, no
 * temporary file: a crash may leave it short). 0, -EIO on a short write,
 * or -errno.
 */
int file_write(const char *path, const void *p, size_t n);

#endif
