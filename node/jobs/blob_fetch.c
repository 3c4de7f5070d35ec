/*
 * blob_fetch: blobs between nodes. A node serves any blob it holds in
 * chunks (blob-get -> blob-data with the total size; a blob it does not
 * hold is answered with total 0). A fetch asks one peer at a time for the
 * next chunk at the offset the partial file has reached (so a restarted
 * fetch resumes), moves to the next peer when one does not hold the blob
 * or goes silent, and verifies the BLAKE2b of the whole before the blob
 * is put in place.
 */
#include "node/jobs/jobs_int.h"

#include "node/store/blob.h"
#include "proto/mem.h"
#include "proto/msg.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A failed fetch is reported as failed this long (to every job that waits
 * for the blob), then its slot is free and a new ask starts over: the
 * blob may be reachable again. */
#define FETCH_FAILED_KEEP_MS (60 * 1000)
/* Fetches asked over the control socket (`labmesh log`, the dashboard)
 * take at most this many slots, so jobs always find one for a kernel. */
#define FETCH_MAX_ASKED (JOBS_MAX_FETCHES / 2)
/* Such a fetch fails as soon as every peer of a round said it does not
 * hold the blob; asked again after this long, it starts over. */
#define FETCH_NAK_KEEP_MS 5000

static jobs_fetch_t *s_find(jobs_t *j, const uint8_t id[32])
{
	for (size_t i = 0; i < JOBS_MAX_FETCHES; i++)
		if (j->fetches[i].active && memcmp(j->fetches[i].id, id, 32) == 0)
			return &j->fetches[i];
	return NULL;
}

static int64_t s_part_size(jobs_t *j, const uint8_t id[32])
{
	char *path = blob_part_path(j->ctx.home, id);
	struct stat sb;
	int64_t n = stat(path, &sb) == 0 ? (int64_t)sb.st_size : 0;

	free(path);
	return n;
}

static void s_send_get(jobs_t *j, jobs_fetch_t *f, const char *curve)
{
	uint8_t *out = NULL;
	size_t len = 0;

	snprintf(f->curve, sizeof(f->curve), "%s", curve);
	f->chunk_deadline_ms = jobs_now() + JOBS_CHUNK_TIMEOUT_MS;
	if (wire_blob_get(f->id, (uint64_t)f->offset, PROTO_MAX_BLOB_CHUNK,
			  &out, &len) == 0)
		j->ctx.send(j->ctx.arg, curve, out, len);
}

/* Ask the next active peer; false when every peer was tried this round. */
static bool s_next_peer(jobs_t *j, jobs_fetch_t *f)
{
	size_t n = j->ctx.n_peers(j->ctx.arg);

	while (f->tries < n) {
		jobs_peer_t p;

		f->tries++;
		if (j->ctx.peer(j->ctx.arg, f->peer_i++ % n, &p)) {
			f->round_asked++;
			s_send_get(j, f, p.curve);
			return true;
		}
	}
	f->curve[0] = '\0';
	return false;
}

static void s_new_round(jobs_t *j, jobs_fetch_t *f)
{
	f->tries = f->round_asked = f->round_nak = 0;
	s_next_peer(j, f);
}

/* A slot that holds a fetch failed long enough ago is free again. */
static bool s_stale(const jobs_fetch_t *f, int64_t now)
{
	return f->active && f->failed && now >= f->retry_ms;
}

static void s_fail(jobs_fetch_t *f, int64_t keep_ms)
{
	f->failed = true;
	f->retry_ms = jobs_now() + keep_ms;
}

static int s_fetch(jobs_t *j, const uint8_t id[32], bool asked)
{
	int64_t now = jobs_now();
	jobs_fetch_t *f;
	size_t n_asked = 0;

	if (blob_have(j->ctx.home, id))
		return 1;
	f = s_find(j, id);
	if (f && s_stale(f, now))
		f->active = false;
	else if (f)
		return f->failed ? -ENOENT : 0;
	f = NULL;
	for (size_t i = 0; i < JOBS_MAX_FETCHES; i++) {
		if (s_stale(&j->fetches[i], now))
			j->fetches[i].active = false;
		if (j->fetches[i].active)
			n_asked += j->fetches[i].asked;
		else if (!f)
			f = &j->fetches[i];
	}
	if (asked && n_asked >= FETCH_MAX_ASKED)
		return -EBUSY;
	if (!f)
		return 0; /* full: asked again on the next tick */
	memset(f, 0, sizeof(*f));
	memcpy(f->id, id, 32);
	f->active = true;
	f->asked = asked;
	f->total = -1;
	f->offset = s_part_size(j, id);
	f->deadline_ms = jobs_now() + JOBS_FETCH_TIMEOUT_MS;
	s_new_round(j, f);
	return 0;
}

int fetch_blob(jobs_t *j, const uint8_t id[32])
{
	return s_fetch(j, id, false);
}

