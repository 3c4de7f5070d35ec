/*
 * parse_tap: TAP 13/14 (and KTAP) output, and kselftest output, which is TAP
 * whose tests carry their own TAP as "# "-prefixed comment lines.
 *
 * This file is the line grammar (version, plan, test lines and their
 * directives, YAML blocks, comments, bail out, kselftest's nested output
 * and older format) and the verdict over the whole output. The nesting
 * levels that hold results until a parent line names them are in
 * parse_tap_tree.c. See parse.h for the contract.
 */
#include "suites/parse_tap_private.h"
#include "proto/mem.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PLAN_MAX 1000000000L

static bool s_prefix_ci(const char *s, const char *p)
{
	return strncasecmp(s, p, strlen(p)) == 0;
}

static char *s_trim(char *s)
{
	size_t n;

	while (*s == ' ' || *s == '\t')
		s++;
	n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		s[--n] = '\0';
	return s;
}

/* Strict decimal number of at most 10 digits; *pp advanced. */
static bool s_number(const char **pp, long *ret)
{
	const char *p = *pp;
	long v = 0;
	int n = 0;

	while (isdigit((unsigned char)*p)) {
		if (n++ < 10)
			v = v * 10 + (*p - '0');
		p++;
	}
	if (!n)
		return false;
	*ret = v > PLAN_MAX ? PLAN_MAX : v;
	*pp = p;
	return true;
}

/* "1..N [# reason]" */
static bool s_plan_line(struct tap *t, int indent, const char *p)
{
	struct level *l;
	long n;

	if (strncmp(p, "1..", 3) != 0)
		return false;
	p += 3;
	if (!s_number(&p, &n))
		return false;
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p && *p != '#')
		return false;
	l = tap_level_for(t, indent);
	if (!l)
		return true;
	if (l->plan >= 0) {
		if (l == t->lv[0])
			t->second_plans++; /* one note for them all, at the end */
		return true;
	}
	l->plan = n;
	if (*p == '#') {
		char buf[SUITE_MAX_LINE + 1];
		char *d;
		snprintf(buf, sizeof(buf), "%s", p + 1);
		d = s_trim(buf);
		if (s_prefix_ci(d, "skip")) {
			d += 4;
			while (isalpha((unsigned char)*d))
				d++; /* SKIPPED, Skipping */
			while (*d == ':' || *d == ' ')
				d++;
			l->plan_skip = true;
		}
		snprintf(l->plan_reason, sizeof(l->plan_reason), "%s", d);
	}
	if (n == 0)
		l->plan_skip = true;
	return true;
}

/* "selftests: dir: name" -> "dir.name" */
static void s_ksft_name(char *out, size_t outsz, const char *desc)
{
	size_t o = 0;

	if (s_prefix_ci(desc, "selftests:"))
		desc += 10;
	while (*desc == ' ')
		desc++;
	for (; *desc && o + 1 < outsz; desc++) {
		if (*desc == ':') {
			out[o++] = '.';
			while (desc[1] == ' ')
				desc++;
		} else {
			out[o++] = *desc;
		}
	}
	out[o] = '\0';
}

static void s_parse_lines(struct tap *t, const char *out, size_t len);

/* Parse one kselftest test's nested output into child results. */
static void s_ksft_inner(struct tap *t, struct plist *ret, char *ret_note,
			 size_t notesz)
{
	struct tap inner;

	memset(&inner, 0, sizeof(inner));
	inner.res = t->res;
	inner.pending = t->pending;
	inner.nested = true;
	inner.at = t->at;
	inner.last_level = -1;
	inner.lv[0] = tap_level_new(0);
	inner.depth = 1;
	s_parse_lines(&inner, (const char *)t->capture.data, t->capture.len);
	while (inner.depth > 1)
		tap_pop(&inner);
	tap_level_finish(&inner, inner.lv[0]);
	*ret = inner.lv[0]->res;
	inner.lv[0]->res.v = NULL;
	inner.lv[0]->res.n = 0;
	inner.lv[0]->res.alloc = 0;
	ret_note[0] = '\0';
	if (inner.bailed)
		snprintf(ret_note, notesz, "bail out: %.140s", inner.bail_reason);
	else if (inner.lv[0]->plan_skip && inner.lv[0]->plan_reason[0])
		snprintf(ret_note, notesz, "%s", inner.lv[0]->plan_reason);
	else if (t->capture.truncated)
		snprintf(ret_note, notesz, "nested output truncated");
	t->pending = inner.pending;
	t->second_plans += inner.second_plans;
	tap_level_free(&inner.lv[0]);
	buf_free(&inner.capture);
}

