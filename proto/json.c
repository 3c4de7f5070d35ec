/*
 * json: streaming JSON writer. See json.h.
 *
 * Layout: string escaping with UTF-8 repair; the writer's bookkeeping
 * (separators, indentation, keys); the value writers.
 */
#include "proto/json.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- strings ------------------------------------------------------------ */

/* Length of the valid UTF-8 sequence at s (at most n bytes), or 0 when the
 * bytes there are not one (RFC 3629: no overlongs, surrogates or > U+10FFFF). */
static size_t s_utf8_len(const unsigned char *s, size_t n)
{
	unsigned char c = s[0];
	size_t len;
	unsigned char lo = 0x80, hi = 0xbf; /* range of the second byte */

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		if (c == 0xe0)
			lo = 0xa0; /* overlong */
		else if (c == 0xed)
			hi = 0x9f; /* surrogates */
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		if (c == 0xf0)
			lo = 0x90; /* overlong */
		else if (c == 0xf4)
			hi = 0x8f; /* past U+10FFFF */
	} else {
		return 0;
	}
	if (n < len || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return len;
}

static const char *s_short_escape(unsigned char c)
{
	switch (c) {
	case '"':
		return "\\\"";
	case '\\':
		return "\\\\";
	case '\b':
		return "\\b";
	case '\f':
		return "\\f";
	case '\n':
		return "\\n";
	case '\r':
		return "\\r";
	case '\t':
		return "\\t";
	}
	return NULL;
}

int json_escape(buf_t *out, const void *p, size_t n)
{
	const unsigned char *s = p;
	size_t i = 0, run = 0; /* run: bytes at s[i - run] to copy as they are */
	int r = buf_putc(out, '"');

	while (i < n && r == 0) {
		const char *esc = s_short_escape(s[i]);
		size_t len = esc ? 0 : s_utf8_len(s + i, n - i);
		char tmp[8];

		/* U+2028/2029 break JavaScript string literals: escape them */
		bool sep = len == 3 && s[i] == 0xe2 && s[i + 1] == 0x80 &&
			   (s[i + 2] == 0xa8 || s[i + 2] == 0xa9);

		if (!esc && len && !sep && s[i] >= 0x20 && s[i] != 0x7f) {
			run += len;
			i += len;
			continue;
		}
		if (run)
			r = buf_append(out, s + i - run, run);
		run = 0;
		if (esc) {
			r = r ? r : buf_puts(out, esc);
			i++;
		} else if (sep) {
			r = r ? r : buf_puts(out, s[i + 2] == 0xa8 ? "\\u2028" : "\\u2029");
			i += 3;
		} else if (len == 1) {
			snprintf(tmp, sizeof(tmp), "\\u%04x", s[i]);
			r = r ? r : buf_puts(out, tmp);
			i++;
		} else {
			r = r ? r : buf_puts(out, "\xef\xbf\xbd"); /* U+FFFD */
			i++;
		}
	}
	if (run && r == 0)
		r = buf_append(out, s + i - run, run);
	if (r == 0)
		r = buf_putc(out, '"');
	return r;
}

/* ---- bookkeeping ----------------------------------------------------------- */

void json_init(json_t *j, buf_t *out, int flags)
{
	memset(j, 0, sizeof(*j));
	j->out = out;
	j->flags = flags;
}

static int s_fail(json_t *j, int err)
{
	if (!j->err)
		j->err = err;
	return j->err;
}

static int s_put(json_t *j, const char *s)
{
	int r;

	if (j->err)
		return j->err;
	r = buf_puts(j->out, s);
	return r < 0 ? s_fail(j, r) : 0;
}

static int s_newline(json_t *j)
{
	int r = s_put(j, "\n");

	for (int i = 0; i < j->depth && r == 0; i++)
		r = s_put(j, "  ");
	return r;
}

/* Before any value: check it is allowed here and write the separator. */
static int s_before_value(json_t *j)
{
	if (j->err)
		return j->err;
	if (j->depth == 0) {
		if (j->done)
			return s_fail(j, -EINVAL);
		j->done = true;
		return 0;
	}
	if (j->in_obj[j->depth]) {
		if (!j->after_key)
			return s_fail(j, -EINVAL);
		j->after_key = false;
		return 0;
	}
	if (j->count[j->depth]++ > 0 && s_put(j, ",") < 0)
		return j->err;
	return j->flags & JSON_PRETTY ? s_newline(j) : 0;
}

