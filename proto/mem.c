/*
 * mem: allocation helpers that abort on out-of-memory. See mem.h.
 */
#include "proto/mem.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void s_oom(size_t n)
{
	fprintf(stderr, "labmesh: out of memory allocating %zu bytes\n", n);
	abort();
}

bool size_mul_ok(size_t a, size_t b, size_t *ret)
{
	if (b != 0 && a > SIZE_MAX / b)
		return false;
	*ret = a * b;
	return true;
}

bool size_add_ok(size_t a, size_t b, size_t *ret)
{
	if (a > SIZE_MAX - b)
		return false;
	*ret = a + b;
	return true;
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		s_oom(n);
	return p;
}

void *xzalloc(size_t n)
{
	void *p = calloc(1, n ? n : 1);

	if (!p)
		s_oom(n);
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	size_t total;

	if (!size_mul_ok(n, size, &total))
		s_oom(SIZE_MAX);
	return xzalloc(total);
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (!q)
		s_oom(n);
	return q;
}

void *xreallocarray(void *p, size_t n, size_t size)
{
	size_t total;

	if (!size_mul_ok(n, size, &total))
		s_oom(SIZE_MAX);
	return xrealloc(p, total);
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
	size_t len = strnlen(s, n);
	char *d = xmalloc(len + 1);

	memcpy(d, s, len);
	d[len] = '\0';
	return d;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;
	int r;

	va_start(ap, fmt);
	r = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (r < 0)
		s_oom(0);
	return s;
}
