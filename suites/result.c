/*
 * result: the suite result model. See result.h.
 */
#include "suites/result.h"
#include "proto/mem.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Open-addressing index of case paths (below the suite) to case numbers. */
struct suite_path_index {
	size_t *slots; /* case number + 1; 0: empty */
	size_t n_slots;
};

static uint64_t s_hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ULL;
	return h;
}

static const char *s_rel(const suite_result_t *res, const char *path)
{
	return path + strlen(res->name) + 1;
}

static void s_index_insert(suite_result_t *res, size_t idx)
{
	struct suite_path_index *ix = res->index;
	size_t i = s_hash(s_rel(res, res->cases[idx].path)) & (ix->n_slots - 1);

	while (ix->slots[i])
		i = (i + 1) & (ix->n_slots - 1);
	ix->slots[i] = idx + 1;
}

static void s_index_grow(suite_result_t *res)
{
	struct suite_path_index *ix = res->index;

	if ((res->n_cases + 1) * 2 <= ix->n_slots)
		return;
	free(ix->slots);
	ix->n_slots = ix->n_slots ? ix->n_slots * 2 : 64;
	ix->slots = xcalloc(ix->n_slots, sizeof(*ix->slots));
	for (size_t i = 0; i < res->n_cases; i++)
		s_index_insert(res, i);
}

suite_case_t *suite_result_find_case(const suite_result_t *res, const char *rel)
{
	const struct suite_path_index *ix = res->index;

	if (!ix->n_slots)
		return NULL;
	size_t i = s_hash(rel) & (ix->n_slots - 1);
	while (ix->slots[i]) {
		suite_case_t *c = &res->cases[ix->slots[i] - 1];
		if (strcmp(s_rel(res, c->path), rel) == 0)
			return c;
		i = (i + 1) & (ix->n_slots - 1);
	}
	return NULL;
}

suite_result_t *suite_result_new(const char *name, int version)
{
	suite_result_t *res = xzalloc(sizeof(*res));
	char seg[SUITE_MAX_SEGMENT + 1];

	suite_path_sanitize(seg, sizeof(seg), name, strlen(name), 1);
	res->name = xstrdup(seg);
	res->version = version;
	res->status = SUITE_PASS;
	res->duration_ms = -1;
	res->index = xzalloc(sizeof(*res->index));
	return res;
}

void suite_result_destroy(suite_result_t **p)
{
	suite_result_t *res;

	if (!p || !*p)
		return;
	res = *p;
	for (size_t i = 0; i < res->n_cases; i++) {
		free(res->cases[i].path);
		free(res->cases[i].message);
	}
	for (size_t i = 0; i < res->n_metrics; i++) {
		free(res->metrics[i].name);
		free(res->metrics[i].unit);
	}
	free(res->cases);
	free(res->metrics);
	free(res->name);
	free(res->reason);
	free(res->log);
	free(res->index->slots);
	free(res->index);
	free(res);
	*p = NULL;
}

static const char *const s_status_names[] = {
	[SUITE_PASS] = "PASS", [SUITE_FAIL] = "FAIL", [SUITE_ERROR] = "ERROR",
	[SUITE_SKIP] = "SKIP", [SUITE_MISS] = "MISS",
};

const char *suite_status_name(enum suite_status s)
{
	if ((unsigned)s >= sizeof(s_status_names) / sizeof(s_status_names[0]))
		return "?";
	return s_status_names[s];
}

bool suite_status_parse(const char *s, enum suite_status *ret)
{
	for (size_t i = 0; i < sizeof(s_status_names) / sizeof(s_status_names[0]); i++) {
		if (strcmp(s, s_status_names[i]) == 0) {
			*ret = (enum suite_status)i;
			return true;
		}
	}
	return false;
}

const char *suite_better_name(enum suite_better b)
{
	return b == SUITE_BETTER_LOWER ? "lower" : "higher";
}

static bool s_segchar(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_' || c == '-';
}

