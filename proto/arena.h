/*
 * arena: a bump allocator that owns everything a decoded object points to
 * (strings, lists). One arena per decoded record/request/message; freeing
 * the object frees the arena. Allocation aborts on out-of-memory like
 * xmalloc. Decoders size arenas from the INPUT length, never from a count
 * a peer declared.
 */
#ifndef LABMESH_PROTO_ARENA_H
#define LABMESH_PROTO_ARENA_H

#include <stddef.h>

typedef struct arena arena_t;

/* A new arena whose first chunk holds about hint bytes. */
arena_t *arena_new(size_t hint);
void arena_destroy(arena_t **p);
/* n zeroed bytes, 8-aligned; valid until the arena is destroyed. */
void *arena_alloc(arena_t *a, size_t n);
/* n * size zeroed bytes, aborting if the product overflows. */
void *arena_array(arena_t *a, size_t n, size_t size);
/* A NUL-terminated copy of the n bytes at s. */
char *arena_strndup(arena_t *a, const char *s, size_t n);
/*
 * Decoders: keep one copy of the input data[0..len) (plus a spare byte).
 * From then on arena_strndup of a range inside data returns the same
 * range of the copy, NUL-terminated in place, instead of a new copy. That
 * is safe for msgpack strings: the byte after a string is the next
 * value's head (or the spare byte), which no string ever includes. Each
 * range may be asked for once; data must outlive the decoding.
 */
void arena_mirror(arena_t *a, const void *data, size_t len);

#endif
