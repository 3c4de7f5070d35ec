/*
 * Unit tests for the JSON writer (proto/json): exact compact and pretty
 * output, escaping of every control character, repair of invalid UTF-8,
 * numbers, and the sticky errors.
 */
#include "proto/tests/check.h"
#include "proto/buf.h"
#include "proto/json.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int check_failures;

#define CHECK_STR(a, b)                                                        \
	do {                                                                   \
		const char *a_ = (a), *b_ = (b);                               \
		if (strcmp(a_, b_) != 0) {                                     \
			fprintf(stderr, "%s:%d: got '%s', want '%s'\n",        \
				__FILE__, __LINE__, a_, b_);                   \
			check_failures++;                                          \
		}                                                              \
	} while (0)

static void s_doc(json_t *j)
{
	json_obj_open(j);
	json_key_str(j, "name", "lab-a");
	json_key_int(j, "n", -3);
	json_key(j, "list");
	json_arr_open(j);
	json_uint(j, 18446744073709551615ULL);
	json_bool(j, true);
	json_null(j);
	json_double(j, 0.1);
	json_arr_close(j);
	json_key(j, "empty");
	json_obj_open(j);
	json_obj_close(j);
	json_key(j, "e2");
	json_arr_open(j);
	json_arr_close(j);
	json_obj_close(j);
}

static void test_shapes(void)
{
	buf_t b;
	json_t j;

	buf_init(&b, 0);
	json_init(&j, &b, JSON_COMPACT);
	s_doc(&j);
	CHECK(json_finish(&j) == 0);
	CHECK_STR(buf_str(&b), "{\"name\":\"lab-a\",\"n\":-3,\"list\":"
			       "[18446744073709551615,true,null,0.1],"
			       "\"empty\":{},\"e2\":[]}");
	buf_reset(&b);
	json_init(&j, &b, JSON_PRETTY);
	s_doc(&j);
	CHECK(json_finish(&j) == 0);
	CHECK_STR(buf_str(&b), "{\n"
			       "  \"name\": \"lab-a\",\n"
			       "  \"n\": -3,\n"
			       "  \"list\": [\n"
			       "    18446744073709551615,\n"
			       "    true,\n"
			       "    null,\n"
			       "    0.1\n"
			       "  ],\n"
			       "  \"empty\": {},\n"
			       "  \"e2\": []\n"
			       "}\n");
	/* a bare top-level value */
	buf_reset(&b);
	json_init(&j, &b, JSON_COMPACT);
	json_str(&j, NULL);
	CHECK(json_finish(&j) == 0);
	CHECK_STR(buf_str(&b), "null");
	buf_free(&b);
}

static const char *s_esc(buf_t *b, const char *s, size_t n)
{
	buf_reset(b);
	CHECK(json_escape(b, s, n) == 0);
	return buf_str(b);
}

static void test_escape(void)
{
	buf_t b;
	char all[32];

	buf_init(&b, 0);
	for (int i = 0; i < 32; i++)
		all[i] = (char)i;
	CHECK_STR(s_esc(&b, all, 32),
		  "\"\\u0000\\u0001\\u0002\\u0003\\u0004\\u0005\\u0006\\u0007"
		  "\\b\\t\\n\\u000b\\f\\r\\u000e\\u000f"
		  "\\u0010\\u0011\\u0012\\u0013\\u0014\\u0015\\u0016\\u0017"
		  "\\u0018\\u0019\\u001a\\u001b\\u001c\\u001d\\u001e\\u001f\"");
	CHECK_STR(s_esc(&b, "a\"b\\c/\x7f", 7), "\"a\\\"b\\\\c/\\u007f\"");
	/* valid UTF-8 passes through: é, €, 𝄞 */
	CHECK_STR(s_esc(&b, "\xc3\xa9\xe2\x82\xac\xf0\x9d\x84\x9e", 9),
		  "\"\xc3\xa9\xe2\x82\xac\xf0\x9d\x84\x9e\"");
	/* U+2028 / U+2029 escaped */
	CHECK_STR(s_esc(&b, "\xe2\x80\xa8\xe2\x80\xa9", 6), "\"\\u2028\\u2029\"");
	/* invalid: stray continuation, overlong, surrogate, > U+10FFFF,
	 * truncated, 0xff: each bad byte becomes U+FFFD */
#define FFFD "\xef\xbf\xbd"
	CHECK_STR(s_esc(&b, "a\x80z", 3), "\"a" FFFD "z\"");
	CHECK_STR(s_esc(&b, "\xc0\xaf", 2), "\"" FFFD FFFD "\"");
	CHECK_STR(s_esc(&b, "\xe0\x80\xaf", 3), "\"" FFFD FFFD FFFD "\"");
	CHECK_STR(s_esc(&b, "\xed\xa0\x80", 3), "\"" FFFD FFFD FFFD "\"");
	CHECK_STR(s_esc(&b, "\xf4\x90\x80\x80", 4),
		  "\"" FFFD FFFD FFFD FFFD "\"");
	CHECK_STR(s_esc(&b, "\xe2\x82", 2), "\"" FFFD FFFD "\"");
	CHECK_STR(s_esc(&b, "x\xff", 2), "\"x" FFFD "\"");
	buf_free(&b);
}

