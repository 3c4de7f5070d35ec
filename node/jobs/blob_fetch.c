/*
 * blob_fetch: blobs between nodes. A node serves any blob it holds in
 * chunks (blob-get -> blob-data with the total size; a blob it does not
 * hold is answered with total 0). A fetch asks one peer at a time for the
 * next chunk at the offset the partial file has reached (so a restarted
 * fetch resumes), moves to the next peer when one does not hold the blob
 * or goes silent, and verifies the BLAKE2b of the whole before the blob
 * is put in place.
 *
 * Relay: a blob-get for a blob we do not hold starts a fetch of our own
 * from our other peers (a relay fetch), and the asker waits on it (a
 * waiter) instead of being told we lack it; once we hold the blob,
 * verified, each waiter is answered the chunk it asked for, and from
 * then on served like any blob we hold. So a node fetches through peers
 * that never held the blob, every node on the way checking the hash and
 * keeping a resumable partial file. A blob-get says how many more nodes
 * lacking the blob may relay it (hops, FETCH_HOPS in our own asks, one
 * less at each relay), so an ask reaches a bounded neighbourhood. A
 * middle node is no amplifier: it holds at most FETCH_MAX_RELAYED relay
 * fetches (FETCH_MAX_RELAYED_PER_PEER for one asker; a failed one keeps
 * its slot FETCH_NAK_KEEP_MS), each asks one peer at a time for one
 * chunk, never the peers waiting on it, gives up after a round that
 * brought no chunk, and takes blobs up to FETCH_RELAY_MAX_SIZE; what it
 * fetched it keeps as any blob, under the blob store's budget.
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
/* Relay fetches at once, and of them started for one asking peer. */
/* Nodes lacking a blob that may relay our own ask for it; a relay asks
 * with one less than it was asked (and never more than ours less one). */
#define FETCH_HOPS 2
#define FETCH_MAX_RELAYED 4
#define FETCH_MAX_RELAYED_PER_PEER 2
/* A relay fetch ends by this long; a blob larger than this is not
 * relayed (the partial files of relays stay under
 * FETCH_MAX_RELAYED * FETCH_RELAY_MAX_SIZE bytes). */
#define FETCH_RELAY_TIMEOUT_MS (3 * 60 * 1000)
#define FETCH_RELAY_MAX_SIZE (512ULL * 1024 * 1024)

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

static void s_send_get(jobs_t *j, jobs_fetch_t *f, const jobs_peer_t *p)
{
	uint8_t *out = NULL;
	size_t len = 0;

	snprintf(f->curve, sizeof(f->curve), "%s", p->curve);
	f->chunk_deadline_ms = jobs_now() + JOBS_CHUNK_TIMEOUT_MS;
	if (wire_blob_get(f->id, (uint64_t)f->offset, PROTO_MAX_BLOB_CHUNK,
			  p->blob_relay ? f->hops : 0, &out, &len) == 0)
		j->ctx.send(j->ctx.arg, p->curve, out, len);
}

static jobs_waiter_t *s_waiter(jobs_fetch_t *f, const char *curve)
{
	for (size_t i = 0; i < f->n_wait; i++)
		if (strcmp(f->wait[i].curve, curve) == 0)
			return &f->wait[i];
	return NULL;
}

/* Ask the next active peer that is not waiting on this fetch; false when
 * every peer was tried this round. */
static bool s_next_peer(jobs_t *j, jobs_fetch_t *f)
{
	size_t n = j->ctx.n_peers(j->ctx.arg);

	while (f->tries < n) {
		jobs_peer_t p;

		f->tries++;
		if (j->ctx.peer(j->ctx.arg, f->peer_i++ % n, &p) &&
		    !s_waiter(f, p.curve)) {
			f->round_asked++;
			s_send_get(j, f, &p);
			return true;
		}
	}
	f->curve[0] = '\0';
	return false;
}

static void s_new_round(jobs_t *j, jobs_fetch_t *f)
{
	f->tries = f->round_asked = f->round_nak = 0;
	f->round_got = false;
	s_next_peer(j, f);
}

