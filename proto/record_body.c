/*
 * record_body: the body array of each record kind, both directions.
 * Encoders write exactly what decoders read, field for field; decoders
 * validate every field (type, size, syntax, range) and copy into the
 * record's arena. Layouts:
 *
 *   advert   [lab, node_id, description, software, suites, info, boards]
 *            info: map str -> str (keys sorted), board:
 *            [name, arch, machine, tags, transport, boot, state, queue_len]
 *   accept   [request_id, boards(, refused)]
 *            refused: [[board, text]...], non-empty, present only when
 *            some board was refused (an accept without encodes as before)
 *   decline  [request_id, reason, text]
 *   event    [request_id|nil, board, state, suite_index, suite_count,
 *             suite, text]
 *   run      [request_id|nil, board, lab, kernel, suites, logs, status]
 *            kernel: [tree_url, branch, commit, config, arch, describe,
 *                     kernel_blob|nil, initrd_blob|nil, build, compiler]
 *            suite: [name, version, status, duration_ms, start_ms,
 *                    end_ms, cases, metrics, logs(, reason)]
 *            (reason: non-empty text, present only when there is one, so
 *            a suite without one encodes as it always did)
 *            case: [path, status, duration_ms, message]
 *            metric: [name, value, unit, better]
 *            log: [name, blob_id]
 *   verdict  [run_id, lab, board, path, verdict, runs, passes,
 *             other_runs, other_passes, text]
 *            (passes <= runs, other_passes <= other_runs, each at most
 *            PROTO_MAX_RERUNS; at least one re-run in all)
 *   known    [path, board_glob, arch, link, expires_ms, text]
 *            (board_glob: "" or name characters and * ? [ ] !; arch: ""
 *            or a name; expires_ms 1..PROTO_MAX_TIME_MS)
 *   bisect   [bisection, submitter, tree_url, good, bad, test, config,
 *             arch, n_commits, state, first_bad, text, steps]
 *            step: [commit, verdict, request_id|nil, lab, board,
 *                   run_id|nil]
 *            (first_bad: a commit when state is done, else "")
 */
#include "proto/codec.h"
#include "proto/record.h"

#include <stdlib.h>
#include <string.h>

/* Least encoded bytes of one list element: bounds allocation per byte. */
#define MIN_BOARD 9
#define MIN_CASE 5
#define MIN_METRIC 13
#define MIN_LOG 36
#define MIN_SUITE 10
#define MIN_INFO 2
#define MIN_REFUSAL 5
#define MIN_STEP 48

/* ---- advert ---- */

static int s_dec_board(mp_reader_t *r, arena_t *a, record_board_t *b)
{
	uint32_t v;
	int e;

	if ((e = mp_get_array_exact(r, 8)) < 0 ||
	    (e = dec_name(r, a, &b->name)) < 0 ||
	    (e = dec_name(r, a, &b->arch)) < 0 ||
	    (e = dec_text(r, a, PROTO_MAX_SHORT, &b->machine)) < 0 ||
	    (e = dec_names(r, a, 0, PROTO_MAX_TAGS, &b->tags, &b->n_tags)) <
		    0 ||
	    (e = dec_name(r, a, &b->transport)) < 0 ||
	    (e = dec_name(r, a, &b->boot)) < 0 ||
	    (e = dec_u32(r, 1, BOARD_STATE_MAX, &v)) < 0)
		return e;
	b->state = v;
	return dec_u32(r, 0, UINT32_MAX, &b->queue_len);
}

static int s_dec_info(mp_reader_t *r, arena_t *a, record_advert_t *ad)
{
	const char *prev = NULL;
	uint32_t n;
	int e = mp_get_map(r, PROTO_MAX_INFO, &n);

	if (e < 0)
		return e;
	proto_kv_t *kv = arena_array(a, n ? n : 1, sizeof(*kv));
	for (uint32_t i = 0; i < n; i++) {
		if ((e = dec_name(r, a, &kv[i].key)) < 0)
			return e;
		size_t klen = strlen(kv[i].key);
		if (klen > PROTO_MAX_INFO_KEY)
			return PROTO_E_TOOBIG;
		if (prev &&
		    (e = mp_key_order(prev, strlen(prev), kv[i].key, klen)) < 0)
			return e;
		if ((e = dec_text(r, a, PROTO_MAX_SHORT, &kv[i].value)) < 0)
			return e;
		prev = kv[i].key;
	}
	ad->info = kv;
	ad->n_info = n;
	return 0;
}

