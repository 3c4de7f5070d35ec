/*
 * reqview: a request's view from the store (see reqview.h).
 *
 * Layout: the view's labs and boards and how each record changes them,
 * then reading the store (two passes when a lab's clock may lag), then
 * when it is done, its table and its JSON.
 */
#include "node/results/reqview.h"

#include "node/store/store.h"
#include "node/store/wire.h"
#include "proto/json.h"
#include "proto/mem.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

reqview_lab_t *reqview_lab(reqview_t *v, const uint8_t *author)
{
	for (size_t i = 0; i < v->n; i++)
		if (memcmp(v->labs[i].author, author, 32) == 0)
			return &v->labs[i];
	if (v->n >= REQVIEW_MAX_LABS)
		return NULL;
	v->labs = xreallocarray(v->labs, v->n + 1, sizeof(*v->labs));
	memset(&v->labs[v->n], 0, sizeof(v->labs[0]));
	memcpy(v->labs[v->n].author, author, 32);
	proto_hex(author, 6, v->labs[v->n].name); /* until an advert names it */
	return &v->labs[v->n++];
}

static reqview_board_t *s_board(reqview_lab_t *l, const char *name)
{
	for (size_t i = 0; i < l->n_boards; i++)
		if (strcmp(l->boards[i].name, name) == 0)
			return &l->boards[i];
	if (l->n_boards >= REQVIEW_MAX_BOARDS)
		return NULL;
	l->boards = xreallocarray(l->boards, l->n_boards + 1,
				  sizeof(*l->boards));
	memset(&l->boards[l->n_boards], 0, sizeof(l->boards[0]));
	snprintf(l->boards[l->n_boards].name, PROTO_MAX_NAME + 1, "%s", name);
	return &l->boards[l->n_boards++];
}

/* The boards an accept refused (a lab answers once: the first accept's
 * list stands). */
static void s_refused(reqview_lab_t *l, const record_accept_t *ac)
{
	size_t n = ac->n_refused < REQVIEW_MAX_BOARDS ? ac->n_refused :
							REQVIEW_MAX_BOARDS;

	if (l->refused || !n)
		return;
	l->refused = xcalloc(n, sizeof(*l->refused));
	for (size_t i = 0; i < n; i++) {
		snprintf(l->refused[i].name, sizeof(l->refused[i].name), "%s",
			 ac->refused[i].board);
		snprintf(l->refused[i].text, sizeof(l->refused[i].text), "%s",
			 ac->refused[i].text);
	}
	l->n_refused = n;
}

/* Whether req names the lab of advert a: in its labs or, when it lists
 * no lab, one of a's boards in its boards (the rule the lab answers by:
 * node/jobs/jobs_accept.c's s_named). */
static bool s_names(const request_t *req, const record_advert_t *a)
{
	const request_selector_t *s = req ? &req->select : NULL;

	if (!s)
		return false;
	for (size_t i = 0; i < s->n_labs; i++)
		if (strcmp(s->labs[i], a->lab) == 0)
			return true;
	if (s->n_labs)
		return false;
	for (size_t i = 0; i < s->n_boards; i++)
		for (size_t b = 0; b < a->n_boards; b++)
			if (strcmp(s->boards[i], a->boards[b].name) == 0)
				return true;
	return false;
}

/* Whether one of advert a's boards is one req's selector takes: its labs
 * (none: any), boards (none: any), arch, a kernel image's arch, every
 * tag (the rule the lab selects its boards by: node/jobs/jobs_accept.c's
 * s_board_unselected). A lab with no such board keeps silent about req. */
static bool s_could_serve(const request_t *req, const record_advert_t *a)
{
	const request_selector_t *s = &req->select;
	bool lab = !s->n_labs;

	for (size_t i = 0; i < s->n_labs; i++)
		lab |= strcmp(s->labs[i], a->lab) == 0;
	if (!lab)
		return false;
	for (size_t b = 0; b < a->n_boards; b++) {
		const record_board_t *rb = &a->boards[b];
		bool ok = !s->n_boards;

		for (size_t i = 0; i < s->n_boards; i++)
			ok |= strcmp(s->boards[i], rb->name) == 0;
		if (!ok || (*s->arch && strcmp(s->arch, rb->arch) != 0) ||
		    (req->kernel.type == REQUEST_KERNEL_ARTIFACT && *req->kernel.arch &&
		     strcmp(req->kernel.arch, rb->arch) != 0))
			continue;
		for (size_t i = 0; i < s->n_tags && ok; i++) {
			bool has = false;

			for (size_t t = 0; t < rb->n_tags; t++)
				has |= strcmp(rb->tags[t], s->tags[i]) == 0;
			ok = has;
		}
		if (ok)
			return true;
	}
	return false;
}

