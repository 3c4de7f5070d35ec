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
#include "node/results/bisectview.h"
#include "node/store/store.h"
#include "node/store/wire.h"
#include "proto/buf.h"
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

/* Open HOME's store read-only and find a bisection (bisectview_find). */
static int s_find(const char *home, const uint8_t *id, const char *prefix,
		  record_t **ret)
{
	sqlite3 *db;
	int rc = store_open_readonly(home, &db);

	if (rc < 0)
		return rc;
	rc = bisectview_find(db, id, prefix, ret);
	sqlite3_close(db);
	return rc;
}

int bisect_load(const char *home, bisect_t *b)
{
	const record_bisect_t *r;
	record_t *rec = NULL;
	int rc = s_find(home, b->id, NULL, &rec);

	if (rc < 0)
		return rc == -ENOENT ? 0 : rc;
	r = &rec->bisect;
	b->n_steps = r->n_steps;
	for (size_t i = 0; i < r->n_steps; i++)
		s_step_to_state(&r->steps[i], &b->steps[i]);
	b->state = r->state;
	snprintf(b->first_bad, sizeof(b->first_bad), "%s", r->first_bad);
	snprintf(b->text, sizeof(b->text), "%s", r->text);
	record_destroy(&rec);
	return 1;
}

/* Print recs as bisectview's JSON. */
static void s_print_json(record_t *const *recs, size_t n, bool array)
{
	buf_t out;

	buf_init(&out, 64u << 20);
	if (bisectview_json_of(recs, n, array, &out) == 0)
		fputs(buf_str(&out), stdout);
	buf_free(&out);
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

/* ---- list: the latest record of every bisection ---- */

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
	record_t **v = NULL;
	size_t n = 0;
	sqlite3 *db;
	int rc = store_open_readonly(cli->home, &db);

	if (rc == 0) {
		rc = bisectview_all(db, &v, &n);
		sqlite3_close(db);
	}
	if (rc < 0 && rc != -ENOENT)
		return cli_fail("bisect", "cannot read the store in %s: %s",
				cli->home, strerror(-rc));
	if (cli->json)
		s_print_json(v, n, true);
	else
		s_list_text(v, n);
	bisectview_free(v, n);
	return CLI_EXIT_OK;
}

int bisect_show(const cli_t *cli, const char *prefix)
{
	record_t *rec = NULL;
	int rc;

	if (!bisectview_prefix_ok(prefix))
		return cli_usage_error("bisect", "--show '%.70s': give at least"
				       " %d lowercase hex digits of a bisection"
				       " (or of one of its records)", prefix,
				       BISECTVIEW_MIN_PREFIX);
	rc = s_find(cli->home, NULL, prefix, &rec);
	if (rc == -EINVAL)
		return cli_fail("bisect", "%s names several bisections: give"
				" more digits", prefix);
	if (rc == -ENOENT)
		return cli_fail("bisect", "no bisection %s in this node's store"
				" (not made here, nor replicated yet)", prefix);
	if (rc < 0)
		return cli_fail("bisect", "cannot read the store in %s: %s",
				cli->home, strerror(-rc));
	if (cli->json)
		s_print_json(&rec, 1, false);
	else
		s_show_text(rec);
	rc = rec->bisect.state == BISECT_FAILED ? CLI_EXIT_FAIL : CLI_EXIT_OK;
	record_destroy(&rec);
	return rc;
}