static int s_dec_advert(mp_reader_t *r, arena_t *a, record_advert_t *ad)
{
	uint32_t n;
	int e;

	if ((e = mp_get_array_exact(r, 7)) < 0 ||
	    (e = dec_name(r, a, &ad->lab)) < 0 ||
	    (e = mp_get_bin_exact(r, 32, ad->node_id)) < 0 ||
	    (e = dec_text(r, a, PROTO_MAX_TEXT, &ad->description)) < 0 ||
	    (e = dec_text(r, a, PROTO_MAX_SHORT, &ad->software)) < 0 ||
	    (e = dec_names(r, a, 0, PROTO_MAX_SUITES, &ad->suites,
			   &ad->n_suites)) < 0 ||
	    (e = s_dec_info(r, a, ad)) < 0 ||
	    (e = mp_get_array(r, MIN_BOARD, PROTO_MAX_BOARDS, &n)) < 0)
		return e;
	record_board_t *b = arena_array(a, n ? n : 1, sizeof(*b));
	for (uint32_t i = 0; i < n; i++) {
		if ((e = s_dec_board(r, a, &b[i])) < 0)
			return e;
	}
	ad->boards = b;
	ad->n_boards = n;
	return 0;
}

static int s_kv_cmp(const void *x, const void *y)
{
	const proto_kv_t *const *a = x, *const *b = y;

	return strcmp((*a)->key ? (*a)->key : "", (*b)->key ? (*b)->key : "");
}

static void s_enc_info(mp_enc_t *e, const proto_kv_t *info, size_t n)
{
	if (n > PROTO_MAX_INFO) {
		mp_enc_fail(e, PROTO_E_TOOMANY);
		return;
	}
	const proto_kv_t *sorted[PROTO_MAX_INFO];
	for (size_t i = 0; i < n; i++)
		sorted[i] = &info[i];
	qsort(sorted, n, sizeof(sorted[0]), s_kv_cmp);
	mp_put_map(e, (uint32_t)n);
	for (size_t i = 0; i < n; i++) {
		mp_put_str(e, sorted[i]->key);
		mp_put_str(e, sorted[i]->value);
	}
}

static void s_enc_advert(mp_enc_t *e, const record_advert_t *ad)
{
	mp_put_array(e, 7);
	mp_put_str(e, ad->lab);
	mp_put_bin(e, ad->node_id, 32);
	mp_put_str(e, ad->description);
	mp_put_str(e, ad->software);
	enc_strs(e, ad->suites, ad->n_suites);
	s_enc_info(e, ad->info, ad->n_info);
	enc_array(e, ad->n_boards);
	for (size_t i = 0; i < ad->n_boards; i++) {
		const record_board_t *b = &ad->boards[i];
		mp_put_array(e, 8);
		mp_put_str(e, b->name);
		mp_put_str(e, b->arch);
		mp_put_str(e, b->machine);
		enc_strs(e, b->tags, b->n_tags);
		mp_put_str(e, b->transport);
		mp_put_str(e, b->boot);
		mp_put_uint(e, b->state);
		mp_put_uint(e, b->queue_len);
	}
}

/* ---- accept, decline, event ---- */

