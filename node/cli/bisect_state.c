/*
 * bisect_state: a bisection's state as signed bisect records: the record
 * made from a bisect_t and handed to the node (bisect-publish), the latest
 * record of a bisection found again in the store (resume), and `labmesh
 * bisect --show` and `--list` (text or JSON) from any node's store.
 *
 * Layout: record <-> state; publish; lookup; show; list.
 */
#include "node/cli/bisect_cli.h"

#include "node/net/ctl.h"
#include "node/store/store.h"
#include "node/store/wire.h"
#include "proto/buf.h"
#include "proto/json.h"
#include "proto/mem.h"
#include "proto/record.h"
#include "proto/types.h"

#include <errno.h>
#include <inttypes.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- record <-> state ---- */

static void s_step_to_state(const bisect_step_t *s, bisect_step_state_t *t)
{
	memset(t, 0, sizeof(*t));
	snprintf(t->commit, sizeof(t->commit), "%s", s->commit);
	t->verdict = s->verdict;
	t->has_request = s->has_request;
	memcpy(t->request, s->request_id, 32);
	snprintf(t->lab, sizeof(t->lab), "%s", s->lab);
	snprintf(t->board, sizeof(t->board), "%s", s->board);
	t->has_run = s->has_run;
	memcpy(t->run, s->run_id, 32);
}

static void s_fill_record(const bisect_t *b, bisect_step_t *steps,
			  record_t *rec)
{
	record_bisect_t *r = &rec->bisect;

	memset(rec, 0, sizeof(*rec));
	rec->head.kind = RECORD_BISECT;
	rec->head.seq = 1;
	for (size_t i = 0; i < b->n_steps; i++) {
		const bisect_step_state_t *t = &b->steps[i];

		steps[i] = (bisect_step_t){ .commit = t->commit,
					    .verdict = t->verdict,
					    .has_request = t->has_request,
					    .lab = t->lab, .board = t->board,
					    .has_run = t->has_run };
		memcpy(steps[i].request_id, t->request, 32);
		memcpy(steps[i].run_id, t->run, 32);
	}
	memcpy(r->bisection, b->id, 32);
	memcpy(r->submitter, b->kp.pk, 32);
	r->tree_url = b->url;
	r->good = b->good;
	r->bad = b->bad;
	r->test = b->test;
	r->config = b->config ? b->config : "";
	r->arch = b->arch ? b->arch : "";
	r->n_commits = (uint32_t)b->n;
	r->state = b->state;
	r->first_bad = b->state == BISECT_DONE ? b->first_bad : "";
	r->text = b->text;
	r->steps = steps;
	r->n_steps = b->n_steps;
}

/* ---- publish ---- */

