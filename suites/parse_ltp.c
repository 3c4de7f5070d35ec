/*
 * parse_ltp: output of LTP test programs and of runltp/ltp-pan.
 *
 * One case per LTP test (the runltp tag, or the test program's name when a
 * program ran alone). Its status comes from the result lines it printed
 * (TBROK > TFAIL > TPASS > TCONF) and from its exit status when runltp
 * recorded one (bit 2 TBROK -> ERROR, bit 1 TFAIL -> FAIL, 32 TCONF ->
 * SKIP, 0 or 4 TWARN -> PASS), whichever is worse. A test that started and
 * never recorded an exit status is ERROR. The runltp summary table fills in
 * tests whose blocks were lost. See parse.h for the contract.
 */
#include "suites/parse.h"
#include "proto/mem.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum ltp_kind { K_PASS, K_FAIL, K_BROK, K_CONF, K_WARN, K_INFO, K_N };

static const char *const s_kind_names[K_N] = {
	"TPASS", "TFAIL", "TBROK", "TCONF", "TWARN", "TINFO",
};

struct ltp_test {
	bool active;
	bool in_block;   /* between <<<test_start>>> and <<<test_end>>> */
	bool in_output;  /* after <<<test_output>>> */
	char name[SUITE_MAX_PATH + 1];
	long count[K_N];
	char first[K_N][SUITE_MAX_MESSAGE + 1];
	bool exited;     /* execution status seen */
	bool signaled;
	long code;
	int64_t duration_ms;
	bool summary;    /* a "Summary:" block seen */
	long sum_passed, sum_failed, sum_broken, sum_skipped, sum_warnings;
	int sum_lines;
};

struct ltp {
	suite_result_t *res;
	struct ltp_test cur;
	bool in_table;
	long tests;
	long unparsed;
};

/* 0 unknown, then SKIP < PASS < FAIL < ERROR */
static int s_rank(enum suite_status s)
{
	switch (s) {
	case SUITE_SKIP: return 1;
	case SUITE_PASS: return 2;
	case SUITE_FAIL: return 3;
	case SUITE_ERROR: return 4;
	default: return 0;
	}
}

static void s_finish(struct ltp *l)
{
	struct ltp_test *c = &l->cur;
	enum suite_status st = SUITE_MISS, ex = SUITE_MISS;
	char msg[SUITE_MAX_MESSAGE + 1] = "";
	const char *why = NULL;

	if (!c->active)
		return;
	/* from the result lines */
	if (c->count[K_BROK])
		st = SUITE_ERROR;
	else if (c->count[K_FAIL])
		st = SUITE_FAIL;
	else if (c->count[K_PASS])
		st = SUITE_PASS;
	else if (c->count[K_CONF])
		st = SUITE_SKIP;
	/* from the new library's summary */
	if (c->summary) {
		enum suite_status s2 = SUITE_MISS;
		if (c->sum_broken)
			s2 = SUITE_ERROR;
		else if (c->sum_failed)
			s2 = SUITE_FAIL;
		else if (c->sum_passed)
			s2 = SUITE_PASS;
		else if (c->sum_skipped)
			s2 = SUITE_SKIP;
		if (s_rank(s2) > s_rank(st))
			st = s2;
	}
	/* from the exit status runltp recorded */
	if (c->exited) {
		if (c->signaled) {
			ex = SUITE_ERROR;
			snprintf(msg, sizeof(msg), "killed by signal %ld", c->code);
		} else if (c->code & 2) {
			ex = SUITE_ERROR;
		} else if (c->code & 1) {
			ex = SUITE_FAIL;
		} else if (c->code == 32) {
			ex = SUITE_SKIP;
		} else if (c->code == 0 || c->code == 4) {
			ex = SUITE_PASS;
		} else {
			ex = SUITE_FAIL;
			snprintf(msg, sizeof(msg), "exit status %ld", c->code);
		}
		if (s_rank(ex) > s_rank(st))
			st = ex;
	} else if (c->in_block) {
		why = "no exit status: output truncated or run timed out";
		st = SUITE_ERROR;
	}
	if (st == SUITE_MISS) {
		/* a standalone stretch of output with no results: not a test */
		memset(c, 0, sizeof(*c));
		return;
	}
	if (!msg[0]) {
		int k = -1;
		switch (st) {
		case SUITE_ERROR: k = K_BROK; break;
		case SUITE_FAIL: k = K_FAIL; break;
		case SUITE_SKIP: k = K_CONF; break;
		default: k = c->count[K_WARN] ? K_WARN : -1; break;
		}
		if (why && k >= 0 && c->first[k][0])
			snprintf(msg, sizeof(msg), "%s; %s: %.100s", why, s_kind_names[k],
				 c->first[k]);
		else if (why)
			snprintf(msg, sizeof(msg), "%s", why);
		else if (k >= 0 && c->first[k][0])
			snprintf(msg, sizeof(msg), "%s: %s", s_kind_names[k], c->first[k]);
		else if (st == SUITE_PASS && c->code == 4)
			snprintf(msg, sizeof(msg), "TWARN: warnings");
	}
	if (!c->name[0])
		snprintf(c->name, sizeof(c->name), "test%ld", l->tests + 1);
	suite_result_add_case(l->res, c->name, strlen(c->name), st, c->duration_ms,
			      msg, strlen(msg));
	l->tests++;
	memset(c, 0, sizeof(*c));
}

