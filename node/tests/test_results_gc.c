/*
 * Blob retention as the node runs it: blobs stored through blob.c with
 * old use times set explicitly (what a noatime mount leaves: reading does
 * not move them), one old blob read through the path every reader uses
 * (blob_have + blob_path), then results_gc_node over a small budget with
 * the blobs jobs_pinned_blobs names. The least recently used go, the read
 * one stays, and a kernel that a queued job of HOME/jobs.db names stays
 * however old it is; once its job is done
 * it may go. Records (store.db) and files not named like blobs are left.
 */
#include "proto/tests/check.h"
#include "node/store/blob.h"
#include "node/results/results.h"
#include "node/jobs/jobs.h"
#include "node/cli/results_cli.h"

#include "proto/keys.h"
#include "proto/mem.h"
#include "proto/record.h"
#include "proto/request.h"

#include <errno.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define N_BLOBS 8
#define BLOB_BYTES 1000

int check_failures;

static char s_home[256];
static uint8_t s_id[N_BLOBS][32];

/* Blob i: BLOB_BYTES bytes of i, last used N_BLOBS - i hours ago. */
static void s_fill(void)
{
	time_t now = time(NULL);

	for (int i = 0; i < N_BLOBS; i++) {
		uint8_t buf[BLOB_BYTES];
		struct timespec ts[2];
		char *p;

		memset(buf, 'a' + i, sizeof(buf));
		CHECK(blob_put_mem(s_home, buf, sizeof(buf), s_id[i]) == 0);
		ts[1].tv_sec = now - 3600 * (N_BLOBS - i) - 60; /* mtime */
		ts[1].tv_nsec = 0;
		ts[0].tv_sec = ts[1].tv_sec + 1; /* atime */
		ts[0].tv_nsec = 0;
		p = blob_path(s_home, s_id[i]);
		CHECK(utimensat(AT_FDCWD, p, ts, 0) == 0);
		free(p);
	}
}

static bool s_held(int i)
{
	char hex[65], *p;
	bool ok;

	/* not blob_have: asking would mark it used */
	proto_hex(s_id[i], 32, hex);
	p = xasprintf("%s/blobs/%.2s/%s", s_home, hex, hex);
	ok = access(p, F_OK) == 0;
	free(p);
	return ok;
}

/* What `labmesh log` and serving a peer do: ask, then open and read. The
 * read is O_NOATIME, as every read is on a noatime mount (and most are on
 * relatime): only the explicit mark can move the blob up. */
static void s_read(int i)
{
	char buf[BLOB_BYTES], *p;
	int fd;

	CHECK(blob_have(s_home, s_id[i]));
	p = blob_path(s_home, s_id[i]);
	fd = open(p, O_RDONLY | O_CLOEXEC | O_NOATIME);
	CHECK(fd >= 0);
	if (fd >= 0) {
		CHECK(read(fd, buf, sizeof(buf)) == (ssize_t)sizeof(buf));
		close(fd);
	}
	free(p);
}

/* HOME/jobs.db as the jobs side makes it, with one artifact request whose
 * kernel is blob `kernel` and a job of it on one board in `state`. */
static void s_jobs_db(int kernel, int state)
{
	char *path = xasprintf("%s/jobs.db", s_home);
	static const char *const suites[] = { "smoke" };
	request_t req = { 0 };
	key_pair_t kp;
	uint8_t seed[32], *bytes = NULL, rid[32];
	size_t len = 0;
	sqlite3 *db;
	sqlite3_stmt *st;

	memset(seed, 7, sizeof(seed));
	CHECK(key_from_seed(seed, &kp) == 0);
	req.created_ms = (uint64_t)time(NULL) * 1000;
	req.expires_ms = req.created_ms + 3600 * 1000;
	memset(req.nonce, 3, sizeof(req.nonce));
	req.priority = 1;
	req.kernel.type = REQUEST_KERNEL_ARTIFACT;
	req.kernel.url = req.kernel.branch = req.kernel.commit = "";
	req.kernel.config = req.kernel.describe = "";
	req.kernel.arch = "x86_64";
	memcpy(req.kernel.kernel_blob, s_id[kernel], 32);
	req.suites = suites;
	req.n_suites = 1;
	req.select.arch = "";
	CHECK_ERR(request_sign(&req, &kp, &bytes, &len, rid), 0);
	CHECK(sqlite3_open(path, &db) == SQLITE_OK);
	CHECK(sqlite3_exec(db,
		"PRAGMA journal_mode=WAL;"
		"CREATE TABLE IF NOT EXISTS requests(id BLOB PRIMARY KEY,"
		" submitter BLOB NOT NULL, bytes BLOB NOT NULL, expires_ms INT);"
		"CREATE TABLE IF NOT EXISTS jobs(id INTEGER PRIMARY KEY,"
		" request_id BLOB NOT NULL, board TEXT NOT NULL, submitter BLOB,"
		" state INT NOT NULL, priority INT NOT NULL, attempts INT"
		" DEFAULT 0, created_ms INT, updated_ms INT, expires_ms INT,"
		" pid INT DEFAULT 0, text TEXT DEFAULT '',"
		" UNIQUE(request_id, board));"
		"DELETE FROM jobs; DELETE FROM requests;",
		NULL, NULL, NULL) == SQLITE_OK);
	CHECK(sqlite3_prepare_v2(db, "INSERT INTO requests VALUES(?, ?, ?, 0)",
				 -1, &st, NULL) == SQLITE_OK);
	sqlite3_bind_blob(st, 1, rid, 32, SQLITE_STATIC);
	sqlite3_bind_blob(st, 2, kp.pk, 32, SQLITE_STATIC);
	sqlite3_bind_blob(st, 3, bytes, (int)len, SQLITE_STATIC);
	CHECK(sqlite3_step(st) == SQLITE_DONE);
	sqlite3_finalize(st);
	CHECK(sqlite3_prepare_v2(db, "INSERT INTO jobs(request_id, board,"
				 " state, priority) VALUES(?, 'b0', ?, 1)",
				 -1, &st, NULL) == SQLITE_OK);
	sqlite3_bind_blob(st, 1, rid, 32, SQLITE_STATIC);
	sqlite3_bind_int(st, 2, state);
	CHECK(sqlite3_step(st) == SQLITE_DONE);
	sqlite3_finalize(st);
	CHECK(sqlite3_close(db) == SQLITE_OK);
	key_wipe(&kp);
	free(bytes);
	free(path);
}

