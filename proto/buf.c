/*
 * buf: growable, optionally capped byte buffer. See buf.h.
 */
#include "proto/buf.h"
#include "proto/mem.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void buf_init(buf_t *b, size_t cap)
{
	memset(b, 0, sizeof(*b));
	b->cap = cap;
}

void buf_free(buf_t *b)
{
	free(b->data);
	memset(b, 0, sizeof(*b));
}

void buf_reset(buf_t *b)
{
	b->len = 0;
	b->truncated = false;
	if (b->data)
		b->data[0] = '\0';
}

static void s_reserve(buf_t *b, size_t extra)
{
	size_t need;

	if (!size_add_ok(b->len, extra, &need) || !size_add_ok(need, 1, &need))
		xmalloc(SIZE_MAX); /* aborts: our own arithmetic overflowed */
	if (need <= b->alloc)
		return;
	size_t n = b->alloc ? b->alloc : 64;
	while (n < need)
		n = n > SIZE_MAX / 2 ? need : n * 2;
	b->data = xrealloc(b->data, n);
	b->alloc = n;
}

int buf_append(buf_t *b, const void *p, size_t n)
{
	int r = 0;

	if (b->cap && b->len + n > b->cap) {
		n = b->cap > b->len ? b->cap - b->len : 0;
		b->truncated = true;
		r = -ENOSPC;
	}
	s_reserve(b, n);
	if (n)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
	return r;
}

int buf_puts(buf_t *b, const char *s)
{
	return buf_append(b, s, strlen(s));
}

int buf_putc(buf_t *b, char c)
{
	return buf_append(b, &c, 1);
}

int buf_printf(buf_t *b, const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;
	int n, r;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -ENOMEM;
	r = buf_append(b, s, (size_t)n);
	free(s);
	return r;
}

char *buf_steal(buf_t *b)
{
	char *s;

	s_reserve(b, 0);
	b->data[b->len] = '\0'; /* a never-written buffer has no NUL yet */
	s = (char *)b->data;
	b->data = NULL;
	b->len = b->alloc = 0;
	b->truncated = false;
	return s;
}

const char *buf_str(const buf_t *b)
{
	return b->data ? (const char *)b->data : "";
}
