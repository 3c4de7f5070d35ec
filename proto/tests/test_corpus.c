/*
 * Every committed fuzz seed and every regression input (a fuzzer finding,
 * kept once fixed) goes through every decoder of the normal library, with
 * real signature checks: seeds must decode with the decoder they were
 * made for; nothing may crash (ASan/UBSan builds run this too). Inputs
 * merged back from fuzzing runs (named by libFuzzer: the SHA-1 of their
 * bytes, 40 hex digits) are mostly invalid on purpose: they only must not
 * crash.
 *   test-proto-corpus FUZZ_CORPUS_DIR REGRESS_DIR
 */
#include "proto/desc.h"
#include "proto/mem.h"
#include "proto/mp.h"
#include "proto/msg.h"
#include "proto/record.h"
#include "proto/lease.h"
#include "proto/request.h"
#include "proto/tests/check.h"

#include <dirent.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>

int check_failures;

static size_t s_files;

static uint8_t *s_slurp(const char *path, size_t *ret_len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = xmalloc(PROTO_MAX_MSG + 1);
	size_t n;

	if (!f) {
		free(buf);
		return NULL;
	}
	n = fread(buf, 1, PROTO_MAX_MSG + 1, f);
	fclose(f);
	*ret_len = n;
	return buf;
}

/* Run p through every decoder; return which accepted (bit per decoder). */
static unsigned s_all(const uint8_t *p, size_t n)
{
	record_t *rec = NULL;
	record_head_t h;
	request_t *q = NULL;
	request_cancel_t c;
	lease_t l;
	lease_reply_t lr;
	node_desc_t *d = NULL;
	msg_t *m = NULL;
	unsigned ok = 0;

	ok |= (mp_validate(p, n) == 0) << 0;
	ok |= (record_decode(p, n, &rec) == 0) << 1;
	ok |= (record_verify(p, n, &h) == 0) << 2;
	ok |= (request_decode(p, n, &q) == 0) << 3;
	ok |= (cancel_decode(p, n, &c) == 0) << 4;
	ok |= (desc_decode(p, n, &d) == 0) << 5;
	ok |= (msg_decode(p, n, PROTO_MAX_MSG, &m) == 0) << 6;
	ok |= (lease_decode(p, n, &l) == 0) << 7;
	ok |= (lease_reply_decode(p, n, &lr) == 0) << 8;
	record_destroy(&rec);
	request_destroy(&q);
	desc_destroy(&d);
	msg_destroy(&m);
	return ok;
}

/* Which decoder a seed directory's inputs must pass (0: any or none). */
static unsigned s_expect(const char *dir, const char *file)
{
	if (strcmp(dir, "record") == 0)
		return 1u << 1 | 1u << 2;
	if (strcmp(dir, "request") == 0 && strcmp(file, "lease-exec") == 0)
		return 1u << 7;
	if (strcmp(dir, "request") == 0 && strcmp(file, "lease-reply") == 0)
		return 1u << 8;
	if (strcmp(dir, "request") == 0)
		return strcmp(file, "cancel") == 0 ? 1u << 4 : 1u << 3;
	if (strcmp(dir, "desc") == 0)
		return 1u << 5;
	if (strcmp(dir, "msg") == 0)
		return 1u << 6;
	return 1u << 0; /* mp */
}

/* A name libFuzzer gave an input it found: 40 lowercase hex digits. */
static bool s_fuzzed(const char *file)
{
	size_t n = strspn(file, "0123456789abcdef");

	return n == 40 && file[n] == '\0';
}

static void s_dir(const char *path, const char *name, bool seeds)
{
	DIR *dir = opendir(path);
	struct dirent *e;

	if (!dir)
		return;
	while ((e = readdir(dir))) {
		if (e->d_name[0] == '.')
			continue;
		char *f = xasprintf("%s/%s", path, e->d_name);
		struct stat st;
		size_t n;
		uint8_t *p = NULL;
		if (stat(f, &st) == 0 && S_ISDIR(st.st_mode))
			s_dir(f, e->d_name, seeds);
		else if (strcmp(e->d_name, "README") != 0)
			p = s_slurp(f, &n);
		if (p) {
			unsigned ok = s_all(p, n),
				 want = s_expect(name, e->d_name);
			s_files++;
			if (seeds && !s_fuzzed(e->d_name) &&
			    (ok & want) != want) {
				fprintf(stderr, "%s: seed does not decode\n",
					f);
				check_failures++;
			}
			free(p);
		}
		free(f);
	}
	closedir(dir);
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: test-proto-corpus CORPUS REGRESS\n");
		return 2;
	}
	s_dir(argv[1], "", true);
	s_dir(argv[2], "", false);
	CHECK(s_files >= 40); /* the seeds are there */
	return CHECK_DONE();
}
