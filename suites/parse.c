/*
 * parse: the metric-line and exit-status parsers, the dispatch by parser
 * name, and the line iteration every parser shares. See parse.h.
 */
#include "suites/parse.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const s_parser_names[] = {
	[SUITE_PARSER_TAP] = "tap",
	[SUITE_PARSER_KSELFTEST] = "kselftest",
	[SUITE_PARSER_LTP] = "ltp",
	[SUITE_PARSER_METRICS] = "metrics",
	[SUITE_PARSER_EXIT] = "exit",
	[SUITE_PARSER_KLOG] = "klog",
	[SUITE_PARSER_KUNIT] = "kunit",
};

const char *suite_parser_name(enum suite_parser p)
{
	if ((unsigned)p >= sizeof(s_parser_names) / sizeof(s_parser_names[0]))
		return "?";
	return s_parser_names[p];
}

bool suite_parser_parse(const char *s, enum suite_parser *ret)
{
	for (size_t i = 0; i < sizeof(s_parser_names) / sizeof(s_parser_names[0]); i++) {
		if (strcmp(s, s_parser_names[i]) == 0) {
			*ret = (enum suite_parser)i;
			return true;
		}
	}
	return false;
}

int suite_parse_output(enum suite_parser parser, const char *out, size_t len,
		       int exit_status, suite_result_t *res)
{
	switch (parser) {
	case SUITE_PARSER_TAP:
		suite_parse_tap(out, len, exit_status, res);
		return 0;
	case SUITE_PARSER_KSELFTEST:
		suite_parse_kselftest(out, len, exit_status, res);
		return 0;
	case SUITE_PARSER_LTP:
		suite_parse_ltp(out, len, exit_status, res);
		return 0;
	case SUITE_PARSER_METRICS:
		suite_parse_metrics(out, len, exit_status, res);
		return 0;
	case SUITE_PARSER_EXIT:
		suite_parse_exit(out, len, exit_status, res);
		return 0;
	case SUITE_PARSER_KLOG:
		suite_parse_klog(out, len, exit_status, res);
		return 0;
	case SUITE_PARSER_KUNIT:
		suite_parse_kunit(out, len, exit_status, res);
		return 0;
	}
	return -EINVAL;
}

bool suite_next_line(const char *out, size_t len, size_t *pos, char *line,
		     size_t *ret_len)
{
	const char *start, *nl;
	size_t n, copy;

	if (*pos >= len)
		return false;
	start = out + *pos;
	nl = memchr(start, '\n', len - *pos);
	n = nl ? (size_t)(nl - start) : len - *pos;
	*pos += n + (nl ? 1 : 0);
	copy = n > SUITE_MAX_LINE ? SUITE_MAX_LINE : n;
	for (size_t i = 0; i < copy; i++)
		line[i] = start[i] ? start[i] : '?';
	while (copy && line[copy - 1] == '\r')
		copy--;
	line[copy] = '\0';
	if (ret_len)
		*ret_len = copy;
	return true;
}

/* A plain decimal number: [-+]digits[.digits][e[-+]digits], finite. */
static bool s_decimal(const char *s, double *ret)
{
	const char *p = s;
	char *end;
	int digits = 0;

	if (*p == '-' || *p == '+')
		p++;
	while (isdigit((unsigned char)*p)) {
		p++;
		digits++;
	}
	if (*p == '.') {
		p++;
		while (isdigit((unsigned char)*p)) {
			p++;
			digits++;
		}
	}
	if (!digits)
		return false;
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '-' || *p == '+')
			p++;
		if (!isdigit((unsigned char)*p))
			return false;
		while (isdigit((unsigned char)*p))
			p++;
	}
	if (*p)
		return false;
	*ret = strtod(s, &end);
	return end == p && isfinite(*ret);
}

