/*
 * arena: bump allocation in chunks, freed all at once. See arena.h.
 */
#include "proto/arena.h"
#include "proto/mem.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct chunk {
	struct chunk *next;
	size_t size, used;
	_Alignas(8) uint8_t data[];
};

struct arena {
	struct chunk *head;
	struct chunk *first; /* allocated with the arena itself */
	size_t next_size;
	const char *orig;    /* arena_mirror: the input ... */
	char *mirror;        /* ... and its copy, one byte longer */
	size_t mirror_len;
};

static struct chunk *s_chunk_new(size_t size)
{
	struct chunk *c = xmalloc(sizeof(*c) + size);

	c->next = NULL;
	c->size = size;
	c->used = 0;
	return c;
}

arena_t *arena_new(size_t hint)
{
	size_t size = hint < 256 ? 256 : hint;
	/* the arena and its first chunk in one allocation */
	struct {
		arena_t a;
		struct chunk c;
	} *both;
	size_t total;

	if (__builtin_add_overflow(sizeof(*both), size, &total))
		abort();
	both = xmalloc(total);
	both->c.next = NULL;
	both->c.size = size;
	both->c.used = 0;
	both->a.head = &both->c;
	both->a.next_size = size * 2;
	both->a.first = &both->c;
	both->a.orig = both->a.mirror = NULL;
	both->a.mirror_len = 0;
	return &both->a;
}

void arena_destroy(arena_t **p)
{
	if (!p || !*p)
		return;
	struct chunk *c = (*p)->head;
	while (c) {
		struct chunk *next = c->next;
		if (c != (*p)->first)
			free(c);
		c = next;
	}
	free(*p);
	*p = NULL;
}

/* n bytes, 8-aligned, NOT zeroed. */
static void *s_alloc(arena_t *a, size_t n);

void *arena_alloc(arena_t *a, size_t n)
{
	void *p = s_alloc(a, n);

	memset(p, 0, n);
	return p;
}

/*
 * Under AddressSanitizer each allocation gets a chunk of exactly its size,
 * so an overflow of one decoded string or list is caught at once instead
 * of landing silently in its neighbour inside a shared chunk.
 */
#if defined(__SANITIZE_ADDRESS__)
#define ARENA_EXACT 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ARENA_EXACT 1
#endif
#endif

#ifdef ARENA_EXACT
static void *s_alloc(arena_t *a, size_t n)
{
	struct chunk *c = s_chunk_new(n);

	c->used = n;
	c->next = a->head;
	a->head = c;
	return c->data;
}
#else
static void *s_alloc(arena_t *a, size_t n)
{
	struct chunk *c = a->head;
	size_t need;

	if (__builtin_add_overflow(n, 7, &need))
		abort(); /* our own size arithmetic overflowed */
	need &= ~(size_t)7;
	if (need == 0)
		need = 8;
	if (!c || c->size - c->used < need) {
		size_t size = a->next_size > need ? a->next_size : need;
		c = s_chunk_new(size);
		c->next = a->head;
		a->head = c;
		if (a->next_size < (SIZE_MAX >> 2))
			a->next_size *= 2;
	}
	void *p = c->data + c->used;
	c->used += need;
	return p;
}
#endif

void *arena_array(arena_t *a, size_t n, size_t size)
{
	size_t total;

	if (!size_mul_ok(n, size, &total))
		abort();
	return arena_alloc(a, total);
}

void arena_mirror(arena_t *a, const void *data, size_t len)
{
	a->mirror = arena_strndup(a, data, len);
	a->orig = data;
	a->mirror_len = len;
}

char *arena_strndup(arena_t *a, const char *s, size_t n)
{
	size_t total;

	uintptr_t off = (uintptr_t)s - (uintptr_t)a->orig;

	if (a->orig && (uintptr_t)s >= (uintptr_t)a->orig &&
	    off <= a->mirror_len && n <= a->mirror_len - off) {
		char *m = a->mirror + off;
		m[n] = '\0';
		return m;
	}

	if (__builtin_add_overflow(n, 1, &total))
		abort();
	char *d = s_alloc(a, total);
	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}
