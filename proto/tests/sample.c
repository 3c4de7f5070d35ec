/*
 * sample: deterministic sample objects. See sample.h.
 */
#include "proto/tests/sample.h"
#include "proto/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define T0 1764748800000ull /* 2025-12-03T08:00:00Z */

static void **s_keep;
static size_t s_nkeep, s_akeep;

static void *s_hold(void *p)
{
	if (s_nkeep == s_akeep) {
		s_akeep = s_akeep ? 2 * s_akeep : 64;
		s_keep = realloc(s_keep, s_akeep * sizeof(*s_keep));
		if (!s_keep)
			abort();
	}
	s_keep[s_nkeep++] = p;
	return p;
}

void sample_free(void)
{
	while (s_nkeep)
		free(s_keep[--s_nkeep]);
	free(s_keep);
	s_keep = NULL;
	s_akeep = 0;
}

void sample_key(int n, key_pair_t *ret_kp)
{
	uint8_t seed[32];

	for (int i = 0; i < 32; i++)
		seed[i] = (uint8_t)(0x10 * (n + 1) + i);
	if (key_from_seed(seed, ret_kp) < 0)
		abort();
}

static void s_id(uint8_t out[32], uint8_t tag)
{
	for (int i = 0; i < 32; i++)
		out[i] = (uint8_t)(tag ^ (i * 7));
}

static const char *const s_tags[] = {"qemu", "virt", "kvm"};
static const char *const s_suites[] = {"kselftest-timers", "ltp-syscalls",
				       "boot"};
static const proto_kv_t s_info[] = {
	/* deliberately unsorted: the encoder sorts */
	{"location", "Grenoble, rack 3"},
	{"contact", "lab-a@example.org"},
};

static void s_advert(record_advert_t *ad)
{
	static record_board_t boards[2];
	key_pair_t kp;

	sample_key(0, &kp);
	boards[0] = (record_board_t){
		.name = "qemu-a",
		.arch = "x86_64",
		.machine = "q35",
		.tags = s_tags,
		.n_tags = 3,
		.transport = "serial",
		.boot = "qemu",
		.state = BOARD_IDLE,
		.queue_len = 0,
	};
	boards[1] = (record_board_t){
		.name = "rpi4",
		.arch = "arm64",
		.machine = "Raspberry Pi 4 Model B Rev 1.4",
		.tags = s_tags,
		.n_tags = 1,
		.transport = "ssh",
		.boot = "command",
		.state = BOARD_BUSY,
		.queue_len = 3,
	};
	*ad = (record_advert_t){
		.lab = "lab-a",
		.description = "Example lab \xc3\xa9t\xc3\xa9",
		.software = "labmesh 0.1.0",
		.suites = s_suites,
		.n_suites = 3,
		.info = s_info,
		.n_info = 2,
		.boards = boards,
		.n_boards = 2,
	};
	memcpy(ad->node_id, kp.pk, 32);
}

static const char *const s_case_status_msg[] = {"", "assertion failed: x == 3",
						"timeout after 30s"};

/* n cases: mostly PASS, some FAIL/SKIP, realistic kselftest-like paths. */
static run_case_t *s_cases(size_t n)
{
	run_case_t *c = s_hold(calloc(n ? n : 1, sizeof(*c)));

	for (size_t i = 0; i < n; i++) {
		char *path = s_hold(malloc(64));
		snprintf(path, 64, "timers.posix_timers.test_%03zu", i);
		c[i].path = path;
		c[i].status = i % 17 == 5   ? PROTO_FAIL
			      : i % 11 == 3 ? PROTO_SKIP
					    : PROTO_PASS;
		c[i].duration_ms = 10 + i * 3;
		c[i].message =
			s_case_status_msg[c[i].status == PROTO_FAIL   ? 1
					  : c[i].status == PROTO_SKIP ? 2
								      : 0];
	}
	return c;
}