static int s_dec_refused(mp_reader_t *r, arena_t *a, record_accept_t *ac)
{
	uint32_t n;
	int e = mp_get_array(r, MIN_REFUSAL, PROTO_MAX_BOARDS, &n);

	if (e < 0)
		return e;
	if (n == 0) /* none is written by leaving the list out */
		return PROTO_E_EMPTY;
	record_refusal_t *f = arena_array(a, n, sizeof(*f));
	for (uint32_t i = 0; i < n; i++) {
		if ((e = mp_get_array_exact(r, 2)) < 0 ||
		    (e = dec_name(r, a, &f[i].board)) < 0 ||
		    (e = dec_text(r, a, PROTO_MAX_MESSAGE, &f[i].text)) < 0)
			return e;
		if (!*f[i].text)
			return PROTO_E_EMPTY;
	}
	ac->refused = f;
	ac->n_refused = n;
	return 0;
}

static int s_dec_accept(mp_reader_t *r, arena_t *a, record_accept_t *ac)
{
	uint32_t n;
	int e;

	if ((e = mp_get_array(r, 1, 3, &n)) < 0)
		return e;
	if (n != 2 && n != 3)
		return PROTO_E_ARITY;
	if ((e = mp_get_bin_exact(r, 32, ac->request_id)) < 0 ||
	    (e = dec_names(r, a, 1, PROTO_MAX_BOARDS, &ac->boards,
			   &ac->n_boards)) < 0)
		return e;
	ac->refused = NULL;
	ac->n_refused = 0;
	return n == 3 ? s_dec_refused(r, a, ac) : 0;
}

static void s_enc_accept(mp_enc_t *e, const record_accept_t *ac)
{
	mp_put_array(e, ac->n_refused ? 3 : 2);
	mp_put_bin(e, ac->request_id, 32);
	enc_strs(e, ac->boards, ac->n_boards);
	if (!ac->n_refused)
		return;
	enc_array(e, ac->n_refused);
	for (size_t i = 0; i < ac->n_refused; i++) {
		mp_put_array(e, 2);
		mp_put_str(e, ac->refused[i].board);
		mp_put_str(e, ac->refused[i].text);
	}
}

static int s_dec_decline(mp_reader_t *r, arena_t *a, record_decline_t *d)
{
	uint32_t v;
	int e;

	if ((e = mp_get_array_exact(r, 3)) < 0 ||
	    (e = mp_get_bin_exact(r, 32, d->request_id)) < 0 ||
	    (e = dec_u32(r, 1, DECLINE_REASON_MAX, &v)) < 0)
		return e;
	d->reason = v;
	return dec_text(r, a, PROTO_MAX_TEXT, &d->text);
}

static void s_enc_decline(mp_enc_t *e, const record_decline_t *d)
{
	mp_put_array(e, 3);
	mp_put_bin(e, d->request_id, 32);
	mp_put_uint(e, d->reason);
	mp_put_str(e, d->text);
}

/* RUNNING names suite k of n (1 <= k <= n); other states k <= n. */
static int s_event_check(const record_event_t *ev)
{
	if (ev->suite_index > ev->suite_count)
		return PROTO_E_RANGE;
	if (ev->state != JOB_RUNNING)
		return 0;
	if (ev->suite_index == 0)
		return PROTO_E_RANGE;
	return ev->suite[0] ? 0 : PROTO_E_EMPTY;
}

static int s_dec_event(mp_reader_t *r, arena_t *a, record_event_t *ev)
{
	uint32_t v;
	int e;

	if ((e = mp_get_array_exact(r, 7)) < 0 ||
	    (e = dec_id_opt(r, &ev->has_request, ev->request_id)) < 0 ||
	    (e = dec_name(r, a, &ev->board)) < 0 ||
	    (e = dec_u32(r, 1, JOB_STATE_MAX, &v)) < 0)
		return e;
	ev->state = v;
	if ((e = dec_u32(r, 0, PROTO_MAX_SUITES, &ev->suite_index)) < 0 ||
	    (e = dec_u32(r, 0, PROTO_MAX_SUITES, &ev->suite_count)) < 0 ||
	    (e = dec_name_opt(r, a, &ev->suite)) < 0 ||
	    (e = dec_text(r, a, PROTO_MAX_TEXT, &ev->text)) < 0)
		return e;
	return s_event_check(ev);
}