/* An answer, event or run of the request. */
static bool s_about(const record_t *r, const uint8_t *req_id)
{
	switch (r->head.kind) {
	case RECORD_ACCEPT:
		return memcmp(r->accept.request_id, req_id, 32) == 0;
	case RECORD_DECLINE:
		return memcmp(r->decline.request_id, req_id, 32) == 0;
	case RECORD_EVENT:
		return r->event.has_request &&
		       memcmp(r->event.request_id, req_id, 32) == 0;
	case RECORD_RUN:
		return r->run.has_request &&
		       memcmp(r->run.request_id, req_id, 32) == 0;
	default:
		return false;
	}
}

static void s_apply(reqview_t *v, const record_t *r, const uint8_t *req_id)
{
	reqview_lab_t *l = reqview_lab(v, r->head.author);
	reqview_board_t *b;

	if (!l)
		return;
	switch (r->head.kind) {
	case RECORD_ADVERT:
		return; /* s_label's */
	case RECORD_ACCEPT:
		if (memcmp(r->accept.request_id, req_id, 32) != 0)
			return;
		l->answer = 1;
		l->n_said++;
		for (size_t i = 0; i < r->accept.n_boards; i++) {
			b = s_board(l, r->accept.boards[i]);
			/* the accept is the lab's first word on the job */
			if (b && !b->said_ms)
				b->said_ms = (int64_t)r->head.ts_ms;
		}
		s_refused(l, &r->accept);
		return;
	case RECORD_DECLINE:
		if (memcmp(r->decline.request_id, req_id, 32) != 0)
			return;
		l->answer = 2;
		l->n_said++;
		snprintf(l->decline, sizeof(l->decline), "%s: %s",
			 decline_reason_name(r->decline.reason), r->decline.text);
		return;
	case RECORD_EVENT:
		if (!r->event.has_request ||
		    memcmp(r->event.request_id, req_id, 32) != 0 ||
		    !(b = s_board(l, r->event.board)))
			return;
		if (v->n_events < REQVIEW_MAX_EVENTS) {
			reqview_event_t *e;

			v->events = xreallocarray(v->events, v->n_events + 1,
						  sizeof(*v->events));
			e = &v->events[v->n_events++];
			memcpy(e->id, r->head.id, 32);
			if (r->event.state == JOB_RUNNING)
				snprintf(e->line, sizeof(e->line), "%s/%s: %s:"
					 " suite %u of %u: %s", l->name, b->name,
					 job_state_name(r->event.state),
					 r->event.suite_index,
					 r->event.suite_count, r->event.suite);
			else
				snprintf(e->line, sizeof(e->line), "%s/%s: %s:"
					 " %s", l->name, b->name,
					 job_state_name(r->event.state),
					 r->event.text);
		}
		l->n_said++;
		b->state = r->event.state;
		b->said_ms = (int64_t)r->head.ts_ms;
		b->idx = r->event.suite_index;
		b->count = r->event.suite_count;
		snprintf(b->suite, sizeof(b->suite), "%s", r->event.suite);
		snprintf(b->text, sizeof(b->text), "%s", r->event.text);
		return;
	case RECORD_RUN:
		if (!r->run.has_request ||
		    memcmp(r->run.request_id, req_id, 32) != 0 ||
		    !(b = s_board(l, r->run.board)))
			return;
		l->n_said++;
		b->has_run = true;
		b->status = r->run.status;
		proto_hex(r->head.id, 32, b->run);
		return;
	case RECORD_VERDICT:
	case RECORD_KNOWN:
	case RECORD_BISECT:
		return; /* not about a request's progress */
	}
}

void reqview_free(reqview_t *v)
{
	free(v->events);
	for (size_t i = 0; i < v->n; i++)
		free(v->labs[i].boards), free(v->labs[i].refused);
	free(v->labs);
	memset(v, 0, sizeof(*v));
}