static void s_start(struct ltp *l)
{
	s_finish(l);
	l->cur.active = true;
	l->cur.duration_ms = -1;
}

/* Name a standalone test after its source file ("fork01.c" -> "fork01"),
 * skipping the library's own files. */
static void s_name_from_file(struct ltp *l, const char *file, size_t n)
{
	char buf[SUITE_MAX_PATH + 1];
	const char *slash;

	if (l->cur.name[0] || l->cur.in_block)
		return;
	snprintf(buf, sizeof(buf), "%.*s", (int)n, file);
	slash = strrchr(buf, '/');
	if (slash)
		memmove(buf, slash + 1, strlen(slash));
	if (strncmp(buf, "tst_", 4) == 0 || strncmp(buf, "lib", 3) == 0 ||
	    strncmp(buf, "safe_", 5) == 0)
		return;
	char *dot = strchr(buf, '.');
	if (dot)
		*dot = '\0';
	if (buf[0])
		suite_path_sanitize(l->cur.name, sizeof(l->cur.name), buf,
				    strlen(buf), 1);
}

static void s_result(struct ltp *l, int k, const char *msg)
{
	if (!l->cur.active)
		s_start(l);
	if (l->cur.count[k]++ == 0) {
		while (*msg == ' ' || *msg == ':')
			msg++;
		suite_text_clean(l->cur.first[k], sizeof(l->cur.first[k]), msg,
				 strlen(msg));
	}
}

static int s_kind(const char *p)
{
	for (int k = 0; k < K_N; k++) {
		if (strncmp(p, s_kind_names[k], 5) == 0)
			return k;
	}
	return -1;
}

/* "file.c:123: TPASS: message" */
static bool s_new_api(struct ltp *l, const char *p)
{
	const char *colon = strchr(p, ':');
	const char *q;
	int k;

	if (!colon || colon == p)
		return false;
	for (q = p; q < colon; q++) {
		if (*q == ' ')
			return false;
	}
	q = colon + 1;
	if (!isdigit((unsigned char)*q))
		return false;
	while (isdigit((unsigned char)*q))
		q++;
	if (*q++ != ':')
		return false;
	while (*q == ' ')
		q++;
	k = s_kind(q);
	if (k < 0 || q[5] != ':')
		return k == -1 && strncmp(q, "TDEBUG", 6) == 0;
	if (k != K_INFO)
		s_name_from_file(l, p, (size_t)(colon - p));
	s_result(l, k, q + 6);
	return true;
}

/* old API: "fork01    1  TPASS  :  message" */
static bool s_old_api(struct ltp *l, const char *p)
{
	const char *q = p, *name_end;
	int k;

	while (*q && *q != ' ' && *q != '\t')
		q++;
	name_end = q;
	if (name_end == p)
		return false;
	while (*q == ' ' || *q == '\t')
		q++;
	if (!isdigit((unsigned char)*q))
		return false;
	while (isdigit((unsigned char)*q))
		q++;
	while (*q == ' ' || *q == '\t')
		q++;
	k = s_kind(q);
	if (k < 0)
		return false;
	q += 5;
	while (*q == ' ')
		q++;
	if (*q != ':')
		return false;
	if (!l->cur.name[0] && !l->cur.in_block) {
		if (!l->cur.active)
			s_start(l);
		suite_path_sanitize(l->cur.name, sizeof(l->cur.name), p,
				    (size_t)(name_end - p), 1);
	}
	s_result(l, k, q + 1);
	return true;
}

static long s_field(const char *line, const char *key, bool *found)
{
	const char *p = strstr(line, key);

	*found = false;
	if (!p)
		return 0;
	p += strlen(key);
	if (!isdigit((unsigned char)*p) && *p != '-')
		return 0;
	*found = true;
	return strtol(p, NULL, 10) % 100000000;
}

static void s_exec_status(struct ltp *l, const char *p)
{
	bool f;
	long v;

	if (strstr(p, "termination_type=")) {
		v = s_field(p, "termination_id=", &f);
		if (f) {
			l->cur.exited = true;
			l->cur.code = v;
			l->cur.signaled = strstr(p, "termination_type=signaled") != NULL ||
					  strstr(p, "termination_type=killed") != NULL;
		}
	}
	v = s_field(p, "duration=", &f);
	if (f && v >= 0)
		l->cur.duration_ms = (int64_t)v * 1000;
}