static void s_enc_event(mp_enc_t *e, const record_event_t *ev)
{
	mp_put_array(e, 7);
	mp_put_bin_or_nil(e, ev->has_request ? ev->request_id : NULL, 32);
	mp_put_str(e, ev->board);
	mp_put_uint(e, ev->state);
	mp_put_uint(e, ev->suite_index);
	mp_put_uint(e, ev->suite_count);
	mp_put_str(e, ev->suite);
	mp_put_str(e, ev->text);
}

/* ---- run ---- */

static int s_dec_logs(mp_reader_t *r, arena_t *a, const run_log_t **ret,
		      size_t *ret_n)
{
	uint32_t n;
	int e = mp_get_array(r, MIN_LOG, PROTO_MAX_LOGS, &n);

	if (e < 0)
		return e;
	run_log_t *l = arena_array(a, n ? n : 1, sizeof(*l));
	for (uint32_t i = 0; i < n; i++) {
		if ((e = mp_get_array_exact(r, 2)) < 0 ||
		    (e = dec_name(r, a, &l[i].name)) < 0 ||
		    (e = mp_get_bin_exact(r, 32, l[i].blob_id)) < 0)
			return e;
	}
	*ret = l;
	*ret_n = n;
	return 0;
}

static void s_enc_logs(mp_enc_t *e, const run_log_t *l, size_t n)
{
	enc_array(e, n);
	for (size_t i = 0; i < n; i++) {
		mp_put_array(e, 2);
		mp_put_str(e, l[i].name);
		mp_put_bin(e, l[i].blob_id, 32);
	}
}

static int s_dec_case(mp_reader_t *r, arena_t *a, run_case_t *c)
{
	uint32_t v;
	int e;

	if ((e = mp_get_array_exact(r, 4)) < 0 ||
	    (e = dec_path(r, a, &c->path)) < 0 ||
	    (e = dec_u32(r, 1, PROTO_STATUS_MAX, &v)) < 0)
		return e;
	c->status = v;
	if ((e = mp_get_uint(r, &c->duration_ms)) < 0)
		return e;
	return dec_text(r, a, PROTO_MAX_MESSAGE, &c->message);
}

static int s_dec_metric(mp_reader_t *r, arena_t *a, run_metric_t *m)
{
	uint32_t v;
	int e;

	if ((e = mp_get_array_exact(r, 4)) < 0 ||
	    (e = dec_path(r, a, &m->name)) < 0 ||
	    (e = mp_get_f64(r, &m->value)) < 0 ||
	    (e = dec_text(r, a, PROTO_MAX_NAME, &m->unit)) < 0 ||
	    (e = dec_u32(r, 0, METRIC_BETTER_MAX, &v)) < 0)
		return e;
	m->better = v;
	return 0;
}

static int s_dec_cases(mp_reader_t *r, arena_t *a, run_suite_t *s)
{
	uint32_t n;
	int e = mp_get_array(r, MIN_CASE, PROTO_MAX_CASES, &n);

	if (e < 0)
		return e;
	run_case_t *c = arena_array(a, n ? n : 1, sizeof(*c));
	for (uint32_t i = 0; i < n; i++) {
		if ((e = s_dec_case(r, a, &c[i])) < 0)
			return e;
	}
	s->cases = c;
	s->n_cases = n;
	if ((e = mp_get_array(r, MIN_METRIC, PROTO_MAX_METRICS, &n)) < 0)
		return e;
	run_metric_t *m = arena_array(a, n ? n : 1, sizeof(*m));
	for (uint32_t i = 0; i < n; i++) {
		if ((e = s_dec_metric(r, a, &m[i])) < 0)
			return e;
	}
	s->metrics = m;
	s->n_metrics = n;
	return 0;
}

