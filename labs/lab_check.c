/*
 * lab_check: the value checks of the lab loader (names, keys, arches,
 * baud rates, hosts, endpoints) and the typed field readers built on
 * labs/yaml that apply them. Pure functions, no I/O.
 */
#include "labs/lab_private.h"
#include "proto/mem.h"
#include "proto/types.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

static bool s_all_in(const char *s, const char *set)
{
	return strspn(s, set) == strlen(s);
}

#define ALNUM "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

bool lab_name_valid(const char *s)
{
	size_t n = strlen(s);

	return n >= 1 && n <= LAB_MAX_NAME && s[0] != '.' && s[0] != '-' &&
	       s_all_in(s, ALNUM "_.-");
}

bool lab_key_valid(const char *s)
{
	return strlen(s) == 64 && s_all_in(s, "0123456789abcdefABCDEF");
}

/* uname -m spellings and their QEMU system emulators, index for index */
static const char *const s_arch_names[] = {
	"x86_64",
	"i386",
	"i686",
	"aarch64",
	"arm",
	"armv5tel",
	"armv6l",
	"armv7l",
	"riscv32",
	"riscv64",
	"ppc",
	"ppc64",
	"ppc64le",
	"s390x",
	"mips",
	"mipsel",
	"mips64",
	"mips64el",
	"loongarch64",
	"sh4",
	"m68k",
	"sparc64",
	NULL,
};

static const char *const s_arch_qemu[] = {
	"qemu-system-x86_64",
	"qemu-system-i386",
	"qemu-system-i386",
	"qemu-system-aarch64",
	"qemu-system-arm",
	"qemu-system-arm",
	"qemu-system-arm",
	"qemu-system-arm",
	"qemu-system-riscv32",
	"qemu-system-riscv64",
	"qemu-system-ppc",
	"qemu-system-ppc64",
	"qemu-system-ppc64",
	"qemu-system-s390x",
	"qemu-system-mips",
	"qemu-system-mipsel",
	"qemu-system-mips64",
	"qemu-system-mips64el",
	"qemu-system-loongarch64",
	"qemu-system-sh4",
	"qemu-system-m68k",
	"qemu-system-sparc64",
};

const char *const *lab_arch_list(void)
{
	return s_arch_names;
}

bool lab_arch_valid(const char *s)
{
	return lab_arch_qemu(s) != NULL;
}

const char *lab_arch_qemu(const char *arch)
{
	for (size_t i = 0; s_arch_names[i]; i++)
		if (strcmp(arch, s_arch_names[i]) == 0)
			return s_arch_qemu[i];
	return NULL;
}

bool lab_baud_valid(long baud)
{
	static const long rates[] = {
		50,     75,     110,    134,     150,     200,     300,
		600,    1200,   1800,   2400,    4800,    9600,    19200,
		38400,  57600,  115200, 230400,  460800,  500000,  576000,
		921600, 1000000, 1152000, 1500000, 2000000, 2500000, 3000000,
		3500000, 4000000,
	};

	for (size_t i = 0; i < sizeof(rates) / sizeof(rates[0]); i++)
		if (rates[i] == baud)
			return true;
	return false;
}

/* A host name or IPv4 address; or, when colons_ok, a bare IPv6 address.
 * Never starting with '-', so it can never be read as an option. */
static bool s_host_ok(const char *s, bool colons_ok)
{
	size_t n = strlen(s);

	if (n == 0 || n > LAB_MAX_HOST || s[0] == '-' || s[0] == '.')
		return false;
	if (s_all_in(s, ALNUM ".-"))
		return true;
	return colons_ok && strchr(s, ':') && s_all_in(s, "0123456789abcdefABCDEF:.");
}

bool lab_host_valid(const char *s)
{
	return s_host_ok(s, true);
}

bool lab_user_valid(const char *s)
{
	size_t n = strlen(s);

	return n >= 1 && n <= 32 && s[0] != '-' && s_all_in(s, ALNUM "._-");
}

bool lab_tag_valid(const char *s)
{
	size_t n = strlen(s);

	return n >= 1 && n <= LAB_MAX_NAME && s_all_in(s, ALNUM "_.:=+-");
}

bool lab_adb_serial_valid(const char *s)
{
	size_t n = strlen(s);

	return n >= 1 && n <= 128 && s[0] != '-' && s_all_in(s, ALNUM "._:-");
}

bool lab_prefix_valid(const char *s)
{
	size_t n = strlen(s);

	return n >= 1 && n <= 256 && s[0] != '-' && s_all_in(s, ALNUM "._/+-");
}

bool lab_config_name_valid(const char *s)
{
	size_t n = strlen(s);

	return n >= 1 && n <= LAB_MAX_NAME && strcmp(s, ".") != 0 &&
	       strcmp(s, "..") != 0 && s_all_in(s, ALNUM "._-");
}

bool lab_text_line_ok(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if ((*p < 0x20 && *p != '\t') || *p == 0x7f)
			return false;
	return true;
}

static bool s_port_ok(const char *s)
{
	char *end;
	long p;

	if (!s[0] || strlen(s) > 5 || !s_all_in(s, "0123456789"))
		return false;
	p = strtol(s, &end, 10);
	return *end == '\0' && p >= 1 && p <= 65535;
}

