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

static bool s_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9');
}

bool proto_name_ok(const char *s)
{
	size_t i;

	if (!s || !s_alnum(s[0]))
		return false;
	for (i = 1; s[i]; i++) {
		if (i >= PROTO_MAX_NAME)
			return false;
		if (!s_alnum(s[i]) && s[i] != '.' && s[i] != '_' && s[i] != '-')
			return false;
	}
	return true;
}

bool proto_path_ok(const char *s)
{
	size_t i, seg = 0;

	if (!s)
		return false;
	for (i = 0; s[i]; i++) {
		if (i >= PROTO_MAX_PATH)
			return false;
		if (s[i] == '.') {
			if (seg == 0)
				return false;
			seg = 0;
		} else if (s_alnum(s[i]) || s[i] == '_' || s[i] == '-') {
			seg++;
		} else {
			return false;
		}
	}
	return seg > 0;
}

bool proto_commit_ok(const char *s)
{
	size_t i;

	if (!s)
		return false;
	for (i = 0; i < PROTO_COMMIT_LEN; i++) {
		char c = s[i];
		if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
			return false;
	}
	return s[i] == '\0';
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
		b[i] = (uint8_t)(s_nibble(s[2 * i]) << 4 | s_nibble(s[2 * i + 1]));
	return 0;
}

void proto_id(const void *data, size_t len, uint8_t ret_id[PROTO_ID_LEN])
{
	crypto_generichash(ret_id, PROTO_ID_LEN, data, len, NULL, 0);
}
