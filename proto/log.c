/*
 * log: levelled stderr logging with a timestamp and an optional tag.
 */
#include "proto/log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

static enum log_level s_level = LOG_INFO;
static const char *s_tag;

static const char *const s_names[] = { "error", "warn", "info", "debug" };

void log_set_level(enum log_level level)
{
	s_level = level;
}

enum log_level log_get_level(void)
{
	return s_level;
}

void log_set_tag(const char *tag)
{
	s_tag = tag;
}

int log_parse_level(const char *s, enum log_level *ret_level)
{
	for (int i = 0; i <= LOG_DEBUG; i++) {
		if (strcasecmp(s, s_names[i]) == 0) {
			*ret_level = (enum log_level)i;
			return 0;
		}
	}
	return -EINVAL;
}

void log_msg(enum log_level level, const char *func, const char *fmt, ...)
{
	char line[2048];
	struct timespec ts;
	struct tm tm;
	va_list ap;
	int n;

	if (level > s_level)
		return;
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	n = snprintf(line, sizeof(line), "%02d:%02d:%02d.%03ld %-5s %s%s%s",
		     tm.tm_hour, tm.tm_min, tm.tm_sec, ts.tv_nsec / 1000000,
		     s_names[level], s_tag ? s_tag : "", s_tag ? ": " : "",
		     level == LOG_DEBUG ? func : "");
	if (level == LOG_DEBUG && n > 0 && (size_t)n < sizeof(line))
		n += snprintf(line + n, sizeof(line) - (size_t)n, ": ");
	if (n > 0 && (size_t)n < sizeof(line)) {
		va_start(ap, fmt);
		vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
		va_end(ap);
	}
	fprintf(stderr, "%s\n", line);
}

const char *log_quote(char *out, size_t outsz, const void *p, size_t n)
{
	const unsigned char *s = p;
	size_t o = 0;

	if (outsz == 0)
		return out;
	for (size_t i = 0; i < n; i++) {
		char tmp[5];
		size_t k;

		if (s[i] >= 0x20 && s[i] < 0x7f && s[i] != '\\') {
			tmp[0] = (char)s[i];
			k = 1;
		} else {
			k = (size_t)snprintf(tmp, sizeof(tmp), "\\x%02x", s[i]);
		}
		if (o + k + 4 > outsz) {
			memcpy(out + o, "...", outsz - o > 3 ? 3 : 0);
			o += outsz - o > 3 ? 3 : 0;
			break;
		}
		memcpy(out + o, tmp, k);
		o += k;
	}
	out[o < outsz ? o : outsz - 1] = '\0';
	return out;
}