int main(void)
{
	results_gc_stats_t st;
	uint8_t (*pins)[32] = NULL;
	size_t n_pins = 0;
	char *other, *store;
	FILE *f;

	snprintf(s_home, sizeof(s_home), "/tmp/lm-results-gc-XXXXXX");
	if (!mkdtemp(s_home))
		return 1;
	s_fill();
	other = xasprintf("%s/blobs/tmp/not-a-blob", s_home);
	store = xasprintf("%s/store.db", s_home);
	f = fopen(other, "w");
	fclose(f);
	f = fopen(store, "w");
	fputs("records stay", f);
	fclose(f);

	/* no jobs.db: nothing pinned */
	CHECK(jobs_pinned_blobs(s_home, &pins, &n_pins) == 0 && n_pins == 0);
	free(pins);

	/* blob 1 (the second oldest) is read; blob 0, the oldest, is the
	 * kernel of a queued job */
	s_read(1);
	s_jobs_db(0, JOB_QUEUED);
	CHECK(jobs_pinned_blobs(s_home, &pins, &n_pins) == 0 && n_pins == 1 &&
	      memcmp(pins[0], s_id[0], 32) == 0);

	/* 8000 bytes over a 4500 budget: 4 go, oldest first, skipping the
	 * pinned 0 and the read 1 */
	CHECK(results_gc_node(s_home, 4500, pins, n_pins, &st) == 0);
	CHECK(st.files == N_BLOBS && st.bytes == N_BLOBS * BLOB_BYTES);
	CHECK(st.evicted == 4 && st.freed == 4 * BLOB_BYTES);
	CHECK(st.kept == 1);
	CHECK(s_held(0)); /* a queued job needs it */
	CHECK(s_held(1)); /* read: most recently used */
	for (int i = 2; i <= 5; i++)
		CHECK(!s_held(i));
	CHECK(s_held(6) && s_held(7));
	CHECK(access(other, F_OK) == 0 && access(store, F_OK) == 0);

	/* within budget: nothing more goes */
	CHECK(results_gc_node(s_home, 4500, pins, n_pins, &st) == 0 &&
	      st.evicted == 0);
	free(pins);

	/* the job is done: its kernel is an old blob like any other */
	s_jobs_db(0, JOB_DONE);
	CHECK(jobs_pinned_blobs(s_home, &pins, &n_pins) == 0 && n_pins == 0);
	CHECK(results_gc_node(s_home, 3000, pins, n_pins, &st) == 0);
	free(pins);
	CHECK(st.evicted == 1 && !s_held(0));
	CHECK(s_held(1) && s_held(6) && s_held(7));

	/* a running job pins as well */
	s_jobs_db(6, JOB_RUNNING);
	CHECK(jobs_pinned_blobs(s_home, &pins, &n_pins) == 0);
	CHECK(results_gc_node(s_home, 0, pins, n_pins, &st) == 0);
	free(pins);
	CHECK(st.evicted == 2 && st.kept == 1 && s_held(6));
	CHECK(!s_held(1) && !s_held(7));

	/* `labmesh store gc` keeps what a job needs as well */
	{
		uint8_t fresh[32], buf[BLOB_BYTES];
		char *av[] = { "store", "gc", "--budget", "1000", "--home",
			       s_home, NULL };
		char *p;

		memset(buf, 'z', sizeof(buf));
		CHECK(blob_put_mem(s_home, buf, sizeof(buf), fresh) == 0);
		CHECK(cmd_store(6, av) == 0);
		CHECK(s_held(6));
		p = blob_path(s_home, fresh);
		CHECK(access(p, F_OK) < 0);
		free(p);
	}

	free(other);
	free(store);
	{
		char *cmd = xasprintf("rm -rf '%s'", s_home);

		if (system(cmd) != 0)
			fprintf(stderr, "could not remove %s\n", s_home);
		free(cmd);
	}
	printf("test-results-gc: %d failed\n", check_failures);
	return check_failures ? 1 : 0;
}
