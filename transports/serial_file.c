/*
 * serial_file: put and get over a serial console.
 *
 * put: one command per file. It sets the console's tty modes so that
 *   only four bytes are special to a canonical read (\n, and ^C, ^D, ^V),
 *   prints a ready token, and runs `cat > FILE`; the host, once it sees
 *   the token, writes the file's bytes with those four quoted by ^V (the
 *   tty's literal-next), ends a read every SERIAL_PUT_CHUNK bytes with ^D
 *   (a canonical read returns the bytes before a ^D without it) and the
 *   file with a ^D at the start of a read (end of file). The same command
 *   then sets the mode and prints the file's checksum, so a whole file
 *   costs two round trips and about 1.6% more bytes than it has. QEMU's
 *   console multiplexer takes ^A as its escape: a data ^A is doubled.
 *   Targets without stty, or whose stty refuses the modes, get base64
 *   blocks (each a framed `base64 -d >> FILE` followed by its lines and a
 *   Ctrl-D), or printf octal escapes without base64.
 * get: `base64 FILE` (or `od -An -v -tx1 FILE`) is run framed; the output
 *   is decoded as it arrives.
 * Both ends are then compared: sha256sum on the target against the host's
 * SHA-256 (libsodium), else POSIX cksum, else the size. The mode is kept.
 */
#include "transports/serial.h"
#include "transports/proc.h"

#include "proto/mem.h"

#include <errno.h>
#include <fcntl.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SERIAL_PUT_BLOCK (48 * 1024)   /* raw bytes per framed block */
#define SERIAL_B64_LINE 3000           /* base64 chars per typed line */
#define SERIAL_PRINTF_LINE 2800        /* escaped chars per printf */
#define SERIAL_FILE_CMD_MS 120000      /* one block or one check */
#define SERIAL_GET_TRIES 2
#define SERIAL_PUT_CHUNK 3000          /* data bytes per canonical read */
#define SERIAL_PUT_FEED (64 * 1024)    /* file bytes encoded per write */
#define SERIAL_PUT_MIN_RATE 4          /* bytes/ms a put may not fall under */
#define SERIAL_CHECK_MAX 4096          /* a checksum command's output kept */

#define S_CTRL_C '\003'
#define S_CTRL_D '\004'
#define S_CTRL_V '\026'

/* Canonical reads; ^V quotes the next byte, ^D ends a read, ^C
 * interrupts; every other control character undefined, no input
 * translation, no echo. */
static const char s_stty_binary[] =
	"stty -echo -icrnl -inlcr -igncr -istrip -ixon -ixoff icanon iexten isig "
	"intr ^C eof ^D lnext ^V quit undef susp undef erase undef kill undef "
	"werase undef rprnt undef eol undef eol2 undef";

typedef struct {
	crypto_hash_sha256_state sha;
	uint32_t crc;
	unsigned long long size;
} s_sum_t;

/* ---- checksums ---- */

static uint32_t s_crc_table[256];

static void s_crc_init(void)
{
	if (s_crc_table[1])
		return;
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i << 24;

		for (int k = 0; k < 8; k++)
			c = c & 0x80000000u ? (c << 1) ^ 0x04c11db7u : c << 1;
		s_crc_table[i] = c;
	}
}

static void s_sum_init(s_sum_t *s)
{
	if (sodium_init() < 0)
		abort(); /* libsodium cannot run on this machine at all */
	s_crc_init();
	crypto_hash_sha256_init(&s->sha);
	s->crc = 0;
	s->size = 0;
}

static void s_sum_add(s_sum_t *s, const unsigned char *p, size_t n)
{
	crypto_hash_sha256_update(&s->sha, p, n);
	for (size_t i = 0; i < n; i++)
		s->crc = (s->crc << 8) ^ s_crc_table[((s->crc >> 24) ^ p[i]) & 0xff];
	s->size += n;
}

/* POSIX cksum: the CRC over the data, then over the length's bytes. */
static uint32_t s_cksum(const s_sum_t *s)
{
	uint32_t crc = s->crc;

	for (unsigned long long n = s->size; n; n >>= 8)
		crc = (crc << 8) ^ s_crc_table[((crc >> 24) ^ (n & 0xff)) & 0xff];
	return ~crc;
}

