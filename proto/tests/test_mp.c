/*
 * Unit tests for the canonical msgpack codec: the encoder produces the
 * shortest forms at every boundary, the reader accepts exactly those, and
 * every malformed input is refused with its own error code.
 */
#include "proto/mp.h"
#include "proto/tests/check.h"
#include "proto/types.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int check_failures;

static size_t s_unhex(const char *hex, uint8_t *out)
{
	size_t n = 0;

	for (; hex[0] && hex[1]; hex += 2) {
		if (hex[0] == ' ') {
			hex--;
			continue;
		}
		unsigned v;
		sscanf(hex, "%2x", &v);
		out[n++] = (uint8_t)v;
	}
	return n;
}

/* Encode one uint / int and check the exact bytes and that it reads back. */
static void s_check_uint(uint64_t v, const char *want_hex)
{
	uint8_t want[16], *got;
	size_t wn = s_unhex(want_hex, want), gn;
	mp_enc_t e;
	mp_reader_t r;
	uint64_t back = 0;

	mp_enc_init(&e, 0);
	mp_put_uint(&e, v);
	CHECK(mp_enc_finish(&e, &got, &gn) == 0);
	CHECK(gn == wn && memcmp(got, want, wn) == 0);
	mp_reader_init(&r, got, gn);
	CHECK_ERR(mp_get_uint(&r, &back), 0);
	CHECK(back == v && mp_reader_end(&r) == 0);
	free(got);
}

static void s_check_int(int64_t v, const char *want_hex)
{
	uint8_t want[16], *got;
	size_t wn = s_unhex(want_hex, want), gn;
	mp_enc_t e;
	mp_reader_t r;
	int64_t back = 0;

	mp_enc_init(&e, 0);
	mp_put_int(&e, v);
	CHECK(mp_enc_finish(&e, &got, &gn) == 0);
	if (gn != wn || memcmp(got, want, wn) != 0) {
		fprintf(stderr, "int %lld: wrong encoding\n", (long long)v);
		check_failures++;
	}
	mp_reader_init(&r, got, gn);
	CHECK_ERR(mp_get_int(&r, &back), 0);
	CHECK(back == v);
	free(got);
}

static void test_minimal_integers(void)
{
	s_check_uint(0, "00");
	s_check_uint(127, "7f");
	s_check_uint(128, "cc80");
	s_check_uint(255, "ccff");
	s_check_uint(256, "cd0100");
	s_check_uint(65535, "cdffff");
	s_check_uint(65536, "ce00010000");
	s_check_uint(0xffffffffull, "ceffffffff");
	s_check_uint(0x100000000ull, "cf0000000100000000");
	s_check_uint(UINT64_MAX, "cfffffffffffffffff");
	s_check_int(5, "05");
	s_check_int(200, "ccc8"); /* positive int64 goes to the uint family */
	s_check_int(-1, "ff");
	s_check_int(-32, "e0");
	s_check_int(-33, "d0df");
	s_check_int(-128, "d080");
	s_check_int(-129, "d1ff7f");
	s_check_int(-32768, "d18000");
	s_check_int(-32769, "d2ffff7fff");
	s_check_int(INT32_MIN, "d280000000");
	s_check_int((int64_t)INT32_MIN - 1, "d3ffffffff7fffffff");
	s_check_int(INT64_MIN, "d38000000000000000");
}

