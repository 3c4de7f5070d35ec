/*
 * Golden vectors: the exact bytes and id of every sample object (fixed
 * seed keys, so signatures are deterministic) are committed under
 * proto/tests/vectors/NAME.txt as two lines, "id HEX" and "bytes HEX".
 * Any change to the encoding changes these and fails here, loudly.
 *   test-proto-vectors DIR          check
 *   test-proto-vectors --write DIR  regenerate (after a deliberate change)
 * Each committed vector must also decode on its own (its "bytes" line,
 * real signature and all) to an object whose id, as the decoder computes
 * it, is the committed "id" line; messages have no id of their own, so
 * theirs is proto_id() of the decoded bytes.
 */
#include "proto/tests/check.h"
#include "proto/tests/sample.h"
#include "proto/mem.h"

#include <stdlib.h>
#include <string.h>

int check_failures;

static const char *s_dir;
static bool s_write;

enum obj { O_RECORD, O_REQUEST, O_CANCEL, O_DESC, O_MSG, O_LEASE, O_REPLY };

/*
 * Decode n bytes as o; on success ret_id gets the id the decoder computed
 * (messages have none of their own: theirs is proto_id() of the bytes).
 */
static int s_decode(enum obj o, const uint8_t *p, size_t n, uint8_t ret_id[32])
{
	record_t *rec = NULL;
	request_t *q = NULL;
	request_cancel_t c;
	lease_t l;
	lease_reply_t rp;
	node_desc_t *d = NULL;
	msg_t *m = NULL;
	int r;

	switch (o) {
	case O_RECORD:
		r = record_decode(p, n, &rec);
		if (r == 0)
			memcpy(ret_id, rec->head.id, 32);
		record_destroy(&rec);
		return r;
	case O_REQUEST:
		r = request_decode(p, n, &q);
		if (r == 0)
			memcpy(ret_id, q->id, 32);
		request_destroy(&q);
		return r;
	case O_CANCEL:
		r = cancel_decode(p, n, &c);
		if (r == 0)
			memcpy(ret_id, c.id, 32);
		return r;
	case O_LEASE:
		r = lease_decode(p, n, &l);
		if (r == 0)
			memcpy(ret_id, l.id, 32);
		return r;
	case O_REPLY:
		r = lease_reply_decode(p, n, &rp);
		if (r == 0)
			proto_id(p, n, ret_id);
		return r;
	case O_DESC:
		r = desc_decode(p, n, &d);
		if (r == 0)
			memcpy(ret_id, d->id, 32);
		desc_destroy(&d);
		return r;
	default:
		r = msg_decode(p, n, PROTO_MAX_MSG, &m);
		if (r == 0)
			proto_id(p, n, ret_id);
		msg_destroy(&m);
		return r;
	}
}