/* "passed   1" lines of the library's Summary: block */
static bool s_summary_line(struct ltp *l, const char *p)
{
	static const char *const keys[] = { "passed", "failed", "broken", "skipped", "warnings" };
	long *vals[] = { &l->cur.sum_passed, &l->cur.sum_failed, &l->cur.sum_broken,
			 &l->cur.sum_skipped, &l->cur.sum_warnings };

	for (size_t i = 0; i < 5; i++) {
		size_t kl = strlen(keys[i]);
		const char *q = p + kl;
		if (strncmp(p, keys[i], kl) != 0 || (*q != ' ' && *q != '\t'))
			continue;
		while (*q == ' ' || *q == '\t')
			q++;
		if (!isdigit((unsigned char)*q))
			return false;
		*vals[i] = strtol(q, NULL, 10) % 100000000;
		l->cur.summary = true;
		if (++l->cur.sum_lines == 5 && !l->cur.in_block)
			s_finish(l); /* a standalone test ends with its summary */
		return true;
	}
	return false;
}

/* a row of runltp's "Testcase  Result  Exit Value" table */
static void s_table_row(struct ltp *l, char *p)
{
	char *name = strtok(p, " \t");
	char *result = name ? strtok(NULL, " \t") : NULL;
	char *exitv = result ? strtok(NULL, " \t") : NULL;
	char seg[SUITE_MAX_PATH + 1], msg[SUITE_MAX_MESSAGE + 1] = "";
	enum suite_status st;

	if (!name || !result || strncmp(name, "---", 3) == 0)
		return;
	if (strcmp(result, "PASS") == 0)
		st = SUITE_PASS;
	else if (strcmp(result, "FAIL") == 0)
		st = SUITE_FAIL;
	else if (strcmp(result, "CONF") == 0)
		st = SUITE_SKIP;
	else if (strcmp(result, "BROK") == 0)
		st = SUITE_ERROR;
	else if (strcmp(result, "WARN") == 0)
		st = SUITE_PASS;
	else
		return;
	suite_path_sanitize(seg, sizeof(seg), name, strlen(name), 1);
	if (suite_result_find_case(l->res, seg))
		return; /* its block said more */
	if (exitv)
		snprintf(msg, sizeof(msg), "from the summary table, exit value %.16s", exitv);
	suite_result_add_case(l->res, seg, strlen(seg), st, -1, msg, strlen(msg));
	l->tests++;
}

static void s_line(struct ltp *l, char *line)
{
	char *p = line;

	while (*p == ' ' || *p == '\t')
		p++;
	if (strncmp(p, "<<<test_start>>>", 16) == 0) {
		l->in_table = false;
		s_start(l);
		l->cur.in_block = true;
		return;
	}
	if (strncmp(p, "<<<test_end>>>", 14) == 0) {
		s_finish(l);
		return;
	}
	if (strncmp(p, "<<<test_output>>>", 17) == 0) {
		l->cur.in_output = true;
		return;
	}
	if (strncmp(p, "<<<execution_status>>>", 22) == 0) {
		l->cur.in_output = false;
		return;
	}
	if (l->cur.in_block && !l->cur.in_output) {
		if (strncmp(p, "tag=", 4) == 0) {
			char *e = p + 4;
			while (*e && *e != ' ' && *e != '\t')
				e++;
			suite_path_sanitize(l->cur.name, sizeof(l->cur.name), p + 4,
					    (size_t)(e - (p + 4)), 1);
		} else {
			s_exec_status(l, p);
		}
		return;
	}
	if (strncmp(p, "Testcase", 8) == 0 && strstr(p, "Result") && strstr(p, "Exit Value")) {
		s_finish(l);
		l->in_table = true;
		return;
	}
	if (l->in_table && !l->cur.in_block) {
		if (*p)
			s_table_row(l, p);
		else
			l->in_table = false;
		return;
	}
	if (s_new_api(l, p) || s_old_api(l, p))
		return;
	if (strncmp(p, "Summary:", 8) == 0) {
		if (!l->cur.active)
			s_start(l);
		l->cur.sum_lines = 0;
		return;
	}
	if (l->cur.active && s_summary_line(l, p))
		return;
}

void suite_parse_ltp(const char *out, size_t len, int exit_status,
		     suite_result_t *res)
{
	struct ltp *l = xzalloc(sizeof(*l));
	char line[SUITE_MAX_LINE + 1];
	size_t pos = 0;

	l->res = res;
	while (suite_next_line(out, len, &pos, line, NULL))
		s_line(l, line);
	s_finish(l);
	if (res->n_cases == 0) {
		res->status = SUITE_ERROR;
		if (exit_status >= 0)
			suite_result_set_reason(res, "no LTP results in the output (exit status %d)",
						exit_status);
		else
			suite_result_set_reason(res, "no LTP results in the output");
	} else if (exit_status > 0) {
		suite_result_add_note(res, "run.sh exited with status %d", exit_status);
	}
	if (res->dropped_cases)
		suite_result_add_note(res, "%zu cases past the cap of %d dropped",
				      res->dropped_cases, SUITE_MAX_CASES);
	free(l);
}