/* Encoded length headers at the boundaries. */
static void test_minimal_lengths(void)
{
	static char s[70000];
	static const struct {
		size_t n;
		uint8_t str0, bin0, arr0;
	} cases[] = {
		{0, 0xa0, 0xc4, 0x90},	   {15, 0xaf, 0xc4, 0x9f},
		{16, 0xb0, 0xc4, 0xdc},	   {31, 0xbf, 0xc4, 0xdc},
		{32, 0xd9, 0xc4, 0xdc},	   {255, 0xd9, 0xc4, 0xdc},
		{256, 0xda, 0xc5, 0xdc},   {65535, 0xda, 0xc5, 0xdc},
		{65536, 0xdb, 0xc6, 0xdd},
	};
	memset(s, 'a', sizeof(s));
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		mp_enc_t e;
		uint8_t *p;
		size_t n;
		mp_enc_init(&e, 0);
		mp_put_strn(&e, s, cases[i].n);
		mp_put_bin(&e, s, cases[i].n);
		mp_put_array(&e, (uint32_t)cases[i].n);
		mp_put_map(&e, 0);
		CHECK(mp_enc_finish(&e, &p, &n) == 0);
		size_t hs = cases[i].n < 32	 ? 1
			    : cases[i].n < 256	 ? 2
			    : cases[i].n < 65536 ? 3
						 : 5;
		size_t hb = cases[i].n < 256 ? 2 : cases[i].n < 65536 ? 3 : 5;
		CHECK(p[0] == cases[i].str0);
		CHECK(p[hs + cases[i].n] == cases[i].bin0);
		CHECK(p[hs + hb + 2 * cases[i].n] == cases[i].arr0);
		/* the reader takes the str and the bin back */
		mp_reader_t r;
		const char *sp;
		const uint8_t *bp;
		size_t sn, bn;
		mp_reader_init(&r, p, n);
		CHECK_ERR(mp_get_str(&r, SIZE_MAX, &sp, &sn), 0);
		CHECK_ERR(mp_get_bin(&r, SIZE_MAX, &bp, &bn), 0);
		CHECK(sn == cases[i].n && bn == cases[i].n);
		free(p);
	}
}

/* Each malformed input with the exact error code it must get. */
static const struct {
	const char *hex;
	int err;
	const char *why;
} s_bad[] = {
	{"", PROTO_E_TRUNCATED, "empty"},
	{"cc", PROTO_E_TRUNCATED, "uint8 without its byte"},
	{"cd01", PROTO_E_TRUNCATED, "uint16 short"},
	{"a3 6162", PROTO_E_TRUNCATED, "fixstr short"},
	{"c4 05 0102", PROTO_E_TRUNCATED, "bin8 short"},
	{"92 01", PROTO_E_COUNT, "array of 2 with 1 byte left"},
	{"dd ffffffff", PROTO_E_COUNT, "array32 of 2^32-1 in 5 bytes"},
	{"df ffffffff", PROTO_E_COUNT, "map32 of 2^32-1"},
	{"01 02", PROTO_E_TRAILING, "two values"},
	{"cc 05", PROTO_E_NONMINIMAL, "5 as uint8"},
	{"cc 7f", PROTO_E_NONMINIMAL, "127 as uint8"},
	{"cd 0005", PROTO_E_NONMINIMAL, "5 as uint16"},
	{"cd 00ff", PROTO_E_NONMINIMAL, "255 as uint16"},
	{"ce 0000ffff", PROTO_E_NONMINIMAL, "65535 as uint32"},
	{"cf 00000000ffffffff", PROTO_E_NONMINIMAL, "uint32 max as uint64"},
	{"d0 05", PROTO_E_NONMINIMAL, "positive as int8"},
	{"d0 e0", PROTO_E_NONMINIMAL, "-32 as int8"},
	{"d1 ff80", PROTO_E_NONMINIMAL, "-128 as int16"},
	{"d2 ffff8000", PROTO_E_NONMINIMAL, "-32768 as int32"},
	{"d3 ffffffff80000000", PROTO_E_NONMINIMAL, "int32 min as int64"},
	{"d3 0000000000000001", PROTO_E_NONMINIMAL, "positive as int64"},
	{"d9 03 616263", PROTO_E_NONMINIMAL, "short str as str8"},
	{"da 0003 616263", PROTO_E_NONMINIMAL, "short str as str16"},
	{"c5 0001 00", PROTO_E_NONMINIMAL, "short bin as bin16"},
	{"dc 0001 00", PROTO_E_NONMINIMAL, "short array as array16"},
	{"dd 00000001 00", PROTO_E_NONMINIMAL, "short array as array32"},
	{"de 0001 a161 00", PROTO_E_NONMINIMAL, "short map as map16"},
	{"c1", PROTO_E_TYPE, "reserved byte"},
	{"c7 01 01 00", PROTO_E_EXT, "ext8"},
	{"d4 01 00", PROTO_E_EXT, "fixext1"},
	{"ca 3f800000", PROTO_E_FLOAT, "float32"},
	{"cb 7ff8000000000000", PROTO_E_NAN, "NaN"},
	{"cb 7ff0000000000000", PROTO_E_NAN, "infinity"},
	{"a2 c0af", PROTO_E_UTF8, "overlong '/'"},
	{"a3 e08080", PROTO_E_UTF8, "overlong 3-byte"},
	{"a4 f08f8080", PROTO_E_UTF8, "overlong 4-byte"},
	{"a3 eda080", PROTO_E_UTF8, "surrogate U+D800"},
	{"a4 f4908080", PROTO_E_UTF8, "above U+10FFFF"},
	{"a1 80", PROTO_E_UTF8, "lone continuation"},
	{"a2 c3", PROTO_E_TRUNCATED, "str longer than input"},
	{"a1 c3", PROTO_E_UTF8, "cut sequence"},
	{"a1 ff", PROTO_E_UTF8, "0xff byte"},
	{"a3 610062", PROTO_E_NUL, "NUL inside str"},
	{"82 a162 01 a161 02", PROTO_E_UNSORTED, "keys b, a"},
	{"82 a26162 01 a161 02", PROTO_E_UNSORTED, "keys ab, a"},
	{"82 a161 01 a161 02", PROTO_E_DUPKEY, "key a twice"},
	{"81 01 02", PROTO_E_TYPE, "int key"},
	{"91919191919191919191919191919191 91 c0", PROTO_E_DEPTH, "17 deep"},
};

