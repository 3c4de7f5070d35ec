/*
 * Write the seed corpus of every proto fuzz harness from the sample
 * objects: make-proto-corpus DIR writes DIR/NAME/SEED files. The output
 * is committed under proto/fuzz/corpus/; rerun after a format change.
 */
#include "proto/tests/sample.h"
#include "proto/mem.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *s_dir;

static void s_put(const char *name, const char *seed, const uint8_t *p,
		  size_t n)
{
	char *d = xasprintf("%s/%s", s_dir, name);
	char *f = xasprintf("%s/%s", d, seed);
	FILE *fp;

	if (mkdir(d, 0755) < 0 && errno != EEXIST)
		abort();
	fp = fopen(f, "wb");
	if (!fp || fwrite(p, 1, n, fp) != n || fclose(fp) != 0)
		abort();
	free(d);
	free(f);
}

static void s_records(void)
{
	uint8_t *p;
	size_t n;
	char seed[32];

	for (int k = RECORD_ADVERT; k <= RECORD_KIND_MAX; k++) {
		if (!record_kind_known(k))
			continue;
		for (uint64_t seq = 1; seq <= 2; seq++) {
			sample_record_bytes(k, seq, 4, &p, &n);
			snprintf(seed, sizeof(seed), "%s-%llu",
				 record_kind_name(k), (unsigned long long)seq);
			s_put("record", seed, p, n);
			s_put("mp", seed, p, n);
			free(p);
		}
	}
	/* the optional fields: a suite's reason, an accept's refusals */
	sample_run_reason_bytes(&p, &n);
	s_put("record", "run-reason", p, n);
	s_put("mp", "run-reason", p, n);
	free(p);
	sample_accept_refused_bytes(&p, &n);
	s_put("record", "accept-refused", p, n);
	s_put("mp", "accept-refused", p, n);
	free(p);
}

static void s_requests(void)
{
	static const char *const names[] = {"none", "git", "artifact"};
	key_pair_t kp;
	uint8_t *p, rid[32] = {1}, id[32];
	size_t n;

	for (int t = REQUEST_KERNEL_NONE; t <= REQUEST_KERNEL_MAX; t++) {
		sample_request_bytes(t, &p, &n);
		s_put("request", names[t], p, n);
		s_put("mp", names[t], p, n);
		free(p);
	}
	sample_key(1, &kp);
	if (cancel_sign(rid, 1, &kp, &p, &n, id) < 0)
		abort();
	s_put("request", "cancel", p, n);
	free(p);
	sample_lease_bytes(LEASE_EXEC, &p, &n);
	s_put("request", "lease-exec", p, n);
	free(p);
	sample_reply_bytes(&p, &n);
	s_put("request", "lease-reply", p, n);
	free(p);
}

static void s_msgs(void)
{
	key_pair_t kp;
	node_desc_t d;
	msg_t m;
	uint8_t *p, id[32];
	size_t n;

	sample_key(0, &kp);
	sample_desc(&d);
	if (desc_sign(&d, &kp, &p, &n, id) < 0)
		abort();
	s_put("desc", "lab-a", p, n);
	free(p);
	for (int t = MSG_HELLO; t <= MSG_TYPE_MAX; t++) {
		sample_msg(t, &m);
		if (msg_encode(&m, &p, &n) < 0)
			abort();
		s_put("msg", msg_type_name(t), p, n);
		free(p);
	}
	sample_msg(MSG_BLOB_GET, &m); /* the long form, relayed */
	m.blob_get.hops = 2;
	if (msg_encode(&m, &p, &n) < 0)
		abort();
	s_put("msg", "blob-get-hops", p, n);
	free(p);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: make-proto-corpus DIR\n");
		return 2;
	}
	s_dir = argv[1];
	s_records();
	s_requests();
	s_msgs();
	sample_free();
	return 0;
}
