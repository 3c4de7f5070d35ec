/*
 * dash-tool: fills a home for the dashboard tests. The synthetic network
 * of node/results/results_synth.h (2 labs x 2 boards x 3 commits) plus one more
 * lab, "lab-x", whose single run on commit 0 carries hostile text where
 * the protocol allows free text (branch, describe, a case message) and a
 * real log blob (content-addressed, under HOME/blobs) holding markup.
 * Board and lab names are name syntax in the protocol: the tool checks
 * that a run with "<script>" in its board name cannot even be signed.
 *
 *   dash-tool HOME
 * Prints one JSON line: {"hostile_run": HEX, "log_blob": HEX,
 *                        "script_board_refused": true}
 *
 *   dash-tool --blob-fetch HOME N
 * Asks the node running in HOME to fetch N random blob ids (held by no
 * node) over its control socket, as the dashboard does for a log; prints
 * each answer's first word (fetching, busy, ...), one a line.
 */
#include "node/net/ctl.h"
#include "node/results/results_synth.h"
#include "node/store/store.h"

#include "proto/mem.h"
#include "proto/record.h"
#include "proto/types.h"

#include <errno.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define HOSTILE "<script>document.title='pwned'</script>"

static const char s_log[] = "[    0.000000] Linux version 6.8.0 (dash test)\n"
			    "[    1.234567] " HOSTILE "\n"
			    "<img src=x onerror=\"document.title='pwned'\">\n"
			    "ok 1 - boot\nnot ok 2 - mmap & <b>bold</b>\n";

static int s_write_blob(const char *home, const uint8_t id[32])
{
	char hex[65], *dir, *path;
	FILE *f;
	int rc = 0;

	proto_hex(id, 32, hex);
	dir = xasprintf("%s/blobs/%.2s", home, hex);
	path = xasprintf("%s/%s", dir, hex);
	free(path);
	path = xasprintf("%s/blobs", home);
	mkdir(path, 0700);
	mkdir(dir, 0700);
	free(path);
	path = xasprintf("%s/%s", dir, hex);
	f = fopen(path, "wb");
	if (!f || fwrite(s_log, 1, sizeof(s_log) - 1, f) != sizeof(s_log) - 1)
		rc = -EIO;
	if (f && fclose(f) != 0)
		rc = -EIO;
	free(dir);
	free(path);
	return rc;
}

static void s_fill(record_run_t *run, run_suite_t *s, run_case_t *c,
		   run_log_t *log, const char *board, const char *commit,
		   uint64_t t)
{
	c[0] = (run_case_t){.path = "boot",
			    .status = PROTO_PASS,
			    .duration_ms = 1200,
			    .message = ""};
	c[1] = (run_case_t){.path = "mmap",
			    .status = PROTO_FAIL,
			    .duration_ms = 30,
			    .message = "got " HOSTILE " & <i>x</i>"};
	*s = (run_suite_t){.name = "suite0",
			   .version = "1.0",
			   .status = PROTO_FAIL,
			   .duration_ms = 5000,
			   .start_ms = t,
			   .end_ms = t + 5000,
			   .cases = c,
			   .n_cases = 2,
			   .logs = log,
			   .n_logs = 1};
	*run = (record_run_t){
		.board = board,
		.lab = "lab-x",
		.kernel = {.tree_url = "https://example.org/<b>tree</b>.git",
			   .branch = "xss-" HOSTILE,
			   .commit = commit,
			   .config = "defconfig",
			   .arch = "x86_64",
			   .describe = HOSTILE,
			   .build = BUILD_PASS,
			   .compiler = "gcc"},
		.suites = s,
		.n_suites = 1,
		.status = PROTO_FAIL,
	};
}

static int s_blob_fetch(const char *home, const char *count)
{
	long n = strtol(count, NULL, 10);

	for (long i = 0; i < n; i++) {
		uint8_t id[32];
		char hex[65], *body = NULL;
		const char *args[1] = {hex};
		bool ok = false;

		randombytes_buf(id, sizeof(id));
		proto_hex(id, 32, hex);
		if (ctl_call(home, "blob-fetch", false, 1, args, NULL,
			     CTL_TIMEOUT_MS, &ok, &body) < 0) {
			fprintf(stderr, "dash-tool: no node answers in %s\n",
				home);
			return 1;
		}
		printf("%s %.*s\n", ok ? "ok" : "error",
		       (int)strcspn(body, " \n"), body);
		free(body);
	}
	return 0;
}

int main(int argc, char **argv)
{
	synth_params_t p;
	synth_feed_t feed;
	record_t rec = {0};
	run_suite_t suite;
	run_case_t cases[2];
	run_log_t log = {.name = "console"};
	store_t *store = NULL;
	char commit[41], hex[65], bhex[65], *db;
	uint8_t *bytes, id[32];
	size_t len;
	uint64_t n;
	bool refused;
	int rc;

	if (argc == 4 && !strcmp(argv[1], "--blob-fetch"))
		return s_blob_fetch(argv[2], argv[3]);
	if (argc != 2) {
		fprintf(stderr, "usage: dash-tool HOME\n");
		return 2;
	}
	synth_params_default(&p);
	rc = synth_dataset(argv[1], &p, false, &n);
	if (rc < 0) {
		fprintf(stderr, "dash-tool: synth failed (%d)\n", rc);
		return 1;
	}
	synth_commit(0, commit);
	crypto_generichash(log.blob_id, 32, (const uint8_t *)s_log,
			   sizeof(s_log) - 1, NULL, 0);
	if (s_write_blob(argv[1], log.blob_id) < 0) {
		fprintf(stderr, "dash-tool: cannot write the log blob\n");
		return 1;
	}
	synth_feed_init(&feed, 0xd5);
	rec.head.kind = RECORD_RUN;
	rec.head.seq = 1;
	rec.head.ts_ms = p.t0_ms + 3600000;

	/* a board name with markup is not a name: it cannot be signed */
	s_fill(&rec.run, &suite, cases, &log, "b<script>alert(1)</script>",
	       commit, rec.head.ts_ms);
	refused = record_sign(&rec, &feed.key, &bytes, &len, id) < 0;

	s_fill(&rec.run, &suite, cases, &log, "xss-board", commit,
	       rec.head.ts_ms);
	rc = record_sign(&rec, &feed.key, &bytes, &len, id);
	if (rc < 0) {
		fprintf(stderr, "dash-tool: sign failed (%d)\n", rc);
		return 1;
	}
	db = xasprintf("%s/store.db", argv[1]);
	rc = store_open(db, &store);
	free(db);
	if (rc == 0)
		rc = store_put_record(
			store, &(store_rec_t){.id = id,
					      .author = feed.key.pk,
					      .prev_id = feed.head,
					      .seq = 1,
					      .kind = RECORD_RUN,
					      .ts_ms = (int64_t)rec.head.ts_ms,
					      .bytes = bytes,
					      .len = len});
	store_destroy(&store);
	free(bytes);
	if (rc != STORE_ADDED) {
		fprintf(stderr, "dash-tool: store failed (%d)\n", rc);
		return 1;
	}
	proto_hex(id, 32, hex);
	proto_hex(log.blob_id, 32, bhex);
	printf("{\"hostile_run\": \"%s\", \"log_blob\": \"%s\","
	       " \"script_board_refused\": %s}\n",
	       hex, bhex, refused ? "true" : "false");
	return 0;
}
