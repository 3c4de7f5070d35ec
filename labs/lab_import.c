/*
 * lab_import: what the LAVA and labgrid importers share (see
 * labs/lab_import_int.h): notes, the YAML writer, tree look-ups, command
 * words, arch names, and the check that the result loads.
 */
#include "labs/lab_private.h"
#include "labs/lab_import_int.h"
#include "proto/mem.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void inotes_init(inotes_t *n)
{
	buf_init(&n->notes, 0);
	n->n_notes = 0;
}

void inotes_free(inotes_t *n)
{
	buf_free(&n->notes);
}

void inote(inotes_t *n, int line, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (n->n_notes++ >= IMPORT_MAX_NOTES) {
		if (n->n_notes == IMPORT_MAX_NOTES + 1)
			buf_puts(&n->notes, "# (more notes left out)\n");
		return;
	}
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	for (char *p = msg; *p; p++)
		if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)
			*p = '?';
	if (line > 0)
		buf_printf(&n->notes, "# line %d: %s\n", line, msg);
	else
		buf_printf(&n->notes, "# %s\n", msg);
}

void iquote(buf_t *out, const char *s)
{
	buf_putc(out, '"');
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			buf_printf(out, "\\%c", *p);
		else if (*p < 0x20 || *p >= 0x7f)
			buf_printf(out, "\\x%02x", *p);
		else
			buf_putc(out, (char)*p);
	}
	buf_putc(out, '"');
}

void ifield(buf_t *out, int indent, const char *key, const char *v)
{
	if (!v)
		return;
	buf_printf(out, "%*s%s: ", indent, "", key);
	iquote(out, v);
	buf_putc(out, '\n');
}

yaml_val_t *iat(yaml_val_t *v, const char *path)
{
	char key[128];

	while (v && *path) {
		size_t n = strcspn(path, ".");

		if (yaml_kind(v) != YAML_KIND_MAP || n >= sizeof(key))
			return NULL;
		memcpy(key, path, n);
		key[n] = '\0';
		v = yaml_map_peek(v, key);
		path += n + (path[n] == '.');
	}
	return v;
}

const char *istr(yaml_val_t *v, const char *path)
{
	v = iat(v, path);
	if (!v || yaml_kind(v) != YAML_KIND_SCALAR || yaml_is_null(v))
		return NULL;
	return yaml_str(v);
}

size_t ipairs(const yaml_val_t *map)
{
	return map && yaml_kind(map) == YAML_KIND_MAP ? yaml_len(map) : 0;
}

size_t iitems(const yaml_val_t *seq)
{
	return seq && yaml_kind(seq) == YAML_KIND_SEQ ? yaml_len(seq) : 0;
}

int iline(const yaml_val_t *v)
{
	return v ? yaml_line(v) : 0;
}

int ikind(const yaml_val_t *v)
{
	return v ? (int)yaml_kind(v) : 0;
}

bool iprintable(const char *s, size_t max)
{
	size_t n = strlen(s);

	if (n == 0 || n > max)
		return false;
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
			return false;
	return true;
}

size_t iwords(const char *s, char **ret_buf, char **words)
{
	char *buf = xstrdup(s), *r = buf, *w = buf;
	size_t n = 0;

	*ret_buf = buf;
	while (*r && n < IMPORT_MAX_WORDS) {
		while (isspace((unsigned char)*r))
			r++;
		if (!*r)
			break;
		words[n++] = w;
		while (*r && !isspace((unsigned char)*r)) {
			if (*r == '\'' || *r == '"') {
				char q = *r++;

				while (*r && *r != q)
					*w++ = *r++;
				if (*r)
					r++;
			} else {
				*w++ = *r++;
			}
		}
		if (*r)
			r++;
		*w++ = '\0';
	}
	return n;
}

static const char *const s_arch_names[][2] = {
	{ "x86_64", "x86_64" }, { "amd64", "x86_64" },  { "x86-64", "x86_64" },
	{ "i386", "i686" },     { "i686", "i686" },     { "x86", "i686" },
	{ "arm", "arm" },       { "armhf", "arm" },     { "armel", "arm" },
	{ "armv7", "arm" },     { "armv7l", "arm" },    { "armv7a", "arm" },
	{ "arm64", "aarch64" }, { "aarch64", "aarch64" }, { "riscv64", "riscv64" },
	{ "riscv32", "riscv32" }, { "ppc", "ppc" },     { "ppc64", "ppc64" },
	{ "ppc64le", "ppc64le" }, { "ppc64el", "ppc64le" }, { "mips", "mips" },
	{ "mipsel", "mipsel" }, { "mips64", "mips64" }, { "mips64el", "mips64el" },
	{ "s390x", "s390x" },   { "sh4", "sh4" },       { "m68k", "m68k" },
	{ "sparc64", "sparc64" }, { "loongarch64", "loongarch64" },
};

const char *iarch_of(const char *name)
{
	for (size_t i = 0; i < sizeof(s_arch_names) / sizeof(s_arch_names[0]); i++)
		if (strcmp(s_arch_names[i][0], name) == 0)
			return s_arch_names[i][1];
	return NULL;
}

const char *iarch_of_qemu(const char *binary)
{
	const char *base = strrchr(binary, '/');

	base = base ? base + 1 : binary;
	if (strncmp(base, "qemu-system-", 12) != 0)
		return NULL;
	return iarch_of(base + 12);
}

char *iname_of_file(const char *file)
{
	static const char *const ext[] = { ".yaml", ".yml", ".jinja2" };
	const char *base = strrchr(file, '/');
	size_t n;

	base = base ? base + 1 : file;
	n = strlen(base);
	for (size_t i = 0; i < sizeof(ext) / sizeof(ext[0]); i++) {
		size_t e = strlen(ext[i]);

		if (n > e && strcmp(base + n - e, ext[i]) == 0) {
			n -= e;
			break;
		}
	}
	return xstrndup(base, n);
}

int iverify(const char *file, const buf_t *yaml, char **ret_err)
{
	buf_t doc;
	lab_config_t *cfg = NULL;
	char *err = NULL;
	int r;

	buf_init(&doc, 0);
	buf_puts(&doc, "boards:\n");
	buf_append(&doc, yaml->data, yaml->len);
	r = lab_config_parse("(imported)", buf_str(&doc), doc.len, &cfg, &err);
	if (r < 0) {
		*ret_err = xasprintf("%s: the imported entry does not load: %s", file, err);
		free(err);
	}
	lab_config_destroy(&cfg);
	buf_free(&doc);
	return r;
}

void ivfail(char **err, const char *file, const char *fmt, va_list ap)
{
	char msg[512];

	if (*err)
		return;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	for (char *p = msg; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	*err = xasprintf("%s: %s", file, msg);
}

int iread_file(const char *path, size_t max, char **ret, size_t *ret_len,
	       char **ret_err)
{
	char *data = xmalloc(max + 2);
	size_t len = 0;
	int fd, r = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		r = -errno;
		*ret_err = xasprintf("%s: %s", path, strerror(-r));
		free(data);
		return r;
	}
	while (len <= max) {
		ssize_t n = read(fd, data + len, max + 1 - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			r = -errno;
			*ret_err = xasprintf("%s: %s", path, strerror(-r));
			break;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	if (r == 0 && len > max) {
		r = -EFBIG;
		*ret_err = xasprintf("%s: file too large (more than %zu bytes)", path, max);
	}
	if (r < 0) {
		free(data);
		return r;
	}
	data[len] = '\0';
	*ret = data;
	*ret_len = len;
	return 0;
}