static void s_sha_hex(s_sum_t *s, char out[65])
{
	unsigned char d[crypto_hash_sha256_BYTES];

	crypto_hash_sha256_final(&s->sha, d);
	sodium_bin2hex(out, 65, d, sizeof(d));
}

static void s_collect(void *arg, enum transport_stream st, const char *data,
		      size_t len)
{
	buf_append(arg, data, len);
}

/* Run a short command and collect its output (capped). */
static int s_short(transport_t *t, const char *cmd, buf_t *out, int *ret_status)
{
	buf_reset(out);
	return serial_run_ex(t, cmd, SERIAL_FILE_CMD_MS, s_collect, out, false,
			     NULL, 0, ret_status);
}

/* The command that prints the target file's checksum (caller frees). */
static int s_check_cmd(transport_t *t, const char *q, char **ret_cmd)
{
	bool b64, sha, ck;
	int r = serial_tools(t, &b64, &sha, &ck);

	if (r < 0)
		return r;
	if (sha)
		*ret_cmd = xasprintf("sha256sum %s", q);
	else if (ck)
		*ret_cmd = xasprintf("cksum %s", q);
	else
		*ret_cmd = xasprintf("wc -c < %s | tr -d ' '", q);
	return 0;
}

/* What s_check_cmd's command prints first when the file is the one that
 * went through sum (which is finished by this). */
static void s_check_want(transport_t *t, s_sum_t *sum, char want[96])
{
	bool b64, sha = false, ck = false;

	serial_tools(t, &b64, &sha, &ck); /* probed by s_check_cmd */
	if (sha)
		s_sha_hex(sum, want);
	else if (ck)
		snprintf(want, 96, "%u %llu ", s_cksum(sum), sum->size);
	else
		snprintf(want, 96, "%llu", sum->size);
}

/* Compare the target's file with what went through the host. */
static int s_verify(transport_t *t, const char *q, s_sum_t *sum)
{
	char want[96], *cmd = NULL;
	buf_t out;
	int r, st;

	r = s_check_cmd(t, q, &cmd);
	if (r < 0)
		return r;
	s_check_want(t, sum, want);
	buf_init(&out, SERIAL_CHECK_MAX);
	r = s_short(t, cmd, &out, &st);
	free(cmd);
	if (r == 0 && (st != 0 || strncmp(buf_str(&out), want, strlen(want)) != 0)) {
		transport_set_error(t, "checksum mismatch (target %.70s)", buf_str(&out));
		r = -EIO;
	}
	buf_free(&out);
	return r;
}

/* ---- put ---- */

static int s_put_b64(transport_t *t, const char *q, const unsigned char *p,
		     size_t n)
{
	size_t per_line = SERIAL_B64_LINE / 4 * 3;
	buf_t data;
	char line[SERIAL_B64_LINE + 8], *cmd;
	int r, st = -1;

	buf_init(&data, 0);
	for (size_t off = 0; off < n; off += per_line) {
		size_t k = n - off < per_line ? n - off : per_line;

		sodium_bin2base64(line, sizeof(line), p + off, k,
				  sodium_base64_VARIANT_ORIGINAL);
		buf_puts(&data, line);
		buf_putc(&data, '\n');
	}
	/* Ctrl-D at the start of a line: end of file for a canonical tty
	 * read, so base64 itself stops at the end of the block */
	buf_putc(&data, '\004');
	cmd = xasprintf("base64 -d >> %s", q);
	r = serial_run_ex(t, cmd, SERIAL_FILE_CMD_MS, NULL, NULL, true,
			  (const char *)data.data, data.len, &st);
	free(cmd);
	buf_free(&data);
	if (r == 0 && st != 0) {
		transport_set_error(t, "base64 -d on the target failed (%d)", st);
		r = -EIO;
	}
	return r;
}

static int s_put_printf(transport_t *t, const char *q, const unsigned char *p,
			size_t n)
{
	buf_t cmd;
	int r = 0, st = -1;

	buf_init(&cmd, 0);
	for (size_t off = 0; off < n && r == 0;) {
		buf_reset(&cmd);
		buf_puts(&cmd, "printf '");
		for (; off < n && cmd.len < SERIAL_PRINTF_LINE; off++) {
			unsigned char c = p[off];

			if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			    (c >= '0' && c <= '9'))
				buf_putc(&cmd, (char)c);
			else
				buf_printf(&cmd, "\\%03o", c);
		}
		buf_printf(&cmd, "' >> %s", q);
		r = serial_run_ex(t, buf_str(&cmd), SERIAL_FILE_CMD_MS, NULL, NULL,
				  false, NULL, 0, &st);
		if (r == 0 && st != 0) {
			transport_set_error(t, "printf on the target failed (%d)", st);
			r = -EIO;
		}
	}
	buf_free(&cmd);
	return r;
}