char *suite_path_sanitize(char *out, size_t outsz, const char *name,
			  size_t len, int depth)
{
	size_t o = 0, seglen = 0;
	int segs = 0;
	bool open = false; /* inside a segment */

	if (outsz == 0)
		return out;
	/* trim blanks around the whole name */
	while (len && (name[0] == ' ' || name[0] == '\t')) {
		name++;
		len--;
	}
	while (len && (name[len - 1] == ' ' || name[len - 1] == '\t' ||
		       name[len - 1] == '\r' || name[len - 1] == '\n'))
		len--;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)name[i];
		if (c == '.') {
			open = false;
			continue;
		}
		if (!open) {
			if (segs == depth)
				break;
			if (o && o + 1 >= outsz - 1)
				break;
			if (o)
				out[o++] = '.';
			segs++;
			seglen = 0;
			open = true;
		}
		if (seglen >= SUITE_MAX_SEGMENT || o + 1 >= outsz)
			continue;
		/* collapse runs of replaced characters into one '_' */
		if (!s_segchar(c)) {
			if (seglen && out[o - 1] == '_')
				continue;
			c = '_';
		}
		out[o++] = (char)c;
		seglen++;
	}
	/* a segment cut at the size limit may end in a dangling '.' */
	while (o && out[o - 1] == '.')
		o--;
	if (o == 0) {
		snprintf(out, outsz, "unnamed");
		return out;
	}
	out[o] = '\0';
	return out;
}

char *suite_text_clean(char *out, size_t outsz, const char *text, size_t len)
{
	size_t o = 0;

	if (outsz == 0)
		return out;
	for (size_t i = 0; i < len && o + 1 < outsz; i++) {
		unsigned char c = (unsigned char)text[i];
		if (c == '\t' || c == '\n' || c == '\r')
			c = ' ';
		else if (c < 0x20 || c >= 0x7f)
			c = '?';
		out[o++] = (char)c;
	}
	/* trim trailing blanks */
	while (o && out[o - 1] == ' ')
		o--;
	out[o] = '\0';
	return out;
}

void suite_case_set_message(suite_case_t *c, const char *msg, size_t len)
{
	char buf[SUITE_MAX_MESSAGE + 1];

	free(c->message);
	c->message = NULL;
	if (!msg)
		return;
	suite_text_clean(buf, sizeof(buf), msg, len);
	if (buf[0])
		c->message = xstrdup(buf);
}

suite_case_t *suite_result_add_case(suite_result_t *res, const char *rel,
				    size_t rel_len, enum suite_status status,
				    int64_t duration_ms, const char *message,
				    size_t msg_len)
{
	char path[SUITE_MAX_PATH + 1];
	char uniq[SUITE_MAX_PATH + 16];
	size_t room, nlen = strlen(res->name);
	suite_case_t *c;

	if (res->n_cases >= SUITE_MAX_CASES) {
		res->dropped_cases++;
		return NULL;
	}
	/* room for the path below "<suite>." */
	room = SUITE_MAX_PATH - nlen - 1;
	suite_path_sanitize(path, room + 1 < sizeof(path) ? room + 1 : sizeof(path),
			    rel, rel_len, SUITE_MAX_DEPTH - 1);
	snprintf(uniq, sizeof(uniq), "%s", path);
	/* "-2" for the first repeat; past that, number by position so that
	 * many repeats of one name stay linear */
	for (size_t n = 2; suite_result_find_case(res, uniq);
	     n = n == 2 ? res->n_cases + 1 : n + 1) {
		char sfx[16];
		size_t sl = (size_t)snprintf(sfx, sizeof(sfx), "-%zu", n);
		size_t pl = strlen(path);
		if (pl + sl > room)
			pl = room - sl;
		snprintf(uniq, sizeof(uniq), "%.*s%s", (int)pl, path, sfx);
	}
	s_index_grow(res);
	res->cases = xreallocarray(res->cases, res->n_cases + 1, sizeof(*res->cases));
	c = &res->cases[res->n_cases];
	memset(c, 0, sizeof(*c));
	c->path = xasprintf("%s.%s", res->name, uniq);
	c->status = status;
	c->duration_ms = duration_ms;
	suite_case_set_message(c, message, msg_len);
	res->n_cases++;
	s_index_insert(res, res->n_cases - 1);
	return c;
}

static bool s_metric_name_ok(const char *s)
{
	size_t n = 0;

	for (; s[n]; n++) {
		if (!s_segchar((unsigned char)s[n]) && s[n] != '.')
			return false;
	}
	return n >= 1 && n <= SUITE_MAX_METRIC_NAME;
}

