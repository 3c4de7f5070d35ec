/*
 * A request's view read from a store built here (reqview_collect): the
 * accept of a lab whose clock is hours behind the submitter's is found by
 * the second reading, which covers the labs that are named or have a
 * board the request selects, and not the records of labs that cannot
 * serve it (they keep silent about it).
 *
 * A request for x86_64 boards; three labs: lab-a (x86_64, accepts, its
 * clock three hours behind), lab-b (arm64: cannot serve it; 200 old
 * runs), lab-c (x86_64: could serve it, silent; 3 old runs).
 */
#include "proto/tests/check.h"
#include "node/results/reqview.h"
#include "node/results/results_synth.h"
#include "node/store/store.h"
#include "proto/mem.h"
#include "proto/record.h"
#include "proto/request.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int check_failures;

#define HOUR 3600000ULL
#define T0 1796000000000ULL /* the request's time (the submitter's clock) */

static void s_advert(synth_feed_t *f, store_t *st, const char *lab,
		     const char *board, const char *arch, uint64_t ts)
{
	static const char *const suites[] = { "smoke" };
	record_board_t b = { .name = board, .arch = arch, .machine = "",
			     .transport = "local", .boot = "none",
			     .state = BOARD_IDLE };
	record_t rec = { 0 };

	rec.head.kind = RECORD_ADVERT;
	rec.advert.lab = lab;
	memcpy(rec.advert.node_id, f->key.pk, 32);
	rec.advert.description = "";
	rec.advert.software = "labmesh test";
	rec.advert.suites = suites;
	rec.advert.n_suites = 1;
	rec.advert.boards = &b;
	rec.advert.n_boards = 1;
	CHECK_ERR(synth_publish_record(f, st, &rec, ts, NULL, NULL, NULL), 0);
}

static void s_runs(synth_feed_t *f, store_t *st, const char *lab,
		   const char *board, const char *arch, int n, uint64_t ts)
{
	for (int i = 0; i < n; i++) {
		synth_run_t *r = synth_run_new(lab, board, arch, "", "", "");

		synth_suite(r, "smoke", ts, ts + 10, PROTO_PASS);
		CHECK(synth_publish(f, st, r, ts + 20 + (uint64_t)i, NULL, NULL,
				    NULL) == 0);
		synth_run_destroy(&r);
	}
}

static const reqview_lab_t *s_lab(const reqview_t *v, const char *name)
{
	for (size_t i = 0; i < v->n; i++)
		if (strcmp(v->labs[i].name, name) == 0)
			return &v->labs[i];
	return NULL;
}

int main(void)
{
	static const char *const suites[] = { "smoke" };
	static const char *const accepted[] = { "a-board" };
	char home[] = "/tmp/lm-reqview.XXXXXX";
	synth_feed_t fa, fb, fc, fs;
	request_t req = { 0 };
	record_t rec = { 0 };
	uint8_t *bytes, id[32];
	size_t len;
	store_t *st;
	sqlite3 *db;
	reqview_t v = { 0 };
	const reqview_lab_t *l;
	char *path;

	CHECK(mkdtemp(home) != NULL);
	path = xasprintf("%s/store.db", home);
	CHECK(store_open(path, &st) == 0);
	synth_feed_init(&fa, 21);
	synth_feed_init(&fb, 22);
	synth_feed_init(&fc, 23);
	synth_feed_init(&fs, 25);

	/* any lab's x86_64 boards */
	req.created_ms = T0;
	req.expires_ms = T0 + HOUR;
	req.priority = 50;
	req.kernel.type = REQUEST_KERNEL_NONE;
	req.suites = suites;
	req.n_suites = 1;
	req.select.arch = "x86_64";
	CHECK(request_sign(&req, &fs.key, &bytes, &len, id) == 0);
	CHECK(store_put_request(st, id, bytes, len, (int64_t)(T0 + HOUR)) == 1);
	free(bytes);

	s_advert(&fa, st, "lab-a", "a-board", "x86_64", T0 - 5 * HOUR);
	s_advert(&fb, st, "lab-b", "b-board", "arm64", T0 - 5 * HOUR);
	s_advert(&fc, st, "lab-c", "c-board", "x86_64", T0 - 5 * HOUR);
	s_runs(&fb, st, "lab-b", "b-board", "arm64", 200, T0 - 4 * HOUR);
	s_runs(&fc, st, "lab-c", "c-board", "x86_64", 3, T0 - 4 * HOUR);
	/* lab-a accepts, by a clock three hours behind */
	rec.head.kind = RECORD_ACCEPT;
	memcpy(rec.accept.request_id, id, 32);
	rec.accept.boards = accepted;
	rec.accept.n_boards = 1;
	CHECK(synth_publish_record(&fa, st, &rec, T0 - 3 * HOUR, NULL, NULL,
				   NULL) == 0);
	store_destroy(&st);

	CHECK(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK);
	CHECK(reqview_collect(db, id, &v) == 0);
	l = s_lab(&v, "lab-a");
	CHECK(l && l->answer == REQVIEW_ACCEPTED);
	CHECK(!s_lab(&v, "lab-b") && !s_lab(&v, "lab-c"));
	/* first reading: the 3 adverts (nothing else is recent); second:
	 * the adverts again, lab-a's accept and lab-c's 3 runs, none of
	 * lab-b's 200 runs */
	printf("records read: %zu (lab-b holds 200 runs)\n", v.n_read);
	CHECK(v.n_read == 3 + 3 + 1 + 3);
	reqview_free(&v);
	sqlite3_close(db);

	free(path);
	{
		char *cmd = xasprintf("rm -rf '%s'", home);

		CHECK(system(cmd) == 0);
		free(cmd);
	}
	return CHECK_DONE();
}
