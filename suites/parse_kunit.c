/*
 * parse_kunit: the KTAP that KUnit prints while a kernel's built-in tests
 * run at boot, read from the kernel's console (or from dmesg), mixed with
 * everything else the kernel says.
 *
 * Layout: s_strip takes printk's prefixes off a line (the syslog level
 * "<6>", the "[    1.234567] " timestamp, the "[    T1] " caller id),
 * keeping KUnit's own indentation; s_filter keeps the lines of KUnit's
 * KTAP, from its top-level "KTAP version" line to the result that
 * completes the top-level plan, and drops the rest (other kernel messages,
 * the continuation lines of an expectation's report, KUnit's "# SUITE:
 * pass:N ..." totals); a failing case's first "# CASE: ..." diagnostic,
 * which KUnit prints before its "not ok" line, is moved after it, where
 * the TAP parser takes a comment as the failure's message. The reduced
 * KTAP then goes through the TAP parser (parse_tap.c): each KUnit suite
 * is a subtest, so cases are SUITE.CASE below the suite `kunit`, and a
 * parameterised case's parameters SUITE.CASE.PARAM; "# SKIP reason" is a
 * SKIP with its reason.
 *
 * A kernel that stopped in the middle of KUnit (a panic, an oops that
 * killed init, the console cut) leaves the top-level plan unfinished: the
 * first test that never reported is ERROR, with the kernel's report
 * ("Kernel panic - not syncing: ...") as its message, the rest are MISS,
 * and the suite is ERROR. A console with no KUnit KTAP at all is SKIP:
 * the kernel was built without KUnit tests; so is run.sh's exit 77 (the
 * log could not be read), with its last line as the reason.
 *
 * Bounded as every parser: lines are cut at SUITE_MAX_LINE, the reduced
 * KTAP is at most the input's size, the cases are capped by the result.
 */
#include "suites/parse.h"
#include "proto/buf.h"
#include "proto/mem.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KUNIT_MAX_NAME 128 /* a case name kept for its diagnostic */

struct kfilter {
	buf_t ktap;         /* the reduced KTAP */
	bool started;       /* KUnit's top-level KTAP version line seen */
	bool done;          /* the top-level plan is complete */
	long plan;          /* the top-level plan, -1: none yet */
	long results;       /* top-level results seen */
	char diag_name[KUNIT_MAX_NAME + 1]; /* the held diagnostic's case */
	char diag[SUITE_MAX_MESSAGE + 1];
	char crash[SUITE_MAX_MESSAGE + 1]; /* the kernel's first report after KTAP began */
};

/* "[   12.345678]" or "[    T1]": a bracketed printk field. */
static const char *s_bracket(const char *p, bool caller)
{
	const char *q = p + 1;

	if (*p != '[')
		return p;
	while (*q == ' ')
		q++;
	if (caller && (*q == 'T' || *q == 'C'))
		q++;
	if (!isdigit((unsigned char)*q))
		return p;
	while (isdigit((unsigned char)*q) || (!caller && *q == '.'))
		q++;
	if (*q != ']')
		return p;
	q++;
	return *q == ' ' ? q + 1 : q;
}

/* The line without printk's prefixes; KUnit's indentation stays. */
static const char *s_strip(const char *line)
{
	const char *p = line;

	if (*p == '<' && isdigit((unsigned char)p[1])) {
		const char *q = p + 1;

		while (isdigit((unsigned char)*q))
			q++;
		if (*q == '>')
			p = q + 1;
	}
	p = s_bracket(p, false);
	return s_bracket(p, true);
}

static bool s_starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* The kernel reports that stop a boot, by the form the kernel prints. */
static bool s_crash_line(const char *m)
{
	static const char *const forms[] = {
		"Kernel panic - not syncing", "BUG: ", "kernel BUG at ",
		"Oops: ", "general protection fault", "Unable to handle kernel",
		"Internal error: ", "invalid opcode: ",
	};

	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++)
		if (s_starts(m, forms[i]))
			return true;
	return false;
}

/* "ok N NAME ..." / "not ok N - NAME ...": NAME into name, or false. */
static bool s_result_name(const char *p, char *name, size_t size)
{
	size_t n = 0;

	p += s_starts(p, "not ok ") ? 7 : 3;
	while (isdigit((unsigned char)*p))
		p++;
	while (*p == ' ')
		p++;
	if (p[0] == '-' && p[1] == ' ')
		p += 2;
	while (p[n] && p[n] != ' ' && p[n] != '#' && n + 1 < size)
		n++;
	memcpy(name, p, n);
	name[n] = '\0';
	return n > 0;
}

static void s_put(struct kfilter *f, const char *s, size_t n)
{
	buf_append(&f->ktap, s, n);
	buf_putc(&f->ktap, '\n');
}

/* "# CASE: text": hold text for CASE's result line (the first one). */
static bool s_hold_diag(struct kfilter *f, const char *c)
{
	const char *colon = strchr(c, ':');
	size_t n = colon ? (size_t)(colon - c) : 0;

	if (!colon || n == 0 || n > KUNIT_MAX_NAME || colon[1] != ' ' ||
	    memchr(c, ' ', n))
		return false;
	if (f->diag_name[0] && strncmp(f->diag_name, c, n) == 0 &&
	    f->diag_name[n] == '\0' &&
	    (strstr(f->diag, "FAILED") || !strstr(colon, "FAILED")))
		return true; /* its first failure report is the telling one */
	memcpy(f->diag_name, c, n);
	f->diag_name[n] = '\0';
	suite_text_clean(f->diag, sizeof(f->diag), colon + 2, strlen(colon + 2));
	return true;
}

