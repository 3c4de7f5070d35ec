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

void suite_criteria_init(lab_criteria_t *c)
{
	memset(c, 0, sizeof(*c));
	c->max_fail = -1;
	c->min_pass = -1;
}

void suite_criteria_clear(lab_criteria_t *c)
{
	if (!c)
		return;
	free(c->suite);
	for (size_t i = 0; i < c->n_must_pass; i++)
		free(c->must_pass[i]);
	free(c->must_pass);
	for (size_t i = 0; i < c->n_fail_ok; i++) {
		free(c->fail_ok[i].path);
		free(c->fail_ok[i].reason);
	}
	free(c->fail_ok);
	for (size_t i = 0; i < c->n_metrics; i++)
		free(c->metrics[i].name);
	free(c->metrics);
	suite_criteria_init(c);
}

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

void suite_criteria_apply(suite_result_t *res, const lab_criteria_t *suite_crit,
			  const lab_criteria_t *board_crit)
{
	int max_fail = 0, min_pass = -1;
	char *const *must = NULL;
	size_t n_must = 0;
	size_t n_pass = 0, n_fail = 0, n_skip = 0, n_known = 0, named = 0;
	const char *first_skip = NULL;
	buf_t failed, why, known;
	char *notes;

	if (res->status == SUITE_SKIP || res->status == SUITE_ERROR)
		return;

	/* the board's value for a field wins over the suite's */
	if (suite_crit && suite_crit->max_fail >= 0)
		max_fail = suite_crit->max_fail;
	if (board_crit && board_crit->max_fail >= 0)
		max_fail = board_crit->max_fail;
	if (suite_crit && suite_crit->min_pass >= 0)
		min_pass = suite_crit->min_pass;
	if (board_crit && board_crit->min_pass >= 0)
		min_pass = board_crit->min_pass;
	if (suite_crit && suite_crit->n_must_pass) {
		must = suite_crit->must_pass;
		n_must = suite_crit->n_must_pass;
	}
	if (board_crit && (board_crit->must_pass || board_crit->n_must_pass)) {
		must = board_crit->must_pass;
		n_must = board_crit->n_must_pass;
	}

	buf_init(&failed, SUITE_MAX_REASON);
	buf_init(&why, SUITE_MAX_REASON * 2);
	buf_init(&known, SUITE_MAX_REASON);

	for (size_t i = 0; i < res->n_cases; i++) {
		suite_case_t *c = &res->cases[i];
		const char *rel = s_rel(res, c);
		const lab_fail_ok_t *ok;

		if (c->status == SUITE_PASS) {
			n_pass++;
			continue;
		}
		if (c->status == SUITE_SKIP) {
			if (!first_skip)
				first_skip = c->message ? c->message : c->path;
			n_skip++;
			continue;
		}
		ok = s_fail_ok(board_crit, rel, res->name);
		if (!ok)
			ok = s_fail_ok(suite_crit, rel, res->name);
		if (ok) {
			char msg[SUITE_MAX_MESSAGE * 2 + 32];
			snprintf(msg, sizeof(msg), "known failure: %s%s%s",
				 ok->reason ? ok->reason : "(no reason given)",
				 c->message ? " | " : "", c->message ? c->message : "");
			suite_case_set_message(c, msg, strlen(msg));
			c->known = true;
			if (n_known++ < CRITERIA_MAX_NAMED)
				buf_printf(&known, "%s%s (%s: %s)", known.len ? ", " : "",
					   c->path, suite_status_name(c->status),
					   ok->reason ? ok->reason : "no reason given");
			continue;
		}
		n_fail++;
		if (named++ < CRITERIA_MAX_NAMED)
			buf_printf(&failed, "%s%s", failed.len ? ", " : "", c->path);
	}
	if (named > CRITERIA_MAX_NAMED)
		buf_printf(&failed, " and %zu more", named - CRITERIA_MAX_NAMED);
	if (n_known > CRITERIA_MAX_NAMED)
		buf_printf(&known, " and %zu more", n_known - CRITERIA_MAX_NAMED);

	if ((size_t)max_fail < n_fail)
		s_part(&why, "%zu case%s failed (max_fail %d): %s", n_fail,
		       n_fail == 1 ? "" : "s", max_fail, buf_str(&failed));
	for (size_t i = 0; i < n_must; i++) {
		size_t seen = 0, bad = 0;
		const char *bad_status = NULL;
		if (!must[i])
			continue;
		for (size_t j = 0; j < res->n_cases; j++) {
			const suite_case_t *c = &res->cases[j];
			if (!s_covers(must[i], s_rel(res, c), res->name))
				continue;
			seen++;
			if (c->status != SUITE_PASS) {
				if (!bad++)
					bad_status = suite_status_name(c->status);
			}
		}
		if (!seen)
			s_part(&why, "must_pass %s.%s absent", res->name, must[i]);
		else if (bad)
			s_part(&why, "must_pass %s.%s: %s", res->name, must[i], bad_status);
	}
	if (min_pass >= 0 && n_pass + n_known < (size_t)min_pass)
		s_part(&why, "%zu case%s passed (min_pass %d)", n_pass + n_known,
		       n_pass + n_known == 1 ? "" : "s", min_pass);

	/* metric rules: the board's rules for a metric replace the suite's */
	if (board_crit) {
		for (size_t i = 0; i < board_crit->n_metrics; i++)
			s_check_metric(res, &board_crit->metrics[i], &why);
	}
	if (suite_crit) {
		for (size_t i = 0; i < suite_crit->n_metrics; i++) {
			const lab_metric_rule_t *r = &suite_crit->metrics[i];
			if (r->name && s_has_rule_for(board_crit, r->name))
				continue;
			s_check_metric(res, r, &why);
		}
	}

	notes = res->reason;
	res->reason = NULL;
	if (why.len) {
		res->status = SUITE_FAIL;
		suite_result_set_reason(res, "FAIL: %s", buf_str(&why));
	} else if (n_pass + n_known + n_fail == 0 && n_skip && res->n_metrics == 0) {
		res->status = SUITE_SKIP;
		suite_result_set_reason(res, "all %zu cases skipped: %s", n_skip, first_skip);
	} else if (res->n_cases == 0 && res->n_metrics == 0) {
		res->status = SUITE_ERROR;
		suite_result_set_reason(res, "no cases and no metrics to judge");
	} else {
		res->status = SUITE_PASS;
		if (res->n_cases && res->n_metrics)
			suite_result_set_reason(res, "PASS: %zu passed, %zu skipped, %zu metric%s",
						n_pass, n_skip, res->n_metrics,
						res->n_metrics == 1 ? "" : "s");
		else if (res->n_cases)
			suite_result_set_reason(res, "PASS: %zu passed, %zu skipped", n_pass, n_skip);
		else
			suite_result_set_reason(res, "PASS: %zu metrics", res->n_metrics);
	}
	if (n_known)
		suite_result_add_note(res, "%zu known failure%s accepted: %s", n_known,
				      n_known == 1 ? "" : "s", buf_str(&known));
	if (notes && notes[0])
		suite_result_add_note(res, "%s", notes);
	free(notes);
	buf_free(&failed);
	buf_free(&why);
	buf_free(&known);
}