/* An independent check: the escaped form is valid UTF-8 with no raw
 * control characters and every quote inside escaped. */
static bool s_valid_json_string(const unsigned char *s, size_t n)
{
	if (n < 2 || s[0] != '"' || s[n - 1] != '"')
		return false;
	for (size_t i = 1; i < n - 1; i++) {
		unsigned c = s[i];

		if (c < 0x20 || c == 0x7f)
			return false;
		if (c == '\\') {
			i++;
			if (i >= n - 1 || !strchr("\"\\/bfnrtu", s[i]))
				return false;
			continue;
		}
		if (c == '"')
			return false;
		if (c >= 0x80) {
			size_t len = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
			uint32_t cp = c & (len == 2 ? 0x1f : len == 3 ? 0x0f : 0x07);

			if (c < 0xc2 || c > 0xf4 || i + len > n - 1)
				return false;
			for (size_t k = 1; k < len; k++) {
				if ((s[i + k] & 0xc0) != 0x80)
					return false;
				cp = cp << 6 | (s[i + k] & 0x3f);
			}
			if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
			    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
				return false;
			i += len - 1;
		}
	}
	return true;
}

static void test_random(void)
{
	unsigned char in[64];
	buf_t b;
	unsigned seed = 12345;
	int bad = 0;

	buf_init(&b, 0);
	for (int round = 0; round < 20000; round++) {
		size_t n = (size_t)(rand_r(&seed) % 64);

		for (size_t i = 0; i < n; i++)
			in[i] = (unsigned char)rand_r(&seed);
		buf_reset(&b);
		CHECK(json_escape(&b, in, n) == 0);
		if (!s_valid_json_string(b.data, b.len))
			bad++;
	}
	CHECK(bad == 0);
	buf_free(&b);
}

static void test_numbers(void)
{
	buf_t b;
	json_t j;

	buf_init(&b, 0);
	json_init(&j, &b, JSON_COMPACT);
	json_arr_open(&j);
	json_double(&j, 1.0);
	json_double(&j, -2.5);
	json_double(&j, 1e300);
	json_double(&j, NAN);
	json_double(&j, INFINITY);
	json_double(&j, -INFINITY);
	json_double(&j, 0.30000000000000004);
	json_int(&j, INT64_MIN);
	json_arr_close(&j);
	CHECK(json_finish(&j) == 0);
	CHECK_STR(buf_str(&b), "[1,-2.5,1e+300,null,null,null,"
			       "0.30000000000000004,-9223372036854775808]");
	buf_free(&b);
}

static void test_errors(void)
{
	buf_t b;
	json_t j;

	buf_init(&b, 0);
	json_init(&j, &b, JSON_COMPACT);
	json_obj_open(&j);
	CHECK(json_int(&j, 1) == -EINVAL); /* a value without a key */
	CHECK(json_key(&j, "a") == -EINVAL); /* sticky */
	CHECK(json_finish(&j) == -EINVAL);

	buf_reset(&b);
	json_init(&j, &b, JSON_COMPACT);
	json_arr_open(&j);
	CHECK(json_key(&j, "a") == -EINVAL); /* a key in an array */

	buf_reset(&b);
	json_init(&j, &b, JSON_COMPACT);
	json_arr_open(&j);
	CHECK(json_obj_close(&j) == -EINVAL); /* mismatched close */

	buf_reset(&b);
	json_init(&j, &b, JSON_COMPACT);
	json_arr_open(&j);
	CHECK(json_finish(&j) == -EINVAL); /* still open */

	buf_reset(&b);
	json_init(&j, &b, JSON_COMPACT);
	json_int(&j, 1);
	CHECK(json_int(&j, 2) == -EINVAL); /* two top-level values */

	buf_reset(&b);
	json_init(&j, &b, JSON_COMPACT);
	for (int i = 0; i < JSON_MAX_DEPTH; i++)
		CHECK(json_arr_open(&j) == 0);
	CHECK(json_arr_open(&j) == -E2BIG);
	CHECK(json_finish(&j) == -E2BIG);
	buf_free(&b);

	/* the cap stops output and sticks */
	buf_init(&b, 16);
	json_init(&j, &b, JSON_COMPACT);
	json_arr_open(&j);
	for (int i = 0; i < 10; i++)
		json_str(&j, "abcdef");
	json_arr_close(&j);
	CHECK(json_finish(&j) == -ENOSPC);
	CHECK(b.len == 16);
	buf_free(&b);
}

int main(void)
{
	test_shapes();
	test_escape();
	test_random();
	test_numbers();
	test_errors();
	if (check_failures) {
		fprintf(stderr, "%d checks failed\n", check_failures);
		return 1;
	}
	printf("ok\n");
	return 0;
}
