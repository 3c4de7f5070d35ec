/*
 * lm-mkruns: publish signed synthetic runs described line by line on
 * stdin into HOME/store.db, so a script test knows exactly what a store
 * holds and can compute each query's answer by itself.
 *
 *   lm-mkruns HOME < SPEC
 *
 *   run SEED LAB BOARD ARCH TREE BRANCH COMMIT END_MS   (start a run)
 *   build CONFIG COMPILER NONE|PASS|FAIL|ERROR          (its kernel build)
 *   runlog NAME                                         (a log of the run)
 *   suite NAME STATUS                                   (start a suite)
 *   case PATH STATUS                                    (of that suite)
 *   metric NAME VALUE UNIT lower|higher                 (of that suite)
 *   end                                                 (sign and store)
 *   future SEED KIND TEXT END_MS  (a record of a kind this version does
 *                                  not know, body [TEXT], next in feed)
 *
 * SEED (1..255) picks the author's feed; "-" stands for an empty BRANCH.
 * Prints the id of each run stored, one a line.
 */
#include "node/results/results_synth.h"

#include "proto/codec.h"
#include "proto/mem.h"
#include "proto/record.h"
#include "proto/types.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MKRUNS_MAX_LINE 1024
#define MKRUNS_MAX_FIELDS 10
#define MKRUNS_FEEDS 256

static int s_split(char *line, char **f)
{
	int n = 0;

	for (char *t = strtok(line, " \t\n"); t && n < MKRUNS_MAX_FIELDS;
	     t = strtok(NULL, " \t\n"))
		f[n++] = t;
	return n;
}

static const char *s_dash(const char *s)
{
	return strcmp(s, "-") ? s : "";
}

static int s_build_status(const char *s)
{
	for (int b = BUILD_NONE; b <= BUILD_STATUS_MAX; b++)
		if (!strcasecmp(s, build_status_name(b)))
			return b;
	return -1;
}

/* A record of a kind a newer version would make, signed as the next of
 * feed f: the envelope as every record's, its body [text]. */
static int s_future(synth_feed_t *f, store_t *store, uint64_t kind,
		    const char *text, uint64_t ts_ms, uint8_t id[32])
{
	mp_enc_t e;
	uint8_t *bytes;
	size_t len;
	store_rec_t sr;
	int rc;

	mp_enc_init(&e, 256);
	mp_put_array(&e, 8);
	mp_put_uint(&e, RECORD_VERSION);
	mp_put_uint(&e, kind);
	mp_put_bin(&e, f->key.pk, 32);
	mp_put_uint(&e, f->seq + 1);
	if (f->seq)
		mp_put_bin(&e, f->head, 32);
	else
		mp_put_nil(&e);
	mp_put_uint(&e, ts_ms);
	mp_put_array(&e, 1);
	mp_put_str(&e, text);
	rc = enc_sign_finish(&e, RECORD_SIG_PREFIX, &f->key, &bytes, &len);
	if (rc < 0)
		return rc;
	proto_id(bytes, len, id);
	sr = (store_rec_t){ .id = id, .author = f->key.pk, .prev_id = f->head,
			    .seq = f->seq + 1, .kind = (int)kind,
			    .ts_ms = (int64_t)ts_ms, .bytes = bytes,
			    .len = len };
	rc = store_put_record(store, &sr);
	free(bytes);
	if (rc != STORE_ADDED)
		return rc < 0 ? rc : -EIO;
	f->seq++;
	memcpy(f->head, id, 32);
	return 0;
}

static synth_feed_t *s_feed(synth_feed_t *feeds, bool *ready, unsigned seed)
{
	if (!ready[seed]) {
		synth_feed_init(&feeds[seed], (uint8_t)seed);
		ready[seed] = true;
	}
	return &feeds[seed];
}

int main(int argc, char **argv)
{
	static synth_feed_t feeds[MKRUNS_FEEDS];
	static bool ready[MKRUNS_FEEDS];
	char line[MKRUNS_MAX_LINE], *f[MKRUNS_MAX_FIELDS];
	synth_run_t *r = NULL;
	store_t *store = NULL;
	uint64_t end = 0;
	unsigned seed = 0;
	char *db;
	int rc, lineno = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: lm-mkruns HOME < SPEC\n");
		return 2;
	}
	db = xasprintf("%s/store.db", argv[1]);
	rc = store_open(db, &store);
	free(db);
	if (rc < 0)
		return 1;
	while (rc == 0 && fgets(line, sizeof(line), stdin)) {
		int n = s_split(line, f);
		enum proto_status st;

		lineno++;
		if (n == 0)
			continue;
		if (!strcmp(f[0], "run") && n == 9 && !r) {
			seed = (unsigned)strtoul(f[1], NULL, 10) % MKRUNS_FEEDS;
			s_feed(feeds, ready, seed);
			r = synth_run_new(f[2], f[3], f[4], f[5], s_dash(f[6]),
					  f[7]);
			end = strtoull(f[8], NULL, 10);
		} else if (!strcmp(f[0], "build") && n == 4 && r &&
			   s_build_status(f[3]) > 0) {
			synth_run_build(r, f[1], f[2], s_build_status(f[3]));
		} else if (!strcmp(f[0], "runlog") && n == 2 && r) {
			synth_run_log(r, f[1], (uint8_t)seed);
		} else if (!strcmp(f[0], "suite") && n == 3 && r &&
			   proto_status_parse(f[2], &st) == 0) {
			synth_suite(r, f[1], end - 1000, end, st);
		} else if (!strcmp(f[0], "case") && n == 3 && r &&
			   proto_status_parse(f[2], &st) == 0) {
			synth_case(r, f[1], st, 10, "");
		} else if (!strcmp(f[0], "metric") && n == 5 && r) {
			synth_metric(r, f[1], strtod(f[2], NULL), f[3],
				     !strcmp(f[4], "lower") ? METRIC_LOWER :
							      METRIC_HIGHER);
		} else if (!strcmp(f[0], "future") && n == 5 && !r) {
			uint8_t id[32];
			char hex[65];
			unsigned fs = (unsigned)strtoul(f[1], NULL, 10) %
				      MKRUNS_FEEDS;

			rc = s_future(s_feed(feeds, ready, fs), store,
				      strtoull(f[2], NULL, 10), f[3],
				      strtoull(f[4], NULL, 10), id);
			if (rc == 0) {
				proto_hex(id, 32, hex);
				printf("%s\n", hex);
			}
		} else if (!strcmp(f[0], "end") && n == 1 && r) {
			uint8_t id[32];
			char hex[65];

			rc = synth_publish(&feeds[seed], store, r, end, NULL,
					   NULL, id);
			synth_run_destroy(&r);
			if (rc == 0) {
				proto_hex(id, 32, hex);
				printf("%s\n", hex);
			}
		} else {
			fprintf(stderr, "lm-mkruns: line %d: bad line\n",
				lineno);
			rc = -1;
		}
	}
	synth_run_destroy(&r);
	store_destroy(&store);
	if (rc != 0)
		fprintf(stderr, "lm-mkruns: %d\n", rc);
	return rc == 0 ? 0 : 1;
}