int json_key(json_t *j, const char *key)
{
	int r;

	if (j->err)
		return j->err;
	if (j->depth == 0 || !j->in_obj[j->depth] || j->after_key || !key)
		return s_fail(j, -EINVAL);
	if (j->count[j->depth]++ > 0 && s_put(j, ",") < 0)
		return j->err;
	if (j->flags & JSON_PRETTY && s_newline(j) < 0)
		return j->err;
	r = json_escape(j->out, key, strlen(key));
	if (r < 0)
		return s_fail(j, r);
	if (s_put(j, j->flags & JSON_PRETTY ? ": " : ":") < 0)
		return j->err;
	j->after_key = true;
	return 0;
}

static int s_open(json_t *j, bool obj)
{
	if (s_before_value(j) < 0)
		return j->err;
	if (j->depth >= JSON_MAX_DEPTH)
		return s_fail(j, -E2BIG);
	if (s_put(j, obj ? "{" : "[") < 0)
		return j->err;
	j->depth++;
	j->in_obj[j->depth] = obj;
	j->count[j->depth] = 0;
	return 0;
}

static int s_close(json_t *j, bool obj)
{
	if (j->err)
		return j->err;
	if (j->depth == 0 || j->in_obj[j->depth] != obj || j->after_key)
		return s_fail(j, -EINVAL);
	j->depth--;
	if (j->count[j->depth + 1] && j->flags & JSON_PRETTY &&
	    s_newline(j) < 0)
		return j->err;
	return s_put(j, obj ? "}" : "]");
}

int json_obj_open(json_t *j)
{
	return s_open(j, true);
}

int json_obj_close(json_t *j)
{
	return s_close(j, true);
}

int json_arr_open(json_t *j)
{
	return s_open(j, false);
}

int json_arr_close(json_t *j)
{
	return s_close(j, false);
}

int json_finish(json_t *j)
{
	if (j->err)
		return j->err;
	if (j->depth != 0 || !j->done)
		return s_fail(j, -EINVAL);
	return j->flags & JSON_PRETTY ? s_put(j, "\n") : 0;
}

/* ---- values ---------------------------------------------------------------- */

int json_strn(json_t *j, const void *s, size_t n)
{
	int r;

	if (s_before_value(j) < 0)
		return j->err;
	r = json_escape(j->out, s, n);
	return r < 0 ? s_fail(j, r) : 0;
}

int json_str(json_t *j, const char *s)
{
	if (!s)
		return json_null(j);
	return json_strn(j, s, strlen(s));
}

int json_int(json_t *j, int64_t v)
{
	char tmp[32];

	if (s_before_value(j) < 0)
		return j->err;
	snprintf(tmp, sizeof(tmp), "%" PRId64, v);
	return s_put(j, tmp);
}

int json_uint(json_t *j, uint64_t v)
{
	char tmp[32];

	if (s_before_value(j) < 0)
		return j->err;
	snprintf(tmp, sizeof(tmp), "%" PRIu64, v);
	return s_put(j, tmp);
}

int json_double(json_t *j, double v)
{
	char tmp[40];

	if (!isfinite(v))
		return json_null(j);
	if (s_before_value(j) < 0)
		return j->err;
	/* the shortest of %.15g..%.17g that reads back as the same double */
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(tmp, sizeof(tmp), "%.*g", prec, v);
		if (strtod(tmp, NULL) == v)
			break;
	}
	return s_put(j, tmp);
}

int json_bool(json_t *j, bool v)
{
	if (s_before_value(j) < 0)
		return j->err;
	return s_put(j, v ? "true" : "false");
}

int json_null(json_t *j)
{
	if (s_before_value(j) < 0)
		return j->err;
	return s_put(j, "null");
}

int json_key_str(json_t *j, const char *key, const char *s)
{
	return json_key(j, key) < 0 ? j->err : json_str(j, s);
}

int json_key_int(json_t *j, const char *key, int64_t v)
{
	return json_key(j, key) < 0 ? j->err : json_int(j, v);
}

int json_key_uint(json_t *j, const char *key, uint64_t v)
{
	return json_key(j, key) < 0 ? j->err : json_uint(j, v);
}

int json_key_double(json_t *j, const char *key, double v)
{
	return json_key(j, key) < 0 ? j->err : json_double(j, v);
}

int json_key_bool(json_t *j, const char *key, bool v)
{
	return json_key(j, key) < 0 ? j->err : json_bool(j, v);
}

int json_key_null(json_t *j, const char *key)
{
	return json_key(j, key) < 0 ? j->err : json_null(j);
}
