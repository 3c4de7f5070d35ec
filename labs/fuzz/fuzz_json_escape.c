/*
 * Fuzz the JSON string escaper with arbitrary bytes: the output must be a
 * quoted JSON string of valid UTF-8 without raw control characters, and
 * escaping the same bytes inside a document must agree.
 */
#include "proto/buf.h"
#include "proto/json.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Valid UTF-8 (RFC 3629) with no C0 controls or DEL. */
static bool s_clean_utf8(const uint8_t *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		uint8_t c = s[i];
		size_t len;
		uint32_t cp;

		if (c < 0x80) {
			if (c < 0x20 || c == 0x7f)
				return false;
			i++;
			continue;
		}
		len = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
		if (c < 0xc2 || c > 0xf4 || i + len > n)
			return false;
		cp = c & (len == 2 ? 0x1f : len == 3 ? 0x0f : 0x07);
		for (size_t k = 1; k < len; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				return false;
			cp = cp << 6 | (s[i + k] & 0x3f);
		}
		if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
		    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
			return false;
		i += len;
	}
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	buf_t a, b;
	json_t j;

	buf_init(&a, 0);
	if (json_escape(&a, data, size) != 0 || a.len < 2 || a.data[0] != '"' ||
	    a.data[a.len - 1] != '"' || !s_clean_utf8(a.data, a.len))
		abort();
	/* an unescaped quote would end the string early */
	for (size_t i = 1; i + 1 < a.len; i++)
		if (a.data[i] == '\\')
			i++;
		else if (a.data[i] == '"')
			abort();
	buf_init(&b, 0);
	json_init(&j, &b, JSON_COMPACT);
	json_arr_open(&j);
	json_strn(&j, data, size);
	json_arr_close(&j);
	if (json_finish(&j) != 0 || b.len != a.len + 2 ||
	    memcmp(b.data + 1, a.data, a.len) != 0)
		abort();
	buf_free(&a);
	buf_free(&b);
	return 0;
}