static int s_put_fd(transport_t *t, int fd, const char *q, s_sum_t *sum)
{
	unsigned char *blk = xmalloc(SERIAL_PUT_BLOCK);
	bool b64, sha, ck;
	int r = serial_tools(t, &b64, &sha, &ck);

	while (r == 0) {
		ssize_t n = read(fd, blk, SERIAL_PUT_BLOCK);

		if (n < 0) {
			r = -errno;
			transport_set_error(t, "read: %s", strerror(errno));
			break;
		}
		if (n == 0)
			break;
		if (sum->size + (size_t)n > (unsigned long long)SERIAL_MAX_FILE) {
			transport_set_error(t, "file larger than %lld bytes", SERIAL_MAX_FILE);
			r = -EFBIG;
			break;
		}
		s_sum_add(sum, blk, (size_t)n);
		r = b64 ? s_put_b64(t, q, blk, (size_t)n)
			: s_put_printf(t, q, blk, (size_t)n);
	}
	free(blk);
	return r;
}

/* ---- put by escaped bytes ---- */

typedef struct {
	int fd;
	s_sum_t *sum;
	int err;       /* reading the file: -errno, or -EFBIG */
} s_feed_t;

/* Append n file bytes, quoted for a tty in s_stty_binary's modes; *col
 * counts the bytes of the read in progress. */
static void s_enc_binary(buf_t *out, const unsigned char *p, size_t n,
			 size_t *col)
{
	for (size_t i = 0; i < n; i++) {
		char c = (char)p[i];

		if (c == '\n' || c == S_CTRL_C || c == S_CTRL_D || c == S_CTRL_V)
			buf_putc(out, S_CTRL_V);
		buf_putc(out, c);
		if (++*col == SERIAL_PUT_CHUNK) {
			buf_putc(out, S_CTRL_D);
			*col = 0;
		}
	}
}

static int s_feed_binary(transport_t *t, void *arg, long long deadline_ms)
{
	s_feed_t *f = arg;
	unsigned char *blk = xmalloc(SERIAL_PUT_FEED);
	size_t col = 0;
	buf_t out;
	int r = 0;

	buf_init(&out, 0); /* at most twice SERIAL_PUT_FEED */
	while (r == 0) {
		ssize_t n = read(f->fd, blk, SERIAL_PUT_FEED);

		if (n <= 0) {
			f->err = n < 0 ? -errno : 0;
			break;
		}
		if (f->sum->size + (size_t)n > (unsigned long long)SERIAL_MAX_FILE) {
			f->err = -EFBIG;
			break;
		}
		s_sum_add(f->sum, blk, (size_t)n);
		buf_reset(&out);
		s_enc_binary(&out, blk, (size_t)n, &col);
		r = serial_write(t, out.data, out.len, deadline_ms);
	}
	/* end the read in progress, then the file (also after a local read
	 * error: the target must get out of cat either way) */
	if (r == 0)
		r = serial_write(t, "\004\004", col ? 2 : 1, deadline_ms);
	buf_free(&out);
	free(blk);
	return r;
}

