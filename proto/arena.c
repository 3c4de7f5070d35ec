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
	size_t next_size;
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
	arena_t *a = xzalloc(sizeof(*a));

	a->next_size = hint < 256 ? 256 : hint;
	return a;
}

void arena_destroy(arena_t **p)
{
	if (!p || !*p)
		return;
	struct chunk *c = (*p)->head;
	while (c) {
		struct chunk *next = c->next;
		free(c);
		c = next;
	}
	free(*p);
	*p = NULL;
}

void *arena_alloc(arena_t *a, size_t n)
{
	struct chunk *c = a->head;
	size_t need;

	if (!size_add_ok(n, 7, &need))
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
	memset(p, 0, n);
	return p;
}

void *arena_array(arena_t *a, size_t n, size_t size)
{
	size_t total;

	if (!size_mul_ok(n, size, &total))
		abort();
	return arena_alloc(a, total);
}

char *arena_strndup(arena_t *a, const char *s, size_t n)
{
	size_t total;

	if (!size_add_ok(n, 1, &total))
		abort();
	char *d = arena_alloc(a, total);
	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}