/* "ok" or "not ok" and the blank after it; *pp advanced past it. */
static bool s_test_status(const char **pp, bool *ret_ok)
{
	const char *p = *pp;

	if (strncmp(p, "ok", 2) == 0 &&
	    (p[2] == ' ' || p[2] == '\t' || !p[2])) {
		*ret_ok = true;
		*pp = p + 2;
	} else if (strncmp(p, "not ok", 6) == 0 &&
		   (p[6] == ' ' || p[6] == '\t' || !p[6])) {
		*ret_ok = false;
		*pp = p + 6;
	} else {
		return false;
	}
	return true;
}

/* The test's number, or the level's next one when it has none; *pp
 * advanced past it and past a "-" before the description. */
static long s_test_number(const struct level *l, const char **pp)
{
	const char *p = *pp, *nstart;
	long num;

	while (*p == ' ' || *p == '\t')
		p++;
	nstart = p;
	if (s_number(&p, &num)) {
		if (*p && *p != ' ' && *p != '\t') {
			/* "ok 1a": the digits belong to the description */
			num = l->last_num + 1;
			p = nstart;
		}
	} else {
		num = l->last_num + 1;
	}
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p == '-' && (p[1] == ' ' || p[1] == '\t' || !p[1]))
		p++;
	*pp = p;
	return num;
}

/* The description up to an unescaped '#' into desc, what follows the '#'
 * into dir; both SUITE_MAX_LINE + 1 bytes, p no longer than a line. */
static void s_test_desc(const char *p, char *desc, char *dir)
{
	size_t d = 0;

	dir[0] = '\0';
	for (; *p; p++) {
		if (*p == '\\' && (p[1] == '#' || p[1] == '\\')) {
			desc[d++] = *++p;
			continue;
		}
		if (*p == '#') {
			snprintf(dir, SUITE_MAX_LINE + 1, "%s", p + 1);
			break;
		}
		desc[d++] = *p;
	}
	desc[d] = '\0';
}

static void s_test_count(struct level *l, long num)
{
	l->n_tests++;
	l->last_num = num;
	if (l->plan >= 0 && num > l->plan)
		l->extra++;
	tap_seen_set(l, num);
}

/* The status of an ok / not ok line under its directive (SKIP, TODO,
 * TIMEOUT or none), and the message the directive gives it. */
static enum suite_status s_directive(char *dr, bool ok, char *msg, size_t msgsz)
{
	msg[0] = '\0';
	if (s_prefix_ci(dr, "skip")) {
		const char *r = dr + 4;
		while (isalpha((unsigned char)*r))
			r++;
		while (*r == ':' || *r == ' ')
			r++;
		snprintf(msg, msgsz, "%s", r);
		return SUITE_SKIP;
	}
	if (s_prefix_ci(dr, "todo")) {
		if (ok)
			snprintf(msg, msgsz, "TODO passed: %s", s_trim(dr + 4));
		else
			snprintf(msg, msgsz, "TODO: %s", s_trim(dr + 4));
		return ok ? SUITE_PASS : SUITE_SKIP;
	}
	if (s_prefix_ci(dr, "timeout")) {
		snprintf(msg, msgsz, "timeout %s", s_trim(dr + 7));
		return ok ? SUITE_PASS : SUITE_ERROR;
	}
	if (*dr)
		snprintf(msg, msgsz, "%s", dr);
	return ok ? SUITE_PASS : SUITE_FAIL;
}

/* The case's name from the description: kselftest's top-level tests are
 * "selftests: dir: name", and a test with no usable name is "testN". */
static void s_test_name(const struct tap *t, char *desc, long num, char *name,
			size_t namesz)
{
	char ksname[SUITE_MAX_PATH + 1];
	const char *src = desc;

	if (t->ksft && t->depth == 1) {
		s_ksft_name(ksname, sizeof(ksname), s_trim(desc));
		src = ksname;
	}
	suite_path_sanitize(name, namesz, src, strlen(src), SUITE_MAX_DEPTH);
	if (strcmp(name, "unnamed") == 0)
		snprintf(name, namesz, "test%ld", num);
}

/* kselftest: the nested output captured since the last test line is this
 * test's child level; its note is the test's message when it has none. */