static void test_rejections(void)
{
	for (size_t i = 0; i < sizeof(s_bad) / sizeof(s_bad[0]); i++) {
		uint8_t buf[64];
		size_t n = s_unhex(s_bad[i].hex, buf);
		int got = mp_validate(buf, n);
		if (got != s_bad[i].err) {
			fprintf(stderr, "%s: got %s, want %s\n", s_bad[i].why,
				proto_strerror(got),
				proto_strerror(s_bad[i].err));
			check_failures++;
		}
	}
}

static void test_accepts(void)
{
	static const char *const good[] = {
		"c0",
		"c2",
		"c3",
		"00",
		"ff",
		"cb 3ff0000000000000",
		"cb 8000000000000000", /* -0.0 */
		"a0",
		"a2 c3a9",
		"a3 e282ac",
		"a4 f09f9880",
		"a4 f48fbfbf",
		"80",
		"82 a161 01 a162 02",
		"82 a161 01 a26161 02",
		"c4 00",
		"93 01 02 03",
		"919191919191919191919191919191 91 c0", /* 16 deep */
	};
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		uint8_t buf[64];
		size_t n = s_unhex(good[i], buf);
		int got = mp_validate(buf, n);
		if (got != 0) {
			fprintf(stderr, "good %s: got %s\n", good[i],
				proto_strerror(got));
			check_failures++;
		}
	}
}