int bisect_publish(const cli_t *cli, const bisect_t *b)
{
	bisect_step_t *steps = xcalloc(b->n_steps ? b->n_steps : 1,
				       sizeof(*steps));
	const char *args[1];
	uint8_t *bytes = NULL, id[32];
	size_t len = 0;
	char *body = NULL;
	bool ok = false;
	record_t rec;
	struct timespec ts;
	int rc;

	s_fill_record(b, steps, &rec);
	clock_gettime(CLOCK_REALTIME, &ts);
	rec.head.ts_ms = (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
	rc = record_sign(&rec, &b->kp, &bytes, &len, id);
	free(steps);
	if (rc < 0) {
		cli_fail("bisect", "the bisect record is not valid: %s",
			 wire_strerror(rc));
		return -EINVAL;
	}
	args[0] = (const char *)bytes;
	rc = ctl_call(cli->home, "bisect-publish", false, 1, args, &len,
		      CTL_TIMEOUT_MS, &ok, &body);
	free(bytes);
	if (rc < 0 || !ok) {
		cli_fail("bisect", "the node did not publish the bisection"
			 " (%s); start it and run the same command again to"
			 " resume", rc < 0 ? strerror(-rc) :
			 body ? body : "refused");
		free(body);
		return rc < 0 ? rc : -EIO;
	}
	free(body);
	return 0;
}

/* ---- lookup ---- */

/* The latest record of one bisection (by stamp, then seq), or the one
 * bisection whose id or one of whose records' ids starts with prefix. */
typedef struct {
	const uint8_t *id;   /* a bisection's id, or NULL */
	const char *prefix;  /* else a hex prefix */
	uint8_t found[32];   /* the bisection the prefix names */
	int matches;	     /* bisections the prefix names */
	record_t *best;
} s_find_t;

static bool s_prefix_of(const char *prefix, const uint8_t *id)
{
	char hex[65];

	proto_hex(id, 32, hex);
	return strncmp(hex, prefix, strlen(prefix)) == 0;
}

static bool s_wanted(s_find_t *f, const record_t *r)
{
	const uint8_t *bid = r->bisect.bisection;

	if (f->id)
		return memcmp(bid, f->id, 32) == 0;
	if (!s_prefix_of(f->prefix, bid) && !s_prefix_of(f->prefix, r->head.id))
		return f->matches && memcmp(bid, f->found, 32) == 0;
	if (f->matches && memcmp(bid, f->found, 32) != 0) {
		f->matches++;
		return false;
	}
	if (!f->matches) {
		memcpy(f->found, bid, 32);
		f->matches = 1;
	}
	return true;
}

static int s_take(void *arg, uint64_t seq, const uint8_t *bytes, size_t len)
{
	s_find_t *f = arg;
	record_t *r = NULL;

	(void)seq;
	if (wire_record_decode(bytes, len, &r) < 0 ||
	    r->head.kind != RECORD_BISECT || !s_wanted(f, r)) {
		record_destroy(&r);
		return 0;
	}
	if (!f->best || r->head.ts_ms > f->best->head.ts_ms ||
	    (r->head.ts_ms == f->best->head.ts_ms &&
	     r->head.seq > f->best->head.seq)) {
		record_destroy(&f->best);
		f->best = r;
		return 0;
	}
	record_destroy(&r);
	return 0;
}

static bool s_skip_none(void *arg, const uint8_t *id)
{
	(void)arg, (void)id;
	return false;
}

static int s_find(const char *home, s_find_t *f)
{
	sqlite3 *db;
	int rc = store_open_readonly(home, &db);

	if (rc < 0)
		return rc;
	rc = store_db_records_of_kind(db, RECORD_BISECT, s_skip_none, s_take,
				      f);
	sqlite3_close(db);
	return rc;
}

int bisect_load(const char *home, bisect_t *b)
{
	s_find_t f = { .id = b->id };
	const record_bisect_t *r;
	int rc = s_find(home, &f);

	if (rc < 0)
		return rc == -ENOENT ? 0 : rc;
	if (!f.best)
		return 0;
	r = &f.best->bisect;
	b->n_steps = r->n_steps;
	for (size_t i = 0; i < r->n_steps; i++)
		s_step_to_state(&r->steps[i], &b->steps[i]);
	b->state = r->state;
	snprintf(b->first_bad, sizeof(b->first_bad), "%s", r->first_bad);
	snprintf(b->text, sizeof(b->text), "%s", r->text);
	record_destroy(&f.best);
	return 1;
}

/* ---- show ---- */

static void s_hex12(const uint8_t *id, char out[13])
{
	char hex[65];

	proto_hex(id, 32, hex);
	memcpy(out, hex, 12);
	out[12] = '\0';
}

static void s_show_text(const record_t *rec)
{
	const record_bisect_t *r = &rec->bisect;
	char bid[13], author[13], req[13], run[13];

	s_hex12(r->bisection, bid);
	s_hex12(rec->head.author, author);
	printf("bisection %s of %s\n", bid, r->tree_url);
	printf("  good %.12s  bad %.12s  test %s  config %s  arch %s\n",
	       r->good, r->bad, r->test, *r->config ? r->config : "-",
	       *r->arch ? r->arch : "-");
	printf("  %" PRIu32 " commits; driven by node %s; %s\n", r->n_commits,
	       author, bisect_state_name(r->state));
	for (size_t i = 0; i < r->n_steps; i++) {
		const bisect_step_t *s = &r->steps[i];

		s->has_request ? s_hex12(s->request_id, req) : (void)strcpy(req, "-");
		s->has_run ? s_hex12(s->run_id, run) : (void)strcpy(run, "-");
		printf("  step %2zu  %.12s  %-7s  %s/%s  request %s  run %s\n",
		       i + 1, s->commit, bisect_verdict_name(s->verdict),
		       *s->lab ? s->lab : "-", *s->board ? s->board : "-",
		       req, run);
	}
	if (r->state == BISECT_DONE)
		printf("first bad commit: %s\n", r->first_bad);
	else if (*r->text)
		printf("%s\n", r->text);
}

static void s_json_id(json_t *j, const char *key, bool has,
		      const uint8_t *id)
{
	char hex[65];

	if (!has) {
		json_key_null(j, key);
		return;
	}
	proto_hex(id, 32, hex);
	json_key_str(j, key, hex);
}

static void s_json_record(json_t *j, const record_t *rec)
{
	const record_bisect_t *r = &rec->bisect;

	json_obj_open(j);
	s_json_id(j, "bisection", true, r->bisection);
	s_json_id(j, "record", true, rec->head.id);
	s_json_id(j, "node", true, rec->head.author);
	s_json_id(j, "submitter", true, r->submitter);
	json_key_str(j, "tree", r->tree_url);
	json_key_str(j, "good", r->good);
	json_key_str(j, "bad", r->bad);
	json_key_str(j, "test", r->test);
	json_key_str(j, "config", r->config);
	json_key_str(j, "arch", r->arch);
	json_key_uint(j, "commits", r->n_commits);
	json_key_str(j, "state", bisect_state_name(r->state));
	json_key_str(j, "first_bad", r->first_bad);
	json_key_str(j, "text", r->text);
	json_key(j, "steps");
	json_arr_open(j);
	for (size_t i = 0; i < r->n_steps; i++) {
		const bisect_step_t *st = &r->steps[i];

		json_obj_open(j);
		json_key_str(j, "commit", st->commit);
		json_key_str(j, "verdict", bisect_verdict_name(st->verdict));
		s_json_id(j, "request", st->has_request, st->request_id);
		json_key_str(j, "lab", st->lab);
		json_key_str(j, "board", st->board);
		s_json_id(j, "run", st->has_run, st->run_id);
		json_obj_close(j);
	}
	json_arr_close(j);
	json_obj_close(j);
}

/* Print recs (one object, or an array with many) as JSON. */
static void s_print_json(record_t *const *recs, size_t n, bool array)
{
	buf_t out;
	json_t j;

	buf_init(&out, 64u << 20);
	json_init(&j, &out, 0);
	if (array)
		json_arr_open(&j);
	for (size_t i = 0; i < n; i++)
		s_json_record(&j, recs[i]);
	if (array)
		json_arr_close(&j);
	json_finish(&j);
	printf("%s\n", buf_str(&out));
	buf_free(&out);
}

/* ---- list: the latest record of every bisection ---- */

typedef struct {
	record_t **v;
	size_t n;
} s_all_t;

static int s_take_all(void *arg, uint64_t seq, const uint8_t *bytes,
		      size_t len)
{
	s_all_t *a = arg;
	record_t *r = NULL;
	size_t i;

	(void)seq;
	if (wire_record_decode(bytes, len, &r) < 0 ||
	    r->head.kind != RECORD_BISECT) {
		record_destroy(&r);
		return 0;
	}
	for (i = 0; i < a->n; i++)
		if (!memcmp(a->v[i]->bisect.bisection, r->bisect.bisection, 32))
			break;
	if (i == a->n) {
		a->v = xreallocarray(a->v, a->n + 1, sizeof(*a->v));
		a->v[a->n++] = r;
	} else if (r->head.ts_ms >= a->v[i]->head.ts_ms) {
		record_destroy(&a->v[i]);
		a->v[i] = r;
	} else {
		record_destroy(&r);
	}
	return 0;
}

static void s_list_text(record_t *const *v, size_t n)
{
	char bid[13];

	printf("%-12s  %-7s  %5s  %-12s  %-24s  %s\n", "BISECTION", "STATE",
	       "STEPS", "FIRST BAD", "TEST", "TREE");
	for (size_t i = 0; i < n; i++) {
		const record_bisect_t *r = &v[i]->bisect;

		s_hex12(r->bisection, bid);
		printf("%-12s  %-7s  %5zu  %-12.12s  %-24s  %s\n", bid,
		       bisect_state_name(r->state), r->n_steps,
		       *r->first_bad ? r->first_bad : "-", r->test,
		       r->tree_url);
	}
	if (!n)
		printf("(no bisection in this node's store)\n");
}

int bisect_list(const cli_t *cli)
{
	s_all_t a = { 0 };
	sqlite3 *db;
	int rc = store_open_readonly(cli->home, &db);

	if (rc < 0 && rc != -ENOENT)
		return cli_fail("bisect", "cannot read the store in %s: %s",
				cli->home, strerror(-rc));
	if (rc == 0) {
		store_db_records_of_kind(db, RECORD_BISECT, s_skip_none,
					 s_take_all, &a);
		sqlite3_close(db);
	}
	if (cli->json)
		s_print_json(a.v, a.n, true);
	else
		s_list_text(a.v, a.n);
	for (size_t i = 0; i < a.n; i++)
		record_destroy(&a.v[i]);
	free(a.v);
	return CLI_EXIT_OK;
}

int bisect_show(const cli_t *cli, const char *prefix)
{
	s_find_t f = { .prefix = prefix };
	size_t n = strlen(prefix);
	int rc;

	for (size_t i = 0; i < n; i++)
		if (!((prefix[i] >= '0' && prefix[i] <= '9') ||
		      (prefix[i] >= 'a' && prefix[i] <= 'f')))
			n = 0;
	if (n < 6 || n > 64)
		return cli_usage_error("bisect", "--show '%.70s': give at least"
				       " 6 lowercase hex digits of a bisection"
				       " (or of one of its records)", prefix);
	rc = s_find(cli->home, &f);
	if (rc < 0 && rc != -ENOENT)
		return cli_fail("bisect", "cannot read the store in %s: %s",
				cli->home, strerror(-rc));
	if (f.matches > 1) {
		record_destroy(&f.best);
		return cli_fail("bisect", "%s names several bisections: give"
				" more digits", prefix);
	}
	if (!f.best)
		return cli_fail("bisect", "no bisection %s in this node's store"
				" (not made here, nor replicated yet)", prefix);
	if (cli->json)
		s_print_json(&f.best, 1, false);
	else
		s_show_text(f.best);
	rc = f.best->bisect.state == BISECT_FAILED ? CLI_EXIT_FAIL :
						      CLI_EXIT_OK;
	record_destroy(&f.best);
	return rc;
}
