/*
 * bench-jobs: what the jobs machinery costs.
 *
 * 1. Per-job overhead: the smoke suite on a local board run directly
 *    (board_open, suite_run, board_close in this process) against the
 *    same suite submitted to a real node (request signed here, handed
 *    over the control socket): from the submit to the node's `done`
 *    event, minus the direct time. BENCH_ROUNDS interleaved pairs; the
 *    figure is the median of the pairs' differences (a pair shares the
 *    machine's load of its moment, which the difference cancels).
 * 2. Submit-to-accept: a 20-node loopback network (each lab a node with a
 *    local board, the default max_peers, seeded with one or two random
 *    earlier nodes, as bench_network.py does, so a flood takes several
 *    hops); requests submitted at node 0; for every lab, the time from
 *    the submit to its `accept` record (the labs' clocks are this
 *    machine's). Median and p99 over every (request, lab). Labs that
 *    never accept are counted and printed (and make "met" false), not
 *    dropped. The requests are cancelled once answered, so nothing piles
 *    up.
 *
 * The labmesh binary is found beside this program. Ports 18600-18699.
 */
#include "node/net/ctl.h"

#include "labs/lab.h"
#include "proto/keys.h"
#include "proto/mem.h"
#include "proto/record.h"
#include "proto/request.h"
#include "proto/types.h"
#include "suites/catalog.h"
#include "suites/runner.h"
#include "transports/transport.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <sodium.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define BENCH_ROUNDS 11
#define BENCH_NODES 20
#define BENCH_REQUESTS 5
#define BENCH_PORT 18600

static char s_labmesh[PATH_MAX];
static char s_dir[] = "/tmp/labmesh-bench-jobs-XXXXXX";
static pid_t s_pids[BENCH_NODES + 1];
static key_pair_t s_key;

static int64_t s_wall(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000; /* us */
}

static int s_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double s_pct(double *v, size_t n, double p)
{
	size_t i;

	qsort(v, n, sizeof(*v), s_cmp);
	i = (size_t)(p * (double)(n - 1) + 0.5);
	return v[i < n ? i : n - 1];
}

static char *s_home(int i)
{
	return xasprintf("%s/n%d", s_dir, i);
}

/* Start node i with the default max_peers, seeded with n_seeds earlier
 * nodes (their indices in seeds[], their ids in ids[]). */
static pid_t s_start_node(int i, const int *seeds, char (*ids)[65],
			  int n_seeds)
{
	char *home = s_home(i), *cfg = xasprintf("%s/lab.yaml", home);
	FILE *f;
	pid_t pid;

	mkdir(home, 0700);
	f = fopen(cfg, "w");
	if (!f)
		return -1;
	fprintf(f, "lab: {name: bench-%d}\nnode:\n  listen: \"tcp://127.0.0.1:%d\""
		"\n", i, BENCH_PORT + i);
	if (n_seeds)
		fprintf(f, "  seeds:\n");
	for (int k = 0; k < n_seeds; k++)
		fprintf(f, "    - {endpoint: \"tcp://127.0.0.1:%d\", key: %s}\n",
			BENCH_PORT + seeds[k], ids[k]);
	fprintf(f, "boards:\n  - {name: host, arch: %s, transport: {type:"
		" local}, boot: {method: none}}\n", suite_host_arch());
	fclose(f);
	pid = fork();
	if (pid == 0) {
		int nul = open("/dev/null", O_WRONLY);

		dup2(nul, 1);
		dup2(nul, 2);
		execl(s_labmesh, "labmesh", "node", "--home", home, "--config",
		      cfg, "--log-level", "warn", (char *)NULL);
		_exit(127);
	}
	for (int t = 0; t < 200 && !ctl_running(home); t++)
		usleep(50000);
	free(home);
	free(cfg);
	return pid;
}

static void s_node_id(int i, char out[65])
{
	char *home = s_home(i), *cmd = xasprintf("%s --home %s id", s_labmesh,
						  home);
	FILE *p = popen(cmd, "r");

	out[0] = '\0';
	if (p && fgets(out, 65, p))
		out[64] = '\0';
	if (p)
		pclose(p);
	free(home);
	free(cmd);
}

