/*
 * keymap: elements in one array in the order they came (a delete moves the
 * last into the hole), and an open-addressing index of (element + 1, hash)
 * pairs with linear probing, at most half full. A delete shifts the probe
 * run back instead of leaving a tombstone, so lookups never slow down with
 * churn, and the table shrinks when it is mostly empty.
 */
#include "proto/keymap.h"
#include "proto/mem.h"

#include <pthread.h>
#include <sodium.h>
#include <stdlib.h>
#include <string.h>

#define KEYMAP_MIN_SLOTS 16

typedef struct {
	uint32_t idx1; /* element + 1; 0: empty */
	uint32_t hash; /* low bits of the key's hash */
} slot_t;

struct keymap {
	size_t elem_size;
	uint8_t *elems;
	size_t n, alloc;
	slot_t *slots;
	size_t cap; /* 0 or a power of two */
};

static uint8_t s_hash_key[crypto_shorthash_KEYBYTES];
static pthread_once_t s_hash_once = PTHREAD_ONCE_INIT;

static void s_hash_init(void)
{
	randombytes_buf(s_hash_key, sizeof(s_hash_key));
}

static uint32_t s_hash(const uint8_t *key)
{
	uint8_t out[crypto_shorthash_BYTES];
	uint32_t h;

	pthread_once(&s_hash_once, s_hash_init);
	crypto_shorthash(out, key, KEYMAP_KEY_BYTES, s_hash_key);
	memcpy(&h, out, sizeof(h));
	return h;
}

static uint8_t *s_elem(const keymap_t *m, size_t i)
{
	return m->elems + i * m->elem_size;
}

keymap_t *keymap_new(size_t elem_size)
{
	keymap_t *m;

	if (elem_size < KEYMAP_KEY_BYTES)
		return NULL;
	m = xzalloc(sizeof(*m));
	m->elem_size = elem_size;
	return m;
}

void keymap_destroy(keymap_t **p)
{
	keymap_t *m = *p;

	if (!m)
		return;
	free(m->elems);
	free(m->slots);
	free(m);
	*p = NULL;
}

size_t keymap_size(const keymap_t *m)
{
	return m ? m->n : 0;
}

size_t keymap_bytes(const keymap_t *m)
{
	return m ? m->alloc * m->elem_size + m->cap * sizeof(slot_t) : 0;
}

/* The slot of key (found: *ret_found) or the empty slot where it goes. */
static size_t s_find(const keymap_t *m, const uint8_t *key, uint32_t h,
		     bool *ret_found)
{
	size_t mask = m->cap - 1, i;

	for (i = h & mask; m->slots[i].idx1; i = (i + 1) & mask) {
		if (m->slots[i].hash == h &&
		    memcmp(s_elem(m, m->slots[i].idx1 - 1), key,
			   KEYMAP_KEY_BYTES) == 0) {
			*ret_found = true;
			return i;
		}
	}
	*ret_found = false;
	return i;
}

static void s_reindex(keymap_t *m, size_t cap)
{
	slot_t *old = m->slots;
	size_t old_cap = m->cap, mask = cap - 1;

	m->slots = xcalloc(cap, sizeof(*m->slots));
	m->cap = cap;
	for (size_t k = 0; k < old_cap; k++) {
		size_t i;

		if (!old[k].idx1)
			continue;
		for (i = old[k].hash & mask; m->slots[i].idx1;
		     i = (i + 1) & mask)
			;
		m->slots[i] = old[k];
	}
	free(old);
}

void *keymap_get(const keymap_t *m, const uint8_t *key)
{
	bool found;
	size_t i;

	if (!m || !m->n)
		return NULL;
	i = s_find(m, key, s_hash(key), &found);
	return found ? s_elem(m, m->slots[i].idx1 - 1) : NULL;
}