/* A slot that holds a fetch failed long enough ago is free again. */
static bool s_stale(const jobs_fetch_t *f, int64_t now)
{
	return f->active && f->failed && now >= f->retry_ms;
}

/* Tell each waiter we do not hold the blob (total 0): it asks elsewhere. */
static void s_nak_waiters(jobs_t *j, jobs_fetch_t *f)
{
	for (size_t i = 0; i < f->n_wait; i++) {
		uint8_t *out = NULL;
		size_t len = 0;

		if (wire_blob_data(f->id, 0, 0, NULL, 0, &out, &len) == 0)
			j->ctx.send(j->ctx.arg, f->wait[i].curve, out, len);
	}
}

static void s_fail(jobs_t *j, jobs_fetch_t *f, int64_t keep_ms)
{
	f->failed = true;
	f->retry_ms = jobs_now() + keep_ms;
	s_nak_waiters(j, f);
}

/* A free slot (stale failed ones freed on the way), or NULL. */
static jobs_fetch_t *s_free_slot(jobs_t *j, int64_t now)
{
	jobs_fetch_t *free_f = NULL;

	for (size_t i = 0; i < JOBS_MAX_FETCHES; i++) {
		if (s_stale(&j->fetches[i], now))
			j->fetches[i].active = false;
		if (!j->fetches[i].active && !free_f)
			free_f = &j->fetches[i];
	}
	return free_f;
}

static void s_init(jobs_t *j, jobs_fetch_t *f, const uint8_t id[32],
		   int64_t timeout_ms)
{
	memset(f, 0, sizeof(*f));
	memcpy(f->id, id, 32);
	f->active = true;
	jobs_wake(j);
	f->total = -1;
	f->offset = s_part_size(j, id);
	f->deadline_ms = jobs_now() + timeout_ms;
	f->hops = FETCH_HOPS;
}

/* Our own ask for a blob a relay fetch already brings: the fetch becomes
 * ours (a relay that failed starts over: our deadline is longer). */
static int s_take_relay(jobs_fetch_t *f, bool asked)
{
	if (f->failed) {
		f->active = false;
		return 1;
	}
	f->relay = false;
	f->asked = asked;
	f->deadline_ms = jobs_now() + JOBS_FETCH_TIMEOUT_MS;
	return 0;
}

static int s_fetch(jobs_t *j, const uint8_t id[32], bool asked)
{
	int64_t now = jobs_now();
	jobs_fetch_t *f;
	size_t n_asked = 0;

	if (blob_have(j->ctx.home, id))
		return 1;
	f = s_find(j, id);
	if (f && f->relay && s_take_relay(f, asked) == 0)
		return 0;
	if (f && s_stale(f, now))
		f->active = false;
	else if (f && f->active)
		return f->failed ? -ENOENT : 0;
	for (size_t i = 0; i < JOBS_MAX_FETCHES; i++)
		if (j->fetches[i].active)
			n_asked += j->fetches[i].asked;
	if (asked && n_asked >= FETCH_MAX_ASKED)
		return -EBUSY;
	f = s_free_slot(j, now);
	if (!f)
		return 0; /* full: asked again on the next tick */
	s_init(j, f, id, JOBS_FETCH_TIMEOUT_MS);
	f->asked = asked;
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
			s_fail(j, f, FETCH_FAILED_KEEP_MS);
			continue;
		}
		if (f->curve[0] && now < f->chunk_deadline_ms)
			continue;
		/* silent peer, or nobody asked: next one, new round when
		 * every peer was tried; a relay gives up after a round that
		 * brought nothing (its waiters may ask elsewhere) */
		if (s_next_peer(j, f))
			continue;
		if (f->relay && !f->round_got)
			s_fail(j, f, FETCH_NAK_KEEP_MS);
		else if (now >= f->chunk_deadline_ms + 1000)
			s_new_round(j, f);
	}
}

