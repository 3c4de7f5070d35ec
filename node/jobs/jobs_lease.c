/*
 * jobs_lease: boards held by a submitter's lease. A signed take floods
 * through the network like a cancel; the lab it names checks its
 * policy.leases (whose keys, which boards, the longest lease, how many
 * per key) and publishes a `decline` with the reason, or queues the
 * lease in jobs.db's leases table. A waiting lease takes its board when
 * the board is free (before queued jobs: one holder at a time, a job or
 * a lease), and is then published as an `accept` of the lease's id and
 * in the advert ("leased to KEY until T"). It ends by itself at its
 * time, by the holder's release or the operator's revoke; renew moves
 * its end. Queued jobs wait for it to end.
 *
 *   leases(id PK, board, submitter, state, duration_ms, until_ms,
 *          created_ms, seq)    state: 0 waiting, 1 held, 2 ended;
 *                              seq: the take's, then the last
 *                              operation's (the next needs more)
 */
#include "node/jobs/jobs_int.h"

#include "proto/mem.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

enum { L_WAITING = 0, L_HELD, L_ENDED };

static const char s_schema[] =
	"CREATE TABLE IF NOT EXISTS leases(id BLOB PRIMARY KEY, board TEXT,"
	" submitter BLOB, state INTEGER, duration_ms INTEGER, until_ms"
	" INTEGER, created_ms INTEGER, seq INTEGER);";

static ssize_t s_board(jobs_t *j, const char *name)
{
	for (size_t i = 0; i < j->ctx.cfg->n_boards; i++)
		if (strcmp(j->ctx.cfg->boards[i].name, name) == 0)
			return (ssize_t)i;
	return -1;
}

static void s_set_state(jobs_t *j, const uint8_t id[32], int state,
			int64_t until)
{
	sqlite3_stmt *st = jobs_prep(j, "UPDATE leases SET state=?,"
				     " until_ms=? WHERE id=?");

	if (!st)
		return;
	sqlite3_bind_int(st, 1, state);
	sqlite3_bind_int64(st, 2, until);
	sqlite3_bind_blob(st, 3, id, 32, SQLITE_STATIC);
	sqlite3_step(st);
	sqlite3_finalize(st);
}

void jobs_lease_load(jobs_t *j)
{
	sqlite3_stmt *st;
	int64_t now = jobs_wall_ms();

	for (size_t i = 0; i < j->ctx.cfg->n_boards; i++)
		j->slots[i].sess_fd = -1;
	if (jobs_db_exec(j, s_schema) < 0)
		return;
	jobs_db_exec(j, "UPDATE leases SET state=2 WHERE state=1 AND"
		     " until_ms <= strftime('%s','now') * 1000");
	st = jobs_prep(j, "SELECT id, board, submitter, until_ms, seq FROM"
		       " leases WHERE state=1");
	while (st && sqlite3_step(st) == SQLITE_ROW) {
		const char *board = (const char *)sqlite3_column_text(st, 1);
		ssize_t bi = board ? s_board(j, board) : -1;
		jobs_slot_t *s;

		if (bi < 0 || sqlite3_column_bytes(st, 0) != 32 ||
		    sqlite3_column_bytes(st, 2) != 32 ||
		    sqlite3_column_int64(st, 3) <= now)
			continue;
		s = &j->slots[bi];
		s->lease_on = true;
		memcpy(s->lease_id, sqlite3_column_blob(st, 0), 32);
		memcpy(s->lease_holder, sqlite3_column_blob(st, 2), 32);
		s->lease_until = sqlite3_column_int64(st, 3);
		s->lease_seq = (uint64_t)sqlite3_column_int64(st, 4);
		jobs_lock_board(j, (size_t)bi);
	}
	sqlite3_finalize(st);
}

static void s_end(jobs_t *j, size_t bi, const char *why)
{
	jobs_slot_t *s = &j->slots[bi];
	char hex[65];

	wire_hex(s->lease_holder, 32, hex);
	log_info("board %s: lease of %.12s ended (%s)",
		 j->ctx.cfg->boards[bi].name, hex, why);
	sess_stop(j, bi);
	s_set_state(j, s->lease_id, L_ENDED, jobs_wall_ms());
	s->lease_on = false;
	s->lease_seq = 0;
	jobs_update_board(j, bi);
}

static void s_accept(jobs_t *j, const uint8_t id[32], const char *board)
{
	const char *boards[1] = { board };
	record_t t = { .head.kind = RECORD_ACCEPT };

	memcpy(t.accept.request_id, id, 32);
	t.accept.boards = boards;
	t.accept.n_boards = 1;
	j->ctx.append_record(j->ctx.arg, &t);
}