int fetch_blob_asked(jobs_t *j, const uint8_t id[32])
{
	return s_fetch(j, id, true);
}

void fetch_tick(jobs_t *j)
{
	int64_t now = jobs_now();

	for (size_t i = 0; i < JOBS_MAX_FETCHES; i++) {
		jobs_fetch_t *f = &j->fetches[i];

		if (!f->active || f->failed)
			continue;
		if (now >= f->deadline_ms) {
			s_fail(f, FETCH_FAILED_KEEP_MS);
			continue;
		}
		if (f->curve[0] && now < f->chunk_deadline_ms)
			continue;
		/* silent peer, or nobody asked: next one, new round when
		 * every peer was tried */
		if (!s_next_peer(j, f) && now >= f->chunk_deadline_ms + 1000)
			s_new_round(j, f);
	}
}

/* Serve a chunk of a blob we hold (total 0: we do not hold it). */
void fetch_on_get(jobs_t *j, const jobs_peer_t *p, const msg_t *m)
{
	char *path = blob_path(j->ctx.home, m->blob_get.blob_id);
	uint64_t offset = m->blob_get.offset, total = 0;
	uint8_t *buf = NULL, *out = NULL;
	size_t olen = 0, got = 0;
	struct stat sb;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	free(path);
	if (fd >= 0 && fstat(fd, &sb) == 0 && offset <= (uint64_t)sb.st_size) {
		size_t want = m->blob_get.length;
		uint64_t left = (uint64_t)sb.st_size - offset;
		ssize_t n;

		if (want > left)
			want = (size_t)left;
		buf = xmalloc(want ? want : 1);
		n = pread(fd, buf, want, (off_t)offset);
		if (n >= 0) {
			total = (uint64_t)sb.st_size;
			got = (size_t)n;
		}
	}
	if (!total)
		offset = 0;
	if (fd >= 0)
		close(fd);
	if (wire_blob_data(m->blob_get.blob_id, offset, total, buf, got, &out,
			   &olen) == 0)
		j->ctx.send(j->ctx.arg, p->curve, out, olen);
	free(buf);
}

static int s_append(jobs_t *j, jobs_fetch_t *f, const proto_bytes_t *d)
{
	char *path = blob_part_path(j->ctx.home, f->id);
	char *dir = xasprintf("%s/blobs", j->ctx.home);
	ssize_t n;
	int fd, rc = 0;

	mkdir(dir, 0700);
	free(dir);
	dir = xasprintf("%s/blobs/tmp", j->ctx.home);
	mkdir(dir, 0700);
	free(dir);
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	free(path);
	if (fd < 0)
		return -errno;
	n = pwrite(fd, d->p, d->len, (off_t)f->offset);
	if (n != (ssize_t)d->len)
		rc = -EIO;
	close(fd);
	if (rc == 0)
		f->offset += (int64_t)d->len;
	return rc;
}

void fetch_on_data(jobs_t *j, const jobs_peer_t *p, const msg_t *m)
{
	jobs_fetch_t *f = s_find(j, m->blob_data.blob_id);
	int rc;

	if (!f || f->failed || strcmp(f->curve, p->curve) != 0 ||
	    (int64_t)m->blob_data.offset != f->offset)
		return; /* not asked, or not of this peer: ignored */
	if (m->blob_data.total == 0 || m->blob_data.total > BLOB_MAX_SIZE ||
	    (f->total >= 0 && (int64_t)m->blob_data.total != f->total) ||
	    (m->blob_data.data.len == 0 &&
	     (int64_t)m->blob_data.total != f->offset)) {
		f->round_nak += m->blob_data.total == 0;
		if (s_next_peer(j, f))
			return;
		/* a log asked for by a person: when every peer we asked
		 * said it does not hold it, say so now rather than keep
		 * asking (a job's kernel keeps being asked for until its
		 * deadline: its holder may join) */
		if (f->asked && f->round_nak == f->round_asked)
			s_fail(f, FETCH_NAK_KEEP_MS);
		else
			f->chunk_deadline_ms = jobs_now();
		return;
	}
	f->total = (int64_t)m->blob_data.total;
	rc = s_append(j, f, &m->blob_data.data);
	if (rc < 0) {
		log_error("blob fetch: cannot write the partial file: %s",
			  strerror(-rc));
		s_fail(f, FETCH_FAILED_KEEP_MS);
		return;
	}
	if (f->offset < f->total) {
		s_send_get(j, f, p->curve);
		return;
	}
	rc = blob_commit_part(j->ctx.home, f->id);
	if (rc < 0) {
		char hex[65];

		wire_hex(f->id, 32, hex);
		log_warn("blob %.12s from peer %.12s does not verify: %s", hex,
			 p->hex, strerror(-rc));
		f->offset = 0;
		f->total = -1;
		if (!s_next_peer(j, f))
			f->chunk_deadline_ms = jobs_now();
		return;
	}
	f->active = false;
}
