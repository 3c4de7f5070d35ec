/*
 * lm-fill-store: fill a node's store quickly for the memory figures.
 *
 *   lm-fill-store STORE_DB KEY_FILE N
 *
 * Appends N signed event records (the node's synthetic kind, as
 * `labmesh debug append-records` makes) to the feed of the key in
 * KEY_FILE (made when missing), through node/store/store.c, in transactions
 * of FILL_TXN records: the records are exactly what replication would
 * have stored, without a network or a running node. The node must be
 * stopped. Prints one JSON line: records, seconds, bytes of the records.
 */
#include "node/store/store.h"
#include "node/store/wire.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define FILL_TXN 20000
#define FILL_MAX 100000000ULL

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

int main(int argc, char **argv)
{
	wire_key_t key;
	store_t *s = NULL;
	char *err = NULL, *end;
	unsigned long long n;
	size_t bytes = 0;
	double t0;
	int rc;

	if (argc != 4) {
		fprintf(stderr, "usage: lm-fill-store STORE_DB KEY_FILE N\n");
		return 2;
	}
	errno = 0;
	n = strtoull(argv[3], &end, 10);
	if (errno || *end || argv[3][0] == '-' || n > FILL_MAX) {
		fprintf(stderr, "lm-fill-store: bad count '%.32s'\n", argv[3]);
		return 2;
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
	for (unsigned long long i = 0; rc == 0 && i < n; i += FILL_TXN) {
		rc = store_begin(s);
		for (unsigned long long k = i; rc == 0 && k < n &&
					       k < i + FILL_TXN; k++)
			rc = s_one(s, &key, k, &bytes);
		if (rc == 0)
			rc = store_commit(s);
		else
			store_rollback(s);
	}
	if (rc < 0)
		fprintf(stderr, "lm-fill-store: %s\n", wire_strerror(rc));
	else
		printf("{\"records\": %llu, \"seconds\": %.3f, \"bytes\": %zu}\n",
		       n, s_now() - t0, bytes);
	store_destroy(&s);
	wire_key_wipe(&key);
	return rc < 0;
}
