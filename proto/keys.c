/*
 * keys: Ed25519 key pairs, their files and their CURVE form. See keys.h
 * and README.md (key file format). The only proto module doing file I/O.
 */
#include "proto/keys.h"
#include "proto/error.h"
#include "proto/types.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sodium.h>
#include <zmq.h>

#define KEY_FILE_MAX 512 /* a key file is ~160 bytes; refuse anything big */

static int s_fail(int err, char *buf, size_t bufsz, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int s_fail(int err, char *buf, size_t bufsz, const char *fmt, ...)
{
	va_list ap;

	if (buf && bufsz) {
		va_start(ap, fmt);
		vsnprintf(buf, bufsz, fmt, ap);
		va_end(ap);
	}
	return err;
}

int key_generate(key_pair_t *ret_kp)
{
	key_pair_t kp;

	if (sodium_init() < 0 || crypto_sign_keypair(kp.pk, kp.sk) != 0)
		return -EIO;
	*ret_kp = kp;
	sodium_memzero(&kp, sizeof(kp));
	return 0;
}

int key_from_seed(const uint8_t seed[32], key_pair_t *ret_kp)
{
	key_pair_t kp;

	if (sodium_init() < 0 ||
	    crypto_sign_seed_keypair(kp.pk, kp.sk, seed) != 0)
		return -EIO;
	*ret_kp = kp;
	sodium_memzero(&kp, sizeof(kp));
	return 0;
}

void key_wipe(key_pair_t *kp)
{
	sodium_memzero(kp, sizeof(*kp));
}

void key_hex(const uint8_t pk[32], char out[KEY_HEX_LEN + 1])
{
	proto_hex(pk, 32, out);
}

void key_short(const uint8_t pk[32], char out[KEY_SHORT_LEN + 1])
{
	proto_hex(pk, KEY_SHORT_LEN / 2, out);
}

int key_parse_hex(const char *s, uint8_t ret_pk[32])
{
	return proto_unhex(s, ret_pk, 32);
}

/* ---- writing ---- */

static int s_write_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -errno;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Write text to a fresh file at path (O_EXCL) with mode, fsync'd. */
static int s_write_new(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		      mode);
	int r;

	if (fd < 0)
		return -errno;
	/* the umask may have taken bits we want, never add any it removed
	 * beyond mode: set exactly mode */
	r = fchmod(fd, mode) < 0 ? -errno : 0;
	if (r == 0)
		r = s_write_all(fd, text, strlen(text));
	if (r == 0 && fsync(fd) < 0)
		r = -errno;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	if (r < 0)
		unlink(path);
	return r;
}

/* Replace path atomically: write a temporary beside it, then rename. */
static int s_write_replace(const char *path, const char *text, mode_t mode)
{
	char tmp[4096];
	int r;

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.tmp%ld", path,
			     (long)getpid()) >= sizeof(tmp))
		return -ENAMETOOLONG;
	unlink(tmp);
	r = s_write_new(tmp, text, mode);
	if (r == 0 && rename(tmp, path) < 0) {
		r = -errno;
		unlink(tmp);
	}
	return r;
}

int key_save(const key_pair_t *kp, const char *path, bool overwrite,
	     char *err, size_t errsz)
{
	char text[sizeof(KEY_SECRET_MAGIC) + 2 * 64 + 2];
	char pub[4096];
	int r;

	if ((size_t)snprintf(pub, sizeof(pub), "%s.pub", path) >= sizeof(pub))
		return s_fail(-ENAMETOOLONG, err, errsz, "%s: name too long", path);
	memcpy(text, KEY_SECRET_MAGIC "\n", sizeof(KEY_SECRET_MAGIC));
	proto_hex(kp->sk, 64, text + sizeof(KEY_SECRET_MAGIC));
	strcat(text, "\n");
	if (overwrite)
		r = s_write_replace(path, text, 0600);
	else
		r = s_write_new(path, text, 0600);
	sodium_memzero(text, sizeof(text));
	if (r == -EEXIST)
		return s_fail(r, err, errsz,
			      "%s: already exists; refusing to overwrite", path);
	if (r < 0)
		return s_fail(r, err, errsz, "%s: %s", path, strerror(-r));
	char hex[KEY_HEX_LEN + 1];
	key_hex(kp->pk, hex);
	char ptext[sizeof(KEY_PUBLIC_MAGIC) + KEY_HEX_LEN + 2];
	snprintf(ptext, sizeof(ptext), "%s\n%s\n", KEY_PUBLIC_MAGIC, hex);
	r = s_write_replace(pub, ptext, 0644);
	if (r < 0)
		return s_fail(r, err, errsz, "%s: %s", pub, strerror(-r));
	return 0;
}

/* ---- reading ---- */

/*
 * Read a whole small file into buf (NUL-terminated). When secret, refuse
 * it unless only the owner can read or write it.
 */