/* -ENOTSUP: the target's stty would not take the modes (nothing sent). */
static int s_put_binary(transport_t *t, int fd, const char *q, mode_t mode,
			off_t size)
{
	char ready[64], want[96], *check = NULL, *cmd;
	s_sum_t sum;
	s_feed_t f = { .fd = fd, .sum = &sum };
	const char *after;
	buf_t out;
	int r, st = -1;

	s_sum_init(&sum);
	r = s_check_cmd(t, q, &check);
	if (r < 0)
		return r;
	/* no "\n" in it: the framing holds a "\n" back until it knows it
	 * does not start the end marker */
	snprintf(ready, sizeof(ready), "lmr%s", serial_nonce(t));
	cmd = xasprintf("%s && echo lmr$lm_n && { cat > %s || { cat >/dev/null; false; }; } "
			"&& chmod %o %s && %s",
			s_stty_binary, q, (unsigned)(mode & 07777), q, check);
	buf_init(&out, SERIAL_CHECK_MAX);
	r = serial_run_feed(t, cmd, SERIAL_FILE_CMD_MS + (int)(size / SERIAL_PUT_MIN_RATE),
			    ready, s_feed_binary, &f, s_collect, &out, &st);
	after = strstr(buf_str(&out), ready);
	if (after) {
		after += strlen(ready);
		after += *after == '\n';
	}
	if (r == 0 && !after) {
		serial_no_binary(t);
		r = -ENOTSUP;
	} else if (r == 0 && f.err) {
		transport_set_error(t, "put: reading the file: %s", strerror(-f.err));
		r = f.err;
	} else if (r == 0 && st != 0) {
		transport_set_error(t, "put: failed on the target (%d): %.100s", st,
				    after);
		r = -EIO;
	} else if (r == 0) {
		s_check_want(t, &sum, want);
		if (strncmp(after, want, strlen(want)) != 0) {
			transport_set_error(t, "checksum mismatch (target %.70s)", after);
			r = -EIO;
		}
	}
	buf_free(&out);
	free(check);
	free(cmd);
	return r;
}

/* ---- put, the file ---- */

int serial_put(transport_t *t, const char *local, const char *remote)
{
	char *q = proc_shell_quote(remote), *cmd = NULL;
	struct stat st;
	s_sum_t sum;
	buf_t out;
	int fd, r, status = -1;

	buf_init(&out, 4096);
	fd = open(local, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		r = -errno;
		transport_set_error(t, "%s: %s", local, strerror(errno));
		goto out;
	}
	if (serial_binary(t)) {
		r = s_put_binary(t, fd, q, st.st_mode, st.st_size);
		if (r != -ENOTSUP)
			goto out;
		if (lseek(fd, 0, SEEK_SET) < 0) {
			r = -errno;
			transport_set_error(t, "%s: %s", local, strerror(errno));
			goto out;
		}
	}
	cmd = xasprintf(": > %s", q);
	r = s_short(t, cmd, &out, &status);
	if (r == 0 && status != 0) {
		transport_set_error(t, "cannot create %s on the target: %.100s", remote,
				    buf_str(&out));
		r = -EIO;
	}
	s_sum_init(&sum);
	if (r == 0)
		r = s_put_fd(t, fd, q, &sum);
	if (r == 0)
		r = s_verify(t, q, &sum);
	free(cmd);
	cmd = xasprintf("chmod %o %s", (unsigned)(st.st_mode & 07777), q);
	if (r == 0)
		r = s_short(t, cmd, &out, &status);
	if (r == 0 && status != 0) {
		transport_set_error(t, "chmod on the target failed");
		r = -EIO;
	}
out:
	if (fd >= 0)
		close(fd);
	buf_free(&out);
	free(cmd);
	free(q);
	return r;
}

/* ---- get ---- */

typedef struct {
	int fd;
	bool hex;          /* od output, else base64 */
	unsigned char q[4]; /* pending base64 quad or hex pair */
	size_t nq;
	bool pad;          /* '=' seen: only whitespace may follow */
	bool bad;
	int err;
	s_sum_t *sum;
	unsigned char out[4096];
	size_t nout;
} s_dec_t;

static void s_dec_flush(s_dec_t *d)
{
	if (d->nout && !d->err && write(d->fd, d->out, d->nout) != (ssize_t)d->nout)
		d->err = errno ? errno : EIO;
	s_sum_add(d->sum, d->out, d->nout);
	d->nout = 0;
}

static void s_dec_byte(s_dec_t *d, unsigned char c)
{
	if (d->nout == sizeof(d->out))
		s_dec_flush(d);
	d->out[d->nout++] = c;
}