/* A result line: kept, with the held diagnostic after a "not ok". */
static void s_result(struct kfilter *f, const char *m, size_t indent)
{
	char name[KUNIT_MAX_NAME + 1];
	bool failed = s_starts(m + indent, "not ok ");

	s_put(f, m, strlen(m));
	if (failed && f->diag[0] &&
	    s_result_name(m + indent, name, sizeof(name)) &&
	    strcmp(name, f->diag_name) == 0) {
		buf_printf(&f->ktap, "%*s# %s\n", (int)indent, "", f->diag);
	}
	if (indent == 0 && ++f->results >= f->plan && f->plan >= 0)
		f->done = true;
	f->diag_name[0] = '\0';
	f->diag[0] = '\0';
}

/* One console line once KUnit has begun. */
static void s_ktap_line(struct kfilter *f, const char *m)
{
	size_t indent = strspn(m, " \t");
	const char *p = m + indent;

	if (s_starts(p, "ok ") || s_starts(p, "not ok ")) {
		s_result(f, m, indent);
	} else if (s_starts(p, "1..")) {
		if (indent == 0 && f->plan < 0) {
			f->plan = strtol(p + 3, NULL, 10);
			f->done = f->plan == 0;
		}
		s_put(f, m, strlen(m));
	} else if (s_starts(p, "KTAP version") || s_starts(p, "TAP version")) {
		/* a nested one would open the level before its "# Subtest:"
		 * line could name it; the indentation opens it anyway */
		if (indent == 0)
			s_put(f, m, strlen(m));
	} else if (s_starts(p, "# Subtest:") || s_starts(p, "Bail out!")) {
		s_put(f, m, strlen(m));
	} else if (p[0] == '#' && p[1] == ' ') {
		s_hold_diag(f, p + 2);
	} else if (!f->crash[0] && s_crash_line(p)) {
		suite_text_clean(f->crash, sizeof(f->crash), p, strlen(p));
	}
}

static void s_filter(struct kfilter *f, const char *out, size_t len)
{
	char line[SUITE_MAX_LINE + 1];
	size_t pos = 0;

	while (suite_next_line(out, len, &pos, line, NULL)) {
		const char *m = s_strip(line);

		if (!f->started) {
			f->started = s_starts(m, "KTAP version ") ||
				     s_starts(m, "TAP version ");
			if (f->started)
				s_put(f, m, strlen(m));
			continue;
		}
		if (f->done) {
			if (!f->crash[0] && s_crash_line(m + strspn(m, " ")))
				s_ktap_line(f, m);
			continue;
		}
		s_ktap_line(f, m);
	}
}

/* The first test that never reported is where the kernel stopped. */
static void s_stopped(suite_result_t *res, const struct kfilter *f)
{
	const char *why = f->crash[0] ? f->crash : "the console ended here";

	for (size_t i = 0; i < res->n_cases; i++) {
		suite_case_t *c = &res->cases[i];

		if (c->status != SUITE_MISS)
			continue;
		c->status = SUITE_ERROR;
		free(c->message);
		c->message = xasprintf("no result, the kernel stopped: %.120s", why);
		break;
	}
	res->status = SUITE_ERROR;
	suite_result_set_reason(res, "KUnit did not finish (%ld of %ld suites "
				"reported): %s", f->results, f->plan, why);
}

/* run.sh's exit 77: the log could not be read, its last line says why. */
static void s_unreadable(const char *out, size_t len, suite_result_t *res)
{
	char line[SUITE_MAX_LINE + 1], last[SUITE_MAX_MESSAGE + 1] = "";
	size_t pos = 0, n;

	while (suite_next_line(out, len, &pos, line, &n))
		if (n)
			suite_text_clean(last, sizeof(last), line, n);
	res->status = SUITE_SKIP;
	suite_result_set_reason(res, "%s", last[0] ? last : "kernel log not readable");
}

void suite_parse_kunit(const char *out, size_t len, int exit_status,
		       suite_result_t *res)
{
	struct kfilter f = { .plan = -1 };

	if (exit_status == 77) {
		s_unreadable(out, len, res);
		return;
	}
	buf_init(&f.ktap, len + 4096); /* the input, reordered */
	s_filter(&f, out, len);
	if (!f.started) {
		res->status = SUITE_SKIP;
		suite_result_set_reason(res, "no KUnit results in the kernel's "
					"log: a kernel without KUnit tests built in");
		buf_free(&f.ktap);
		return;
	}
	suite_parse_tap(buf_str(&f.ktap), f.ktap.len, 0, res);
	if (!f.done && (f.plan != 0 || f.crash[0]))
		s_stopped(res, &f);
	else if (exit_status > 0 && res->status == SUITE_PASS)
		suite_result_add_note(res, "the log was read with exit status %d",
				      exit_status);
	buf_free(&f.ktap);
}