static void s_run(record_run_t *run, size_t n_cases)
{
	static run_metric_t metrics[] = {
		{"boot.time_to_shell", 3.25, "s", METRIC_LOWER},
		{"net.bandwidth", 941.5, "Mbit/s", METRIC_HIGHER},
	};
	static run_log_t logs[2];
	static run_suite_t suites[2];

	logs[0].name = "console";
	s_id(logs[0].blob_id, 0xc0);
	logs[1].name = "output";
	s_id(logs[1].blob_id, 0x0f);
	suites[0] = (run_suite_t){
		.name = "kselftest-timers",
		.version = "6.8",
		.status = PROTO_FAIL,
		.duration_ms = 61234,
		.start_ms = T0 + 5000,
		.end_ms = T0 + 66234,
		.cases = s_cases(n_cases),
		.n_cases = n_cases,
		.metrics = metrics,
		.n_metrics = 2,
		.logs = &logs[1],
		.n_logs = 1,
	};
	suites[1] = (run_suite_t){
		.name = "boot",
		.version = "",
		.status = PROTO_PASS,
		.duration_ms = 3250,
		.start_ms = T0 + 1000,
		.end_ms = T0 + 4250,
	};
	*run = (record_run_t){
		.has_request = true,
		.board = "qemu-a",
		.lab = "lab-a",
		.kernel =
			{
				.tree_url =
					"https://git.kernel.org/pub/scm/linux/"
					"kernel/git/torvalds/linux.git",
				.branch = "master",
				.commit = "0123456789abcdef0123456789abcdef0123"
					  "4567",
				.config = "x86_64_defconfig",
				.arch = "x86_64",
				.describe = "v6.8-rc3-42-g0123456789ab",
				.has_kernel_blob = true,
				.build = BUILD_PASS,
				.compiler = "gcc (Debian 12.2.0-14) 12.2.0",
			},
		.suites = suites,
		.n_suites = 2,
		.logs = logs,
		.n_logs = 1,
		.status = PROTO_FAIL,
	};
	s_id(run->request_id, 0x5a);
	s_id(run->kernel.kernel_blob, 0x4b);
}

static const char *const s_acc_boards[] = {"qemu-a", "rpi4"};

static bisect_step_t s_steps[] = {
	{ .commit = "1111111111111111111111111111111111111111",
	  .verdict = BISECT_BAD, .has_request = true, .lab = "lab-a",
	  .board = "qemu-a", .has_run = true },
	{ .commit = "0000000000000000000000000000000000000000",
	  .verdict = BISECT_GOOD, .has_request = true, .lab = "lab-a",
	  .board = "qemu-a", .has_run = true },
	{ .commit = "8888888888888888888888888888888888888888",
	  .verdict = BISECT_PENDING, .has_request = true, .lab = "",
	  .board = "" },
};

static void s_bisect(record_bisect_t *b)
{
	for (size_t i = 0; i < sizeof(s_steps) / sizeof(s_steps[0]); i++) {
		s_id(s_steps[i].request_id, (uint8_t)(0x70 + i));
		if (s_steps[i].has_run)
			s_id(s_steps[i].run_id, (uint8_t)(0x60 + i));
	}
	s_id(b->bisection, 0xb1);
	s_id(b->submitter, 0x5b);
	b->tree_url = "https://git.kernel.org/pub/scm/linux/kernel/git/"
		      "stable/linux.git";
	b->good = "0000000000000000000000000000000000000000";
	b->bad = "1111111111111111111111111111111111111111";
	b->test = "ltp-syscalls.fork01";
	b->config = "tinyconfig";
	b->arch = "x86_64";
	b->n_commits = 16;
	b->state = BISECT_RUNNING;
	b->first_bad = "";
	b->text = "";
	b->steps = s_steps;
	b->n_steps = 3;
}