/* Sign and hand a none-kernel request to node i; its id. */
static int s_submit(int i, const char *suite, uint8_t id[32])
{
	request_t req = { 0 };
	const char *suites[1] = { suite }, *args[1];
	char *home = s_home(i), *body = NULL;
	uint8_t *bytes = NULL;
	size_t len = 0;
	bool ok = false;
	int rc;

	req.created_ms = (uint64_t)(s_wall() / 1000);
	req.expires_ms = req.created_ms + 3600 * 1000;
	randombytes_buf(req.nonce, sizeof(req.nonce));
	req.priority = 50;
	req.kernel.type = REQUEST_KERNEL_NONE;
	req.suites = suites;
	req.n_suites = 1;
	req.select.arch = "";
	rc = request_sign(&req, &s_key, &bytes, &len, id);
	if (rc == 0) {
		args[0] = (const char *)bytes;
		rc = ctl_call(home, "submit-raw", false, 1, args, &len,
			      CTL_TIMEOUT_MS, &ok, &body);
	}
	free(bytes);
	free(body);
	free(home);
	return rc < 0 || !ok ? -EIO : 0;
}

static void s_cancel(int i, const uint8_t id[32])
{
	char *home = s_home(i), *body = NULL;
	uint8_t *bytes = NULL, cid[32];
	const char *args[1];
	size_t len = 0;
	bool ok;

	if (cancel_sign(id, (uint64_t)(s_wall() / 1000), &s_key, &bytes, &len,
			cid) == 0) {
		args[0] = (const char *)bytes;
		ctl_call(home, "cancel", false, 1, args, &len, CTL_TIMEOUT_MS,
			 &ok, &body);
	}
	free(bytes);
	free(body);
	free(home);
}

/*
 * The ts of records about request id in node i's store: accepts (one per
 * author, into ts[], up to max) or the done event. Returns how many.
 */
static size_t s_scan(int i, const uint8_t id[32], int kind, int64_t *ts,
		     size_t max)
{
	char *path = xasprintf("%s/n%d/store.db", s_dir, i);
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	size_t n = 0;

	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
	    sqlite3_prepare_v2(db, "SELECT bytes FROM records WHERE kind=?",
			       -1, &st, NULL) == SQLITE_OK) {
		sqlite3_busy_timeout(db, 1000);
		sqlite3_bind_int(st, 1, kind);
		while (n < max && sqlite3_step(st) == SQLITE_ROW) {
			record_t *r = NULL;

			if (record_decode(sqlite3_column_blob(st, 0),
					  (size_t)sqlite3_column_bytes(st, 0),
					  &r) < 0)
				continue;
			if (kind == RECORD_ACCEPT &&
			    !memcmp(r->accept.request_id, id, 32))
				ts[n++] = (int64_t)r->head.ts_ms;
			else if (kind == RECORD_EVENT && r->event.has_request &&
				 !memcmp(r->event.request_id, id, 32) &&
				 r->event.state == JOB_DONE)
				ts[n++] = (int64_t)r->head.ts_ms;
			record_destroy(&r);
		}
	}
	sqlite3_finalize(st);
	sqlite3_close(db);
	free(path);
	return n;
}

/* The smoke suite directly through the transport: wall time in ms. */
static double s_direct(const lab_config_t *cfg, const suite_def_t *def)
{
	suite_run_opts_t ro = { .lab = cfg, .board = &cfg->boards[0] };
	suite_result_t *res = NULL;
	board_t *b = NULL;
	char *err = NULL;
	suite_kernel_t k = { 0 };
	int64_t t0 = s_wall();

	if (board_open(&cfg->boards[0], NULL, NULL, &b, &err) < 0) {
		free(err);
		return -1;
	}
	/* the job asks the board for its kernel too */
	suite_kernel_identity(board_transport(b), &k);
	suite_run(board_transport(b), def, k.machine, &ro, &res);
	board_close(&b);
	suite_kernel_clear(&k);
	suite_result_destroy(&res);
	return (double)(s_wall() - t0) / 1000.0;
}

static double s_via_job(void)
{
	uint8_t id[32];
	int64_t t0 = s_wall(), done = 0;

	if (s_submit(0, "smoke", id) < 0)
		return -1;
	for (int t = 0; t < 6000 && !s_scan(0, id, RECORD_EVENT, &done, 1); t++)
		usleep(10000);
	return done ? (double)(done * 1000 - t0) / 1000.0 : -1;
}

