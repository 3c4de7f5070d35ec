/*
 * criteria: pass criteria over a suite result. See criteria.h.
 */
#include "suites/criteria.h"
#include "proto/buf.h"
#include "proto/mem.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const lab_criteria_t *suite_criteria_for_board(const lab_board_t *board,
					       const char *suite)
{
	if (!board)
		return NULL;
	for (size_t i = 0; i < board->n_criteria; i++) {
		if (board->criteria[i].suite && strcmp(board->criteria[i].suite, suite) == 0)
			return &board->criteria[i];
	}
	return NULL;
}

/* Does a rule path cover this case path (below the suite)? */
static bool s_covers(const char *rule, const char *rel, const char *suite)
{
	size_t sl = strlen(suite), rl;

	/* a rule may also be written with the suite's name in front */
	if (strncmp(rule, suite, sl) == 0 && rule[sl] == '.')
		rule += sl + 1;
	rl = strlen(rule);
	return strncmp(rule, rel, rl) == 0 && (rel[rl] == '\0' || rel[rl] == '.');
}

static const lab_fail_ok_t *s_fail_ok(const lab_criteria_t *c, const char *rel,
				      const char *suite)
{
	if (!c)
		return NULL;
	for (size_t i = 0; i < c->n_fail_ok; i++) {
		if (c->fail_ok[i].path && s_covers(c->fail_ok[i].path, rel, suite))
			return &c->fail_ok[i];
	}
	return NULL;
}

static const char *s_rel(const suite_result_t *res, const suite_case_t *c)
{
	return c->path + strlen(res->name) + 1;
}

static const char *s_op_name(enum lab_metric_op op)
{
	switch (op) {
	case LAB_OP_LT: return "<";
	case LAB_OP_LE: return "<=";
	case LAB_OP_GT: return ">";
	case LAB_OP_GE: return ">=";
	case LAB_OP_RANGE: return "in";
	}
	return "?";
}

static bool s_rule_ok(const lab_metric_rule_t *r, double v)
{
	switch (r->op) {
	case LAB_OP_LT: return v < r->lo;
	case LAB_OP_LE: return v <= r->lo;
	case LAB_OP_GT: return v > r->lo;
	case LAB_OP_GE: return v >= r->lo;
	case LAB_OP_RANGE: return v >= r->lo && v <= r->hi;
	}
	return false;
}

static bool s_has_rule_for(const lab_criteria_t *c, const char *name)
{
	if (!c)
		return false;
	for (size_t i = 0; i < c->n_metrics; i++) {
		if (c->metrics[i].name && strcmp(c->metrics[i].name, name) == 0)
			return true;
	}
	return false;
}

