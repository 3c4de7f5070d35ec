/*
 * lm-logrun: put log files in a home's blob store and publish, for each,
 * one signed synthetic run whose suite's log is that blob, so `labmesh
 * log RUN` has a real blob to show, fetch or miss.
 *
 *   lm-logrun HOME SEED LAB BOARD FILE...
 *
 * SEED (1..255) picks the feed's key; prints "RUN-ID BLOB-ID" per FILE.
 */
#include "node/store/blob.h"
#include "node/results/results_synth.h"

#include "proto/mem.h"
#include "proto/types.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int main(int argc, char **argv)
{
	synth_feed_t feed;
	store_t *store = NULL;
	char *db;
	long seed;
	int rc;

	if (argc < 6) {
		fprintf(stderr, "usage: lm-logrun HOME SEED LAB BOARD FILE...\n");
		return 2;
	}
	seed = strtol(argv[2], NULL, 10);
	if (seed < 1 || seed > 255)
		return 2;
	synth_feed_init(&feed, (uint8_t)seed);
	db = xasprintf("%s/store.db", argv[1]);
	rc = store_open(db, &store);
	free(db);
	if (rc < 0) {
		fprintf(stderr, "lm-logrun: store: %d\n", rc);
		return 1;
	}
	for (int i = 5; i < argc && rc == 0; i++) {
		uint8_t blob[32], run[32];
		char bhex[65], rhex[65];
		uint64_t t = (uint64_t)time(NULL) * 1000 + (uint64_t)i;
		synth_run_t *r = synth_run_new(argv[3], argv[4], "x86_64", "",
					       "", "");

		rc = blob_put_file(argv[1], argv[i], blob);
		if (rc == 0) {
			synth_suite(r, "smoke", t - 1000, t, PROTO_PASS);
			synth_case(r, "smoke.boot", PROTO_PASS, 10, "");
			synth_log_blob(r, "console", blob);
			rc = synth_publish(&feed, store, r, t, NULL, NULL, run);
		}
		synth_run_destroy(&r);
		if (rc == 0) {
			proto_hex(blob, 32, bhex);
			proto_hex(run, 32, rhex);
			printf("%s %s\n", rhex, bhex);
		}
	}
	store_destroy(&store);
	if (rc != 0)
		fprintf(stderr, "lm-logrun: %d\n", rc);
	return rc == 0 ? 0 : 1;
}