static int s_dec_suite(mp_reader_t *r, arena_t *a, run_suite_t *s)
{
	uint32_t v;
	int e;

	uint32_t n;

	if ((e = mp_get_array(r, 1, 10, &n)) < 0)
		return e;
	if (n != 9 && n != 10)
		return PROTO_E_ARITY;
	if ((e = dec_name(r, a, &s->name)) < 0 ||
	    (e = dec_text(r, a, PROTO_MAX_SHORT, &s->version)) < 0 ||
	    (e = dec_u32(r, 1, PROTO_STATUS_MAX, &v)) < 0)
		return e;
	s->status = v;
	if ((e = mp_get_uint(r, &s->duration_ms)) < 0 ||
	    (e = mp_get_uint(r, &s->start_ms)) < 0 ||
	    (e = mp_get_uint(r, &s->end_ms)) < 0)
		return e;
	if (s->end_ms < s->start_ms)
		return PROTO_E_RANGE;
	if ((e = s_dec_cases(r, a, s)) < 0 ||
	    (e = s_dec_logs(r, a, &s->logs, &s->n_logs)) < 0)
		return e;
	s->reason = "";
	if (n == 10) {
		if ((e = dec_text(r, a, PROTO_MAX_MESSAGE, &s->reason)) < 0)
			return e;
		/* an empty one is written by leaving it out */
		if (!*s->reason)
			return PROTO_E_EMPTY;
	}
	return 0;
}

static void s_enc_suite(mp_enc_t *e, const run_suite_t *s)
{
	bool reason = s->reason && *s->reason;

	mp_put_array(e, reason ? 10 : 9);
	mp_put_str(e, s->name);
	mp_put_str(e, s->version);
	mp_put_uint(e, s->status);
	mp_put_uint(e, s->duration_ms);
	mp_put_uint(e, s->start_ms);
	mp_put_uint(e, s->end_ms);
	enc_array(e, s->n_cases);
	for (size_t i = 0; i < s->n_cases; i++) {
		const run_case_t *c = &s->cases[i];
		mp_put_array(e, 4);
		mp_put_str(e, c->path);
		mp_put_uint(e, c->status);
		mp_put_uint(e, c->duration_ms);
		mp_put_str(e, c->message);
	}
	enc_array(e, s->n_metrics);
	for (size_t i = 0; i < s->n_metrics; i++) {
		const run_metric_t *m = &s->metrics[i];
		mp_put_array(e, 4);
		mp_put_str(e, m->name);
		mp_put_f64(e, m->value);
		mp_put_str(e, m->unit);
		mp_put_uint(e, m->better);
	}
	s_enc_logs(e, s->logs, s->n_logs);
	if (reason)
		mp_put_str(e, s->reason);
}

static int s_dec_kernel(mp_reader_t *r, arena_t *a, run_kernel_t *k)
{
	uint32_t v;
	int e;

	if ((e = mp_get_array_exact(r, 10)) < 0 ||
	    (e = dec_text(r, a, PROTO_MAX_URL, &k->tree_url)) < 0 ||
	    (e = dec_text(r, a, PROTO_MAX_SHORT, &k->branch)) < 0 ||
	    (e = dec_commit(r, a, true, &k->commit)) < 0 ||
	    (e = dec_text(r, a, PROTO_MAX_SHORT, &k->config)) < 0 ||
	    (e = dec_name(r, a, &k->arch)) < 0 ||
	    (e = dec_text(r, a, PROTO_MAX_SHORT, &k->describe)) < 0 ||
	    (e = dec_id_opt(r, &k->has_kernel_blob, k->kernel_blob)) < 0 ||
	    (e = dec_id_opt(r, &k->has_initrd_blob, k->initrd_blob)) < 0 ||
	    (e = dec_u32(r, 1, BUILD_STATUS_MAX, &v)) < 0)
		return e;
	k->build = v;
	return dec_text(r, a, PROTO_MAX_SHORT, &k->compiler);
}

