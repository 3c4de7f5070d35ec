/*
 * lm-fill-store: fill a node's store quickly for the memory figures.
 *
 *   lm-fill-store STORE_DB KEY_FILE N [FEEDS]
 *
 * Appends N signed event records (the node's synthetic kind, as
 * `labmesh debug append-records` makes) to the feed of the key in
 * KEY_FILE (made when missing), or, with FEEDS, in turn to FEEDS feeds:
 * that key's and FEEDS - 1 others whose keys come from it (as a node of
 * a network of FEEDS labs holds one advert of each), through
 * node/store/store.c, in transactions
 * of FILL_TXN records: the records are exactly what replication would
 * have stored, without a network or a running node. The node must be
 * stopped. Prints one JSON line: records, seconds, bytes of the records.
 */
#include "node/store/store.h"
#include "node/store/wire.h"

#include <errno.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define FILL_TXN 20000
#define FILL_MAX 100000000ULL
#define FILL_MAX_FEEDS 1000000UL

static double s_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int s_one(store_t *s, const wire_key_t *key, uint64_t n,
		 size_t *bytes_total)
{
	static const uint8_t zero[WIRE_ID_BYTES];
	const store_feed_t *f = store_feed(s, key->pk);
	uint64_t seq = f ? f->seq + 1 : 1;
	wire_record_t rec;
	store_rec_t sr;
	record_t tmpl;
	char text[64];
	uint8_t *bytes = NULL;
	size_t len = 0;
	int rc;

	wire_event_tmpl(&tmpl, n, text, sizeof(text));
	rc = wire_record_sign(key, &tmpl, seq, f ? f->head : zero,
			      1700000000000LL + (int64_t)seq, &bytes, &len,
			      &rec);
	if (rc < 0)
		return rc;
	sr = (store_rec_t){ .id = rec.id, .author = rec.author,
			    .prev_id = rec.prev_id, .seq = rec.seq,
			    .kind = rec.kind, .ts_ms = rec.ts_ms,
			    .bytes = bytes, .len = len };
	rc = store_put_record(s, &sr);
	free(bytes);
	*bytes_total += len;
	return rc == STORE_ADDED ? 0 : (rc < 0 ? rc : -EIO);
}

/* The i-th other author: a key pair seeded by a hash of key and i. */
static int s_other(const wire_key_t *key, unsigned long i, wire_key_t *ret)
{
	crypto_generichash_state st;
	uint8_t seed[32];
	int rc;

	crypto_generichash_init(&st, NULL, 0, sizeof(seed));
	crypto_generichash_update(&st, key->pk, sizeof(key->pk));
	crypto_generichash_update(&st, (const uint8_t *)&i, sizeof(i));
	crypto_generichash_final(&st, seed, sizeof(seed));
	memset(ret, 0, sizeof(*ret));
	rc = key_from_seed(seed, &ret->kp);
	sodium_memzero(seed, sizeof(seed));
	if (rc == 0)
		memcpy(ret->pk, ret->kp.pk, WIRE_KEY_BYTES);
	return rc;
}

/* Record k of n goes to feed k % feeds (0: key's own). */
static int s_fill(store_t *s, const wire_key_t *key, unsigned long long n,
		  unsigned long feeds, size_t *bytes)
{
	int rc = 0;

	for (unsigned long long i = 0; rc == 0 && i < n; i += FILL_TXN) {
		rc = store_begin(s);
		for (unsigned long long k = i; rc == 0 && k < n &&
					       k < i + FILL_TXN; k++) {
			wire_key_t other;

			if (k % feeds == 0) {
				rc = s_one(s, key, k, bytes);
				continue;
			}
			rc = s_other(key, (unsigned long)(k % feeds), &other);
			if (rc == 0)
				rc = s_one(s, &other, k, bytes);
			wire_key_wipe(&other);
		}
		if (rc == 0)
			rc = store_commit(s);
		else
			store_rollback(s);
	}
	return rc;
}

int main(int argc, char **argv)
{
	unsigned long feeds = 1;
	wire_key_t key;
	store_t *s = NULL;
	char *err = NULL, *end;
	unsigned long long n;
	size_t bytes = 0;
	double t0;
	int rc;

	if (argc != 4 && argc != 5) {
		fprintf(stderr,
			"usage: lm-fill-store STORE_DB KEY_FILE N [FEEDS]\n");
		return 2;
	}
	errno = 0;
	n = strtoull(argv[3], &end, 10);
	if (errno || *end || argv[3][0] == '-' || n > FILL_MAX) {
		fprintf(stderr, "lm-fill-store: bad count '%.32s'\n", argv[3]);
		return 2;
	}
	if (argc == 5) {
		feeds = strtoul(argv[4], &end, 10);
		if (errno || *end || argv[4][0] == '-' || !feeds ||
		    feeds > FILL_MAX_FEEDS) {
			fprintf(stderr, "lm-fill-store: bad feed count"
				" '%.32s' (1 to %lu)\n", argv[4],
				FILL_MAX_FEEDS);
			return 2;
		}
	}
	if (wire_key_load_or_make(argv[2], &key, &err) < 0) {
		fprintf(stderr, "lm-fill-store: %s\n", err ? err : argv[2]);
		free(err);
		return 1;
	}
	rc = store_open(argv[1], &s);
	if (rc < 0) {
		fprintf(stderr, "lm-fill-store: %s: %s\n", argv[1],
			strerror(-rc));
		return 1;
	}
	t0 = s_now();
	rc = s_fill(s, &key, n, feeds, &bytes);
	if (rc < 0)
		fprintf(stderr, "lm-fill-store: %s\n", wire_strerror(rc));
	else
		printf("{\"records\": %llu, \"feeds\": %lu, \"seconds\":"
		       " %.3f, \"bytes\": %zu}\n", n, feeds, s_now() - t0,
		       bytes);
	store_destroy(&s);
	wire_key_wipe(&key);
	return rc < 0;
}
