/*
 * keymap: a table keyed by 32-byte keys (public keys, ids), each element
 * elem_size bytes that begin with its key, all in one array. An entry
 * costs its element and 8-32 bytes of index, where a czmq table of hex
 * keys costs 200-300 bytes. The index hashes keys with SipHash under a key
 * drawn once per process, so keys a peer chooses cannot crowd one probe
 * run. Elements move when the table grows or loses one: a pointer from
 * keymap_get, keymap_put or keymap_at is valid until the next put or
 * delete.
 */
#ifndef LABMESH_PROTO_KEYMAP_H
#define LABMESH_PROTO_KEYMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define KEYMAP_KEY_BYTES 32

typedef struct keymap keymap_t;

/* A new empty table of elements of elem_size (>= KEYMAP_KEY_BYTES) bytes. */
keymap_t *keymap_new(size_t elem_size);
void keymap_destroy(keymap_t **p);

size_t keymap_size(const keymap_t *m);
/* The element of key, or NULL. */
void *keymap_get(const keymap_t *m, const uint8_t *key);
/* The element of key, made if new (zeroed but for its key; *ret_new set
 * when ret_new is not NULL). */
void *keymap_put(keymap_t *m, const uint8_t *key, bool *ret_new);
/* Remove key's element; false if it had none. The last element takes its
 * place in keymap_at's order. key may be the element's own (it is read
 * before anything moves). */
bool keymap_delete(keymap_t *m, const uint8_t *key);
/* The i-th element, 0 <= i < keymap_size. */
void *keymap_at(const keymap_t *m, size_t i);
/* The index of elem, an element of m, in keymap_at's order. */
size_t keymap_index(const keymap_t *m, const void *elem);
/* Make room for n elements in all, so that puts up to n neither move
 * elements nor grow the table: a table filled from a known count holds
 * n elements' bytes, not the next power of two's. n is a count the
 * caller bounds (below 2^32: an element's index is 32 bits). */
void keymap_reserve(keymap_t *m, size_t n);
/* Remove every element and give back the memory. */
void keymap_clear(keymap_t *m);
/* Bytes the table holds from the heap. */
size_t keymap_bytes(const keymap_t *m);

#endif
