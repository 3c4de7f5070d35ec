/*
 * libFuzzer harness for the serial console scanner: console bytes in
 * arbitrary chunks (the first input byte picks the chunk size and mode).
 * Whatever the bytes, nothing is invented (the output is never longer
 * than the input) and the chunking does not change the result: fed whole
 * or in pieces, the same bytes come out.
 */
#include "transports/serial.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void s_sink(void *arg, const char *p, size_t n)
{
	buf_append(arg, p, n);
}

static void s_feed(const char *p, size_t n, size_t chunk, bool crlf, buf_t *out)
{
	serial_scan_t sc;

	serial_scan_init(&sc, crlf);
	for (size_t off = 0; off < n; off += chunk)
		serial_scan_feed(&sc, p + off, n - off < chunk ? n - off : chunk,
				 s_sink, out);
	/* a final newline decides whatever is still held */
	serial_scan_feed(&sc, "\n", 1, s_sink, out);
	serial_scan_free(&sc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	buf_t whole, parts;
	size_t chunk;
	bool crlf;

	if (size < 1)
		return 0;
	chunk = (data[0] & 0x3f) + 1;
	crlf = data[0] & 0x40;
	data++;
	size--;
	buf_init(&whole, 0);
	buf_init(&parts, 0);
	s_feed((const char *)data, size, size ? size : 1, crlf, &whole);
	s_feed((const char *)data, size, chunk, crlf, &parts);
	if (whole.len > size + 1 || whole.len != parts.len ||
	    (whole.len && memcmp(whole.data, parts.data, whole.len) != 0))
		abort();
	buf_free(&whole);
	buf_free(&parts);
	return 0;
}