void sample_record(enum record_kind kind, uint64_t seq, size_t n_cases,
		   record_t *rec)
{
	memset(rec, 0, sizeof(*rec));
	rec->head.kind = kind;
	rec->head.seq = seq;
	rec->head.has_prev = seq > 1;
	s_id(rec->head.prev_id, (uint8_t)seq);
	if (!rec->head.has_prev)
		memset(rec->head.prev_id, 0, 32);
	rec->head.ts_ms = T0 + seq;
	switch (kind) {
	case RECORD_ADVERT:
		s_advert(&rec->advert);
		break;
	case RECORD_ACCEPT:
		s_id(rec->accept.request_id, 0x5a);
		rec->accept.boards = s_acc_boards;
		rec->accept.n_boards = 2;
		break;
	case RECORD_DECLINE:
		s_id(rec->decline.request_id, 0x5a);
		rec->decline.reason = DECLINE_NO_BOARD;
		rec->decline.text = "no riscv64 board here";
		break;
	case RECORD_EVENT:
		s_id(rec->event.request_id, 0x5a);
		rec->event = (record_event_t){
			.has_request = true,
			.board = "qemu-a",
			.state = JOB_RUNNING,
			.suite_index = 2,
			.suite_count = 3,
			.suite = "ltp-syscalls",
			.text = "running 2/3",
			.request_id = {0},
		};
		s_id(rec->event.request_id, 0x5a);
		break;
	case RECORD_RUN:
		s_run(&rec->run, n_cases);
		break;
	case RECORD_VERDICT:
		s_id(rec->verdict.run_id, 0x6e);
		rec->verdict.lab = "lab-a";
		rec->verdict.board = "qemu-a";
		rec->verdict.path = "ltp-syscalls.open01";
		rec->verdict.verdict = VERDICT_FLAKY;
		rec->verdict.runs = 3;
		rec->verdict.passes = 2;
		rec->verdict.other_runs = 1;
		rec->verdict.other_passes = 1;
		rec->verdict.text = "passed 2 of 3 re-runs on qemu-a";
		break;
	case RECORD_KNOWN:
		rec->known = (record_known_t){
			.path = "ltp-syscalls.open01",
			.board = "qemu-*",
			.arch = "x86_64",
			.link = "https://lore.kernel.org/all/known-open01/",
			.expires_ms = T0 + 14ULL * 24 * 3600 * 1000,
			.text = "open01 fails on qemu since the vfs rework",
		};
		break;
	case RECORD_BISECT:
		s_bisect(&rec->bisect);
		break;
	}
}

static uint8_t s_nonce[PROTO_NONCE_LEN] = {1, 2,  3,  4,  5,  6,  7,  8,
					   9, 10, 11, 12, 13, 14, 15, 16};
static const char *const s_labs[] = {"lab-a", "lab-b"};

void sample_request(enum request_kernel_type type, request_t *req)
{
	memset(req, 0, sizeof(*req));
	req->created_ms = T0;
	req->expires_ms = T0 + 24 * 3600 * 1000ull;
	memcpy(req->nonce, s_nonce, sizeof(s_nonce));
	req->priority = 50;
	req->kernel.type = type;
	req->kernel.url = req->kernel.branch = req->kernel.commit = "";
	req->kernel.config = req->kernel.describe = req->kernel.arch = "";
	if (type == REQUEST_KERNEL_GIT || type == REQUEST_KERNEL_ARTIFACT) {
		req->kernel.url = "https://git.kernel.org/pub/scm/linux/kernel/"
				  "git/stable/linux.git";
		req->kernel.branch = "linux-6.8.y";
		req->kernel.commit = "fedcba9876543210fedcba9876543210fedcba98";
		req->kernel.config = "defconfig";
	}
	if (type == REQUEST_KERNEL_ARTIFACT) {
		s_id(req->kernel.kernel_blob, 0x4b);
		req->kernel.has_initrd_blob = true;
		s_id(req->kernel.initrd_blob, 0x1d);
		req->kernel.describe = "6.8.1-custom";
		req->kernel.arch = "arm64";
	}
	req->suites = s_suites;
	req->n_suites = 2;
	req->select = (request_selector_t){
		.arch = type == REQUEST_KERNEL_ARTIFACT ? "arm64" : "",
		.tags = s_tags,
		.n_tags = 1,
		.labs = s_labs,
		.n_labs = 2,
		.max_per_lab = 2,
	};
}

static const char *const s_endpoints[] = {"tcp://127.0.0.1:7701",
					  "tcp://[::1]:7701"};

void sample_desc(node_desc_t *d)
{
	memset(d, 0, sizeof(*d));
	d->lab = "lab-a";
	d->endpoints = s_endpoints;
	d->n_endpoints = 2;
	d->software = "labmesh 0.1.0";
	d->ts_ms = T0;
	d->epoch = 1;
}