/* The request itself, or NULL when the store lacks it (caller destroys). */
static request_t *s_request(sqlite3 *db, const uint8_t *req_id)
{
	request_t *r = NULL;
	uint8_t *bytes;
	size_t len;

	if (store_db_get_request(db, req_id, &bytes, &len) < 0)
		return NULL;
	if (wire_request_decode(bytes, len, &r) < 0)
		r = NULL;
	free(bytes);
	return r;
}

/* The name of a lab the request does not name, from its advert: most
 * such labs never answer (they keep silent), so they take no place in
 * the view until they do. */
typedef struct {
	uint8_t author[32];
	char name[PROTO_MAX_NAME + 1];
	bool serves; /* its advert has a board the request selects */
} s_label_t;

typedef struct {
	reqview_t *v;
	const uint8_t *req_id;
	const request_t *req;
	s_label_t *labels;
	size_t n_labels;
} s_pass_t;

/* An advert: a lab the request names joins the view, awaited; any other
 * lab's name is put aside for when it answers. */
static void s_label(s_pass_t *p, const record_t *r)
{
	reqview_lab_t *l;

	if (s_names(p->req, &r->advert)) {
		l = reqview_lab(p->v, r->head.author);
		if (l) {
			snprintf(l->name, sizeof(l->name), "%s", r->advert.lab);
			l->named = true;
		}
		return;
	}
	if (p->n_labels >= REQVIEW_MAX_LABELS)
		return;
	if (p->n_labels % 256 == 0)
		p->labels = xreallocarray(p->labels, p->n_labels + 256,
					  sizeof(*p->labels));
	memcpy(p->labels[p->n_labels].author, r->head.author, 32);
	p->labels[p->n_labels].serves = p->req && s_could_serve(p->req, &r->advert);
	snprintf(p->labels[p->n_labels++].name, PROTO_MAX_NAME + 1, "%s",
		 r->advert.lab);
}

/* A lab the request did not name says something about it: it joins the
 * view, named from its advert (before its events' lines are made). */
static void s_join(s_pass_t *p, const uint8_t *author)
{
	reqview_lab_t *l;
	size_t n = p->v->n;

	l = reqview_lab(p->v, author);
	if (!l || p->v->n == n)
		return; /* full, or already there */
	for (size_t k = 0; k < p->n_labels; k++) {
		if (memcmp(p->labels[k].author, author, 32) == 0) {
			snprintf(l->name, sizeof(l->name), "%s",
				 p->labels[k].name);
			return;
		}
	}
}

static int s_take(void *arg, uint64_t seq, const uint8_t *bytes, size_t len)
{
	s_pass_t *p = arg;
	record_t *r = NULL;

	p->v->n_read++;
	if (wire_record_decode(bytes, len, &r) == 0) {
		if (r->head.kind == RECORD_ADVERT) {
			s_label(p, r);
		} else if (s_about(r, p->req_id)) {
			s_join(p, r->head.author);
			s_apply(p->v, r, p->req_id);
		}
	}
	record_destroy(&r);
	return 0;
}

/* Drop the labs that neither answered nor are named nor have a job of
 * the request (only its answer, stamped long before, not read yet). */
static void s_drop_silent(reqview_t *v)
{
	size_t k = 0;

	for (size_t i = 0; i < v->n; i++) {
		if (!v->labs[i].answer && !v->labs[i].named &&
		    !v->labs[i].n_boards) {
			free(v->labs[i].boards);
			free(v->labs[i].refused);
			continue;
		}
		v->labs[k++] = v->labs[i];
	}
	v->n = k;
}

/* One reading of the store into v: adverts (they name the labs), then
 * the answers, events and runs stamped at or after since, and, whatever
 * their stamps, those of the authors named in also (concatenated
 * upper-case hex ids). */
