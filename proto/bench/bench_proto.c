/*
 * bench-proto: signed records decoded and verified per second through the
 * FULL strict path (record_decode: caps, strict decode of envelope and
 * body into structs, re-encode comparison, Ed25519 over the received
 * bytes, BLAKE2b id), against a bare crypto_sign_verify_detached loop over
 * the same signed bytes, measured in the same run, alternating, best of
 * several rounds each. The records: a run record with 50 test cases and
 * an advert with two boards, half each, every one distinct (own seq).
 */
#include "proto/codec.h"
#include "proto/record.h"
#include "proto/tests/sample.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sodium.h>

#define N_RECORDS 2000
#define ROUNDS 15

struct item {
	uint8_t *data;
	size_t len;
	uint8_t *msg; /* prefix || signed bytes: what Ed25519 covers */
	size_t mlen;
	const uint8_t *sig, *pk;
};

static struct item s_items[N_RECORDS];

static double s_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void s_make(void)
{
	static key_pair_t kp; /* items point at kp.pk */
	const size_t plen = sizeof(RECORD_SIG_PREFIX);

	sample_key(0, &kp);
	for (size_t i = 0; i < N_RECORDS; i++) {
		struct item *it = &s_items[i];
		record_t rec;
		uint8_t id[32];
		sample_record(i % 2 ? RECORD_ADVERT : RECORD_RUN, i + 1, 50, &rec);
		if (record_sign(&rec, &kp, &it->data, &it->len, id) < 0)
			abort();
		it->mlen = plen + it->len - 66; /* sig is the last 66 bytes */
		it->msg = malloc(it->mlen);
		memcpy(it->msg, RECORD_SIG_PREFIX, plen);
		memcpy(it->msg + plen, it->data, it->len - 66);
		it->sig = it->data + it->len - 64;
		it->pk = kp.pk;
		if (crypto_sign_verify_detached(it->sig, it->msg, it->mlen,
						it->pk) != 0)
			abort();
	}
}

static double s_full(void)
{
	double t0 = s_now();

	for (size_t i = 0; i < N_RECORDS; i++) {
		record_t *rec;
		if (record_decode(s_items[i].data, s_items[i].len, &rec) != 0)
			abort();
		record_destroy(&rec);
	}
	return N_RECORDS / (s_now() - t0);
}

static double s_bare(void)
{
	double t0 = s_now();

	for (size_t i = 0; i < N_RECORDS; i++) {
		const struct item *it = &s_items[i];
		if (crypto_sign_verify_detached(it->sig, it->msg, it->mlen,
						it->pk) != 0)
			abort();
	}
	return N_RECORDS / (s_now() - t0);
}

int main(void)
{
	double full = 0, bare = 0, bytes = 0;

	if (sodium_init() < 0)
		return 1;
	s_make();
	for (size_t i = 0; i < N_RECORDS; i++)
		bytes += (double)s_items[i].len;
	s_full(); /* warm caches */
	s_bare();
	for (int r = 0; r < ROUNDS; r++) {
		double f = s_full(), b = s_bare();
		if (f > full)
			full = f;
		if (b > bare)
			bare = b;
	}
	double ratio = full / bare;
	printf("{\"figure\": \"proto record decode+verify, full strict path\", "
	       "\"value\": %.0f, \"unit\": \"records/s\", \"baseline\": %.0f, "
	       "\"ratio\": %.3f, \"target\": \"ratio >= 0.9\", \"met\": %s}\n",
	       full, bare, ratio, ratio >= 0.9 ? "true" : "false");
	printf("{\"figure\": \"proto bench record size (mean)\", \"value\": %.0f, "
	       "\"unit\": \"bytes\"}\n", bytes / N_RECORDS);
	for (size_t i = 0; i < N_RECORDS; i++) {
		free(s_items[i].data);
		free(s_items[i].msg);
	}
	sample_free();
	return 0;
}
