/*
 * libFuzzer harness: the runner's reading of a board's answers to its own
 * commands (suites/reply.h) — the kernel identity, the needs check, the
 * work directory — each over the whole input, as a board (or a serial
 * console with junk and kernel messages mixed in) might answer. Whatever
 * the bytes: what is kept is bounded and printable; the identity is whole
 * (release and machine) or nothing, and only when its tags were sent; the
 * needs answer counts are no more than the board's lines, and the reason
 * only grows, after what was there, saying what the counts say, and only
 * when the answer reached its end.
 */
#include "suites/fuzz/fuzz_check.h"
#include "suites/reply.h"

#include <errno.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char s_arch[] = "arch x86_64 not among aarch64";

static void s_kernel(const char *out, size_t len)
{
	suite_kernel_t k;
	char *rel = suite_reply_tagged(out, len, "LMKR:");
	char *mach = suite_reply_tagged(out, len, "LMKM:");
	int r = suite_reply_kernel(out, len, &k);

	FUZZ_REQUIRE(r == 0 || r == -EPROTO);
	FUZZ_REQUIRE((r == 0) == (rel && mach));
	if (r == 0) {
		FUZZ_REQUIRE(fuzz_text_ok(k.release, SUITE_REPLY_MAX_ID));
		FUZZ_REQUIRE(fuzz_text_ok(k.machine, SUITE_REPLY_MAX_ID));
		FUZZ_REQUIRE(!k.version || fuzz_text_ok(k.version, SUITE_REPLY_MAX_ID));
		FUZZ_REQUIRE(strcmp(k.release, rel) == 0 && strcmp(k.machine, mach) == 0);
		FUZZ_REQUIRE(memmem(out, len, "LMKR:", 5) && memmem(out, len, "LMKM:", 5));
		FUZZ_REQUIRE(strlen(k.release) + 5 <= len && strlen(k.machine) + 5 <= len);
	} else {
		FUZZ_REQUIRE(!k.release && !k.machine && !k.version);
	}
	suite_kernel_clear(&k);
	free(rel);
	free(mach);
}

static void s_dir(const char *out, size_t len)
{
	char *dir = suite_reply_tagged(out, len, "LMDIR:");

	if (dir) {
		FUZZ_REQUIRE(fuzz_text_ok(dir, SUITE_REPLY_MAX_ID));
		FUZZ_REQUIRE(strlen(dir) + 6 <= len && memmem(out, len, "LMDIR:", 6));
	}
	free(dir);
}

static void s_needs(const char *out, size_t len)
{
	suite_needs_reply_t nr;
	buf_t why;
	int r;

	buf_init(&why, SUITE_MAX_REASON);
	buf_puts(&why, s_arch);
	r = suite_reply_needs(out, len, &why, &nr);
	FUZZ_REQUIRE(r == 0 || r == -EPROTO);
	FUZZ_REQUIRE(why.len <= SUITE_MAX_REASON);
	FUZZ_REQUIRE(!memchr(why.data, '\0', why.len));
	FUZZ_REQUIRE(fuzz_printable(buf_str(&why), SUITE_MAX_REASON));
	FUZZ_REQUIRE(strncmp(buf_str(&why), s_arch, strlen(s_arch)) == 0);
	if (r < 0) {
		FUZZ_REQUIRE(why.len == strlen(s_arch));
		FUZZ_REQUIRE(!nr.n_commands && !nr.n_kconfig && !nr.root && !nr.noconfig);
	} else {
		const char *w = buf_str(&why);
		FUZZ_REQUIRE(memmem(out, len, "LMNEED:done", 11));
		FUZZ_REQUIRE(nr.n_commands <= fuzz_count(out, len, "LMNEED:command "));
		FUZZ_REQUIRE(nr.n_kconfig <= fuzz_count(out, len, "LMNEED:kconfig "));
		FUZZ_REQUIRE(!nr.root || fuzz_count(out, len, "LMNEED:root"));
		FUZZ_REQUIRE(!nr.noconfig || fuzz_count(out, len, "LMNEED:noconfig"));
		/* each finding is said, unless the reason is full */
		if (!why.truncated) {
			FUZZ_REQUIRE(!nr.n_commands || strstr(w, "; missing commands: "));
			FUZZ_REQUIRE(!nr.n_kconfig || strstr(w, "; kernel options not set: "));
			FUZZ_REQUIRE(!nr.root || strstr(w, "; needs root (uid "));
			FUZZ_REQUIRE(nr.n_commands || nr.n_kconfig || nr.root ||
				     why.len == strlen(s_arch));
		}
	}
	buf_free(&why);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *out = (const char *)data;

	s_kernel(out, size);
	s_dir(out, size);
	s_needs(out, size);
	return 0;
}