static void s_overhead(void)
{
	lab_config_t *cfg = lab_config_default();
	char *dir = catalog_default_dir(NULL), *err = NULL;
	catalog_t *cat = NULL;
	double direct[BENCH_ROUNDS], job[BENCH_ROUNDS], diff[BENCH_ROUNDS];
	double d, j, o;

	if (!dir || catalog_load(dir, &cat, &err) < 0 ||
	    !catalog_find(cat, "smoke")) {
		fprintf(stderr, "bench-jobs: no suite catalog\n");
		return;
	}
	s_pids[0] = s_start_node(0, NULL, NULL, 0);
	s_via_job(); /* warm the suite cache and the page cache */
	for (int r = 0; r < BENCH_ROUNDS; r++) {
		direct[r] = s_direct(cfg, catalog_find(cat, "smoke"));
		job[r] = s_via_job();
		diff[r] = job[r] - direct[r];
	}
	d = s_pct(direct, BENCH_ROUNDS, 0.5);
	j = s_pct(job, BENCH_ROUNDS, 0.5);
	o = s_pct(diff, BENCH_ROUNDS, 0.5);
	printf("{\"figure\": \"per-job overhead (smoke on a local board,"
	       " submit to done event, minus the direct run)\", \"value\":"
	       " %.1f, \"unit\": \"ms\", \"baseline\": %.1f, \"ratio\": %.3f,"
	       " \"target\": \"value <= 50 ms\", \"met\": %s}\n", o, d,
	       j / d, o <= 50 ? "true" : "false");
	printf("{\"figure\": \"smoke through a submitted job (median)\","
	       " \"value\": %.1f, \"unit\": \"ms\"}\n", j);
	fflush(stdout);
	kill(s_pids[0], SIGTERM);
	waitpid(s_pids[0], NULL, 0);
	s_pids[0] = 0;
	catalog_destroy(&cat);
	lab_config_destroy(&cfg);
	free(dir);
	free(err);
}

/* How many peers node i has up (`labmesh peers --json`), -1 unknown. */
static int s_peers_up(int i)
{
	char *home = s_home(i), *cmd = xasprintf("%s --home %s --json peers",
						  s_labmesh, home);
	FILE *p = popen(cmd, "r");
	char line[512];
	int n = 0;

	if (!p)
		n = -1;
	while (p && fgets(line, sizeof(line), p))
		n += strstr(line, "\"state\": \"up\"") != NULL;
	if (p && pclose(p) != 0)
		n = -1;
	free(home);
	free(cmd);
	return n;
}

/* How many labs' adverts node i holds (its own included). */
static int s_adverts(int i)
{
	char *path = xasprintf("%s/n%d/store.db", s_dir, i);
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	int n = 0;

	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
	    sqlite3_prepare_v2(db, "SELECT count(DISTINCT author) FROM records"
			       " WHERE kind=?", -1, &st, NULL) == SQLITE_OK) {
		sqlite3_busy_timeout(db, 1000);
		sqlite3_bind_int(st, 1, RECORD_ADVERT);
		if (sqlite3_step(st) == SQLITE_ROW)
			n = sqlite3_column_int(st, 0);
	}
	sqlite3_finalize(st);
	sqlite3_close(db);
	free(path);
	return n;
}