static int s_read_file(const char *path, bool secret, char *buf, size_t bufsz,
		       char *err, size_t errsz)
{
	struct stat st;
	size_t n = 0;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return s_fail(-errno, err, errsz, "%s: %s", path, strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return s_fail(PROTO_E_KEYFORMAT, err, errsz,
			      "%s: not a regular file", path);
	}
	if (secret && (st.st_mode & 077)) {
		close(fd);
		return s_fail(PROTO_E_KEYPERM, err, errsz,
			      "%s: permissions %04o are too open; run chmod 600 %s",
			      path, (unsigned)(st.st_mode & 07777), path);
	}
	while (n < bufsz - 1) {
		ssize_t r = read(fd, buf + n, bufsz - 1 - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;
			close(fd);
			return s_fail(-e, err, errsz, "%s: %s", path, strerror(e));
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	buf[n] = '\0';
	if (n == bufsz - 1)
		return s_fail(PROTO_E_KEYFORMAT, err, errsz, "%s: too large", path);
	return 0;
}

/* "MAGIC\nHEX\n" (final newline optional) with 2 * n hex into out. */
static int s_parse(const char *text, const char *magic, void *out, size_t n)
{
	size_t ml = strlen(magic);
	char hex[2 * 64 + 1];
	const char *h = text + ml + 1;
	size_t hl;

	if (strncmp(text, magic, ml) != 0 || text[ml] != '\n')
		return PROTO_E_KEYFORMAT;
	hl = strcspn(h, "\n");
	if (hl != 2 * n || (h[hl] == '\n' && h[hl + 1] != '\0'))
		return PROTO_E_KEYFORMAT;
	memcpy(hex, h, hl);
	hex[hl] = '\0';
	int r = proto_unhex(hex, out, n) < 0 ? PROTO_E_KEYFORMAT : 0;
	sodium_memzero(hex, sizeof(hex));
	return r;
}

int key_load(const char *path, key_pair_t *ret_kp, char *err, size_t errsz)
{
	char buf[KEY_FILE_MAX];
	key_pair_t kp, check;
	int r;

	r = s_read_file(path, true, buf, sizeof(buf), err, errsz);
	if (r < 0)
		return r;
	r = s_parse(buf, KEY_SECRET_MAGIC, kp.sk, 64);
	sodium_memzero(buf, sizeof(buf));
	if (r == 0)
		r = key_from_seed(kp.sk, &check);
	/* the stored public half must be the one the seed gives */
	if (r == 0 && sodium_memcmp(check.sk, kp.sk, 64) != 0)
		r = PROTO_E_KEYFORMAT;
	if (r == 0) {
		memcpy(kp.pk, check.pk, 32);
		*ret_kp = kp;
	}
	sodium_memzero(&kp, sizeof(kp));
	sodium_memzero(&check, sizeof(check));
	if (r < 0)
		return s_fail(r, err, errsz,
			      "%s: not a labmesh secret key file (%s)", path,
			      KEY_SECRET_MAGIC);
	return 0;
}

int key_load_public(const char *path, uint8_t ret_pk[32], char *err,
		    size_t errsz)
{
	char buf[KEY_FILE_MAX];
	uint8_t pk[32];
	int r;

	r = s_read_file(path, false, buf, sizeof(buf), err, errsz);
	if (r < 0)
		return r;
	r = s_parse(buf, KEY_PUBLIC_MAGIC, pk, 32);
	if (r < 0)
		return s_fail(r, err, errsz,
			      "%s: not a labmesh public key file (%s)", path,
			      KEY_PUBLIC_MAGIC);
	memcpy(ret_pk, pk, 32);
	return 0;
}

/* ---- CURVE ---- */

int key_curve_public_raw(const uint8_t pk[32], uint8_t ret_curve[32])
{
	uint8_t c[32];

	if (crypto_sign_ed25519_pk_to_curve25519(c, pk) != 0)
		return -EINVAL;
	memcpy(ret_curve, c, 32);
	return 0;
}

int key_curve_public(const uint8_t pk[32], char ret_public[KEY_Z85_LEN + 1])
{
	uint8_t c[32];
	char z[KEY_Z85_LEN + 1];

	if (key_curve_public_raw(pk, c) < 0 || !zmq_z85_encode(z, c, 32))
		return -EINVAL;
	memcpy(ret_public, z, sizeof(z));
	return 0;
}

int key_curve(const key_pair_t *kp, char ret_public[KEY_Z85_LEN + 1],
	      char ret_secret[KEY_Z85_LEN + 1])
{
	uint8_t cs[32];
	char zp[KEY_Z85_LEN + 1], zs[KEY_Z85_LEN + 1];
	int r = -EINVAL;

	if (key_curve_public(kp->pk, zp) == 0 &&
	    crypto_sign_ed25519_sk_to_curve25519(cs, kp->sk) == 0 &&
	    zmq_z85_encode(zs, cs, 32)) {
		memcpy(ret_public, zp, sizeof(zp));
		memcpy(ret_secret, zs, sizeof(zs));
		r = 0;
	}
	sodium_memzero(cs, sizeof(cs));
	sodium_memzero(zs, sizeof(zs));
	return r;
}