bool jobs_lease_hold(jobs_t *j, size_t bi)
{
	jobs_slot_t *s = &j->slots[bi];
	const char *board = j->ctx.cfg->boards[bi].name;
	sqlite3_stmt *st;
	char hex[65];
	bool got = false;

	if (s->lease_on) {
		if (s->lease_until > jobs_wall_ms())
			return true;
		s_end(j, bi, "its time is up");
	}
	st = jobs_prep(j, "SELECT id, submitter, duration_ms, seq FROM leases"
		       " WHERE board=? AND state=0 ORDER BY created_ms, id"
		       " LIMIT 1");
	if (!st)
		return false;
	sqlite3_bind_text(st, 1, board, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW &&
	    sqlite3_column_bytes(st, 0) == 32 &&
	    sqlite3_column_bytes(st, 1) == 32 && jobs_lock_board(j, bi)) {
		memcpy(s->lease_id, sqlite3_column_blob(st, 0), 32);
		memcpy(s->lease_holder, sqlite3_column_blob(st, 1), 32);
		s->lease_until = jobs_wall_ms() + sqlite3_column_int64(st, 2);
		/* the holder's operations come after its take: one signed
		 * for an earlier lease is refused as replayed */
		s->lease_seq = (uint64_t)sqlite3_column_int64(st, 3);
		s->lease_on = got = true;
	}
	sqlite3_finalize(st);
	if (!got)
		return false;
	s_set_state(j, s->lease_id, L_HELD, s->lease_until);
	wire_hex(s->lease_holder, 32, hex);
	log_info("board %s: leased to %.12s for %" PRId64 " s", board, hex,
		 (s->lease_until - jobs_wall_ms()) / 1000);
	s_accept(j, s->lease_id, board);
	jobs_update_board(j, bi);
	return true;
}

void jobs_lease_tick(jobs_t *j)
{
	int64_t now = jobs_wall_ms();

	for (size_t i = 0; i < j->ctx.cfg->n_boards; i++)
		if (j->slots[i].lease_on && j->slots[i].lease_until <= now)
			s_end(j, i, "its time is up");
	sess_tick(j);
}

void jobs_lease_save_seq(jobs_t *j, size_t bi)
{
	const jobs_slot_t *s = &j->slots[bi];
	sqlite3_stmt *st = jobs_prep(j, "UPDATE leases SET seq=? WHERE id=?");

	if (!st)
		return;
	sqlite3_bind_int64(st, 1, (int64_t)(s->lease_seq > INT64_MAX ?
					    INT64_MAX : s->lease_seq));
	sqlite3_bind_blob(st, 2, s->lease_id, 32, SQLITE_STATIC);
	sqlite3_step(st);
	sqlite3_finalize(st);
}

char *jobs_lease_note(jobs_t *j, size_t bi)
{
	const jobs_slot_t *s = &j->slots[bi];
	char id[65], holder[65];
	const char *name;

	if (!s->lease_on)
		return NULL;
	wire_hex(s->lease_id, 32, id);
	wire_hex(s->lease_holder, 32, holder);
	name = lab_submitter_name(j->ctx.cfg, holder);
	return xasprintf("%.12s %.12s %" PRId64 "%s%s", id, holder,
			 s->lease_until, name ? " " : "", name ? name : "");
}

/* ---- the lab's decision on a take, renew or release ------------------ */

static void s_decline(jobs_t *j, const uint8_t id[32], int reason,
		      const char *text)
{
	jobs_decline(j, id, reason, text, "lease", "refused");
}