/* Send curve a chunk of a blob we hold (total 0: we do not hold it). */
static void s_serve(jobs_t *j, const char *curve, const uint8_t id[32],
		    uint64_t offset, uint32_t length)
{
	char *path = blob_path(j->ctx.home, id);
	uint64_t total = 0;
	uint8_t *buf = NULL, *out = NULL;
	size_t olen = 0, got = 0;
	struct stat sb;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	free(path);
	if (fd >= 0 && fstat(fd, &sb) == 0 && offset <= (uint64_t)sb.st_size) {
		size_t want = length;
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
	if (wire_blob_data(id, offset, total, buf, got, &out, &olen) == 0)
		j->ctx.send(j->ctx.arg, curve, out, olen);
	free(buf);
}

/* Relay fetches in their slots (a failed one until its slot is free, so
 * relays that fail fast still start at a bounded rate): all, or those
 * curve waits on. */
static size_t s_relays(jobs_t *j, const char *curve)
{
	size_t n = 0;

	for (size_t i = 0; i < JOBS_MAX_FETCHES; i++) {
		jobs_fetch_t *f = &j->fetches[i];

		n += f->active && f->relay &&
		     (!curve || s_waiter(f, curve));
	}
	return n;
}

/* p waits on f for the chunk m asks; false when f has no room. */
static bool s_wait(jobs_fetch_t *f, const jobs_peer_t *p, const msg_t *m)
{
	jobs_waiter_t *w = s_waiter(f, p->curve);

	if (!w && f->n_wait == JOBS_MAX_WAITERS)
		return false;
	if (!w) {
		w = &f->wait[f->n_wait++];
		snprintf(w->curve, sizeof(w->curve), "%s", p->curve);
	}
	w->offset = m->blob_get.offset;
	w->length = m->blob_get.length;
	return true;
}

/* A blob-get for a blob we lack: p waits on our fetch of it, one started
 * for it when we have room (a relay). False: answer that we lack it. */
static bool s_relay(jobs_t *j, const jobs_peer_t *p, const msg_t *m)
{
	const uint8_t *id = m->blob_get.blob_id;
	int64_t now = jobs_now();
	jobs_fetch_t *f = s_find(j, id);

	if (f && !s_stale(f, now))
		return !f->failed && s_wait(f, p, m);
	if (m->blob_get.hops == 0)
		return false; /* the asker wants no relay */
	if (f)
		f->active = false;
	if (s_relays(j, NULL) >= FETCH_MAX_RELAYED ||
	    s_relays(j, p->curve) >= FETCH_MAX_RELAYED_PER_PEER)
		return false;
	f = s_free_slot(j, now);
	if (!f)
		return false;
	s_init(j, f, id, FETCH_RELAY_TIMEOUT_MS);
	f->relay = true;
	f->hops = m->blob_get.hops - 1 < FETCH_HOPS - 1 ?
			  m->blob_get.hops - 1 :
			  FETCH_HOPS - 1;
	s_wait(f, p, m);
	s_new_round(j, f);
	if (!f->curve[0]) /* no other peer to ask: p is told now */
		s_fail(j, f, FETCH_NAK_KEEP_MS);
	return true;
}

void fetch_on_get(jobs_t *j, const jobs_peer_t *p, const msg_t *m)
{
	if (!blob_have(j->ctx.home, m->blob_get.blob_id) && s_relay(j, p, m))
		return; /* answered once we hold it */
	s_serve(j, p->curve, m->blob_get.blob_id, m->blob_get.offset,
		m->blob_get.length);
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
	    (f->relay && m->blob_data.total > FETCH_RELAY_MAX_SIZE) ||
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
		if ((f->asked || f->relay) && f->round_nak == f->round_asked)
			s_fail(j, f, FETCH_NAK_KEEP_MS);
		else
			f->chunk_deadline_ms = jobs_now();
		return;
	}
	f->total = (int64_t)m->blob_data.total;
	rc = s_append(j, f, &m->blob_data.data);
	if (rc < 0) {
		log_error("blob fetch: cannot write the partial file: %s",
			  strerror(-rc));
		s_fail(j, f, FETCH_FAILED_KEEP_MS);
		return;
	}
	f->round_got = true;
	if (f->offset < f->total) {
		s_send_get(j, f, p);
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
	/* held and verified: the peers waiting on it get their chunk */
	for (size_t i = 0; i < f->n_wait; i++)
		s_serve(j, f->wait[i].curve, f->id, f->wait[i].offset,
			f->wait[i].length);
	f->active = false;
}
