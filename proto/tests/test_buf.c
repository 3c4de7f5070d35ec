/*
 * Unit tests for the buffer, allocation and log-quoting helpers.
 */
#include "proto/tests/check.h"
#include "proto/buf.h"
#include "proto/log.h"
#include "proto/mem.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int check_failures;

static void test_cap(void)
{
	buf_t b;

	buf_init(&b, 10);
	CHECK(buf_puts(&b, "hello") == 0);
	CHECK(buf_puts(&b, " world!") == -ENOSPC);
	CHECK(b.len == 10 && b.truncated);
	CHECK(strcmp(buf_str(&b), "hello worl") == 0);
	buf_free(&b);
}

static void test_grow(void)
{
	buf_t b;
	char *s;

	buf_init(&b, 0);
	for (int i = 0; i < 10000; i++)
		buf_printf(&b, "%d,", i);
	CHECK(b.len > 40000 && !b.truncated);
	s = buf_steal(&b);
	CHECK(strncmp(s, "0,1,2,", 6) == 0);
	CHECK(b.data == NULL && b.len == 0);
	free(s);
	buf_free(&b);
}

static void test_arith(void)
{
	size_t r;

	CHECK(size_mul_ok(1000, 1000, &r) && r == 1000000);
	CHECK(!size_mul_ok(SIZE_MAX / 2 + 1, 2, &r));
	CHECK(!size_add_ok(SIZE_MAX, 1, &r));
}

static void test_quote(void)
{
	char out[16];

	log_quote(out, sizeof(out), "a\nb", 3);
	CHECK(strcmp(out, "a\\x0ab") == 0);
	log_quote(out, sizeof(out), "0123456789abcdefghij", 20);
	CHECK(strlen(out) < sizeof(out) && strstr(out, "...") != NULL);
}

int main(void)
{
	test_cap();
	test_grow();
	test_arith();
	test_quote();
	if (check_failures)
		fprintf(stderr, "%d checks failed\n", check_failures);
	return check_failures ? 1 : 0;
}