/* Getters leave the cursor alone and ret_* unwritten on error. */
static void test_cursor_on_error(void)
{
	uint8_t buf[] = {0xa3, 0x61, 0x00, 0x62};
	mp_reader_t r;
	const char *s = "untouched";
	size_t n = 99;
	uint64_t u = 42;

	mp_reader_init(&r, buf, sizeof(buf));
	CHECK_ERR(mp_get_str(&r, 10, &s, &n), PROTO_E_NUL);
	CHECK(strcmp(s, "untouched") == 0 && n == 99);
	CHECK(mp_reader_offset(&r) == 0);
	CHECK_ERR(mp_get_uint(&r, &u), PROTO_E_TYPE);
	CHECK(u == 42);
	uint8_t big[] = {0xcd, 0x01, 0x00};
	mp_reader_init(&r, big, sizeof(big));
	CHECK_ERR(mp_get_uint_max(&r, 255, &u), PROTO_E_RANGE);
	CHECK(u == 42 && mp_reader_offset(&r) == 0);
	uint8_t arr[] = {0x93, 1, 2, 3};
	uint32_t cnt = 7;
	mp_reader_init(&r, arr, sizeof(arr));
	CHECK_ERR(mp_get_array(&r, 2, 10, &cnt), PROTO_E_COUNT);
	CHECK_ERR(mp_get_array(&r, 1, 2, &cnt), PROTO_E_TOOMANY);
	CHECK_ERR(mp_get_array_exact(&r, 2), PROTO_E_ARITY);
	CHECK(cnt == 7);
	uint8_t bin[] = {0xc4, 0x02, 1, 2};
	uint8_t out[3] = {9, 9, 9};
	mp_reader_init(&r, bin, sizeof(bin));
	CHECK_ERR(mp_get_bin_exact(&r, 3, out), PROTO_E_LENGTH);
	CHECK(out[0] == 9);
}

static void test_encoder_errors(void)
{
	mp_enc_t e;
	uint8_t *p = NULL;
	size_t n;

	mp_enc_init(&e, 0);
	mp_put_f64(&e, NAN);
	CHECK_ERR(mp_enc_finish(&e, &p, &n), PROTO_E_NAN);
	CHECK(p == NULL);
	uint8_t want[] = {0x92, 0x01, 0x02};
	mp_enc_init_compare(&e, want, sizeof(want));
	mp_put_array(&e, 2);
	mp_put_uint(&e, 1);
	CHECK_ERR(mp_enc_compare_result(&e), PROTO_E_NONCANONICAL);
	mp_put_uint(&e, 2);
	CHECK_ERR(mp_enc_compare_result(&e), 0);
	mp_put_uint(&e, 3);
	CHECK_ERR(mp_enc_compare_result(&e), PROTO_E_NONCANONICAL);
	/* one-byte heads with their body: a differing byte, a differing
	 * length, and expected bytes that end inside the value (a heap copy
	 * of just those bytes, so the sanitizer build sees any over-read) */
	uint8_t strs[] = {0x92, 0xa3, 'a', 'b', 'c', 0x7f};
	static const char *const strs_put[] = {"abc", "abd", "ab", "abcd"};
	for (size_t i = 0; i < 4; i++) {
		mp_enc_init_compare(&e, strs, sizeof(strs));
		mp_put_array(&e, 2);
		mp_put_str(&e, strs_put[i]);
		mp_put_uint(&e, 0x7f);
		CHECK_ERR(mp_enc_compare_result(&e),
			  i == 0 ? 0 : PROTO_E_NONCANONICAL);
	}
	mp_enc_init_compare(&e, strs, sizeof(strs));
	mp_put_array(&e, 3);
	mp_put_str(&e, "abc");
	mp_put_uint(&e, 0x7f);
	CHECK_ERR(mp_enc_compare_result(&e), PROTO_E_NONCANONICAL);
	for (size_t cut = 0; cut < sizeof(strs); cut++) {
		uint8_t *part = malloc(cut ? cut : 1);
		memcpy(part, strs, cut);
		mp_enc_init_compare(&e, part, cut);
		mp_put_array(&e, 2);
		mp_put_str(&e, "abc");
		mp_put_uint(&e, 0x7f);
		CHECK_ERR(mp_enc_compare_result(&e), PROTO_E_NONCANONICAL);
		CHECK(mp_enc_len(&e) <= cut);
		free(part);
	}
}

/* One sequence of puts, for build mode and compare mode alike. */
static void s_puts(mp_enc_t *e, uint64_t v, size_t n)
{
	static char s[70000];

	memset(s, 'a', sizeof(s));
	mp_put_uint(e, v);
	mp_put_strn(e, s, n);
	mp_put_bin(e, s, n);
	mp_put_array(e, (uint32_t)n);
	mp_put_map(e, (uint32_t)n);
	mp_put_nil(e);
	mp_put_f64(e, (double)v / 3.0);
	mp_put_bool(e, n & 1);
	mp_put_int(e, -(int64_t)(v >> 1));
}