static char *s_read(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = xmalloc((size_t)n + 1);
	if (fread(buf, 1, (size_t)n, f) != (size_t)n)
		n = 0;
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/*
 * The committed vector on its own terms (its own length, whatever the
 * encoder makes today): the "bytes" line decodes, signature and all, to
 * an object whose id is the "id" line.
 */
static void s_committed(const char *name, enum obj o, const char *text)
{
	const char *id_line, *b, *end;
	uint8_t want[32], got[32], *bytes;
	size_t hexlen;

	if (!text)
		return; /* missing: reported by the caller */
	id_line = strncmp(text, "id ", 3) == 0 ? text + 3 : NULL;
	b = strstr(text, "\nbytes ");
	if (!id_line || !b || b != id_line + 64 ||
	    proto_unhex(strndupa(id_line, 64), want, 32) < 0) {
		fprintf(stderr, "%s: committed vector has no valid id line\n",
			name);
		check_failures++;
		return;
	}
	b += 7;
	end = strchr(b, '\n');
	hexlen = end ? (size_t)(end - b) : strlen(b);
	bytes = xmalloc(hexlen / 2 + 1);
	char *hex = xstrndup(b, hexlen);
	if (hexlen % 2 || proto_unhex(hex, bytes, hexlen / 2) < 0) {
		fprintf(stderr, "%s: committed bytes are not hex\n", name);
		check_failures++;
	} else {
		memset(got, 0, sizeof(got));
		CHECK_ERR(s_decode(o, bytes, hexlen / 2, got), 0);
		if (memcmp(got, want, 32) != 0) {
			char got_hex[65];
			proto_hex(got, 32, got_hex);
			fprintf(stderr,
				"%s: committed bytes decode to id %s, the "
				"committed id line says %.64s\n",
				name, got_hex, id_line);
			check_failures++;
		}
	}
	free(hex);
	free(bytes);
}

static void s_vector(const char *name, enum obj o, uint8_t *p, size_t n)
{
	char *path = xasprintf("%s/%s.txt", s_dir, name);
	char *hex = xmalloc(2 * n + 1), id_hex[65];
	uint8_t id[32], p_id[32];

	proto_hex(p, n, hex);
	proto_id(p, n, p_id);
	proto_hex(p_id, 32, id_hex);
	char *text = xasprintf("id %s\nbytes %s\n", id_hex, hex);
	if (s_write) {
		FILE *f = fopen(path, "w");
		if (!f || fputs(text, f) < 0 || fclose(f) != 0)
			check_failures++;
	} else {
		char *old = s_read(path);
		if (!old || strcmp(old, text) != 0) {
			fprintf(stderr,
				"%s: ENCODING CHANGED (or vector missing): the "
				"bytes or id differ from %s\n",
				name, path);
			check_failures++;
		}
		s_committed(name, o, old);
		free(old);
	}
	CHECK_ERR(s_decode(o, p, n, id), 0);
	CHECK(memcmp(id, p_id, 32) == 0);
	free(text);
	free(hex);
	free(path);
}

static void s_records(void)
{
	uint8_t *p;
	size_t n;

	for (int k = RECORD_ADVERT; k <= RECORD_KIND_MAX; k++) {
		if (!record_kind_known(k))
			continue;
		char *name = xasprintf("record-%s", record_kind_name(k));
		sample_record_bytes(k, k == RECORD_ADVERT ? 1 : 2, 3, &p, &n);
		s_vector(name, O_RECORD, p, n);
		free(p);
		free(name);
	}
	/* the optional suite reason and an accept's refused boards: the
	 * other vectors pin that records without them encode as before */
	sample_run_reason_bytes(&p, &n);
	s_vector("record-run-reason", O_RECORD, p, n);
	free(p);
	sample_accept_refused_bytes(&p, &n);
	s_vector("record-accept-refused", O_RECORD, p, n);
	free(p);
}

static void s_requests(void)
{
	static const char *const names[] = {"request-none", "request-git",
					    "request-artifact"};
	key_pair_t kp;
	uint8_t *p, rid[32], id[32];
	size_t n;

	for (int t = REQUEST_KERNEL_NONE; t <= REQUEST_KERNEL_MAX; t++) {
		sample_request_bytes(t, &p, &n);
		s_vector(names[t], O_REQUEST, p, n);
		free(p);
	}
	sample_key(1, &kp);
	memset(rid, 0x5a, sizeof(rid));
	if (cancel_sign(rid, 1764748860000ull, &kp, &p, &n, id) < 0)
		abort();
	s_vector("cancel", O_CANCEL, p, n);
	free(p);
	for (int op = LEASE_TAKE; op <= LEASE_OP_MAX; op++) {
		char *name = xasprintf("lease-%s", lease_op_name(op));

		sample_lease_bytes(op, &p, &n);
		s_vector(name, O_LEASE, p, n);
		free(name);
		free(p);
	}
	sample_reply_bytes(&p, &n);
	s_vector("lease-reply", O_REPLY, p, n);
	free(p);
}

static void s_others(void)
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
	s_vector("desc", O_DESC, p, n);
	free(p);
	for (int t = MSG_HELLO; t <= MSG_TYPE_MAX; t++) {
		sample_msg(t, &m);
		if (msg_encode(&m, &p, &n) < 0)
			abort();
		char *name = xasprintf("msg-%s", msg_type_name(t));
		s_vector(name, O_MSG, p, n);
		free(name);
		free(p);
	}
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "--write") == 0) {
		s_write = true;
		s_dir = argv[2];
	} else if (argc == 2) {
		s_dir = argv[1];
	} else {
		fprintf(stderr, "usage: test-proto-vectors [--write] DIR\n");
		return 2;
	}
	s_records();
	s_requests();
	s_others();
	sample_free();
	return CHECK_DONE();
}