void sample_record_bytes(enum record_kind kind, uint64_t seq, size_t n_cases,
			 uint8_t **ret_data, size_t *ret_len)
{
	record_t rec;
	key_pair_t kp;
	uint8_t id[32];
	int r;

	sample_key(0, &kp);
	sample_record(kind, seq, n_cases, &rec);
	r = record_sign(&rec, &kp, ret_data, ret_len, id);
	if (r < 0) {
		fprintf(stderr, "sample %s: %s\n", record_kind_name(kind),
			proto_strerror(r));
		abort();
	}
}

void sample_run_reason_bytes(uint8_t **ret_data, size_t *ret_len)
{
	run_suite_t suites[2];
	record_t rec;
	key_pair_t kp;
	uint8_t id[32];

	sample_key(0, &kp);
	sample_record(RECORD_RUN, 2, 3, &rec);
	memcpy(suites, rec.run.suites, sizeof(suites));
	suites[1].status = PROTO_SKIP;
	suites[1].reason = "no kselftest install (run_kselftest.sh) on this"
			   " board";
	rec.run.suites = suites;
	if (record_sign(&rec, &kp, ret_data, ret_len, id) < 0)
		abort();
}

void sample_accept_refused_bytes(uint8_t **ret_data, size_t *ret_len)
{
	static const record_refusal_t refused[] = {
		{ "bbb", "policy: boards.submitters of this board does not"
			 " list the submitter" },
		{ "jetson", "board in maintenance: new PSU" },
	};
	record_t rec;
	key_pair_t kp;
	uint8_t id[32];

	sample_key(0, &kp);
	sample_record(RECORD_ACCEPT, 2, 0, &rec);
	rec.accept.refused = refused;
	rec.accept.n_refused = 2;
	if (record_sign(&rec, &kp, ret_data, ret_len, id) < 0)
		abort();
}

void sample_request_bytes(enum request_kernel_type type, uint8_t **ret_data,
			  size_t *ret_len)
{
	request_t req;
	key_pair_t kp;
	uint8_t id[32];
	int r;

	sample_key(1, &kp);
	sample_request(type, &req);
	r = request_sign(&req, &kp, ret_data, ret_len, id);
	if (r < 0) {
		fprintf(stderr, "sample request: %s\n", proto_strerror(r));
		abort();
	}
}

static proto_bytes_t s_bytes(uint8_t *p, size_t n)
{
	s_hold(p);
	return (proto_bytes_t){p, n};
}

static proto_bytes_t s_desc_bytes(int key)
{
	node_desc_t d;
	key_pair_t kp;
	uint8_t *p, id[32];
	size_t n;

	sample_key(key, &kp);
	sample_desc(&d);
	if (desc_sign(&d, &kp, &p, &n, id) < 0)
		abort();
	return s_bytes(p, n);
}

static void s_msg_lists(enum msg_type type, msg_t *m)
{
	static proto_bytes_t list[3];
	static uint8_t ids[3 * 32];
	static msg_vec_entry_t vec[2];
	uint8_t *p;
	size_t n;

	switch (type) {
	case MSG_PEERS:
		list[0] = s_desc_bytes(0);
		list[1] = s_desc_bytes(2);
		m->peers.descs = list;
		m->peers.n = 2;
		break;
	case MSG_PEERS_DELTA: /* one joined, two left */
		list[0] = s_desc_bytes(1);
		m->peers.descs = list;
		m->peers.n = 1;
		for (int i = 0; i < 2; i++)
			s_id(ids + 32 * i, (uint8_t)(0x40 + i));
		m->peers.gone = ids;
		m->peers.n_gone = 2;
		break;
	case MSG_RECORDS:
		sample_record_bytes(RECORD_EVENT, 2, 0, &p, &n);
		list[0] = s_bytes(p, n);
		sample_record_bytes(RECORD_ACCEPT, 1, 0, &p, &n);
		list[1] = s_bytes(p, n);
		m->records.recs = list;
		m->records.n = 2;
		break;
	case MSG_REQUEST_IDS:
		for (int i = 0; i < 3; i++)
			s_id(ids + 32 * i, (uint8_t)(0x30 + i));
		m->request_ids.ids = ids;
		m->request_ids.n = 3;
		break;
	default: /* MSG_VECTOR */
		sample_key(0, &(key_pair_t){0});
		s_id(vec[0].author, 0x01);
		vec[0].seq = 7;
		s_id(vec[1].author, 0x81);
		vec[1].seq = 12;
		m->vector.entries = vec;
		m->vector.n = 2;
		break;
	}
}

