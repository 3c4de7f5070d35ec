/*
 * types: status names, syntax validators, hex and ids. See types.h.
 */
#include "proto/types.h"
#include "proto/mp.h"

#include <errno.h>
#include <string.h>

#include <sodium.h>

static const char *const s_status[] = {
	[PROTO_PASS] = "PASS", [PROTO_FAIL] = "FAIL", [PROTO_ERROR] = "ERROR",
	[PROTO_SKIP] = "SKIP", [PROTO_MISS] = "MISS", [PROTO_DONE] = "DONE",
};

const char *proto_status_name(int status)
{
	if (status < PROTO_PASS || status > PROTO_STATUS_MAX)
		return "?";
	return s_status[status];
}

int proto_status_parse(const char *s, enum proto_status *ret_status)
{
	for (int i = PROTO_PASS; i <= PROTO_STATUS_MAX; i++) {
		if (strcmp(s, s_status[i]) == 0) {
			*ret_status = i;
			return 0;
		}
	}
	return -EINVAL;
}

/* Character classes for names and paths, by table: decoders call these
 * for every name and test path they read. */
#define C_ALNUM 1
#define C_NAME 2 /* alnum . _ - */
#define C_SEG 4	 /* alnum _ - */
#define C_DOT 8

static const uint8_t s_class[256] = {
	['0' ... '9'] = C_ALNUM | C_NAME | C_SEG,
	['a' ... 'z'] = C_ALNUM | C_NAME | C_SEG,
	['A' ... 'Z'] = C_ALNUM | C_NAME | C_SEG,
	['_'] = C_NAME | C_SEG,
	['-'] = C_NAME | C_SEG,
	['.'] = C_NAME | C_DOT,
};

static bool s_alnum(char c)
{
	return s_class[(uint8_t)c] & C_ALNUM;
}

bool proto_name_okn(const char *s, size_t n)
{
	if (n == 0 || n > PROTO_MAX_NAME || !s_alnum(s[0]))
		return false;
	for (size_t i = 1; i < n; i++) {
		if (!(s_class[(uint8_t)s[i]] & C_NAME))
			return false;
	}
	return true;
}

bool proto_path_okn(const char *s, size_t n)
{
	unsigned all = C_NAME;
	const char *dot;

	if (n == 0 || n > PROTO_MAX_PATH || s[0] == '.' || s[n - 1] == '.')
		return false;
	/* path characters are the name characters (no branch per byte) */
	for (size_t i = 0; i < n; i++)
		all &= s_class[(uint8_t)s[i]];
	if (!(all & C_NAME))
		return false;
	/* no empty segment: no dot right after another */
	for (dot = memchr(s, '.', n); dot;
	     dot = memchr(dot + 1, '.', (size_t)(s + n - dot - 1))) {
		if (dot[1] == '.')
			return false;
	}
	return true;
}

bool proto_commit_okn(const char *s, size_t n)
{
	if (n != PROTO_COMMIT_LEN)
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
			return false;
	}
	return true;
}

/* NUL-terminated forms: look one byte past the cap, never further. */
bool proto_name_ok(const char *s)
{
	return s && proto_name_okn(s, strnlen(s, PROTO_MAX_NAME + 1));
}

size_t proto_name_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), row[PROTO_MAX_NAME + 1];

	if (la > PROTO_MAX_NAME || lb > PROTO_MAX_NAME)
		return SIZE_MAX;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];

		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j], best = diag + (a[i - 1] != b[j - 1]);

			best = up + 1 < best ? up + 1 : best;
			best = row[j - 1] + 1 < best ? row[j - 1] + 1 : best;
			diag = up;
			row[j] = best;
		}
	}
	return row[lb];
}

bool proto_path_ok(const char *s)
{
	return s && proto_path_okn(s, strnlen(s, PROTO_MAX_PATH + 1));
}

bool proto_commit_ok(const char *s)
{
	return s && proto_commit_okn(s, strnlen(s, PROTO_COMMIT_LEN + 1));
}

static bool s_port_ok(const char *s)
{
	unsigned long v = 0;
	size_t i;

	for (i = 0; s[i]; i++) {
		if (s[i] < '0' || s[i] > '9' || i >= 5)
			return false;
		v = v * 10 + (unsigned long)(s[i] - '0');
	}
	/* no leading zeros: one spelling per port */
	return i > 0 && v >= 1 && v <= 65535 && !(s[0] == '0');
}

static bool s_host_ok(const char *h, size_t n)
{
	size_t i;

	if (n == 0)
		return false;
	if (h[0] == '[') {
		if (n < 3 || h[n - 1] != ']')
			return false;
		for (i = 1; i < n - 1; i++) {
			char c = h[i];
			if (!(s_alnum(c) || c == ':' || c == '.'))
				return false;
		}
		return true;
	}
	for (i = 0; i < n; i++) {
		if (!(s_alnum(h[i]) || h[i] == '.' || h[i] == '-'))
			return false;
	}
	return true;
}

bool proto_endpoint_ok(const char *s)
{
	static const char scheme[] = "tcp://";
	size_t len;

	if (!s || strncmp(s, scheme, sizeof(scheme) - 1) != 0)
		return false;
	len = strnlen(s, PROTO_MAX_ENDPOINT + 1);
	if (len > PROTO_MAX_ENDPOINT)
		return false;
	const char *host = s + sizeof(scheme) - 1;
	const char *colon = strrchr(host, ':');
	if (!colon)
		return false;
	return s_host_ok(host, (size_t)(colon - host)) && s_port_ok(colon + 1);
}

bool proto_text_ok(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if ((c < 0x20 && c != '\t' && c != '\n') || c == 0x7f)
			return false;
	}
	return mp_utf8_ok(s, len);
}

void proto_hex(const void *p, size_t n, char *out)
{
	static const char digits[] = "0123456789abcdef";
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digits[b[i] >> 4];
		out[2 * i + 1] = digits[b[i] & 15];
	}
	out[2 * n] = '\0';
}

static int s_nibble(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int proto_unhex(const char *s, void *out, size_t n)
{
	uint8_t *b = out;
	size_t i;

	for (i = 0; i < 2 * n; i++) {
		if (s[i] == '\0' || s_nibble(s[i]) < 0)
			return -EINVAL;
	}
	if (s[2 * n] != '\0')
		return -EINVAL;
	for (i = 0; i < n; i++)
		b[i] = (uint8_t)(s_nibble(s[2 * i]) << 4 |
				 s_nibble(s[2 * i + 1]));
	return 0;
}

void proto_id(const void *data, size_t len, uint8_t ret_id[PROTO_ID_LEN])
{
	crypto_generichash(ret_id, PROTO_ID_LEN, data, len, NULL, 0);
}