static void s_enc_kernel(mp_enc_t *e, const run_kernel_t *k)
{
	mp_put_array(e, 10);
	mp_put_str(e, k->tree_url);
	mp_put_str(e, k->branch);
	mp_put_str(e, k->commit);
	mp_put_str(e, k->config);
	mp_put_str(e, k->arch);
	mp_put_str(e, k->describe);
	mp_put_bin_or_nil(e, k->has_kernel_blob ? k->kernel_blob : NULL, 32);
	mp_put_bin_or_nil(e, k->has_initrd_blob ? k->initrd_blob : NULL, 32);
	mp_put_uint(e, k->build);
	mp_put_str(e, k->compiler);
}

static int s_dec_run(mp_reader_t *r, arena_t *a, record_run_t *run)
{
	uint32_t n, v;
	int e;

	if ((e = mp_get_array_exact(r, 7)) < 0 ||
	    (e = dec_id_opt(r, &run->has_request, run->request_id)) < 0 ||
	    (e = dec_name(r, a, &run->board)) < 0 ||
	    (e = dec_name(r, a, &run->lab)) < 0 ||
	    (e = s_dec_kernel(r, a, &run->kernel)) < 0 ||
	    (e = mp_get_array(r, MIN_SUITE, PROTO_MAX_SUITES, &n)) < 0)
		return e;
	run_suite_t *s = arena_array(a, n ? n : 1, sizeof(*s));
	for (uint32_t i = 0; i < n; i++) {
		if ((e = s_dec_suite(r, a, &s[i])) < 0)
			return e;
	}
	run->suites = s;
	run->n_suites = n;
	if ((e = s_dec_logs(r, a, &run->logs, &run->n_logs)) < 0 ||
	    (e = dec_u32(r, 1, PROTO_STATUS_MAX, &v)) < 0)
		return e;
	run->status = v;
	return 0;
}

static void s_enc_run(mp_enc_t *e, const record_run_t *run)
{
	mp_put_array(e, 7);
	mp_put_bin_or_nil(e, run->has_request ? run->request_id : NULL, 32);
	mp_put_str(e, run->board);
	mp_put_str(e, run->lab);
	s_enc_kernel(e, &run->kernel);
	enc_array(e, run->n_suites);
	for (size_t i = 0; i < run->n_suites; i++)
		s_enc_suite(e, &run->suites[i]);
	s_enc_logs(e, run->logs, run->n_logs);
	mp_put_uint(e, run->status);
}

/* ---- verdict, known ---- */

static int s_verdict_check(const record_verdict_t *v)
{
	if (v->passes > v->runs || v->other_passes > v->other_runs)
		return PROTO_E_RANGE;
	return v->runs + v->other_runs ? 0 : PROTO_E_RANGE;
}

static int s_dec_verdict(mp_reader_t *r, arena_t *a, record_verdict_t *v)
{
	uint32_t k;
	int e;

	if ((e = mp_get_array_exact(r, 10)) < 0 ||
	    (e = mp_get_bin_exact(r, 32, v->run_id)) < 0 ||
	    (e = dec_name(r, a, &v->lab)) < 0 ||
	    (e = dec_name(r, a, &v->board)) < 0 ||
	    (e = dec_path(r, a, &v->path)) < 0 ||
	    (e = dec_u32(r, 1, VERDICT_KIND_MAX, &k)) < 0)
		return e;
	v->verdict = k;
	if ((e = dec_u32(r, 0, PROTO_MAX_RERUNS, &v->runs)) < 0 ||
	    (e = dec_u32(r, 0, PROTO_MAX_RERUNS, &v->passes)) < 0 ||
	    (e = dec_u32(r, 0, PROTO_MAX_RERUNS, &v->other_runs)) < 0 ||
	    (e = dec_u32(r, 0, PROTO_MAX_RERUNS, &v->other_passes)) < 0 ||
	    (e = dec_text(r, a, PROTO_MAX_TEXT, &v->text)) < 0)
		return e;
	return s_verdict_check(v);
}

static void s_enc_verdict(mp_enc_t *e, const record_verdict_t *v)
{
	mp_put_array(e, 10);
	mp_put_bin(e, v->run_id, 32);
	mp_put_str(e, v->lab);
	mp_put_str(e, v->board);
	mp_put_str(e, v->path);
	mp_put_uint(e, v->verdict);
	mp_put_uint(e, v->runs);
	mp_put_uint(e, v->passes);
	mp_put_uint(e, v->other_runs);
	mp_put_uint(e, v->other_passes);
	mp_put_str(e, v->text);
}