static void s_ksft_attach(struct tap *t, struct level *l, char *msg,
			  size_t msgsz)
{
	struct plist inner = { 0 };
	char note[SUITE_MAX_MESSAGE + 1];

	s_ksft_inner(t, &inner, note, sizeof(note));
	tap_flush_closed(t, l);
	l->has_closed = true;
	l->closed = inner;
	if (note[0] && !msg[0])
		snprintf(msg, msgsz, "%s", note);
	buf_reset(&t->capture);
	t->ksft_name[0] = '\0';
}

/* The test's result. A child level that finished just before its line
 * moves below its name; the line itself then adds a case only when it
 * fails with no failing child, or is a skip. */
static void s_test_result(struct tap *t, struct level *l, const char *name,
			  enum suite_status st, const char *msg)
{
	bool child_fails;

	if (!l->has_closed || !l->closed.n) {
		l->has_closed = false;
		tap_plist_free(&l->closed);
		tap_add_result(t, l, name, st, msg);
		return;
	}
	child_fails = tap_any_failing(&l->closed);
	l->has_closed = false;
	tap_plist_move(t, &l->res, &l->closed, name);
	t->last_level = -1;
	if (tap_failing(st) && !child_fails)
		tap_add_result(t, l, name, st,
			       msg[0] ? msg : "failed; no failing subtest");
	else if (st == SUITE_SKIP)
		tap_add_result(t, l, name, st, msg);
}

/* "ok N - desc # directive" / "not ok ..." */
static bool s_test_line(struct tap *t, int indent, const char *p)
{
	char desc[SUITE_MAX_LINE + 1], dir[SUITE_MAX_LINE + 1];
	char name[SUITE_MAX_PATH + 1], msg[SUITE_MAX_MESSAGE + 1];
	struct level *l;
	enum suite_status st;
	bool ok;
	long num;

	if (!s_test_status(&p, &ok))
		return false;
	l = tap_level_for(t, indent);
	if (!l)
		return true;
	num = s_test_number(l, &p);
	s_test_desc(p, desc, dir);
	s_test_count(l, num);
	st = s_directive(s_trim(dir), ok, msg, sizeof(msg));
	s_test_name(t, desc, num, name, sizeof(name));
	if (t->ksft && t->depth == 1 && t->capture.len)
		s_ksft_attach(t, l, msg, sizeof(msg));
	s_test_result(t, l, name, st, msg);
	return true;
}

/* kselftest's older format: "selftests: dir: name [PASS]" */
static bool s_ksft_old_line(struct tap *t, const char *p)
{
	static const struct {
		const char *tag;
		enum suite_status st;
	} tags[] = {
		{ "[PASS]", SUITE_PASS }, { "[FAIL]", SUITE_FAIL },
		{ "[SKIP]", SUITE_SKIP }, { "[TIMEOUT]", SUITE_ERROR },
	};
	char desc[SUITE_MAX_LINE + 1], name[SUITE_MAX_PATH + 1], ks[SUITE_MAX_PATH + 1];
	const char *br;

	if (!s_prefix_ci(p, "selftests:"))
		return false;
	br = strrchr(p, '[');
	if (!br)
		return false;
	for (size_t i = 0; i < sizeof(tags) / sizeof(tags[0]); i++) {
		if (strncmp(br, tags[i].tag, strlen(tags[i].tag)) != 0)
			continue;
		snprintf(desc, sizeof(desc), "%.*s", (int)(br - p), p);
		s_ksft_name(ks, sizeof(ks), s_trim(desc));
		suite_path_sanitize(name, sizeof(name), ks, strlen(ks), SUITE_MAX_DEPTH);
		t->lv[0]->n_tests++;
		t->lv[0]->last_num++;
		tap_seen_set(t->lv[0], t->lv[0]->last_num);
		buf_reset(&t->capture);
		tap_add_result(t, t->lv[0], name, tags[i].st, NULL);
		return true;
	}
	return false;
}

