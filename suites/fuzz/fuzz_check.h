/*
 * Checks the suites harnesses make on what a parser kept: each one
 * aborts (a finding) when a property that must hold for any input fails.
 */
#ifndef LABMESH_SUITES_FUZZ_CHECK_H
#define LABMESH_SUITES_FUZZ_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_REQUIRE(cond)                                                     \
	do {                                                                   \
		if (!(cond)) {                                                 \
			fprintf(stderr, "%s:%d: property failed: %s\n",        \
				__FILE__, __LINE__, #cond);                    \
			abort();                                               \
		}                                                              \
	} while (0)

/* Printable ASCII only, at most max bytes. */
static inline bool fuzz_printable(const char *s, size_t max)
{
	size_t n;

	if (!s)
		return false;
	n = strlen(s);
	if (n > max)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < 0x20 || s[i] > 0x7e)
			return false;
	}
	return true;
}

/* The same, and no blank at the end (cleaned text is trimmed). */
static inline bool fuzz_text_ok(const char *s, size_t max)
{
	return fuzz_printable(s, max) && (!s[0] || s[strlen(s) - 1] != ' ');
}

/* How often needle occurs in data (size bytes, overlaps counted). */
static inline size_t fuzz_count(const void *data, size_t size, const char *needle)
{
	size_t nl = strlen(needle), n = 0;
	const char *p = data, *end = p + size;

	while ((size_t)(end - p) >= nl) {
		const char *q = memmem(p, (size_t)(end - p), needle, nl);
		if (!q)
			break;
		n++;
		p = q + 1;
	}
	return n;
}

#endif
