/*
 * results_synth: builds run bodies piece by piece (strings copied and
 * owned), then signs them with wire_record_sign_as and stores them with
 * store_put_record, exactly as a node would.
 */
#include "node/results/results_synth.h"
#include "node/results/results.h"

#include "node/store/wire.h"

#include "proto/mem.h"
#include "proto/types.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
	run_suite_t s;
	run_case_t *cases;
	size_t n_cases, a_cases;
	run_metric_t *metrics;
	size_t n_metrics, a_metrics;
	run_log_t *logs;
	size_t n_logs;
} s_suite_t;

struct synth_run {
	record_run_t run;
	s_suite_t *suites;
	size_t n_suites, a_suites;
	run_suite_t *flat;
	run_log_t *logs; /* the run's own (build, console) */
	size_t n_logs;
	char **strs;
	size_t n_strs, a_strs;
};

static const char *s_keep(synth_run_t *r, const char *s)
{
	if (r->n_strs == r->a_strs) {
		r->a_strs = r->a_strs ? r->a_strs * 2 : 64;
		r->strs = xreallocarray(r->strs, r->a_strs, sizeof(*r->strs));
	}
	return r->strs[r->n_strs++] = xstrdup(s ? s : "");
}

void synth_feed_init(synth_feed_t *f, uint8_t seed_byte)
{
	uint8_t seed[32];

	memset(f, 0, sizeof(*f));
	for (int i = 0; i < 32; i++)
		seed[i] = (uint8_t)(seed_byte * 31 + i);
	key_from_seed(seed, &f->key);
}

synth_run_t *synth_run_new(const char *lab, const char *board,
			   const char *arch, const char *tree,
			   const char *branch, const char *commit)
{
	synth_run_t *r = xzalloc(sizeof(*r));
	run_kernel_t *k = &r->run.kernel;

	r->run.lab = s_keep(r, lab);
	r->run.board = s_keep(r, board);
	k->arch = s_keep(r, arch);
	k->tree_url = s_keep(r, tree);
	k->branch = s_keep(r, branch);
	k->commit = s_keep(r, commit);
	k->describe = s_keep(r, "");
	k->config = s_keep(r, "defconfig");
	k->compiler = s_keep(r, "gcc (Debian 12.2.0-14) 12.2.0");
	k->build = BUILD_PASS;
	r->run.status = PROTO_PASS;
	return r;
}

void synth_run_destroy(synth_run_t **p)
{
	synth_run_t *r = *p;

	if (!r)
		return;
	for (size_t i = 0; i < r->n_suites; i++) {
		free(r->suites[i].cases);
		free(r->suites[i].metrics);
		free(r->suites[i].logs);
	}
	for (size_t i = 0; i < r->n_strs; i++)
		free(r->strs[i]);
	free(r->strs);
	free(r->suites);
	free(r->flat);
	free(r->logs);
	free(r);
	*p = NULL;
}

void synth_run_build(synth_run_t *r, const char *config, const char *compiler,
		     enum build_status build)
{
	r->run.kernel.config = s_keep(r, config);
	r->run.kernel.compiler = s_keep(r, compiler);
	r->run.kernel.build = build;
}

void synth_request(synth_run_t *r, const uint8_t id[32])
{
	r->run.has_request = true;
	memcpy(r->run.request_id, id, 32);
}

void synth_suite(synth_run_t *r, const char *name, uint64_t start_ms,
		 uint64_t end_ms, enum proto_status status)
{
	s_suite_t *s;

	if (r->n_suites == r->a_suites) {
		r->a_suites = r->a_suites ? r->a_suites * 2 : 8;
		r->suites = xreallocarray(r->suites, r->a_suites,
					  sizeof(*r->suites));
	}
	s = &r->suites[r->n_suites++];
	memset(s, 0, sizeof(*s));
	s->s.name = s_keep(r, name);
	s->s.version = s_keep(r, "1.0");
	s->s.status = status;
	s->s.start_ms = start_ms;
	s->s.end_ms = end_ms;
	s->s.duration_ms = end_ms - start_ms;
}

void synth_case(synth_run_t *r, const char *path, enum proto_status status,
		uint64_t duration_ms, const char *message)
{
	s_suite_t *s = &r->suites[r->n_suites - 1];

	if (s->n_cases == s->a_cases) {
		s->a_cases = s->a_cases ? s->a_cases * 2 : 64;
		s->cases = xreallocarray(s->cases, s->a_cases,
					 sizeof(*s->cases));
	}
	s->cases[s->n_cases++] = (run_case_t){
		.path = s_keep(r, path), .status = status,
		.duration_ms = duration_ms, .message = s_keep(r, message) };
}