int suite_metric_line(suite_result_t *res, char *text)
{
	char *tok[4], *save = NULL;
	int n = 0;
	double v;

	for (char *t = strtok_r(text, " \t", &save); t && n < 4; t = strtok_r(NULL, " \t", &save))
		tok[n++] = t;
	if ((n != 2 && n != 3) || !s_decimal(tok[1], &v))
		return -EINVAL;
	return suite_result_add_metric(res, tok[0], v, n == 3 ? tok[2] : "",
				       SUITE_BETTER_HIGHER);
}

void suite_parse_metrics(const char *out, size_t len, int exit_status,
			 suite_result_t *res)
{
	char line[SUITE_MAX_LINE + 1], first_bad[64] = "";
	size_t pos = 0;
	long bad = 0, dups = 0;
	bool skip = false;

	while (suite_next_line(out, len, &pos, line, NULL)) {
		char *p = line;

		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p || *p == '#')
			continue;
		if (strncmp(p, "skip:", 5) == 0) {
			if (!skip) {
				p += 5;
				while (*p == ' ')
					p++;
				suite_result_set_reason(res, "%s", *p ? p : "skipped by the suite");
				skip = true;
			}
			continue;
		}
		{
			char copy[SUITE_MAX_LINE + 1];
			int r;
			snprintf(copy, sizeof(copy), "%s", p);
			r = suite_metric_line(res, copy);
			if (r == 0 || r == -ENOSPC)
				continue;
			if (r == -EEXIST) {
				dups++;
				continue;
			}
		}
		if (!bad++)
			suite_text_clean(first_bad, sizeof(first_bad), line, strlen(line));
	}
	if (skip) {
		res->status = SUITE_SKIP;
		return;
	}
	if (res->n_metrics == 0) {
		res->status = SUITE_ERROR;
		if (exit_status >= 0)
			suite_result_set_reason(res, "no metric lines in the output (exit status %d)",
						exit_status);
		else
			suite_result_set_reason(res, "no metric lines in the output");
	} else if (exit_status > 0) {
		res->status = SUITE_ERROR;
		suite_result_set_reason(res, "run.sh exited with status %d", exit_status);
	}
	if (bad)
		suite_result_add_note(res, "%ld lines not understood, first: '%s'", bad, first_bad);
	if (dups)
		suite_result_add_note(res, "%ld repeated metrics ignored", dups);
	if (res->dropped_metrics)
		suite_result_add_note(res, "%zu metrics past the cap of %d dropped",
				      res->dropped_metrics, SUITE_MAX_METRICS);
}

void suite_parse_exit(const char *out, size_t len, int exit_status,
		      suite_result_t *res)
{
	char line[SUITE_MAX_LINE + 1], last[SUITE_MAX_MESSAGE + 1] = "";
	char msg[SUITE_MAX_MESSAGE + 1];
	size_t pos = 0, n;

	/* the last non-blank line says why, usually; blanks of any kind (a
	 * console's carriage returns too) before or after its text are not
	 * part of it, and a line of blanks does not replace it */
	while (suite_next_line(out, len, &pos, line, &n)) {
		char *p = line;
		while (*p && isspace((unsigned char)*p))
			p++;
		if (*p)
			suite_text_clean(last, sizeof(last), p, strlen(p));
	}
	if (exit_status == 0) {
		suite_result_add_case(res, "run", 3, SUITE_PASS, -1, NULL, 0);
	} else if (exit_status == 77) {
		res->status = SUITE_SKIP;
		suite_result_set_reason(res, "%s", last[0] ? last : "exit status 77");
	} else if (exit_status < 0) {
		suite_result_add_case(res, "run", 3, SUITE_ERROR, -1, "no exit status", 14);
	} else {
		snprintf(msg, sizeof(msg), "exit status %d%s%s", exit_status,
			 last[0] ? ": " : "", last);
		suite_result_add_case(res, "run", 3, SUITE_FAIL, -1, msg, strlen(msg));
	}
}
