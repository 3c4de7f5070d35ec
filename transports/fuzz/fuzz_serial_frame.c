/*
 * libFuzzer harness for the serial command framing: the clean console
 * bytes that follow a typed command, fed to the frame parser of
 * transports/serial.c (included here: the parser is file-local) in
 * chunks whose size the first input byte picks. The nonce is fixed, so
 * the fuzzer can write the markers. Whatever the bytes: the output is
 * never longer than the input, never holds the end marker, a parsed exit
 * status is 0..255, and the chunking does not change the result.
 */
#include "transports/serial.c"

#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_NONCE "abcdefghij"

typedef struct {
	buf_t out;
	int phase, status;
	bool bad;
} s_result_t;

static void s_sink(void *arg, enum transport_stream st, const char *p,
		   size_t n)
{
	(void)st;
	buf_append(arg, p, n);
}

static void s_run(const uint8_t *data, size_t size, size_t chunk,
		  s_result_t *r)
{
	s_frame_t f = { .fn = s_sink, .arg = &r->out };
	buf_t clean;

	snprintf(f.start, sizeof(f.start), "lm-s%s\n", FUZZ_NONCE);
	snprintf(f.end, sizeof(f.end), "\nlm-e%s ", FUZZ_NONCE);
	buf_init(&clean, 0);
	buf_init(&r->out, 0);
	for (size_t off = 0; off < size && f.phase != S_DONE; off += chunk) {
		buf_append(&clean, (const char *)data + off,
			   size - off < chunk ? size - off : chunk);
		s_frame_feed(&f, &clean);
	}
	r->phase = f.phase;
	r->status = f.status;
	r->bad = f.bad;
	buf_free(&clean);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	s_result_t whole, parts;
	size_t chunk;

	if (size < 1 || size > 64 * 1024)
		return 0;
	chunk = data[0] % 64 + 1;
	data++;
	size--;
	s_run(data, size, size ? size : 1, &whole);
	s_run(data, size, chunk, &parts);
	if (whole.out.len > size ||
	    (whole.out.len &&
	     memmem(whole.out.data, whole.out.len, "\nlm-e" FUZZ_NONCE " ",
		    strlen("\nlm-e" FUZZ_NONCE " "))))
		abort();
	if (whole.phase == S_DONE && !whole.bad &&
	    (whole.status < 0 || whole.status > 255))
		abort();
	/* once done, the same answer however the bytes came */
	if (whole.phase == S_DONE &&
	    (parts.phase != S_DONE || parts.bad != whole.bad ||
	     (!whole.bad && parts.status != whole.status) ||
	     parts.out.len != whole.out.len ||
	     (whole.out.len &&
	      memcmp(parts.out.data, whole.out.data, whole.out.len) != 0)))
		abort();
	buf_free(&whole.out);
	buf_free(&parts.out);
	return 0;
}