static void s_msg_digest(enum msg_type type, msg_t *m)
{
	static msg_digest_range_t d[PROTO_DIGEST_RANGES];
	static msg_vec_entry_t vec[2];

	if (type == MSG_RANGES) {
		/* ranges 0 and 32, of 64: first key bytes 0x01 and 0x81 */
		s_id(vec[0].author, 0x01);
		vec[0].seq = 7;
		s_id(vec[1].author, 0x81);
		vec[1].seq = 12;
		m->ranges.mask = ((uint64_t)1 << 0) | ((uint64_t)1 << 32);
		m->ranges.entries = vec;
		m->ranges.n = 2;
		return;
	}
	for (unsigned i = 0; i < PROTO_DIGEST_RANGES; i++) {
		d[i].count = i % 3 ? i : 0;
		d[i].hash = d[i].count ? 0x9e3779b97f4a7c15ull * (i + 1) : 0;
	}
	d[5].count = 70000; /* past a uint16 */
	m->digest.ranges = d;
}

static void s_msg_requests(enum msg_type type, msg_t *m)
{
	static msg_req_bucket_t b[3];
	static uint32_t buckets[2];
	static uint8_t ids[2 * 32];

	if (type == MSG_REQUEST_IDS_IN) {
		/* the bucket of 0x30.. and an empty one it lacks */
		buckets[0] = 480000;
		buckets[1] = 480005;
		for (int i = 0; i < 2; i++)
			s_id(ids + 32 * i, (uint8_t)(0x30 + i));
		m->request_ids_in.buckets = buckets;
		m->request_ids_in.n_buckets = 2;
		m->request_ids_in.ids = ids;
		m->request_ids_in.n = 2;
		return;
	}
	for (unsigned i = 0; i < 3; i++) {
		b[i].bucket = 480000 + 5 * i;
		b[i].count = i == 2 ? 70000 : i + 1;
		b[i].hash = 0x9e3779b97f4a7c15ull * (i + 1);
	}
	m->request_summary.buckets = b;
	m->request_summary.n = 3;
}

static void s_msg_subdigest(enum msg_type type, msg_t *m)
{
	static msg_sub_range_t d[3];
	static msg_vec_entry_t vec[2];

	if (type == MSG_SUBRANGES) {
		/* range 32 (first key byte 0x80-0x83): sub-ranges 1 and 17 */
		memset(vec[0].author, 0x80, 32);
		vec[0].author[1] = 0x10;
		vec[0].seq = 7;
		memset(vec[1].author, 0x81, 32);
		vec[1].author[1] = 0x10;
		vec[1].seq = 12;
		m->subranges.range = 32;
		m->subranges.mask = ((uint64_t)1 << 1) | ((uint64_t)1 << 17);
		m->subranges.entries = vec;
		m->subranges.n = 2;
		return;
	}
	for (unsigned i = 0; i < 3; i++) {
		d[i].sub = 20 * i + 1;
		d[i].count = i == 1 ? 70000 : i + 1;
		d[i].hash = 0x9e3779b97f4a7c15ull * (i + 1);
	}
	m->subdigest.range = 63;
	m->subdigest.subs = d;
	m->subdigest.n = 3;
}