void synth_metric(synth_run_t *r, const char *name, double value,
		  const char *unit, enum metric_better better)
{
	s_suite_t *s = &r->suites[r->n_suites - 1];

	if (s->n_metrics == s->a_metrics) {
		s->a_metrics = s->a_metrics ? s->a_metrics * 2 : 16;
		s->metrics = xreallocarray(s->metrics, s->a_metrics,
					   sizeof(*s->metrics));
	}
	s->metrics[s->n_metrics++] = (run_metric_t){
		.name = s_keep(r, name), .value = value,
		.unit = s_keep(r, unit), .better = better };
}

void synth_log(synth_run_t *r, const char *name, uint8_t tag)
{
	s_suite_t *s = &r->suites[r->n_suites - 1];
	run_log_t *l;

	s->logs = xreallocarray(s->logs, s->n_logs + 1, sizeof(*s->logs));
	l = &s->logs[s->n_logs++];
	l->name = s_keep(r, name);
	proto_id(name, strlen(name), l->blob_id);
	l->blob_id[0] = tag;
}

void synth_log_blob(synth_run_t *r, const char *name, const uint8_t id[32])
{
	s_suite_t *s = &r->suites[r->n_suites - 1];
	run_log_t *l;

	s->logs = xreallocarray(s->logs, s->n_logs + 1, sizeof(*s->logs));
	l = &s->logs[s->n_logs++];
	l->name = s_keep(r, name);
	memcpy(l->blob_id, id, 32);
}

void synth_run_log(synth_run_t *r, const char *name, uint8_t tag)
{
	run_log_t *l;

	r->logs = xreallocarray(r->logs, r->n_logs + 1, sizeof(*r->logs));
	l = &r->logs[r->n_logs++];
	l->name = s_keep(r, name);
	proto_id(name, strlen(name), l->blob_id);
	l->blob_id[0] = tag;
}

static void s_flatten(synth_run_t *r)
{
	free(r->flat);
	r->flat = xcalloc(r->n_suites + 1, sizeof(*r->flat));
	for (size_t i = 0; i < r->n_suites; i++) {
		s_suite_t *s = &r->suites[i];

		r->flat[i] = s->s;
		r->flat[i].cases = s->cases;
		r->flat[i].n_cases = s->n_cases;
		r->flat[i].metrics = s->metrics;
		r->flat[i].n_metrics = s->n_metrics;
		r->flat[i].logs = s->logs;
		r->flat[i].n_logs = s->n_logs;
	}
	r->run.suites = r->flat;
	r->run.n_suites = r->n_suites;
	r->run.logs = r->logs;
	r->run.n_logs = r->n_logs;
}

int synth_publish_record(synth_feed_t *f, store_t *store, record_t *rec,
			 uint64_t ts_ms, uint8_t **ret_bytes, size_t *ret_len,
			 uint8_t ret_id[32])
{
	uint8_t *bytes, id[32];
	size_t len;
	store_rec_t sr;
	int rc;

	rec->head.seq = f->seq + 1;
	rec->head.has_prev = f->seq > 0;
	memcpy(rec->head.prev_id, f->head, 32);
	rec->head.ts_ms = ts_ms;
	rc = wire_record_sign_as(&f->key, rec, &bytes, &len, id);
	if (rc < 0)
		return rc;
	sr = (store_rec_t){ .id = id, .author = f->key.pk, .prev_id = f->head,
			    .seq = rec->head.seq, .kind = rec->head.kind,
			    .ts_ms = (int64_t)ts_ms, .bytes = bytes,
			    .len = len };
	rc = store ? store_put_record(store, &sr) : STORE_ADDED;
	if (rc != STORE_ADDED) {
		free(bytes);
		return rc < 0 ? rc : -EIO;
	}
	f->seq++;
	memcpy(f->head, id, 32);
	if (ret_id)
		memcpy(ret_id, id, 32);
	if (ret_bytes) {
		*ret_bytes = bytes;
		*ret_len = len;
	} else {
		free(bytes);
	}
	return 0;
}

int synth_publish(synth_feed_t *f, store_t *store, synth_run_t *r,
		  uint64_t ts_ms, uint8_t **ret_bytes, size_t *ret_len,
		  uint8_t ret_id[32])
{
	record_t rec = { 0 };

	s_flatten(r);
	rec.head.kind = RECORD_RUN;
	rec.run = r->run;
	return synth_publish_record(f, store, &rec, ts_ms, ret_bytes, ret_len,
				    ret_id);
}

/* ---- a whole dataset ---- */


void synth_params_default(synth_params_t *p)
{
	*p = (synth_params_t){ .commits = 3, .labs = 2, .boards = 2,
			       .suites = 3, .cases = 20, .metrics = 2,
			       .batch = 50, .t0_ms = 1793491200000ULL };
}

void synth_commit(unsigned i, char out[41])
{
	char name[32];
	uint8_t h[32];

	snprintf(name, sizeof(name), "commit-%u", i);
	proto_id(name, strlen(name), h);
	proto_hex(h, 20, out);
}

