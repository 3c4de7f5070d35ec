/*
 * Unit tests for keymap: a long random run of puts and deletes checked
 * against a plain list, keys that share all but their last byte, and the
 * memory given back on deletes and clear.
 */
#include "proto/tests/check.h"
#include "proto/keymap.h"

#include <sodium.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int check_failures;

typedef struct {
	uint8_t key[KEYMAP_KEY_BYTES];
	uint64_t value;
} elem_t;

#define UNIVERSE 600

static void s_key(uint8_t *key, uint32_t k)
{
	/* keys alike but for a few bytes, as an attacker would choose */
	memset(key, 0xab, KEYMAP_KEY_BYTES);
	memcpy(key + KEYMAP_KEY_BYTES - sizeof(k), &k, sizeof(k));
}

static void test_random(void)
{
	keymap_t *m = keymap_new(sizeof(elem_t));
	uint64_t ref[UNIVERSE] = { 0 }; /* 0: absent */
	size_t n = 0;

	for (uint32_t step = 0; step < 200000; step++) {
		uint32_t k = randombytes_uniform(UNIVERSE);
		uint8_t key[KEYMAP_KEY_BYTES];
		bool fresh = false;

		s_key(key, k);
		/* deletes outnumber puts in every other stretch, so the
		 * table grows and shrinks many times */
		if (randombytes_uniform(100) < ((step / 20000) % 2 ? 70 : 30)) {
			CHECK(keymap_delete(m, key) == (ref[k] != 0));
			n -= ref[k] != 0;
			ref[k] = 0;
		} else {
			elem_t *e = keymap_put(m, key, &fresh);

			CHECK(fresh == (ref[k] == 0));
			CHECK(memcmp(e->key, key, sizeof(key)) == 0);
			CHECK(fresh ? e->value == 0 : e->value == ref[k]);
			n += fresh;
			e->value = ref[k] = step + 1;
		}
		CHECK(keymap_size(m) == n);
	}
	for (uint32_t k = 0; k < UNIVERSE; k++) {
		uint8_t key[KEYMAP_KEY_BYTES];
		elem_t *e;

		s_key(key, k);
		e = keymap_get(m, key);
		CHECK(ref[k] ? e && e->value == ref[k] : e == NULL);
	}
	/* keymap_at walks each element once */
	{
		uint64_t sum = 0, want = 0;

		for (size_t i = 0; i < keymap_size(m); i++)
			sum += ((elem_t *)keymap_at(m, i))->value;
		for (uint32_t k = 0; k < UNIVERSE; k++)
			want += ref[k];
		CHECK(sum == want);
		CHECK(keymap_at(m, keymap_size(m)) == NULL);
	}
	keymap_destroy(&m);
	CHECK(m == NULL);
	keymap_destroy(&m);
}

static void test_shrink(void)
{
	keymap_t *m = keymap_new(sizeof(elem_t));
	uint8_t key[KEYMAP_KEY_BYTES];
	size_t full;

	CHECK(keymap_new(KEYMAP_KEY_BYTES - 1) == NULL);
	CHECK(keymap_get(m, key) == NULL);
	for (uint32_t k = 0; k < 10000; k++) {
		s_key(key, k);
		keymap_put(m, key, NULL);
	}
	full = keymap_bytes(m);
	/* at most half full, elements packed: under 100 bytes each */
	CHECK(full >= 10000 * sizeof(elem_t) && full < 10000 * 100);
	for (uint32_t k = 0; k < 9990; k++) {
		s_key(key, k);
		CHECK(keymap_delete(m, key));
	}
	CHECK(keymap_size(m) == 10);
	CHECK(keymap_bytes(m) < full / 100);
	/* an element's own key names it for delete */
	{
		elem_t *first = keymap_at(m, 0);
		uint8_t was[KEYMAP_KEY_BYTES];

		memcpy(was, first->key, sizeof(was));
		CHECK(keymap_delete(m, first->key));
		CHECK(keymap_get(m, was) == NULL && keymap_size(m) == 9);
		keymap_put(m, was, NULL);
	}
	for (uint32_t k = 9990; k < 10000; k++) {
		s_key(key, k);
		CHECK(keymap_get(m, key) != NULL);
	}
	keymap_clear(m);
	CHECK(keymap_size(m) == 0 && keymap_bytes(m) == 0);
	CHECK(keymap_get(m, key) == NULL && !keymap_delete(m, key));
	keymap_put(m, key, NULL);
	CHECK(keymap_size(m) == 1);
	keymap_destroy(&m);
}

/* Filled from a known count: exactly that many elements' bytes. */
static void test_reserve(void)
{
	keymap_t *m = keymap_new(sizeof(elem_t));
	uint8_t key[KEYMAP_KEY_BYTES];
	size_t bytes;

	keymap_reserve(m, 10000);
	bytes = keymap_bytes(m);
	CHECK(bytes == 10000 * sizeof(elem_t) + 32768 * 8);
	for (uint32_t k = 0; k < 10000; k++) {
		s_key(key, k);
		keymap_put(m, key, NULL);
	}
	CHECK(keymap_bytes(m) == bytes && keymap_size(m) == 10000);
	keymap_reserve(m, 100); /* never shrinks */
	CHECK(keymap_bytes(m) == bytes);
	for (uint32_t k = 0; k < 10000; k += 97) {
		s_key(key, k);
		CHECK(keymap_get(m, key) != NULL);
	}
	s_key(key, 10000);
	keymap_put(m, key, NULL); /* grows on as before */
	CHECK(keymap_size(m) == 10001 && keymap_bytes(m) > bytes);
	keymap_destroy(&m);
}

int main(void)
{
	if (sodium_init() < 0)
		return 1;
	test_random();
	test_shrink();
	test_reserve();
	return CHECK_DONE();
}
