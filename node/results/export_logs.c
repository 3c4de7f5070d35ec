/*
 * export_logs: what the KCIDB exporter says about logs: each log_url
 * (under a blob server's prefix, or the node's own dashboard) and each
 * failure's log_excerpt, the lines of the suite's output that failed.
 *
 * Logs are blobs in HOME/blobs; one that is not held here gives no
 * excerpt but the case's message. Logs are board output: the excerpt is
 * cut to KCIDB's cap on a UTF-8 boundary, NUL bytes never reach it.
 */
#include "node/results/export.h"
#include "node/results/export_int.h"

#include "node/store/blob.h"

#include "proto/buf.h"
#include "proto/mem.h"
#include "proto/types.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXPORT_MAX_LOG_READ (16u << 20) /* larger logs: no excerpt */
#define EXPORT_EXCERPT_AFTER 24		/* diagnostic lines after a failure */
#define EXPORT_EXCERPT_TAIL 40		/* last lines when nothing matched */

/* base without its trailing slashes (the caller frees). */
static char *s_trim(const char *base)
{
	size_t n = strlen(base);

	while (n && base[n - 1] == '/')
		n--;
	return xstrndup(base, n);
}

/* %XX-escape what a query value cannot hold as is. */
static void s_query_value(buf_t *b, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";

	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || strchr("-._~", c)) {
			buf_append(b, s, 1);
		} else {
			char e[3] = { '%', hex[c >> 4], hex[c & 15] };

			buf_append(b, e, 3);
		}
	}
}

char *export_log_url(const export_logs_t *l, const uint8_t rec[32],
		     const char *suite, const char *name, const char *hex)
{
	char rhex[65], *base, *url;
	buf_t b;

	if (l->log_base) {
		base = s_trim(l->log_base);
		url = xasprintf("%s/%s", base, hex);
		free(base);
		return url;
	}
	if (!l->dash)
		return NULL;
	proto_hex(rec, 32, rhex);
	base = s_trim(l->dash);
	buf_init(&b, 0);
	buf_append(&b, base, strlen(base));
	buf_append(&b, "/api/log?run=", 13);
	buf_append(&b, rhex, 64);
	if (suite) {
		buf_append(&b, "&suite=", 7);
		s_query_value(&b, suite);
	}
	if (name) {
		buf_append(&b, "&name=", 6);
		s_query_value(&b, name);
	}
	free(base);
	url = buf_steal(&b);
	buf_free(&b);
	return url;
}

/* The blob hex, read whole (NUL-terminated, NULs made '?'), or NULL. */
static char *s_read_log(const char *home, const char *hex, size_t *ret_len)
{
	uint8_t id[32];
	char *path, *data = NULL;
	FILE *f;
	long n;

	if (!home || proto_unhex(hex, id, 32) < 0)
		return NULL;
	path = blob_path(home, id);
	f = fopen(path, "rb");
	free(path);
	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 &&
	    (unsigned long)n <= EXPORT_MAX_LOG_READ &&
	    fseek(f, 0, SEEK_SET) == 0) {
		data = xmalloc((size_t)n + 1);
		if (fread(data, 1, (size_t)n, f) != (size_t)n) {
			free(data);
			data = NULL;
		} else {
			for (long i = 0; i < n; i++)
				if (!data[i])
					data[i] = '?';
			data[n] = '\0';
			*ret_len = (size_t)n;
		}
	}
	fclose(f);
	return data;
}

static bool s_failed_line(const char *line, size_t n)
{
	const char *p = line;

	while (p < line + n && (*p == ' ' || *p == '\t' || *p == '#'))
		p++;
	return (size_t)(line + n - p) >= 6 && !strncmp(p, "not ok", 6);
}

/* Whether the line names the case: its last path segment as a word. */
static bool s_names(const char *line, size_t n, const char *word)
{
	size_t w = strlen(word);

	for (const char *p = line; w && p + w <= line + n; p++) {
		if (memcmp(p, word, w))
			continue;
		if ((p == line || strchr(" \t-:./", p[-1])) &&
		    (p + w == line + n || strchr(" \t#:.", p[w])))
			return true;
	}
	return false;
}

static bool s_diag_line(const char *line, size_t n)
{
	return n && (line[0] == '#' || line[0] == ' ' || line[0] == '\t') &&
	       !s_failed_line(line, n);
}

/* Append [line, line + n) and a newline to b, within the cap. */
static void s_add_line(buf_t *b, const char *line, size_t n)
{
	if (b->len + n + 1 > EXPORT_MAX_EXCERPT)
		n = b->len + 1 < EXPORT_MAX_EXCERPT ?
			    EXPORT_MAX_EXCERPT - b->len - 1 : 0;
	/* no cut inside a UTF-8 sequence */
	while (n && ((unsigned char)line[n] & 0xc0) == 0x80)
		n--;
	if (n || b->len + 1 <= EXPORT_MAX_EXCERPT)
		buf_append(b, line, n);
	if (b->len + 1 <= EXPORT_MAX_EXCERPT)
		buf_putc(b, '\n');
}

/* The failed lines of log for the case named word (NULL: every failed
 * line), each with the diagnostics that follow it. */
static void s_scan(buf_t *b, const char *log, size_t len, const char *word)
{
	const char *p = log, *end = log + len;
	int after = 0;

	while (p < end && b->len + 1 < EXPORT_MAX_EXCERPT) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = (size_t)((nl ? nl : end) - p);

		if (n && p[n - 1] == '\r')
			n--;
		if (s_failed_line(p, n) && (!word || s_names(p, n, word))) {
			s_add_line(b, p, n);
			after = EXPORT_EXCERPT_AFTER;
		} else if (after > 0 && s_diag_line(p, n)) {
			s_add_line(b, p, n);
			after--;
		} else {
			after = 0;
		}
		p = nl ? nl + 1 : end;
	}
}

static void s_tail(buf_t *b, const char *log, size_t len)
{
	const char *p = log + len;
	int lines = 0;

	while (p > log && lines <= EXPORT_EXCERPT_TAIL)
		if (*--p == '\n')
			lines++;
	if (*p == '\n')
		p++;
	if ((size_t)(log + len - p) >= EXPORT_MAX_EXCERPT)
		p = log + len - (EXPORT_MAX_EXCERPT - 1);
	while (p < log + len && ((unsigned char)*p & 0xc0) == 0x80)
		p++;
	buf_append(b, p, (size_t)(log + len - p));
}

char *export_log_excerpt(const export_logs_t *l, const char *hex,
			 const char *path, const char *msg)
{
	const char *word = NULL;
	size_t len = 0;
	char *log = hex ? s_read_log(l->home, hex, &len) : NULL, *ret = NULL;
	buf_t b;

	if (path && *path)
		word = strrchr(path, '.') ? strrchr(path, '.') + 1 : path;
	buf_init(&b, 0);
	if (log)
		s_scan(&b, log, len, word);
	if (!b.len && msg && *msg)
		s_add_line(&b, msg, strlen(msg));
	if (!b.len && log && !path)
		s_tail(&b, log, len);
	while (b.len && ((char *)b.data)[b.len - 1] == '\n')
		b.len--;
	if (b.len) {
		b.data[b.len] = '\0';
		ret = buf_steal(&b);
	}
	buf_free(&b);
	free(log);
	return ret;
}