static int s_b64val(char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

static int s_hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

static void s_dec_b64(s_dec_t *d, char c)
{
	int v = s_b64val(c);

	if (c == '=') {
		if (d->pad && d->nq == 0)
			return; /* the second '=' of "==" */
		if (d->nq < 2)
			d->bad = true;
		if (d->nq == 2)
			s_dec_byte(d, (unsigned char)(d->q[0] << 2 | d->q[1] >> 4));
		else if (d->nq == 3) {
			s_dec_byte(d, (unsigned char)(d->q[0] << 2 | d->q[1] >> 4));
			s_dec_byte(d, (unsigned char)(d->q[1] << 4 | d->q[2] >> 2));
		}
		d->nq = 0;
		d->pad = true;
		return;
	}
	if (v < 0 || d->pad) {
		d->bad = true;
		return;
	}
	d->q[d->nq++] = (unsigned char)v;
	if (d->nq == 4) {
		s_dec_byte(d, (unsigned char)(d->q[0] << 2 | d->q[1] >> 4));
		s_dec_byte(d, (unsigned char)(d->q[1] << 4 | d->q[2] >> 2));
		s_dec_byte(d, (unsigned char)(d->q[2] << 6 | d->q[3]));
		d->nq = 0;
	}
}

static void s_dec_fn(void *arg, enum transport_stream st, const char *data,
		     size_t len)
{
	s_dec_t *d = arg;

	for (size_t i = 0; i < len && !d->bad; i++) {
		char c = data[i];

		if (c == '\n' || c == ' ' || c == '\r')
			continue;
		if (!d->hex) {
			s_dec_b64(d, c);
			continue;
		}
		if (s_hexval(c) < 0) {
			d->bad = true;
			break;
		}
		d->q[d->nq++] = (unsigned char)s_hexval(c);
		if (d->nq == 2) {
			s_dec_byte(d, (unsigned char)(d->q[0] << 4 | d->q[1]));
			d->nq = 0;
		}
	}
}

static int s_get_once(transport_t *t, const char *q, const char *tmp,
		      long long size)
{
	s_sum_t sum;
	s_dec_t d = { .sum = &sum };
	bool b64, sha, ck;
	char *cmd;
	int r, st = -1;

	r = serial_tools(t, &b64, &sha, &ck);
	if (r < 0)
		return r;
	s_sum_init(&sum);
	d.hex = !b64;
	d.fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (d.fd < 0) {
		transport_set_error(t, "%s: %s", tmp, strerror(errno));
		return -errno;
	}
	cmd = b64 ? xasprintf("base64 %s", q) : xasprintf("od -An -v -tx1 %s", q);
	r = serial_run_ex(t, cmd, SERIAL_FILE_CMD_MS + (int)(size / 1000), s_dec_fn,
			  &d, false, NULL, 0, &st);
	free(cmd);
	s_dec_flush(&d);
	if (close(d.fd) < 0 && !d.err)
		d.err = errno;
	if (r == 0 && (st != 0 || d.bad || d.nq || d.err ||
		       (long long)sum.size != size)) {
		transport_set_error(t, "get: transfer failed (status %d, %llu of %lld bytes%s%s)",
				    st, sum.size, size, d.bad ? ", bad encoding" : "",
				    d.err ? ", write error" : "");
		r = -EIO;
	}
	if (r == 0)
		r = s_verify(t, q, &sum);
	return r;
}

int serial_get(transport_t *t, const char *remote, const char *local)
{
	char *q = proc_shell_quote(remote), *cmd, *tmp = xasprintf("%s.part", local);
	unsigned mode = 0;
	long long size = -1;
	buf_t out;
	int r, st = -1;

	buf_init(&out, 4096);
	cmd = xasprintf("[ -f %s ] && [ -r %s ] && stat -c '%%a %%s' %s", q, q, q);
	r = s_short(t, cmd, &out, &st);
	free(cmd);
	if (r == 0 && (st != 0 || sscanf(buf_str(&out), "%o %lld", &mode, &size) != 2 ||
		       size < 0 || size > SERIAL_MAX_FILE)) {
		transport_set_error(t, "%s: no such readable file on the target", remote);
		r = -ENOENT;
	}
	for (int i = 0; r == 0 && i < SERIAL_GET_TRIES; i++) {
		r = s_get_once(t, q, tmp, size);
		if (r == -EIO && i + 1 < SERIAL_GET_TRIES)
			r = 0;
		else
			break;
	}
	if (r == 0 && (chmod(tmp, mode & 07777) < 0 || rename(tmp, local) < 0)) {
		r = -errno;
		transport_set_error(t, "%s: %s", local, strerror(errno));
	}
	if (r < 0)
		unlink(tmp);
	buf_free(&out);
	free(tmp);
	free(q);
	return r;
}