void *keymap_put(keymap_t *m, const uint8_t *key, bool *ret_new)
{
	uint32_t h = s_hash(key);
	uint8_t *e;
	bool found = false;
	size_t i = 0;

	if (m->cap)
		i = s_find(m, key, h, &found);
	if (ret_new)
		*ret_new = !found;
	if (found)
		return s_elem(m, m->slots[i].idx1 - 1);
	if ((m->n + 1) * 2 > m->cap) {
		s_reindex(m, m->cap ? m->cap * 2 : KEYMAP_MIN_SLOTS);
		i = s_find(m, key, h, &found);
	}
	if (m->n == m->alloc) {
		m->alloc = m->alloc ? m->alloc * 2 : 8;
		m->elems = xreallocarray(m->elems, m->alloc, m->elem_size);
	}
	e = s_elem(m, m->n);
	memset(e, 0, m->elem_size);
	memcpy(e, key, KEYMAP_KEY_BYTES);
	m->slots[i].idx1 = (uint32_t)(++m->n);
	m->slots[i].hash = h;
	return e;
}

void keymap_reserve(keymap_t *m, size_t n)
{
	size_t cap = m->cap ? m->cap : KEYMAP_MIN_SLOTS;

	if (n > UINT32_MAX - 1)
		abort(); /* an index is 32 bits: our own bug */
	while (n * 2 > cap)
		cap *= 2;
	if (cap != m->cap)
		s_reindex(m, cap);
	if (n > m->alloc) {
		m->alloc = n;
		m->elems = xreallocarray(m->elems, m->alloc, m->elem_size);
	}
}

/* Empty slot i, shifting back the rest of its probe run. */
static void s_unslot(keymap_t *m, size_t i)
{
	size_t mask = m->cap - 1, j = i;

	for (;;) {
		size_t home;

		j = (j + 1) & mask;
		if (!m->slots[j].idx1)
			break;
		home = m->slots[j].hash & mask;
		/* it may fill the hole only if its home is not in (i, j] */
		if (j > i ? (home > i && home <= j) : (home > i || home <= j))
			continue;
		m->slots[i] = m->slots[j];
		i = j;
	}
	m->slots[i].idx1 = 0;
}

/* Give back what a mostly empty table holds beyond its needs. */
static void s_shrink(keymap_t *m)
{
	size_t cap = m->cap;

	while (cap > KEYMAP_MIN_SLOTS && m->n * 8 < cap)
		cap /= 2;
	if (cap != m->cap)
		s_reindex(m, cap);
	if (m->alloc > 8 && m->n * 4 < m->alloc) {
		m->alloc /= 2;
		m->elems = xreallocarray(m->elems, m->alloc, m->elem_size);
	}
}

bool keymap_delete(keymap_t *m, const uint8_t *key)
{
	uint32_t h;
	size_t i, idx, last;
	bool found;

	if (!m || !m->n)
		return false;
	h = s_hash(key);
	i = s_find(m, key, h, &found);
	if (!found)
		return false;
	idx = m->slots[i].idx1 - 1;
	s_unslot(m, i);
	last = m->n - 1;
	if (idx != last) {
		uint8_t *moved = s_elem(m, idx);

		memcpy(moved, s_elem(m, last), m->elem_size);
		i = s_find(m, moved, s_hash(moved), &found);
		/* found: it is in the index under its old place */
		m->slots[i].idx1 = (uint32_t)(idx + 1);
	}
	m->n--;
	s_shrink(m);
	return true;
}

void *keymap_at(const keymap_t *m, size_t i)
{
	return i < m->n ? s_elem(m, i) : NULL;
}

size_t keymap_index(const keymap_t *m, const void *elem)
{
	return (size_t)((const uint8_t *)elem - m->elems) / m->elem_size;
}

void keymap_clear(keymap_t *m)
{
	if (!m)
		return;
	free(m->elems);
	free(m->slots);
	m->elems = NULL;
	m->slots = NULL;
	m->n = m->alloc = m->cap = 0;
}
