/*
 * buf: a growable byte buffer with an optional hard cap. Used to collect
 * output, build JSON and hold encoded messages. Appends past the cap are
 * refused (buf_append returns -ENOSPC and sets the truncated flag) so a
 * peer or a board can never make us buffer without bound.
 */
#ifndef LABMESH_PROTO_BUF_H
#define LABMESH_PROTO_BUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
	uint8_t *data; /* always NUL-terminated past len, for text use */
	size_t len;
	size_t alloc;
	size_t cap;     /* 0: no cap */
	bool truncated; /* an append hit the cap */
} buf_t;

/* Initialise an empty buffer; cap 0 means unbounded (our own data only). */
void buf_init(buf_t *b, size_t cap);
void buf_free(buf_t *b);
void buf_reset(buf_t *b);
/* Append n bytes; past the cap, appends what fits and returns -ENOSPC. */
int buf_append(buf_t *b, const void *p, size_t n);
int buf_puts(buf_t *b, const char *s);
int buf_putc(buf_t *b, char c);
int buf_printf(buf_t *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Detach the contents as a NUL-terminated string; the buffer is emptied. */
char *buf_steal(buf_t *b);
/* Borrowed view as a C string (valid until the next append). */
const char *buf_str(const buf_t *b);

#endif