/* Compare mode (our own heads) accepts exactly what build mode (msgpack-c)
 * writes, at every length and integer boundary. */
static void test_compare_agrees(void)
{
	static const uint64_t vals[] = {
		0,	    1,	   127,	  128,		 255,
		256,	    65535, 65536, 0xffffffffull, 0x100000000ull,
		UINT64_MAX,
	};
	static const size_t lens[] = {0,  1,   15,  16,	   31,
				      32, 255, 256, 65535, 65536};
	for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		for (size_t j = 0; j < sizeof(lens) / sizeof(lens[0]); j++) {
			mp_enc_t b, c;
			uint8_t *p;
			size_t n;
			mp_enc_init(&b, 0);
			s_puts(&b, vals[i], lens[j]);
			CHECK(mp_enc_finish(&b, &p, &n) == 0);
			mp_enc_init_compare(&c, p, n);
			s_puts(&c, vals[i], lens[j]);
			CHECK_ERR(mp_enc_compare_result(&c), 0);
			mp_enc_init_compare(&c, p, n);
			s_puts(&c, vals[i] ^ 1, lens[j]);
			CHECK_ERR(mp_enc_compare_result(&c),
				  PROTO_E_NONCANONICAL);
			free(p);
		}
	}
}

static void test_strerror(void)
{
	for (int c = PROTO_E_LAST; c <= PROTO_E_TRUNCATED; c++) {
		CHECK(strcmp(proto_strerror(c), "unknown error") != 0);
		for (int d = c + 1; d <= PROTO_E_TRUNCATED; d++)
			CHECK(strcmp(proto_strerror(c), proto_strerror(d)) !=
			      0);
	}
	CHECK(strcmp(proto_strerror(-2), "No such file or directory") == 0);
}

static void test_validators(void)
{
	CHECK(proto_name_ok("qemu-a") && proto_name_ok("x86_64"));
	CHECK(!proto_name_ok("") && !proto_name_ok("-a") &&
	      !proto_name_ok("a b"));
	CHECK(proto_path_ok("timers.posix_timers.test-1"));
	CHECK(!proto_path_ok("a..b") && !proto_path_ok(".a") &&
	      !proto_path_ok("a.") && !proto_path_ok("a/b") &&
	      !proto_path_ok(""));
	CHECK(proto_commit_ok("0123456789abcdef0123456789abcdef01234567"));
	CHECK(!proto_commit_ok("0123456789ABCDEF0123456789abcdef01234567"));
	CHECK(!proto_commit_ok("0123456789abcdef0123456789abcdef0123456"));
	CHECK(proto_endpoint_ok("tcp://127.0.0.1:7701"));
	CHECK(proto_endpoint_ok("tcp://[::1]:7701"));
	CHECK(proto_endpoint_ok("tcp://lab-a.example.org:1"));
	CHECK(!proto_endpoint_ok("tcp://127.0.0.1:0"));
	CHECK(!proto_endpoint_ok("tcp://127.0.0.1:65536"));
	CHECK(!proto_endpoint_ok("tcp://127.0.0.1:07701"));
	CHECK(!proto_endpoint_ok("ipc:///tmp/x"));
	CHECK(!proto_endpoint_ok("tcp://a b:1"));
	uint8_t b[2];
	CHECK(proto_unhex("0aFf", b, 2) == 0 && b[0] == 0x0a && b[1] == 0xff);
	CHECK(proto_unhex("0aF", b, 2) < 0 && proto_unhex("0aFf0", b, 2) < 0);
}

int main(void)
{
	test_minimal_integers();
	test_minimal_lengths();
	test_rejections();
	test_accepts();
	test_cursor_on_error();
	test_encoder_errors();
	test_compare_agrees();
	test_strerror();
	test_validators();
	return CHECK_DONE();
}