static void s_yaml_line(struct tap *t, const char *p)
{
	struct pend *last;
	const char *v;

	if (t->last_level < 0 || t->last_level >= t->depth)
		return;
	if (t->last_idx >= t->lv[t->last_level]->res.n)
		return;
	last = &t->lv[t->last_level]->res.v[t->last_idx];
	if (strncmp(p, "duration_ms:", 12) == 0) {
		char *end;
		double ms;
		v = p + 12;
		ms = strtod(v, &end);
		if (end != v && ms >= 0 && ms < 1e12)
			last->dur = (int64_t)ms;
	} else if (strncmp(p, "message:", 8) == 0 && !last->msg) {
		char buf[SUITE_MAX_MESSAGE + 1];
		v = p + 8;
		while (*v == ' ')
			v++;
		snprintf(buf, sizeof(buf), "%s", v);
		if (buf[0] == '"' || buf[0] == '\'') {
			size_t n = strlen(buf);
			if (n >= 2 && buf[n - 1] == buf[0])
				buf[n - 1] = '\0';
			memmove(buf, buf + 1, strlen(buf));
		}
		if (buf[0])
			last->msg = xstrdup(buf);
	}
}

/* A comment right after a failing test is its message, when it has none. */
static void s_diag(struct tap *t, const char *c)
{
	struct pend *last;

	if (t->last_level < 0 || t->last_level >= t->depth || !*c)
		return;
	if (t->last_idx >= t->lv[t->last_level]->res.n)
		return;
	last = &t->lv[t->last_level]->res.v[t->last_idx];
	if ((last->status == SUITE_FAIL || last->status == SUITE_ERROR) && !last->msg)
		last->msg = xstrndup(c, SUITE_MAX_MESSAGE);
}

static void s_line(struct tap *t, char *line)
{
	int indent = 0;
	char *p = line;

	while (*p == ' ' || *p == '\t') {
		indent += *p == '\t' ? 8 : 1;
		p++;
		if (indent > 1000)
			break;
	}

	if (t->in_yaml) {
		if (strcmp(s_trim(p), "...") == 0 || indent < t->yaml_indent) {
			t->in_yaml = false;
			if (indent >= t->yaml_indent)
				return;
		} else {
			s_yaml_line(t, p);
			return;
		}
	}
	if (strncmp(p, "Bail out!", 9) == 0) {
		snprintf(t->bail_reason, sizeof(t->bail_reason), "%s", s_trim(p + 9));
		t->bailed = true;
		return;
	}
	if (strcmp(s_trim(p), "---") == 0 && indent > t->lv[t->depth - 1]->indent) {
		t->in_yaml = true;
		t->yaml_indent = indent;
		return;
	}
	if (*p == '#') {
		const char *c = p + 1;
		if (t->ksft && t->depth == 1 && indent == 0) {
			if (*c == ' ')
				c++;
			if (s_prefix_ci(c, "selftests:") && !t->ksft_name[0]) {
				char ks[SUITE_MAX_PATH + 1];
				s_ksft_name(ks, sizeof(ks), c);
				snprintf(t->ksft_name, sizeof(t->ksft_name), "%s", s_trim(ks));
			}
			if (t->capture.len < SUITE_MAX_KSFT_CAPTURE) {
				buf_puts(&t->capture, c);
				buf_putc(&t->capture, '\n');
			} else {
				t->capture.truncated = true;
			}
			return;
		}
		while (*c == ' ')
			c++;
		if (strncmp(c, "metric ", 7) == 0) {
			char m[SUITE_MAX_LINE + 1];
			snprintf(m, sizeof(m), "%s", c + 7);
			if (suite_metric_line(t->res, m) == -EEXIST)
				t->dup_metrics++;
			return;
		}
		if (!s_prefix_ci(c, "Subtest:"))
			s_diag(t, c);
		if (s_prefix_ci(c, "Subtest:")) {
			/* TAP 14 writes it at the parent's indent, others at
			 * the child's: either names the next child level */
			char *n = s_trim((char *)c + 8);
			struct level *cur = t->lv[t->depth - 1];
			struct level *l = indent > cur->indent ? tap_level_for(t, indent) : NULL;
			if (!l) {
				tap_pop_to(t, indent);
				l = t->lv[t->depth - 1];
				suite_path_sanitize(l->next_name, sizeof(l->next_name), n,
						    strlen(n), SUITE_MAX_DEPTH);
			} else {
				suite_path_sanitize(l->name, sizeof(l->name), n,
						    strlen(n), SUITE_MAX_DEPTH);
			}
		}
		return;
	}
	if (strncmp(p, "TAP version", 11) == 0 || strncmp(p, "KTAP version", 12) == 0) {
		if (indent == 0)
			t->saw_version = true;
		else
			tap_level_for(t, indent);
		return;
	}
	if (s_plan_line(t, indent, p))
		return;
	if (s_test_line(t, indent, p))
		return;
	if (t->ksft && indent == 0)
		s_ksft_old_line(t, p);
}

