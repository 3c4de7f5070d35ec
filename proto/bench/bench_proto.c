/*
 * bench-proto: signed records decoded and verified per second through the
 * FULL strict path (record_decode: caps, strict decode of envelope and
 * body into structs, re-encode comparison, Ed25519 over the received
 * bytes, BLAKE2b id), against a bare crypto_sign_verify_detached loop over
 * the same signed bytes, measured in the same run, alternating, best of
 * several rounds each. Two record sets, each with its own baseline:
 *   - the mix: a run record with 50 test cases and an advert with two
 *     boards, half each (about 1.45 KB mean);
 *   - large runs: run records with 1000 test cases each (about 40 KB),
 *     the size of a kselftest run with many cases.
 * Every record is distinct (its own seq).
 */
#include "proto/codec.h"
#include "proto/record.h"
#include "proto/tests/sample.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sodium.h>

#define N_MIX 2000
#define N_LARGE 200
#define LARGE_CASES 1000
#define ROUNDS 15

struct item {
	uint8_t *data;
	size_t len;
	uint8_t *msg; /* prefix || signed bytes: what Ed25519 covers */
	size_t mlen;
	const uint8_t *sig, *pk;
};

struct set {
	struct item *items;
	size_t n;
};

static double s_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* n records: runs with n_cases cases, alternating with adverts if mix. */
static void s_make(struct set *set, size_t n, bool mix, size_t n_cases)
{
	static key_pair_t kp; /* items point at kp.pk */
	const size_t plen = sizeof(RECORD_SIG_PREFIX);

	sample_key(0, &kp);
	set->items = calloc(n, sizeof(*set->items));
	set->n = n;
	for (size_t i = 0; i < n; i++) {
		struct item *it = &set->items[i];
		record_t rec;
		uint8_t id[32];
		sample_record(mix && i % 2 ? RECORD_ADVERT : RECORD_RUN, i + 1,
			      n_cases, &rec);
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

static void s_free(struct set *set)
{
	for (size_t i = 0; i < set->n; i++) {
		free(set->items[i].data);
		free(set->items[i].msg);
	}
	free(set->items);
}

static double s_full(const struct set *set)
{
	double t0 = s_now();

	for (size_t i = 0; i < set->n; i++) {
		record_t *rec;
		if (record_decode(set->items[i].data, set->items[i].len,
				  &rec) != 0)
			abort();
		record_destroy(&rec);
	}
	return set->n / (s_now() - t0);
}

static double s_bare(const struct set *set)
{
	double t0 = s_now();

	for (size_t i = 0; i < set->n; i++) {
		const struct item *it = &set->items[i];
		if (crypto_sign_verify_detached(it->sig, it->msg, it->mlen,
						it->pk) != 0)
			abort();
	}
	return set->n / (s_now() - t0);
}

/* Best of ROUNDS each, alternating; prints the figure and the mean size. */
static void s_figure(const struct set *set, const char *figure,
		     const char *size_figure)
{
	double full = 0, bare = 0, bytes = 0;

	for (size_t i = 0; i < set->n; i++)
		bytes += (double)set->items[i].len;
	s_full(set); /* warm caches */
	s_bare(set);
	for (int r = 0; r < ROUNDS; r++) {
		double f = s_full(set), b = s_bare(set);
		if (f > full)
			full = f;
		if (b > bare)
			bare = b;
	}
	double ratio = full / bare;
	printf("{\"figure\": \"%s\", \"value\": %.0f, \"unit\": \"records/s\", "
	       "\"baseline\": %.0f, \"ratio\": %.3f, \"target\": "
	       "\"ratio >= 0.9\", \"met\": %s}\n",
	       figure, full, bare, ratio, ratio >= 0.9 ? "true" : "false");
	printf("{\"figure\": \"%s\", \"value\": %.0f, \"unit\": \"bytes\"}\n",
	       size_figure, bytes / set->n);
	fflush(stdout);
}

int main(void)
{
	struct set mix, large;

	if (sodium_init() < 0)
		return 1;
	s_make(&mix, N_MIX, true, 50);
	s_make(&large, N_LARGE, false, LARGE_CASES);
	s_figure(&mix, "proto record decode+verify, full strict path",
		 "proto bench record size (mean)");
	s_figure(&large,
		 "proto record decode+verify, full strict path, "
		 "run records with 1000 cases",
		 "proto bench large run record size (mean)");
	s_free(&mix);
	s_free(&large);
	sample_free();
	return 0;
}