static bool s_unit_ok(const char *s)
{
	size_t n = 0;

	for (; s[n]; n++) {
		if ((unsigned char)s[n] <= 0x20 || (unsigned char)s[n] >= 0x7f)
			return false;
	}
	return n <= SUITE_MAX_UNIT;
}

suite_metric_t *suite_result_find_metric(const suite_result_t *res,
					 const char *name)
{
	for (size_t i = 0; i < res->n_metrics; i++) {
		if (strcmp(res->metrics[i].name, name) == 0)
			return &res->metrics[i];
	}
	return NULL;
}

int suite_result_add_metric(suite_result_t *res, const char *name, double value,
			    const char *unit, enum suite_better better)
{
	suite_metric_t *m;

	if (!unit)
		unit = "";
	if (!s_metric_name_ok(name) || !s_unit_ok(unit) || !isfinite(value))
		return -EINVAL;
	if (suite_result_find_metric(res, name))
		return -EEXIST;
	if (res->n_metrics >= SUITE_MAX_METRICS) {
		res->dropped_metrics++;
		return -ENOSPC;
	}
	res->metrics = xreallocarray(res->metrics, res->n_metrics + 1,
				     sizeof(*res->metrics));
	m = &res->metrics[res->n_metrics++];
	m->name = xstrdup(name);
	m->value = value;
	m->unit = xstrdup(unit);
	m->better = better;
	return 0;
}

static void s_set_reason_v(suite_result_t *res, bool append, const char *fmt,
			   va_list ap)
{
	char text[SUITE_MAX_REASON + 1], clean[SUITE_MAX_REASON + 1];
	char *joined;
	int n;

	n = vsnprintf(text, sizeof(text), fmt, ap);
	if (n < 0)
		return;
	suite_text_clean(clean, sizeof(clean), text, strnlen(text, sizeof(text)));
	if (append && res->reason && res->reason[0]) {
		joined = xasprintf("%s; %s", res->reason, clean);
		if (strlen(joined) > SUITE_MAX_REASON)
			joined[SUITE_MAX_REASON] = '\0';
	} else {
		joined = xstrdup(clean);
	}
	free(res->reason);
	res->reason = joined;
}

void suite_result_set_reason(suite_result_t *res, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	s_set_reason_v(res, false, fmt, ap);
	va_end(ap);
}

void suite_result_add_note(suite_result_t *res, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	s_set_reason_v(res, true, fmt, ap);
	va_end(ap);
}

void suite_result_counts(const suite_result_t *res, suite_counts_t *ret)
{
	memset(ret, 0, sizeof(*ret));
	for (size_t i = 0; i < res->n_cases; i++) {
		const suite_case_t *c = &res->cases[i];
		if (c->known) {
			ret->known++;
			continue;
		}
		switch (c->status) {
		case SUITE_PASS: ret->pass++; break;
		case SUITE_FAIL: ret->fail++; break;
		case SUITE_ERROR: ret->error++; break;
		case SUITE_SKIP: ret->skip++; break;
		case SUITE_MISS: ret->miss++; break;
		}
	}
}

void suite_result_declare_metrics(suite_result_t *res,
				  const suite_metric_decl_t *decls, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const suite_metric_decl_t *d = &decls[i];
		suite_metric_t *m = suite_result_find_metric(res, d->name);
		const char *unit = d->unit ? d->unit : "";
		char msg[SUITE_MAX_MESSAGE + 1], rel[SUITE_MAX_METRIC_NAME + 16];

		snprintf(rel, sizeof(rel), "metrics.%s", d->name);
		if (!m) {
			if (res->status != SUITE_SKIP)
				suite_result_add_case(res, rel, strlen(rel), SUITE_MISS, -1,
						      "declared metric not reported", 28);
			continue;
		}
		m->better = d->better;
		if (!m->unit[0] && unit[0]) {
			free(m->unit);
			m->unit = xstrdup(unit);
		} else if (strcmp(m->unit, unit) != 0) {
			snprintf(msg, sizeof(msg), "unit '%s', declared '%s'", m->unit, unit);
			suite_result_add_case(res, rel, strlen(rel), SUITE_ERROR, -1, msg,
					      strlen(msg));
		}
	}
}
