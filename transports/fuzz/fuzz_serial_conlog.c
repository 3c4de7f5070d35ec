/*
 * libFuzzer harness for the console log filter (serial_conlog.c): console
 * bytes in chunks, with the session going up part way (the first input
 * byte picks the chunk size, the second where the session goes up). Whatever
 * the bytes: nothing is invented (the log is never longer than the
 * console), and once the session is up only kernel records come out, each
 * a printk timestamp to a "\r\n".
 */
#include "transports/serial.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define REQUIRE(c) do { if (!(c)) abort(); } while (0)

static const char s_setup[] =
	"stty -echo -opost 2>/dev/null && lm_o=1 || lm_o=0; PS1=; PS2=; "
	"exec 9</dev/null; lm_n=QWERTYUPAS; _s(){ echo lm$lm_n;}; "
	"printf '%s%s %s\\n' lm-p QWERTYUPAS $lm_o\n";

struct sink {
	buf_t out;
	bool session;
	bool bad;
};

static void s_sink(void *arg, const char *p, size_t n)
{
	struct sink *s = arg;

	if (s->session && (n < 2 || serial_scan_ts(p, n) <= 0 ||
			   p[n - 2] != '\r' || p[n - 1] != '\n'))
		s->bad = true;
	buf_append(&s->out, p, n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	serial_conlog_t cl;
	struct sink s = { .session = false };
	size_t chunk, up;

	if (size < 2)
		return 0;
	chunk = (data[0] & 0x3f) + 1;
	up = (size_t)data[1] * 4;
	data += 2;
	size -= 2;
	buf_init(&s.out, 0);
	serial_conlog_init(&cl);
	serial_conlog_typed(&cl, s_setup);
	for (size_t off = 0; off < size;) {
		size_t k = size - off < chunk ? size - off : chunk;

		if (off < up && off + k > up)
			k = up - off;
		serial_conlog_feed(&cl, (const char *)data + off, k, s_sink, &s);
		off += k;
		if (off == up) {
			serial_conlog_session(&cl, true);
			s.session = true;
		}
	}
	serial_conlog_flush(&cl, s_sink, &s);
	REQUIRE(s.out.len <= size);
	REQUIRE(!s.bad);
	serial_conlog_free(&cl);
	buf_free(&s.out);
	return 0;
}