/* A board glob: name characters and the glob ones, or "" for any. */
static int s_glob_check(const char *g)
{
	for (const char *p = g; *p; p++) {
		if (!strchr("*?[]!._-", *p) &&
		    !((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9')))
			return PROTO_E_SYNTAX;
	}
	return 0;
}

static int s_dec_known(mp_reader_t *r, arena_t *a, record_known_t *k)
{
	int e;

	if ((e = mp_get_array_exact(r, 6)) < 0 ||
	    (e = dec_path(r, a, &k->path)) < 0 ||
	    (e = dec_text(r, a, PROTO_MAX_NAME, &k->board)) < 0 ||
	    (e = s_glob_check(k->board)) < 0 ||
	    (e = dec_name_opt(r, a, &k->arch)) < 0 ||
	    (e = dec_text(r, a, PROTO_MAX_URL, &k->link)) < 0 ||
	    (e = mp_get_uint(r, &k->expires_ms)) < 0)
		return e;
	if (k->expires_ms == 0)
		return PROTO_E_RANGE;
	if (k->expires_ms > PROTO_MAX_TIME_MS)
		return PROTO_E_TIME;
	return dec_text(r, a, PROTO_MAX_MESSAGE, &k->text);
}

static void s_enc_known(mp_enc_t *e, const record_known_t *k)
{
	mp_put_array(e, 6);
	mp_put_str(e, k->path);
	mp_put_str(e, k->board);
	mp_put_str(e, k->arch);
	mp_put_str(e, k->link);
	mp_put_uint(e, k->expires_ms);
	mp_put_str(e, k->text);
}

/* ---- bisect ---- */

static int s_dec_step(mp_reader_t *r, arena_t *a, bisect_step_t *st)
{
	uint32_t v;
	int e;

	if ((e = mp_get_array_exact(r, 6)) < 0 ||
	    (e = dec_commit(r, a, false, &st->commit)) < 0 ||
	    (e = dec_u32(r, 1, BISECT_VERDICT_MAX, &v)) < 0)
		return e;
	st->verdict = v;
	if ((e = dec_id_opt(r, &st->has_request, st->request_id)) < 0 ||
	    (e = dec_name_opt(r, a, &st->lab)) < 0 ||
	    (e = dec_name_opt(r, a, &st->board)) < 0)
		return e;
	return dec_id_opt(r, &st->has_run, st->run_id);
}

static int s_dec_steps(mp_reader_t *r, arena_t *a, record_bisect_t *b)
{
	uint32_t n;
	int e = mp_get_array(r, MIN_STEP, PROTO_MAX_BISECT_STEPS, &n);

	if (e < 0)
		return e;
	bisect_step_t *st = arena_array(a, n ? n : 1, sizeof(*st));
	for (uint32_t i = 0; i < n; i++) {
		if ((e = s_dec_step(r, a, &st[i])) < 0)
			return e;
	}
	b->steps = st;
	b->n_steps = n;
	return 0;
}

/* The first bad commit is named exactly when the bisection is done. */
static int s_bisect_check(const record_bisect_t *b)
{
	if ((b->state == BISECT_DONE) != (b->first_bad[0] != '\0'))
		return b->first_bad[0] ? PROTO_E_RANGE : PROTO_E_EMPTY;
	return 0;
}

static int s_dec_bisect(mp_reader_t *r, arena_t *a, record_bisect_t *b)
{
	uint32_t v;
	int e;

	if ((e = mp_get_array_exact(r, 13)) < 0 ||
	    (e = mp_get_bin_exact(r, 32, b->bisection)) < 0 ||
	    (e = mp_get_bin_exact(r, 32, b->submitter)) < 0 ||
	    (e = dec_text(r, a, PROTO_MAX_URL, &b->tree_url)) < 0 ||
	    (e = dec_commit(r, a, false, &b->good)) < 0 ||
	    (e = dec_commit(r, a, false, &b->bad)) < 0 ||
	    (e = dec_path(r, a, &b->test)) < 0 ||
	    (e = dec_text(r, a, PROTO_MAX_SHORT, &b->config)) < 0 ||
	    (e = dec_name_opt(r, a, &b->arch)) < 0 ||
	    (e = dec_u32(r, 0, UINT32_MAX, &b->n_commits)) < 0 ||
	    (e = dec_u32(r, 1, BISECT_STATE_MAX, &v)) < 0)
		return e;
	b->state = v;
	if ((e = dec_commit(r, a, true, &b->first_bad)) < 0 ||
	    (e = dec_text(r, a, PROTO_MAX_TEXT, &b->text)) < 0 ||
	    (e = s_dec_steps(r, a, b)) < 0)
		return e;
	return s_bisect_check(b);
}

static void s_enc_bisect(mp_enc_t *e, const record_bisect_t *b)
{
	mp_put_array(e, 13);
	mp_put_bin(e, b->bisection, 32);
	mp_put_bin(e, b->submitter, 32);
	mp_put_str(e, b->tree_url);
	mp_put_str(e, b->good);
	mp_put_str(e, b->bad);
	mp_put_str(e, b->test);
	mp_put_str(e, b->config);
	mp_put_str(e, b->arch);
	mp_put_uint(e, b->n_commits);
	mp_put_uint(e, b->state);
	mp_put_str(e, b->first_bad);
	mp_put_str(e, b->text);
	enc_array(e, b->n_steps);
	for (size_t i = 0; i < b->n_steps; i++) {
		const bisect_step_t *st = &b->steps[i];

		mp_put_array(e, 6);
		mp_put_str(e, st->commit);
		mp_put_uint(e, st->verdict);
		mp_put_bin_or_nil(e, st->has_request ? st->request_id : NULL,
				  32);
		mp_put_str(e, st->lab);
		mp_put_str(e, st->board);
		mp_put_bin_or_nil(e, st->has_run ? st->run_id : NULL, 32);
	}
}

/* ---- dispatch ---- */

int record_body_decode(mp_reader_t *r, arena_t *a, record_t *rec)
{
	switch (rec->head.kind) {
	case RECORD_ADVERT:
		return s_dec_advert(r, a, &rec->advert);
	case RECORD_ACCEPT:
		return s_dec_accept(r, a, &rec->accept);
	case RECORD_DECLINE:
		return s_dec_decline(r, a, &rec->decline);
	case RECORD_EVENT:
		return s_dec_event(r, a, &rec->event);
	case RECORD_RUN:
		return s_dec_run(r, a, &rec->run);
	case RECORD_VERDICT:
		return s_dec_verdict(r, a, &rec->verdict);
	case RECORD_KNOWN:
		return s_dec_known(r, a, &rec->known);
	case RECORD_BISECT:
		return s_dec_bisect(r, a, &rec->bisect);
	}
	return PROTO_E_KIND;
}

void record_body_encode(mp_enc_t *e, const record_t *rec)
{
	switch (rec->head.kind) {
	case RECORD_ADVERT:
		s_enc_advert(e, &rec->advert);
		return;
	case RECORD_ACCEPT:
		s_enc_accept(e, &rec->accept);
		return;
	case RECORD_DECLINE:
		s_enc_decline(e, &rec->decline);
		return;
	case RECORD_EVENT:
		s_enc_event(e, &rec->event);
		return;
	case RECORD_RUN:
		s_enc_run(e, &rec->run);
		return;
	case RECORD_VERDICT:
		s_enc_verdict(e, &rec->verdict);
		return;
	case RECORD_KNOWN:
		s_enc_known(e, &rec->known);
		return;
	case RECORD_BISECT:
		s_enc_bisect(e, &rec->bisect);
		return;
	}
	mp_enc_fail(e, PROTO_E_KIND);
}
