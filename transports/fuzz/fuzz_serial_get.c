/*
 * libFuzzer harness for the decoder of `serial get`: the board's base64
 * (or od hex) output of a file, fed to the decoder of
 * transports/serial_file.c (included here: it is file-local) in chunks.
 * The first byte picks the encoding and the chunk size. Whatever the
 * bytes, the decoder never writes more than 3/4 of its input (half for
 * hex), and what it accepts as good base64 round-trips through libsodium.
 */
#include "transports/serial_file.c"

#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int s_null = -1;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	s_sum_t sum;
	s_dec_t d = { .sum = &sum };
	size_t chunk;

	if (size < 1 || size > 256 * 1024)
		return 0;
	if (s_null < 0)
		s_null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	d.fd = s_null;
	d.hex = data[0] & 0x80;
	chunk = data[0] % 64 + 1;
	data++;
	size--;
	s_sum_init(&sum);
	for (size_t off = 0; off < size; off += chunk)
		s_dec_fn(&d, TRANSPORT_STDOUT, (const char *)data + off,
			 size - off < chunk ? size - off : chunk);
	s_dec_flush(&d);
	if (sum.size > (d.hex ? size / 2 : size / 4 * 3 + 3))
		abort();
	if (!d.hex && !d.bad && !d.nq && !d.err) {
		/* good base64 (bar whitespace): libsodium agrees on the size */
		unsigned char *bin = malloc(size + 1);
		size_t blen = 0;

		if (!bin)
			abort();
		if (sodium_base642bin(bin, size + 1, (const char *)data, size,
				      " \r\n", &blen, NULL,
				      sodium_base64_VARIANT_ORIGINAL) == 0 &&
		    blen != sum.size)
			abort();
		free(bin);
	}
	return 0;
}