static void s_parse_lines(struct tap *t, const char *out, size_t len)
{
	char line[SUITE_MAX_LINE + 1];
	size_t pos = 0;

	while (!t->bailed && suite_next_line(out, len, &pos, line, NULL)) {
		if (!t->nested)
			t->at = pos;
		s_line(t, line);
	}
}

static void s_parse(const char *out, size_t len, int exit_status,
		    suite_result_t *res, bool ksft)
{
	struct tap *t = xzalloc(sizeof(*t));
	struct level *top;
	bool failing;

	t->res = res;
	t->ksft = ksft;
	t->last_level = -1;
	t->lv[0] = tap_level_new(0);
	t->depth = 1;
	s_parse_lines(t, out, len);
	while (t->depth > 1)
		tap_pop(t);
	top = t->lv[0];

	/* kselftest: a test that started and never reported */
	if (ksft && t->capture.len && t->ksft_name[0]) {
		struct plist inner = { 0 };
		char note[SUITE_MAX_MESSAGE + 1];
		char name[SUITE_MAX_PATH + 1];
		suite_path_sanitize(name, sizeof(name), t->ksft_name,
				    strlen(t->ksft_name), SUITE_MAX_DEPTH);
		s_ksft_inner(t, &inner, note, sizeof(note));
		tap_plist_move(t, &top->res, &inner, name);
		top->last_num++;
		tap_seen_set(top, top->last_num);
		tap_plist_add(t, &top->res, name, SUITE_ERROR, -1,
			      "started, no result: output truncated or run timed out");
	}
	tap_level_finish(t, top);
	tap_emit(t, &top->res);
	failing = tap_any_failing(&top->res);

	if (top->plan_skip && top->n_tests == 0) {
		res->status = SUITE_SKIP;
		suite_result_set_reason(res, "%s", top->plan_reason[0] ? top->plan_reason
									 : "no tests planned (1..0)");
	} else if (t->bailed) {
		res->status = SUITE_ERROR;
		suite_result_set_reason(res, "bail out: %s (%ld of %ld planned tests reported)",
					t->bail_reason[0] ? t->bail_reason : "(no reason)",
					top->n_tests, top->plan > 0 ? top->plan : top->n_tests);
	} else if (top->n_tests == 0 && res->n_cases == 0) {
		res->status = SUITE_ERROR;
		if (exit_status >= 0)
			suite_result_set_reason(res, "no TAP results in the output (exit status %d)",
						exit_status);
		else
			suite_result_set_reason(res, "no TAP results in the output");
	} else {
		if (top->plan < 0)
			suite_result_add_note(res, "no TAP plan: the output may be truncated");
		if (top->extra)
			suite_result_add_note(res, "%ld tests numbered past the plan 1..%ld",
					      top->extra, top->plan);
		if (top->plan > TAP_SEEN_BITS)
			suite_result_add_note(res, "plan of %ld tests checked up to %d",
					      top->plan, TAP_SEEN_BITS);
		if (exit_status > 0 && !failing) {
			res->status = SUITE_ERROR;
			suite_result_set_reason(res, "run.sh exited with status %d and no failing case",
						exit_status);
		}
	}
	if (t->dup_metrics)
		suite_result_add_note(res, "%ld repeated metrics ignored", t->dup_metrics);
	if (t->second_plans)
		suite_result_add_note(res, "%ld second plan%s ignored",
				      t->second_plans,
				      t->second_plans == 1 ? "" : "s");
	if (t->too_deep)
		suite_result_add_note(res, "%ld lines nested deeper than %d levels ignored",
				      t->too_deep, SUITE_MAX_TAP_DEPTH);
	if (res->dropped_cases)
		suite_result_add_note(res, "%zu cases past the cap of %d dropped",
				      res->dropped_cases, SUITE_MAX_CASES);
	tap_level_free(&t->lv[0]);
	buf_free(&t->capture);
	free(t);
}

void suite_parse_tap(const char *out, size_t len, int exit_status,
		     suite_result_t *res)
{
	s_parse(out, len, exit_status, res, false);
}

void suite_parse_kselftest(const char *out, size_t len, int exit_status,
			   suite_result_t *res)
{
	s_parse(out, len, exit_status, res, true);
}