/* HOST:PORT, HOST a name, IPv4, [IPv6], or '*' when star_ok. */
static bool s_hostport(const char *s, bool star_ok)
{
	const char *colon;
	char host[LAB_MAX_HOST + 1];
	size_t hn;

	if (s[0] == '[') {
		const char *close = strchr(s, ']');

		if (!close || close[1] != ':')
			return false;
		hn = (size_t)(close - s - 1);
		if (hn == 0 || hn > LAB_MAX_HOST)
			return false;
		memcpy(host, s + 1, hn);
		host[hn] = '\0';
		return strchr(host, ':') && s_all_in(host, "0123456789abcdefABCDEF:.") &&
		       s_port_ok(close + 2);
	}
	colon = strrchr(s, ':');
	if (!colon)
		return false;
	hn = (size_t)(colon - s);
	if (hn == 0 || hn > LAB_MAX_HOST)
		return false;
	memcpy(host, s, hn);
	host[hn] = '\0';
	if (!(star_ok && strcmp(host, "*") == 0) && !s_host_ok(host, false))
		return false;
	return s_port_ok(colon + 1);
}

bool lab_hostport_valid(const char *s)
{
	return s_hostport(s, false);
}

bool lab_endpoint_valid(const char *s)
{
	return strncmp(s, "tcp://", 6) == 0 && s_hostport(s + 6, true);
}

/* ---- field readers ------------------------------------------------------ */

int lab_fail_missing(yaml_val_t *map, const char *key)
{
	yaml_val_t *k;

	/* "transprot:" is a misspelt key, not a missing one: name it */
	for (size_t i = 0; (k = yaml_pair_key(map, i)); i++) {
		const char *s = yaml_str(k);
		size_t d = s ? proto_name_distance(s, key) : SIZE_MAX;

		if (d && d <= 2 && d < strlen(key))
			return yaml_fail(k, "unknown field '%s': did you mean"
					 " '%s'?", s, key);
	}
	return yaml_fail_field(map, key, "required field is missing");
}

yaml_val_t *lab_field(yaml_val_t *map, const char *key, int flags)
{
	yaml_val_t *v = yaml_get(map, key);

	if (!v && (flags & YAML_REQUIRED) && map)
		lab_fail_missing(map, key);
	return v;
}

int lab_get_checked(yaml_val_t *map, const char *key, int flags,
		    size_t max_len, lab_check_fn ok, const char *what,
		    char **ret)
{
	yaml_val_t *v = lab_field(map, key, flags);
	char *s;
	int r;

	if (!v)
		return (flags & YAML_REQUIRED) ? -EINVAL : 0;
	r = yaml_to_str(v, max_len, &s);
	if (r < 0)
		return r;
	if (ok && !ok(s)) {
		r = yaml_fail(v, "'%.64s' is not a valid %s", s, what);
		free(s);
		return r;
	}
	*ret = s;
	return 1;
}

int lab_get_text(yaml_val_t *map, const char *key, int flags, size_t max_len,
		 bool multiline, char **ret)
{
	yaml_val_t *v = lab_field(map, key, flags);
	char *s;
	int r;

	if (!v)
		return (flags & YAML_REQUIRED) ? -EINVAL : 0;
	r = yaml_to_str(v, max_len, &s);
	if (r < 0)
		return r;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if ((*p >= 0x20 && *p != 0x7f) || *p == '\t' ||
		    (multiline && *p == '\n'))
			continue;
		free(s);
		return yaml_fail(v, "control character in the value");
	}
	*ret = s;
	return 1;
}

int lab_get_path(yaml_val_t *map, const char *key, int flags,
		 const char *dir, char **ret)
{
	char *s = NULL;
	int r = lab_get_text(map, key, flags, LAB_MAX_PATH, false, &s);

	if (r <= 0)
		return r;
	if (s[0] == '~') {
		/* ~/ is the home of the user running the node, as in a shell */
		const char *home = getenv("HOME");
		char *abs;

		if (s[1] != '/' && s[1] != '\0') {
			free(s);
			return yaml_fail(yaml_map_peek(map, key),
					 "~user paths are not supported");
		}
		if (!home || home[0] != '/') {
			free(s);
			return yaml_fail(yaml_map_peek(map, key),
					 "~ is used but HOME is not set");
		}
		abs = xasprintf("%s%s", home, s + 1);
		free(s);
		s = abs;
	} else if (s[0] != '/' && dir) {
		char *abs = xasprintf("%s/%s", dir, s);

		free(s);
		s = abs;
	}
	*ret = s;
	return 1;
}

int lab_get_list(yaml_val_t *map, const char *key, size_t max_items,
		 size_t max_len, lab_check_fn ok, const char *what,
		 char ***ret, size_t *ret_n)
{
	yaml_val_t *seq = NULL;
	char **list = NULL;
	size_t n = 0;
	int r = yaml_get_seq(map, key, YAML_OPTIONAL, &seq);

	if (r <= 0)
		return r;
	r = yaml_to_strlist(seq, max_items, max_len, &list, &n);
	if (r < 0)
		return r;
	for (size_t i = 0; i < n; i++) {
		if (ok ? ok(list[i]) : lab_text_line_ok(list[i]))
			continue;
		r = yaml_fail(yaml_item(seq, i), "'%.64s' is not a valid %s",
			      list[i], what);
		yaml_strlist_free(&list, n);
		return r;
	}
	*ret = list;
	*ret_n = n;
	return 1;
}
