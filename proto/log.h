/*
 * log: levelled logging to stderr. proto/ and transports/ log only at
 * debug level; node/ decides and logs once. Strings that came from outside
 * must go through log_quote() before they reach a log line.
 */
#ifndef LABMESH_PROTO_LOG_H
#define LABMESH_PROTO_LOG_H

#include <stddef.h>

enum log_level { LOG_ERROR = 0, LOG_WARN, LOG_INFO, LOG_DEBUG };

void log_set_level(enum log_level level);
enum log_level log_get_level(void);
/* Parse "error|warn|info|debug"; returns 0 or -EINVAL. */
int log_parse_level(const char *s, enum log_level *ret_level);
/* Prefix every line with this tag (e.g. the lab name); borrowed. */
void log_set_tag(const char *tag);

void log_msg(enum log_level level, const char *func, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#define log_error(...) log_msg(LOG_ERROR, __func__, __VA_ARGS__)
#define log_warn(...) log_msg(LOG_WARN, __func__, __VA_ARGS__)
#define log_info(...) log_msg(LOG_INFO, __func__, __VA_ARGS__)
#define log_debug(...) log_msg(LOG_DEBUG, __func__, __VA_ARGS__)

/*
 * Quote untrusted bytes for a log line into out (size outsz): printable
 * ASCII kept, everything else as \xNN, truncated with "..." past the room.
 * Returns out.
 */
const char *log_quote(char *out, size_t outsz, const void *p, size_t n);

#endif