static int64_t s_count(jobs_t *j, const uint8_t pk[32])
{
	sqlite3_stmt *st = jobs_prep(j, "SELECT count(*) FROM leases WHERE"
				     " submitter=? AND state<2");
	int64_t n = 0;

	if (!st)
		return INT64_MAX;
	sqlite3_bind_blob(st, 1, pk, 32, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return n;
}

/* Why the lab refuses take l of board bi (0: it does not). */
static int s_refuse(jobs_t *j, const lease_t *l, size_t bi, char *why,
		    size_t n)
{
	const lab_config_t *cfg = j->ctx.cfg;
	int64_t now = jobs_wall_ms(), at = (int64_t)(l->seq / 1000);
	char hex[65];

	wire_hex(l->submitter, 32, hex);
	if (!lab_lease_allowed(cfg, hex, l->board)) {
		snprintf(why, n, "key %.12s may not lease board %s of lab %s"
			 " (policy.leases)", hex, l->board, cfg->name);
		return DECLINE_POLICY;
	}
	if ((int64_t)l->value > cfg->lease_max_ms) {
		snprintf(why, n, "the longest lease of lab %s is %lld min",
			 cfg->name, cfg->lease_max_ms / 60000);
		return DECLINE_POLICY;
	}
	if (at < now - JOBS_LEASE_SKEW_MS || at > now + JOBS_LEASE_SKEW_MS) {
		snprintf(why, n, "the lease was signed too long ago (or the"
			 " clocks differ by more than 10 min)");
		return DECLINE_EXPIRED;
	}
	if (jobs_maint_active(j, bi)) {
		snprintf(why, n, "board %s is in maintenance: %s", l->board,
			 j->slots[bi].maint_reason);
		return DECLINE_BUSY;
	}
	if (j->slots[bi].health_down) {
		snprintf(why, n, "board %s is offline: %s", l->board,
			 j->slots[bi].health_down);
		return DECLINE_BUSY;
	}
	if (s_count(j, l->submitter) >= cfg->lease_per_key) {
		snprintf(why, n, "key %.12s already holds or waits for %d"
			 " lease(s) here (policy.leases.per_submitter)", hex,
			 cfg->lease_per_key);
		return DECLINE_QUOTA;
	}
	return 0;
}

static void s_take(jobs_t *j, const lease_t *l, size_t bi)
{
	char why[512];
	int reason = s_refuse(j, l, bi, why, sizeof(why));
	sqlite3_stmt *st;

	if (reason) {
		s_decline(j, l->id, reason, why);
		return;
	}
	st = jobs_prep(j, "INSERT OR IGNORE INTO leases VALUES (?, ?, ?, 0,"
		       " ?, 0, ?, ?)");
	if (!st)
		return;
	sqlite3_bind_blob(st, 1, l->id, 32, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, l->board, -1, SQLITE_STATIC);
	sqlite3_bind_blob(st, 3, l->submitter, 32, SQLITE_STATIC);
	sqlite3_bind_int64(st, 4, (int64_t)l->value);
	sqlite3_bind_int64(st, 5, jobs_wall_ms());
	sqlite3_bind_int64(st, 6, (int64_t)(l->seq > INT64_MAX ? INT64_MAX :
					    l->seq));
	sqlite3_step(st);
	sqlite3_finalize(st);
	if (!j->slots[bi].job)
		jobs_schedule(j);
	jobs_update_board(j, bi); /* one more waiting in its queue */
}

static void s_act(jobs_t *j, const lease_t *l)
{
	ssize_t bi = s_board(j, l->board);
	jobs_slot_t *s;

	if (bi < 0) {
		if (l->op == LEASE_TAKE)
			s_decline(j, l->id, DECLINE_NO_BOARD, "no such board");
		return;
	}
	if (l->op == LEASE_TAKE) {
		s_take(j, l, (size_t)bi);
		return;
	}
	s = &j->slots[bi];
	if (!s->lease_on || l->seq <= s->lease_seq ||
	    sodium_memcmp(s->lease_holder, l->submitter, 32) != 0)
		return; /* not the holder's, or replayed */
	s->lease_seq = l->seq;
	jobs_lease_save_seq(j, (size_t)bi);
	if (l->op == LEASE_RELEASE) {
		s_end(j, (size_t)bi, "released by its holder");
		return;
	}
	s->lease_until = jobs_wall_ms() +
		(int64_t)(l->value < (uint64_t)j->ctx.cfg->lease_max_ms ?
			  l->value : (uint64_t)j->ctx.cfg->lease_max_ms);
	s_set_state(j, s->lease_id, L_HELD, s->lease_until);
	log_info("board %s: lease renewed for %" PRId64 " s", l->board,
		 (s->lease_until - jobs_wall_ms()) / 1000);
	jobs_update_board(j, (size_t)bi);
}

static void s_flood(jobs_t *j, const char *from, const uint8_t *bytes,
		    size_t len)
{
	size_t n = j->ctx.n_peers(j->ctx.arg);
	msg_t m = { .type = MSG_LEASE, .lease = { bytes, len } };

	for (size_t i = 0; i < n; i++) {
		jobs_peer_t p;
		uint8_t *out = NULL;
		size_t olen = 0;

		if (!j->ctx.peer(j->ctx.arg, i, &p) || !p.lease ||
		    (from && strcmp(p.curve, from) == 0))
			continue;
		if (msg_encode(&m, &out, &olen) == 0)
			j->ctx.send(j->ctx.arg, p.curve, out, olen);
	}
}

int jobs_lease_take(jobs_t *j, const char *from, const uint8_t *bytes,
		    size_t len)
{
	lease_t *l = xmalloc(sizeof(*l));
	int rc = lease_decode(bytes, len, l);

	if (rc < 0 || l->op > LEASE_RELEASE) {
		free(l);
		return rc < 0 ? -EINVAL : -EPROTO;
	}
	rc = 0;
	if (!lease_relay_seen(j, l->id)) {
		s_flood(j, from, bytes, len);
		if (strcmp(l->lab, j->ctx.cfg->name) == 0)
			s_act(j, l);
		rc = 1;
	}
	free(l);
	return rc;
}

/* ---- control commands ------------------------------------------------ */

static bool s_arg_is(const uint8_t *a, size_t n, char *out, size_t max)
{
	if (n == 0 || n > max)
		return false;
	for (size_t i = 0; i < n; i++)
		if (a[i] < 0x21 || a[i] > 0x7e)
			return false;
	memcpy(out, a, n);
	out[n] = '\0';
	return true;
}

static void s_ctl_revoke(jobs_t *j, const uint8_t *const *args,
			 const size_t *lens, buf_t *out, bool *failed)
{
	char lab[PROTO_MAX_NAME + 1], board[PROTO_MAX_NAME + 1];
	ssize_t bi = -1;

	*failed = true;
	if (!s_arg_is(args[0], lens[0], lab, PROTO_MAX_NAME) ||
	    !s_arg_is(args[1], lens[1], board, PROTO_MAX_NAME))
		buf_puts(out, "revoke: bad arguments");
	else if (strcmp(lab, j->ctx.cfg->name) != 0)
		buf_printf(out, "lab '%s' is not this node's lab (%s): run the"
			   " command on the node of lab '%s'", lab,
			   j->ctx.cfg->name, lab);
	else if ((bi = s_board(j, board)) < 0)
		buf_printf(out, "lab %s has no board '%s'", lab, board);
	else if (!j->slots[bi].lease_on)
		buf_printf(out, "board %s/%s is not leased", lab, board);
	else {
		s_end(j, (size_t)bi, "revoked by the operator");
		buf_puts(out, "revoked\n");
		*failed = false;
	}
}

static void s_ctl_use(jobs_t *j, const uint8_t *const *args,
		      const size_t *lens, buf_t *out, bool *failed)
{
	char hex[65];
	uint8_t node[32];
	const char *why = "bad arguments";

	*failed = true;
	if (s_arg_is(args[1], lens[1], hex, 64) && lens[1] == 64 &&
	    wire_unhex(hex, node, 32) == 0 &&
	    lease_relay_use(j, args[0], lens[0], node, &why) == 0) {
		buf_puts(out, "sent\n");
		*failed = false;
		return;
	}
	buf_printf(out, "lease-use: %s", why);
}

static void s_ctl_poll(jobs_t *j, const uint8_t *arg, size_t len, buf_t *out,
		       bool *failed)
{
	char hex[65], *h;
	uint8_t id[32], *b = NULL;
	size_t n = 0;
	int rc = -EINVAL;

	if (s_arg_is(arg, len, hex, 64) && len == 64 &&
	    wire_unhex(hex, id, 32) == 0)
		rc = lease_relay_poll(j, id, &b, &n);
	if (rc < 0) {
		*failed = true;
		buf_puts(out, "lease-poll: no such operation");
		return;
	}
	if (rc == 0)
		return; /* nothing yet: an empty body */
	h = xmalloc(2 * n + 1);
	wire_hex(b, n, h);
	buf_puts(out, h);
	free(h);
	free(b);
}

bool jobs_lease_ctl(jobs_t *j, const char *name, const uint8_t *const *args,
		    const size_t *lens, size_t n_args, buf_t *out,
		    bool *ret_failed)
{
	int rc;

	if (strcmp(name, "lease-send") == 0 && n_args == 1) {
		rc = jobs_lease_take(j, NULL, args[0], lens[0]);
		*ret_failed = rc < 0;
		if (rc < 0)
			buf_puts(out, "lease refused: not a valid signed take,"
				 " renew or release");
		else
			buf_puts(out, rc ? "sent\n" : "known\n");
	} else if (strcmp(name, "revoke") == 0 && n_args == 2) {
		s_ctl_revoke(j, args, lens, out, ret_failed);
	} else if (strcmp(name, "lease-use") == 0 && n_args == 2) {
		s_ctl_use(j, args, lens, out, ret_failed);
	} else if (strcmp(name, "lease-poll") == 0 && n_args == 1) {
		s_ctl_poll(j, args[0], lens[0], out, ret_failed);
	} else {
		return false;
	}
	return true;
}

void jobs_lease_destroy(jobs_t *j)
{
	for (size_t i = 0; i < j->ctx.cfg->n_boards; i++)
		sess_stop(j, i);
	lease_relay_destroy(j);
}
