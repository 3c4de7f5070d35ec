/*
 * libFuzzer harness for the adb exit-status frame parser: board output in
 * arbitrary chunks. Whatever the bytes, nothing is lost or invented: on a
 * bad frame every byte is passed on; on a good one the output plus the
 * frame is exactly the input.
 */
#include "transports/adb.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOKEN "0123456789abcdef"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct sink {
	uint8_t buf[1 << 16];
	size_t len;
};

static void s_sink(void *arg, enum transport_stream st, const char *p, size_t n)
{
	struct sink *k = arg;

	if (k->len + n > sizeof(k->buf))
		abort();
	memcpy(k->buf + k->len, p, n);
	k->len += n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct sink k;
	adb_frame_t f;
	size_t step;
	int st = -1, r;

	if (size < 1 || size > sizeof(k.buf))
		return 0;
	step = (size_t)data[0] % 17 + 1;
	data++;
	size--;
	k.len = 0;
	adb_frame_init(&f, TOKEN, s_sink, &k);
	for (size_t i = 0; i < size; i += step)
		adb_frame_feed(&f, (const char *)data + i, size - i < step ? size - i : step);
	r = adb_frame_finish(&f, &st);
	if (k.len > size || memcmp(k.buf, data, k.len) != 0)
		abort();
	if (r < 0 && k.len != size)
		abort();
	if (r == 0) {
		char tail[64];
		int n = snprintf(tail, sizeof(tail), "%s%s=%d", ADB_FRAME_PREFIX, TOKEN, st);

		if (st < 0 || st > 255 || size - k.len < (size_t)n + 1)
			abort();
		/* leading zeros are allowed on the wire ("007"): compare loosely */
		if (memcmp(data + k.len, tail, strlen(ADB_FRAME_PREFIX TOKEN "=")) != 0)
			abort();
	}
	return 0;
}
