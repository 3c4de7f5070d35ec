/*
 * mem: the one allocator wrapper. Every allocation in labmesh goes through
 * these; they abort on out-of-memory (there is nothing sensible a daemon can
 * do then) and check size arithmetic for overflow before allocating.
 */
#ifndef LABMESH_PROTO_MEM_H
#define LABMESH_PROTO_MEM_H

#include <stdbool.h>
#include <stddef.h>

void *xmalloc(size_t n);
void *xzalloc(size_t n);
/* n * size, aborting if the product overflows. */
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
/* realloc to n * size elements, aborting on overflow. */
void *xreallocarray(void *p, size_t n, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* printf into a fresh string; the caller frees it. */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* true and *ret = a * b when the product fits in size_t. */
bool size_mul_ok(size_t a, size_t b, size_t *ret);
/* true and *ret = a + b when the sum fits in size_t. */
bool size_add_ok(size_t a, size_t b, size_t *ret);

#endif