static int s_collect_pass(sqlite3 *db, const request_t *req,
			  const uint8_t *req_id, reqview_t *v, int64_t since,
			  const char *also, s_label_t **ret_labels,
			  size_t *ret_n_labels)
{
	store_view_q_t q = { .latest_kind = RECORD_ADVERT,
			     .kind_lo = RECORD_ACCEPT, .kind_hi = RECORD_RUN,
			     .since_ms = since, .also = also };
	s_pass_t p = { .v = v, .req_id = req_id, .req = req };
	int rc = store_db_view_records(db, &q, s_take, &p);

	if (ret_labels) {
		*ret_labels = p.labels;
		*ret_n_labels = p.n_labels;
	} else
		free(p.labels);
	s_drop_silent(v);
	v->names = req && (req->select.n_labs || req->select.n_boards);
	return rc;
}

/* Whether v holds author with an answer. */
static bool s_answered(const reqview_t *v, const uint8_t *author)
{
	for (size_t i = 0; i < v->n; i++)
		if (memcmp(v->labs[i].author, author, 32) == 0)
			return v->labs[i].answer != 0;
	return false;
}

static void s_add_hex(char *also, size_t *n, const uint8_t *author)
{
	for (size_t k = 0; k < 32; k++)
		snprintf(also + *n + 2 * k, 3, "%02X", author[k]);
	*n += 64;
}

/* Records stamped since the request was made (less an hour) are read
 * first: the common case, and cheap. A lab with no answer among them,
 * named or not, may only have a clock hours behind the submitter's
 * (timestamps are the signer's word, never an order), so the view is
 * read again with every record of those labs: those the request names,
 * and of the others only those with a board it selects (the rest keep
 * silent about it), so the second reading grows with the labs that can
 * serve the request, not with the network. */
int reqview_collect(sqlite3 *db, const uint8_t id[32], reqview_t *v)
{
	request_t *req = s_request(db, id);
	int64_t since = req ? (int64_t)req->created_ms : 0;
	s_label_t *labels = NULL;
	size_t n = 0, n_labels = 0;
	char *also;
	int rc;

	since = since > 3600000 ? since - 3600000 : 0;
	rc = s_collect_pass(db, req, id, v, since, "", &labels, &n_labels);
	if (rc < 0 || since == 0)
		goto out_req;
	also = xcalloc(v->n + n_labels + 1, 64 + 1);
	for (size_t i = 0; i < v->n; i++)
		if (!v->labs[i].answer)
			s_add_hex(also, &n, v->labs[i].author);
	for (size_t i = 0; i < n_labels; i++)
		if (labels[i].serves && !s_answered(v, labels[i].author))
			s_add_hex(also, &n, labels[i].author);
	if (n) {
		size_t read = v->n_read;

		reqview_free(v);
		rc = s_collect_pass(db, req, id, v, since, also, NULL, NULL);
		v->n_read += read;
	}
	free(also);
out_req:
	free(labels);
	request_destroy(&req);
	return rc;
}

int reqview_find(const char *home, const char *prefix, uint8_t ret_id[32])
{
	sqlite3 *db;
	int rc;

	if (strlen(prefix) < REQVIEW_MIN_PREFIX || strlen(prefix) > 64 ||
	    strspn(prefix, "0123456789abcdefABCDEF") != strlen(prefix))
		return -EBADMSG;
	if (store_open_readonly(home, &db) < 0)
		return -ENOENT;
	rc = store_db_find_request(db, prefix, ret_id);
	sqlite3_close(db);
	return rc;
}

bool reqview_final(const reqview_board_t *b)
{
	return b->state == JOB_DONE || b->state == JOB_CANCELLED ||
	       (b->state == JOB_ERROR && strstr(b->text, "queued again") == NULL);
}

bool reqview_stale(const reqview_board_t *b)
{
	struct timespec ts;
	int64_t now;

	if (reqview_final(b) || !b->said_ms)
		return false;
	clock_gettime(CLOCK_REALTIME, &ts);
	now = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
	return now - b->said_ms > REQVIEW_STALE_MS;
}

bool reqview_done(const reqview_t *v, bool silent_ok)
{
	size_t answered = 0;

	for (size_t i = 0; i < v->n; i++) {
		if (!v->labs[i].answer && !silent_ok)
			return false;
		answered += v->labs[i].answer != 0;
		for (size_t k = 0; k < v->labs[i].n_boards; k++)
			if (!reqview_final(&v->labs[i].boards[k]))
				return false;
	}
	return answered > 0;
}