void sample_lease_bytes(enum lease_op op, uint8_t **ret_data, size_t *ret_len)
{
	static const uint8_t keys[] = "uname -a\n";
	lease_t l = {
		.op = op, .lab = "lab-c", .board = "qemu-x86",
		.seq = (T0 + 1000) * 1000, .value = 30,
		.arg = op == LEASE_EXEC ? "uname -r" : "",
	};
	key_pair_t kp;
	uint8_t id[32];

	if (op == LEASE_TAKE || op == LEASE_RENEW)
		l.value = 30 * 60 * 1000;
	if (op == LEASE_POWER)
		l.value = LEASE_POWER_CYCLE;
	if (op == LEASE_CONSOLE) {
		l.value = 0;
		l.data = keys;
		l.data_len = sizeof(keys) - 1;
	}
	sample_key(1, &kp);
	if (lease_sign(&l, &kp, ret_data, ret_len, id) < 0)
		abort();
}

void sample_reply_bytes(uint8_t **ret_data, size_t *ret_len)
{
	static const uint8_t out[] = "6.12.0-labmesh\n";
	lease_reply_t p = {
		.index = 0, .final = true, .status = 0,
		.data = out, .data_len = sizeof(out) - 1,
	};
	key_pair_t kp;

	memset(p.op_id, 0x6c, 32);
	sample_key(0, &kp);
	if (lease_reply_sign(&p, &kp, ret_data, ret_len) < 0)
		abort();
}

void sample_msg(enum msg_type type, msg_t *m)
{
	static const uint8_t chunk[] = "kernel image bytes...";
	uint8_t *p, id[32];
	size_t n;
	key_pair_t kp;

	memset(m, 0, sizeof(*m));
	m->type = type;
	switch (type) {
	case MSG_HELLO:
		m->hello.version = PROTO_VERSION;
		m->hello.features = MSG_FEATURE_BLOBS | MSG_FEATURE_CANCEL;
		m->hello.desc = s_desc_bytes(0);
		break;
	case MSG_PEERS:
	case MSG_PEERS_DELTA:
	case MSG_RECORDS:
	case MSG_REQUEST_IDS:
	case MSG_VECTOR:
		s_msg_lists(type, m);
		break;
	case MSG_REQUEST:
		sample_request_bytes(REQUEST_KERNEL_GIT, &p, &n);
		m->request = s_bytes(p, n);
		break;
	case MSG_CANCEL:
		sample_key(1, &kp);
		s_id(id, 0x5a);
		if (cancel_sign(id, T0 + 60000, &kp, &p, &n, id) < 0)
			abort();
		m->cancel = s_bytes(p, n);
		break;
	case MSG_LEASE:
		sample_lease_bytes(LEASE_TAKE, &p, &n);
		m->lease = s_bytes(p, n);
		break;
	case MSG_RELAY:
		sample_key(0, &kp);
		memcpy(m->relay.id, kp.pk, 32);
		m->relay.hops = 1;
		sample_lease_bytes(LEASE_EXEC, &p, &n);
		m->relay.body = s_bytes(p, n);
		break;
	case MSG_RELAY_BACK:
		s_id(m->relay.id, 0x6c);
		m->relay.hops = 2;
		sample_reply_bytes(&p, &n);
		m->relay.body = s_bytes(p, n);
		break;
	case MSG_WANT:
		s_id(m->want.author, 0x01);
		m->want.from_seq = 8;
		m->want.max = 64;
		break;
	case MSG_CREDIT:
		m->credit = 16;
		break;
	case MSG_BLOB_GET:
		s_id(m->blob_get.blob_id, 0x4b);
		m->blob_get.offset = 262144;
		m->blob_get.length = 262144;
		break;
	case MSG_BLOB_DATA:
		s_id(m->blob_data.blob_id, 0x4b);
		m->blob_data.offset = 262144;
		m->blob_data.total = 1000000;
		m->blob_data.data = (proto_bytes_t){chunk, sizeof(chunk) - 1};
		break;
	case MSG_PING:
	case MSG_PONG:
		m->nonce = 0x1122334455667788ull;
		break;
	case MSG_DIGEST:
	case MSG_RANGES:
		s_msg_digest(type, m);
		break;
	case MSG_REQUEST_SUMMARY:
	case MSG_REQUEST_IDS_IN:
		s_msg_requests(type, m);
		break;
	case MSG_SUBDIGEST:
	case MSG_SUBRANGES:
		s_msg_subdigest(type, m);
		break;
	}
}