static void s_network(void)
{
	double lat[BENCH_NODES * BENCH_REQUESTS];
	size_t n_lat = 0, missed = 0;
	bool ever[BENCH_NODES] = { false };
	int never = 0, t;
	uint32_t rng = 20261203; /* a fixed topology: runs compare */

	/* as bench_network.py: node i seeds from 1 or 2 random earlier
	 * nodes, the default max_peers (8): floods take several hops */
	s_pids[0] = s_start_node(0, NULL, NULL, 0);
	for (int i = 1; i < BENCH_NODES; i++) {
		int seeds[2], n_seeds;
		char ids[2][65];

		rng = rng * 1103515245u + 12345u;
		n_seeds = i == 1 || (rng >> 16) % 2 == 0 ? 1 : 2;
		for (int k = 0; k < n_seeds; k++) {
			do {
				rng = rng * 1103515245u + 12345u;
				seeds[k] = (int)((rng >> 16) % (uint32_t)i);
			} while (k == 1 && seeds[1] == seeds[0]);
			s_node_id(seeds[k], ids[k]);
		}
		s_pids[i] = s_start_node(i, seeds, ids, n_seeds);
	}
	/* peers exchange, connect and settle: every advert at node 0 */
	for (t = 0; t < 600 && s_adverts(0) < BENCH_NODES; t++)
		usleep(100000);
	fprintf(stderr, "bench-jobs: node 0 holds %d of %d adverts after"
		" %.1f s\n", s_adverts(0), BENCH_NODES, t / 10.0);
	sleep(2);
	{
		int lo = BENCH_NODES, hi = 0, sum = 0;

		for (int i = 0; i < BENCH_NODES; i++) {
			int k = s_peers_up(i);

			lo = k < lo ? k : lo;
			hi = k > hi ? k : hi;
			sum += k;
		}
		fprintf(stderr, "bench-jobs: peers up per node: min %d, mean"
			" %.1f, max %d (of %d others)\n", lo,
			(double)sum / BENCH_NODES, hi, BENCH_NODES - 1);
	}
	for (int r = 0; r < BENCH_REQUESTS; r++) {
		uint8_t id[32];
		int64_t ts[BENCH_NODES], t0 = s_wall();
		size_t n = 0;

		if (s_submit(0, "smoke", id) < 0)
			break;
		/* each lab's own store holds its accept as soon as signed */
		for (int i = 0; i < BENCH_NODES; i++) {
			int64_t one = 0;

			for (int k = 0; k < 1000 && !one; k++) {
				if (!s_scan(i, id, RECORD_ACCEPT, &one, 1))
					usleep(10000);
			}
			if (one) {
				ts[n++] = one;
				ever[i] = true;
			} else {
				missed++;
			}
		}
		for (size_t k = 0; k < n; k++)
			lat[n_lat++] = (double)(ts[k] * 1000 - t0) / 1000.0;
		s_cancel(0, id);
		fprintf(stderr, "bench-jobs: request %d: %zu of %d labs"
			" accepted\n", r + 1, n, BENCH_NODES);
		sleep(1);
	}
	for (int i = 0; i < BENCH_NODES; i++)
		never += !ever[i];
	/* a lab that never accepts is not in the percentiles: say so */
	printf("{\"figure\": \"labs of a %d-node network (max_peers 8) that"
	       " never accepted\", \"value\": %d, \"unit\": \"labs\","
	       " \"baseline\": 0, \"target\": \"value == 0\", \"met\": %s,"
	       " \"missed_answers\": %zu}\n", BENCH_NODES, never,
	       never ? "false" : "true", missed);
	if (n_lat) {
		printf("{\"figure\": \"submit to accept, every lab of a %d-node"
		       " network (median)\", \"value\": %.1f, \"unit\": \"ms\","
		       " \"met\": %s}\n", BENCH_NODES, s_pct(lat, n_lat, 0.5),
		       never ? "false" : "true");
		printf("{\"figure\": \"submit to accept, every lab of a %d-node"
		       " network (p99)\", \"value\": %.1f, \"unit\": \"ms\","
		       " \"met\": %s}\n", BENCH_NODES, s_pct(lat, n_lat, 0.99),
		       never ? "false" : "true");
	}
	fflush(stdout);
}

static void s_stop_all(void)
{
	for (int i = 0; i <= BENCH_NODES; i++) {
		if (s_pids[i] > 0) {
			kill(s_pids[i], SIGTERM);
			waitpid(s_pids[i], NULL, 0);
		}
	}
}

int main(void)
{
	char *self = realpath("/proc/self/exe", NULL), *slash, *cmd;

	if (!self || sodium_init() < 0)
		return 1;
	slash = strrchr(self, '/');
	*slash = '\0';
	snprintf(s_labmesh, sizeof(s_labmesh), "%s/labmesh", self);
	free(self);
	if (!mkdtemp(s_dir))
		return 1;
	key_generate(&s_key);
	s_overhead();
	s_network();
	s_stop_all();
	key_wipe(&s_key);
	cmd = xasprintf("rm -rf %s", s_dir);
	if (system(cmd) != 0)
		fprintf(stderr, "bench-jobs: could not remove %s\n", s_dir);
	free(cmd);
	return 0;
}