/* Append "; " between verdict parts. */
static void s_part(buf_t *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void s_part(buf_t *b, const char *fmt, ...)
{
	char tmp[SUITE_MAX_REASON + 1];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (b->len)
		buf_puts(b, "; ");
	buf_puts(b, tmp);
}

/* Check one metric rule; on failure add a part to the verdict. */
static bool s_check_metric(const suite_result_t *res, const lab_metric_rule_t *r,
			   buf_t *why)
{
	const suite_metric_t *m;

	if (!r->name)
		return true;
	m = suite_result_find_metric(res, r->name);
	if (!m) {
		s_part(why, "metric %s missing", r->name);
		return false;
	}
	if (s_rule_ok(r, m->value))
		return true;
	if (r->op == LAB_OP_RANGE)
		s_part(why, "metric %s %g%s%s not in [%g, %g]", r->name, m->value,
		       m->unit[0] ? " " : "", m->unit, r->lo, r->hi);
	else
		s_part(why, "metric %s %g%s%s not %s %g", r->name, m->value,
		       m->unit[0] ? " " : "", m->unit, s_op_name(r->op), r->lo);
	return false;
}

/* One judgement: the rules merged from both blocks, what a walk over the
 * cases counted, and the verdict's parts so far. */
struct judge {
	const lab_criteria_t *suite;
	const lab_criteria_t *board;
	int max_fail;
	int min_pass;
	char *const *must;
	size_t n_must;
	size_t n_pass, n_fail, n_skip, n_known;
	const char *first_skip;
	buf_t failed; /* the failing cases, named up to CRITERIA_MAX_NAMED */
	buf_t known;  /* the accepted failures, the same */
	buf_t why;    /* the parts of a FAIL verdict */
};

/* The board's value for a field wins over the suite's. */
static void s_judge_init(struct judge *j, const lab_criteria_t *suite_crit,
			 const lab_criteria_t *board_crit)
{
	memset(j, 0, sizeof(*j));
	j->suite = suite_crit;
	j->board = board_crit;
	j->min_pass = -1;
	if (suite_crit && suite_crit->max_fail >= 0)
		j->max_fail = suite_crit->max_fail;
	if (board_crit && board_crit->max_fail >= 0)
		j->max_fail = board_crit->max_fail;
	if (suite_crit && suite_crit->min_pass >= 0)
		j->min_pass = suite_crit->min_pass;
	if (board_crit && board_crit->min_pass >= 0)
		j->min_pass = board_crit->min_pass;
	if (suite_crit && suite_crit->n_must_pass) {
		j->must = suite_crit->must_pass;
		j->n_must = suite_crit->n_must_pass;
	}
	if (board_crit && (board_crit->must_pass || board_crit->n_must_pass)) {
		j->must = board_crit->must_pass;
		j->n_must = board_crit->n_must_pass;
	}
	buf_init(&j->failed, SUITE_MAX_REASON);
	buf_init(&j->why, SUITE_MAX_REASON * 2);
	buf_init(&j->known, SUITE_MAX_REASON);
}

static void s_judge_free(struct judge *j)
{
	buf_free(&j->failed);
	buf_free(&j->why);
	buf_free(&j->known);
}

/* A failing case that fail_ok accepts: marked known, its message says why. */
static void s_accept(struct judge *j, suite_case_t *c, const lab_fail_ok_t *ok)
{
	char msg[SUITE_MAX_MESSAGE * 2 + 32];

	snprintf(msg, sizeof(msg), "known failure: %s%s%s",
		 ok->reason ? ok->reason : "(no reason given)",
		 c->message ? " | " : "", c->message ? c->message : "");
	suite_case_set_message(c, msg, strlen(msg));
	c->known = true;
	if (j->n_known++ < CRITERIA_MAX_NAMED)
		buf_printf(&j->known, "%s%s (%s: %s)", j->known.len ? ", " : "",
			   c->path, suite_status_name(c->status),
			   ok->reason ? ok->reason : "no reason given");
}

/* Count the cases by outcome, accepting known failures on the way. */
static void s_count_cases(struct judge *j, suite_result_t *res)
{
	for (size_t i = 0; i < res->n_cases; i++) {
		suite_case_t *c = &res->cases[i];
		const char *rel = s_rel(res, c);
		const lab_fail_ok_t *ok;

		if (c->status == SUITE_PASS) {
			j->n_pass++;
			continue;
		}
		if (c->status == SUITE_SKIP) {
			if (!j->first_skip)
				j->first_skip = c->message ? c->message : c->path;
			j->n_skip++;
			continue;
		}
		ok = s_fail_ok(j->board, rel, res->name);
		if (!ok)
			ok = s_fail_ok(j->suite, rel, res->name);
		if (ok) {
			s_accept(j, c, ok);
			continue;
		}
		if (j->n_fail++ < CRITERIA_MAX_NAMED)
			buf_printf(&j->failed, "%s%s",
				   j->failed.len ? ", " : "", c->path);
	}
	if (j->n_fail > CRITERIA_MAX_NAMED)
		buf_printf(&j->failed, " and %zu more",
			   j->n_fail - CRITERIA_MAX_NAMED);
	if (j->n_known > CRITERIA_MAX_NAMED)
		buf_printf(&j->known, " and %zu more",
			   j->n_known - CRITERIA_MAX_NAMED);
}

static void s_check_max_fail(struct judge *j)
{
	if ((size_t)j->max_fail < j->n_fail)
		s_part(&j->why, "%zu case%s failed (max_fail %d): %s",
		       j->n_fail, j->n_fail == 1 ? "" : "s", j->max_fail,
		       buf_str(&j->failed));
}

/* Every case a must_pass rule covers passed, and it covers at least one. */
static void s_check_must(struct judge *j, const suite_result_t *res,
			 const char *rule)
{
	size_t seen = 0, bad = 0;
	const char *bad_status = NULL;

	for (size_t i = 0; i < res->n_cases; i++) {
		const suite_case_t *c = &res->cases[i];

		if (!s_covers(rule, s_rel(res, c), res->name))
			continue;
		seen++;
		if (c->status != SUITE_PASS && !bad++)
			bad_status = suite_status_name(c->status);
	}
	if (!seen)
		s_part(&j->why, "must_pass %s.%s absent", res->name, rule);
	else if (bad)
		s_part(&j->why, "must_pass %s.%s: %s", res->name, rule,
		       bad_status);
}

static void s_check_must_pass(struct judge *j, const suite_result_t *res)
{
	for (size_t i = 0; i < j->n_must; i++) {
		if (j->must[i])
			s_check_must(j, res, j->must[i]);
	}
}

static void s_check_min_pass(struct judge *j)
{
	size_t passed = j->n_pass + j->n_known;

	if (j->min_pass >= 0 && passed < (size_t)j->min_pass)
		s_part(&j->why, "%zu case%s passed (min_pass %d)", passed,
		       passed == 1 ? "" : "s", j->min_pass);
}

/* Metric rules: the board's rules for a metric replace the suite's. */
static void s_check_metrics(struct judge *j, const suite_result_t *res)
{
	if (j->board) {
		for (size_t i = 0; i < j->board->n_metrics; i++)
			s_check_metric(res, &j->board->metrics[i], &j->why);
	}
	if (j->suite) {
		for (size_t i = 0; i < j->suite->n_metrics; i++) {
			const lab_metric_rule_t *r = &j->suite->metrics[i];

			if (r->name && s_has_rule_for(j->board, r->name))
				continue;
			s_check_metric(res, r, &j->why);
		}
	}
}

static void s_set_pass(const struct judge *j, suite_result_t *res)
{
	res->status = SUITE_PASS;
	if (res->n_cases && res->n_metrics)
		suite_result_set_reason(res,
					"PASS: %zu passed, %zu skipped, %zu metric%s",
					j->n_pass, j->n_skip, res->n_metrics,
					res->n_metrics == 1 ? "" : "s");
	else if (res->n_cases)
		suite_result_set_reason(res, "PASS: %zu passed, %zu skipped",
					j->n_pass, j->n_skip);
	else
		suite_result_set_reason(res, "PASS: %zu metrics",
					res->n_metrics);
	/* a PASS the criteria gave despite failures names them (known
	 * failures are named by the caller) */
	if (j->n_fail)
		suite_result_add_note(res, "%zu failed within max_fail %d: %s",
				      j->n_fail, j->max_fail,
				      buf_str(&j->failed));
}

/* res->status and its reason from what the checks found. */
static void s_set_status(const struct judge *j, suite_result_t *res)
{
	if (j->why.len) {
		res->status = SUITE_FAIL;
		suite_result_set_reason(res, "FAIL: %s", buf_str(&j->why));
	} else if (j->n_pass + j->n_known + j->n_fail == 0 && j->n_skip &&
		   res->n_metrics == 0) {
		res->status = SUITE_SKIP;
		suite_result_set_reason(res, "all %zu cases skipped: %s",
					j->n_skip, j->first_skip);
	} else if (res->n_cases == 0 && res->n_metrics == 0) {
		res->status = SUITE_ERROR;
		suite_result_set_reason(res, "no cases and no metrics to judge");
	} else {
		s_set_pass(j, res);
	}
}

/* The verdict first, then the accepted failures, then the parser's notes. */
static void s_verdict(const struct judge *j, suite_result_t *res)
{
	char *notes = res->reason;

	res->reason = NULL;
	s_set_status(j, res);
	if (j->n_known)
		suite_result_add_note(res, "%zu known failure%s accepted: %s",
				      j->n_known, j->n_known == 1 ? "" : "s",
				      buf_str(&j->known));
	if (notes && notes[0])
		suite_result_add_note(res, "%s", notes);
	free(notes);
}

void suite_criteria_apply(suite_result_t *res, const lab_criteria_t *suite_crit,
			  const lab_criteria_t *board_crit)
{
	struct judge j;

	if (res->status == SUITE_SKIP || res->status == SUITE_ERROR)
		return;
	s_judge_init(&j, suite_crit, board_crit);
	s_count_cases(&j, res);
	s_check_max_fail(&j);
	s_check_must_pass(&j, res);
	s_check_min_pass(&j);
	s_check_metrics(&j, res);
	s_verdict(&j, res);
	s_judge_free(&j);
}