static uint32_t s_mix(uint32_t a, uint32_t b, uint32_t c, uint32_t d,
		      uint32_t e)
{
	uint64_t h = 0x9e3779b97f4a7c15ULL;
	uint32_t v[5] = { a, b, c, d, e };

	for (int i = 0; i < 5; i++) {
		h ^= v[i] + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
		h *= 0xbf58476d1ce4e5b9ULL;
		h ^= h >> 31;
	}
	return (uint32_t)h;
}

static enum proto_status s_status(uint32_t h)
{
	uint32_t r = h % 1000;

	return r < 20 ? PROTO_FAIL : r < 50 ? PROTO_SKIP :
	       r < 52 ? PROTO_ERROR : PROTO_PASS;
}

static const char *const s_messages[] = {
	"expected <1> & got \"2\" in 'f'\tat line 12\nsee log \xc3\xa9\xe2\x9c\x93",
	"timeout after 30s",
	"assertion failed: x == y",
};

static synth_run_t *s_make_run(const synth_params_t *p, unsigned c,
			       unsigned l, unsigned b)
{
	char lab[32], board[32], commit[41], suite[32], path[64];
	uint64_t t = p->t0_ms + (uint64_t)c * 86400000ULL +
		     (uint64_t)(l * p->boards + b) * 60000ULL;
	synth_run_t *r;

	snprintf(lab, sizeof(lab), "lab-%c", 'a' + (int)(l % 26));
	snprintf(board, sizeof(board), "board-%u-%u", l, b);
	synth_commit(c, commit);
	r = synth_run_new(lab, board, b % 2 ? "arm64" : "x86_64",
			  l == 1 ? "git://git.example.org/linux.git" :
			  "https://git.kernel.org/pub/scm/linux/kernel/git/"
			  "torvalds/linux.git", "master", commit);
	for (unsigned s = 0; s < p->suites; s++) {
		uint64_t st = t + s * 1000;

		snprintf(suite, sizeof(suite), "suite%u", s);
		synth_suite(r, suite, st, st + 900, PROTO_PASS);
		synth_log(r, "console", (uint8_t)s);
		for (unsigned k = 0; k < p->cases; k++) {
			uint32_t h = s_mix(c, l, b, s, k);
			enum proto_status status = s_status(h);

			snprintf(path, sizeof(path), "group%02u.case_%04u",
				 k / 100, k);
			synth_case(r, path, status, h % 5000,
				   status == PROTO_PASS ? "" :
				   s_messages[h % 3]);
		}
		for (unsigned m = 0; m < p->metrics; m++) {
			uint32_t h = s_mix(c, l, b, s, 100000 + m);

			snprintf(path, sizeof(path), "bench.metric%u", m);
			synth_metric(r, path, 100.0 + (double)(h % 40),
				     m % 2 ? "MB/s" : "ms",
				     m % 2 ? METRIC_HIGHER : METRIC_LOWER);
		}
	}
	return r;
}

int synth_dataset(const char *home, const synth_params_t *p, bool index,
		  uint64_t *ret_cases)
{
	char *path = xasprintf("%s/store.db", home);
	synth_feed_t *feeds = xcalloc(p->labs + 1, sizeof(*feeds));
	unsigned in_batch = 0;
	store_t *store;
	int rc = store_open(path, &store);

	free(path);
	if (rc < 0) {
		free(feeds);
		return rc;
	}
	for (unsigned l = 0; l < p->labs; l++)
		synth_feed_init(&feeds[l], (uint8_t)(l + 1));
	store_begin(store);
	for (unsigned c = 0; c < p->commits && rc == 0; c++)
		for (unsigned l = 0; l < p->labs && rc == 0; l++)
			for (unsigned b = 0; b < p->boards && rc == 0; b++) {
				synth_run_t *r = s_make_run(p, c, l, b);

				rc = synth_publish(&feeds[l], store, r,
					p->t0_ms + c * 86400000ULL + 3600000,
					NULL, NULL, NULL);
				synth_run_destroy(&r);
				if (rc == 0 && ++in_batch >= p->batch) {
					rc = store_commit(store);
					if (rc == 0)
						rc = store_begin(store);
					in_batch = 0;
				}
			}
	if (rc == 0)
		rc = store_commit(store);
	else
		store_rollback(store);
	store_destroy(&store);
	for (unsigned l = 0; l < p->labs; l++)
		key_wipe(&feeds[l].key);
	free(feeds);
	if (rc == 0 && index) {
		sqlite3 *db;

		rc = results_open(home, true, &db);
		if (rc == 0) {
			rc = results_catch_up(db);
			rc = rc < 0 ? rc : 0;
			sqlite3_close(db);
		}
	}
	if (ret_cases)
		*ret_cases = (uint64_t)p->commits * p->labs * p->boards *
			     p->suites * p->cases;
	return rc;
}
