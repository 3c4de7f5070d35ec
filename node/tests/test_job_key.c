/*
 * test_job_key: the executor's one-off key (node/store/wire.h, "the jobs
 * side"). A run record signed with a job's seed opens with that job's
 * public key; the same record is refused (-EPERM) under another job's
 * key or the node's own, and a record of another kind is refused even
 * under the right key, so the node takes a result only from the executor
 * it started.
 */
#include "proto/tests/check.h"
#include "node/store/wire.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int check_failures;

static void s_run_tmpl(record_t *t)
{
	static const run_suite_t suite = { .name = "smoke", .version = "",
					   .status = PROTO_PASS };

	memset(t, 0, sizeof(*t));
	t->head.kind = RECORD_RUN;
	t->run.has_request = true;
	memset(t->run.request_id, 7, 32);
	t->run.board = "host-a";
	t->run.lab = "lab-a";
	t->run.kernel = (run_kernel_t){ .tree_url = "", .branch = "",
					.commit = "", .config = "",
					.arch = "x86_64", .describe = "6.1",
					.build = BUILD_NONE, .compiler = "" };
	t->run.suites = &suite;
	t->run.n_suites = 1;
	t->run.status = PROTO_PASS;
}

int main(void)
{
	uint8_t seed[32], pk[32], seed2[32], pk2[32], *bytes = NULL;
	size_t len = 0;
	record_t t, *rec = NULL;
	int rc;

	CHECK(wire_job_key(seed, pk) == 0);
	CHECK(wire_job_key(seed2, pk2) == 0);
	CHECK(memcmp(pk, pk2, 32) != 0);
	s_run_tmpl(&t);
	rc = wire_run_sign(seed, &t, &bytes, &len);
	CHECK(rc == 0);
	if (rc < 0) {
		printf("test-job-key: cannot sign: %s\n", wire_strerror(rc));
		return 1;
	}

	/* the job's own key: taken, the body intact */
	CHECK(wire_run_open(bytes, len, pk, &rec) == 0);
	CHECK(rec && rec->head.kind == RECORD_RUN &&
	      strcmp(rec->run.board, "host-a") == 0 &&
	      rec->run.status == PROTO_PASS);
	record_destroy(&rec);

	/* another job's key: refused */
	CHECK(wire_run_open(bytes, len, pk2, &rec) == -EPERM && !rec);

	/* damaged bytes: refused by the decoder */
	bytes[len / 2] ^= 1;
	CHECK(wire_run_open(bytes, len, pk, &rec) < 0 && !rec);
	free(bytes);

	/* not a run record, though signed by the job's key */
	memset(&t, 0, sizeof(t));
	t.head.kind = RECORD_EVENT;
	t.event.board = "host-a";
	t.event.state = JOB_QUEUED;
	t.event.suite = "";
	t.event.text = "";
	CHECK(wire_run_sign(seed, &t, &bytes, &len) == 0);
	CHECK(wire_run_open(bytes, len, pk, &rec) == -EPERM && !rec);
	free(bytes);

	printf("test-job-key: %d failed\n", check_failures);
	return check_failures ? 1 : 0;
}