static void s_detail(const reqview_board_t *b, char *out, size_t n)
{
	if (b->state == JOB_RUNNING)
		snprintf(out, n, "suite %u of %u: %s", b->idx, b->count,
			 b->suite);
	else if (b->has_run && b->state == JOB_DONE)
		snprintf(out, n, "%s, run %.12s", proto_status_name(b->status),
			 b->run);
	else
		snprintf(out, n, "%s", b->text);
	if (reqview_stale(b)) {
		size_t used = strlen(out);
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		snprintf(out + used, n - used, " (stale: no word for %lld s)",
			 (long long)(((int64_t)ts.tv_sec * 1000 - b->said_ms) /
				     1000));
	}
}

void reqview_table(const reqview_t *v, FILE *f)
{
	fprintf(f, "%-16s  %-16s  %-10s  %s\n", "LAB", "BOARD", "STATE",
		"DETAIL");
	for (size_t i = 0; i < v->n; i++) {
		const reqview_lab_t *l = &v->labs[i];
		char d[512];

		if (l->answer != 1) {
			fprintf(f, "%-16s  %-16s  %-10s  %s\n", l->name, "-",
				l->answer ? "declined" : "waiting",
				l->answer ? l->decline : "");
			continue;
		}
		for (size_t k = 0; k < l->n_boards; k++) {
			s_detail(&l->boards[k], d, sizeof(d));
			fprintf(f, "%-16s  %-16s  %-10s  %s\n", l->name,
				l->boards[k].name,
				reqview_stale(&l->boards[k]) ? "stale" :
				l->boards[k].state ?
				job_state_name(l->boards[k].state) : "accepted",
				d);
		}
		for (size_t k = 0; k < l->n_refused; k++)
			fprintf(f, "%-16s  %-16s  %-10s  %s\n", l->name,
				l->refused[k].name, "refused",
				l->refused[k].text);
	}
}

/* "refused": [{board, reason}...] of a lab, always there (maybe []). */
static void s_refused_json(json_t *j, const reqview_lab_t *l)
{
	json_key(j, "refused");
	json_arr_open(j);
	for (size_t k = 0; k < l->n_refused; k++) {
		json_obj_open(j);
		json_key_str(j, "board", l->refused[k].name);
		json_key_str(j, "reason", l->refused[k].text);
		json_obj_close(j);
	}
	json_arr_close(j);
}

void reqview_json(const reqview_t *v, const uint8_t id[32], FILE *f)
{
	buf_t out;
	json_t j;
	char hex[65];

	buf_init(&out, 0);
	json_init(&j, &out, JSON_PRETTY);
	json_obj_open(&j);
	proto_hex(id, 32, hex);
	json_key_str(&j, "request", hex);
	json_key(&j, "labs");
	json_arr_open(&j);
	for (size_t i = 0; i < v->n; i++) {
		const reqview_lab_t *l = &v->labs[i];

		json_obj_open(&j);
		json_key_str(&j, "lab", l->name);
		json_key_str(&j, "answer", l->answer == 1 ? "accepted" :
			     l->answer == 2 ? "declined" : "waiting");
		json_key_str(&j, "reason", l->decline);
		json_key_bool(&j, "named", l->named);
		json_key(&j, "boards");
		json_arr_open(&j);
		for (size_t k = 0; k < l->n_boards; k++) {
			const reqview_board_t *b = &l->boards[k];

			json_obj_open(&j);
			json_key_str(&j, "board", b->name);
			json_key_str(&j, "state", b->state ?
				     job_state_name(b->state) : "accepted");
			json_key_str(&j, "text", b->text);
			json_key_uint(&j, "suite_index", b->idx);
			json_key_uint(&j, "suite_count", b->count);
			json_key_str(&j, "status", b->has_run ?
				     proto_status_name(b->status) : NULL);
			json_key_str(&j, "run", b->has_run ? b->run : NULL);
			json_key_bool(&j, "final", reqview_final(b));
			json_key_bool(&j, "stale", reqview_stale(b));
			json_obj_close(&j);
		}
		json_arr_close(&j);
		s_refused_json(&j, l);
		json_obj_close(&j);
	}
	json_arr_close(&j);
	json_key_bool(&j, "done", reqview_done(v, false));
	json_obj_close(&j);
	json_finish(&j);
	fputs(buf_str(&out), f);
	buf_free(&out);
}
