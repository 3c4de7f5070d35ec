/*
 * lab_fuego: import a Fuego board file as a board entry of a lab file.
 *
 * The board file is read, never run, by lab_fuego_scan.c into its
 * variables; this file maps them to our fields and writes the entry.
 *
 * Layout: the mapping of Fuego variables to our fields with their checks;
 * the YAML writer; the entry points, which check the result with the lab
 * loader.
 */
#include "labs/lab_private.h"
#include "labs/lab_fuego_int.h"
#include "proto/mem.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- mapping ---------------------------------------------------------------- */

static const char *const s_arch_map[][2] = {
	{ "arm", "arm" },         { "arm64", "aarch64" },  { "aarch64", "aarch64" },
	{ "x86_64", "x86_64" },   { "amd64", "x86_64" },   { "x86", "i686" },
	{ "i386", "i686" },       { "i686", "i686" },      { "powerpc", "ppc" },
	{ "powerpc64", "ppc64" }, { "ppc64el", "ppc64le" }, { "riscv", "riscv64" },
};

static const char *const s_toolchain_map[][2] = {
	{ "debian-armhf", "armv7l" },   { "debian-armel", "armv5tel" },
	{ "debian-arm64", "aarch64" },  { "debian-amd64", "x86_64" },
	{ "debian-i386", "i686" },      { "debian-ppc64el", "ppc64le" },
	{ "debian-riscv64", "riscv64" }, { "debian-s390x", "s390x" },
	{ "debian-mipsel", "mipsel" },  { "poky-qemuarm", "arm" },
	{ "poky-qemuarm64", "aarch64" }, { "poky-qemux86-64", "x86_64" },
	{ "lager", "armv7l" },           { "x86", "i686" },
};

static const char *s_lookup(const char *const (*map)[2], size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(map[i][0], s) == 0)
			return map[i][1];
	return lab_arch_valid(s) ? s : NULL;
}

/* Our arch for a Fuego ARCHITECTURE or TOOLCHAIN value, or NULL. */
static const char *s_arch_of(const char *v, bool toolchain)
{
	const char *a;

	if (toolchain)
		a = s_lookup(s_toolchain_map,
			     sizeof(s_toolchain_map) / sizeof(s_toolchain_map[0]), v);
	else
		a = s_lookup(s_arch_map, sizeof(s_arch_map) / sizeof(s_arch_map[0]), v);
	if (a || !toolchain)
		return a;
	/* toolchain names usually carry the arch: "aarch64-linux", "my-armhf" */
	if (strstr(v, "aarch64") || strstr(v, "arm64"))
		return "aarch64";
	if (strstr(v, "x86_64") || strstr(v, "amd64"))
		return "x86_64";
	if (strstr(v, "armhf") || strstr(v, "armv7"))
		return "armv7l";
	if (strstr(v, "riscv64"))
		return "riscv64";
	return NULL;
}

static int s_arch(fuego_t *f, const lab_fuego_opts_t *o, const char **ret)
{
	int line = 1;
	const char *v;

	if (o->arch) {
		if (!lab_arch_valid(o->arch))
			return fuego_fail(f, 1, "--arch", "unknown arch '%.64s'", o->arch);
		*ret = o->arch;
		fuego_get(f, "ARCHITECTURE", NULL);
		fuego_get(f, "TOOLCHAIN", NULL);
		return 0;
	}
	v = fuego_get(f, "ARCHITECTURE", &line);
	if (v && (*ret = s_arch_of(v, false)))
		return 0;
	if (v)
		fuego_note(f, "line %d: ARCHITECTURE=%.32s not known, using TOOLCHAIN",
		       line, v);
	v = fuego_get(f, "TOOLCHAIN", &line);
	if (v && (*ret = s_arch_of(v, true)))
		return 0;
	if (v)
		return fuego_fail(f, line, "TOOLCHAIN", "cannot tell the arch of "
				 "toolchain '%.64s' (give --arch)", v);
	return fuego_fail(f, 1, "ARCHITECTURE", "neither ARCHITECTURE nor TOOLCHAIN "
			    "is set (give --arch)");
}

/* A value we write into YAML: printable ASCII only (no control bytes, no
 * encoding surprises), and passing ok when given. */
static int s_value(fuego_t *f, const char *var, lab_check_fn ok,
		   const char *what, const char **ret)
{
	int line = 1;
	const char *v = fuego_get(f, var, &line);

	if (!v)
		return 0;
	for (const unsigned char *p = (const unsigned char *)v; *p; p++)
		if (*p < 0x20 || *p >= 0x7f)
			return fuego_fail(f, line, var, "only printable ASCII values "
					 "are imported");
	if (ok && !ok(v))
		return fuego_fail(f, line, var, "'%.64s' is not a valid %s", v, what);
	*ret = v;
	return 1;
}

static bool s_abs_path(const char *s)
{
	return s[0] == '/';
}

static bool s_port(const char *s)
{
	char *end;
	long p;

	if (!s[0] || strspn(s, "0123456789") != strlen(s) || strlen(s) > 5)
		return false;
	p = strtol(s, &end, 10);
	return p >= 1 && p <= 65535;
}

static bool s_baud(const char *s)
{
	if (!s[0] || strspn(s, "0123456789") != strlen(s) || strlen(s) > 8)
		return false;
	return lab_baud_valid(strtol(s, NULL, 10));
}

/* ---- writing ------------------------------------------------------------------ */

static void s_quote(buf_t *out, const char *s)
{
	buf_putc(out, '"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			buf_putc(out, '\\');
		buf_putc(out, *s);
	}
	buf_putc(out, '"');
}

static void s_field(buf_t *out, int indent, const char *key, const char *v)
{
	if (!v)
		return;
	buf_printf(out, "%*s%s: ", indent, "", key);
	s_quote(out, v);
	buf_putc(out, '\n');
}

typedef struct {
	const char *type;
	const char *host, *port, *user, *identity, *password;
	const char *serial, *baud, *login;
	const char *workdir;
	char *device; /* SERIAL made into a path */
} fmap_t;

static int s_map_ssh(fuego_t *f, int tline, fmap_t *m)
{
	int r = s_value(f, "IPADDR", lab_host_valid, "host name or address", &m->host);

	if (r == 0)
		return fuego_fail(f, tline, "IPADDR", "required for TRANSPORT=ssh");
	if (r > 0)
		r = s_value(f, "SSH_PORT", s_port, "port", &m->port);
	if (r >= 0)
		r = s_value(f, "LOGIN", lab_user_valid, "user name", &m->user);
	if (r >= 0)
		r = s_value(f, "SSH_KEY", NULL, NULL, &m->identity);
	if (r >= 0)
		r = s_value(f, "PASSWORD", NULL, NULL, &m->password);
	if (r >= 0 && m->password)
		fuego_note(f, "the ssh password is kept (it goes through sshpass); "
			  "a key is better");
	if (r >= 0 && !m->identity && !m->password)
		fuego_note(f, "no SSH_KEY or PASSWORD: the node's ssh agent or default "
			  "keys are used");
	if (r >= 0 && m->identity && m->identity[0] != '/')
		fuego_note(f, "SSH_KEY is relative: it is read from the lab file's directory");
	return r < 0 ? r : 0;
}

static int s_map_serial(fuego_t *f, int tline, fmap_t *m)
{
	int r = s_value(f, "SERIAL", NULL, NULL, &m->serial);

	if (r == 0)
		return fuego_fail(f, tline, "SERIAL", "required for TRANSPORT=serial");
	if (r > 0)
		r = s_value(f, "BAUD", s_baud, "baud rate", &m->baud);
	if (r == 0)
		fuego_note(f, "no BAUD: 115200 is used");
	if (r >= 0)
		r = s_value(f, "LOGIN", lab_user_valid, "login name", &m->login);
	if (r >= 0)
		r = s_value(f, "PASSWORD", NULL, NULL, &m->password);
	if (r >= 0 && m->password && !m->login) {
		fuego_note(f, "PASSWORD without LOGIN is not imported");
		m->password = NULL;
	}
	if (r < 0)
		return r;
	/* Fuego writes the device without /dev/ ("ttyACM0") */
	m->device = m->serial[0] == '/' ? xstrdup(m->serial)
					: xasprintf("/dev/%s", m->serial);
	return 0;
}

static int s_map_transport(fuego_t *f, fmap_t *m)
{
	int tline = 1, r = 0;
	const char *t = fuego_get(f, "TRANSPORT", &tline);

	if (!t) {
		fuego_note(f, "no TRANSPORT: ssh assumed, as in Fuego");
		t = "ssh";
	}
	if (strcmp(t, "ssh") == 0)
		r = s_map_ssh(f, tline, m);
	else if (strcmp(t, "serial") == 0)
		r = s_map_serial(f, tline, m);
	else if (strcmp(t, "local") != 0 && strcmp(t, "adb") != 0)
		return fuego_fail(f, tline, "TRANSPORT", "'%.32s' cannot be imported "
				 "(expected ssh, serial, local or adb; describe "
				 "ttc, ssh2serial and lava boards by hand)", t);
	if (r < 0)
		return r;
	m->type = strcmp(t, "ssh") == 0 ? "ssh" : strcmp(t, "serial") == 0 ? "serial"
					: strcmp(t, "adb") == 0 ? "adb" : "local";
	r = s_value(f, "BOARD_TESTDIR", s_abs_path, "absolute directory",
		    &m->workdir);
	return r < 0 ? r : 0;
}

static void s_write_transport(buf_t *out, const fmap_t *m)
{
	buf_printf(out, "    transport:\n      type: %s\n", m->type);
	if (strcmp(m->type, "ssh") == 0) {
		s_field(out, 6, "host", m->host);
		if (m->port)
			buf_printf(out, "      port: %s\n", m->port);
		s_field(out, 6, "user", m->user);
		s_field(out, 6, "identity", m->identity);
		s_field(out, 6, "password", m->password);
	} else if (strcmp(m->type, "serial") == 0) {
		s_field(out, 6, "device", m->device);
		buf_printf(out, "      baud: %s\n", m->baud ? m->baud : "115200");
		s_field(out, 6, "login", m->login);
		s_field(out, 6, "password", m->password);
	}
	s_field(out, 6, "workdir", m->workdir);
}

/* BOARD_CONTROL says how Fuego powers the board; we note the commands a
 * command boot would need rather than guess them. */
static void s_note_control(fuego_t *f, const char *name)
{
	int line = 1;
	const char *c = fuego_get(f, "BOARD_CONTROL", &line);
	const char *target = fuego_get(f, "TTC_TARGET", NULL);

	if (!c)
		return;
	if (strcmp(c, "ttc") == 0) {
		fuego_note(f, "line %d: BOARD_CONTROL=ttc is not imported; for power "
			  "control add", line);
		fuego_note(f, "  boot: {method: command, power_on: 'ttc %.64s on', "
			  "power_off: 'ttc %.64s off', power_cycle: 'ttc %.64s reboot'}",
		       target ? target : name, target ? target : name,
		       target ? target : name);
		return;
	}
	fuego_note(f, "line %d: BOARD_CONTROL=%.32s is not imported; add a boot "
		  "{method: command} with its power commands", line, c);
}

/* One note listing the variables nobody read (per-test knobs and such). */
static void s_note_unused(fuego_t *f)
{
	char list[200];
	size_t o = 0, n = 0;

	list[0] = '\0';
	for (size_t i = 0; i < f->n_vars; i++) {
		if (f->vars[i].used)
			continue;
		n++;
		if (o + strlen(f->vars[i].name) + 8 < sizeof(list))
			o += (size_t)snprintf(list + o, sizeof(list) - o, "%s%s",
					      o ? ", " : "", f->vars[i].name);
		else if (!strstr(list, "..."))
			o += (size_t)snprintf(list + o, sizeof(list) - o, ", ...");
	}
	if (n)
		fuego_note(f, "not imported (%zu): %s", n, list);
}

/* ---- entry points ------------------------------------------------------------- */

static char *s_default_name(const char *file)
{
	const char *base = strrchr(file, '/');
	size_t n;

	base = base ? base + 1 : file;
	n = strlen(base);
	if (n > 6 && strcmp(base + n - 6, ".board") == 0)
		n -= 6;
	return xstrndup(base, n);
}

static int s_build(fuego_t *f, const lab_fuego_opts_t *o, buf_t *out)
{
	char *name = o->name ? xstrdup(o->name) : s_default_name(f->file);
	const char *arch = NULL, *machine = NULL;
	fmap_t m = { 0 };
	int r = 0;

	if (!lab_name_valid(name))
		r = fuego_fail(f, 1, "name", "'%.64s' is not a valid board name "
				"([A-Za-z0-9_.-]{1,64}; give --name)", name);
	if (r == 0)
		r = s_arch(f, o, &arch);
	if (r == 0)
		r = s_map_transport(f, &m);
	if (r == 0)
		r = s_value(f, "MACHINE", lab_text_line_ok, "machine", &machine);
	if (r < 0)
		goto out;
	s_note_control(f, name);
	s_note_unused(f);
	buf_printf(out, "# Imported from the Fuego board file %s.\n"
			"# Paste under \"boards:\" in a lab file.\n",
		   f->file);
	buf_append(out, f->notes.data ? f->notes.data : (const uint8_t *)"",
		   f->notes.len);
	buf_printf(out, "  - name: %s\n    arch: %s\n", name, arch);
	s_field(out, 4, "machine", machine);
	buf_printf(out, "    description: ");
	{
		char *d = xasprintf("Fuego board %s", name);

		s_quote(out, d);
		free(d);
	}
	buf_printf(out, "\n    tags: [fuego]\n");
	s_write_transport(out, &m);
	buf_puts(out, "    boot:\n      method: none\n");
	r = 0;
out:
	free(m.device);
	free(name);
	return r;
}

/* The entry must load: check it as the only board of a lab. */
static int s_verify(const char *file, const buf_t *entry, char **ret_err)
{
	buf_t doc;
	lab_config_t *cfg = NULL;
	char *err = NULL;
	int r;

	buf_init(&doc, 0);
	buf_puts(&doc, "boards:\n");
	buf_append(&doc, entry->data, entry->len);
	r = lab_config_parse("(imported)", buf_str(&doc), doc.len, &cfg, &err);
	if (r < 0) {
		*ret_err = xasprintf("%s: the imported entry does not load: %s",
				     file, err);
		free(err);
	}
	lab_config_destroy(&cfg);
	buf_free(&doc);
	return r;
}

int lab_import_fuego_text(const char *file, const char *text, size_t len,
			  const lab_fuego_opts_t *opts, buf_t *out_yaml,
			  char **ret_err)
{
	lab_fuego_opts_t none = { 0 };
	fuego_t f;
	buf_t entry;
	int r;

	memset(&f, 0, sizeof(f));
	f.file = file ? file : "(board)";
	if (!text) {
		text = "";
		len = 0;
	}
	buf_init(&f.notes, 0);
	buf_init(&entry, 0);
	if (len > LAB_FUEGO_MAX_BYTES)
		r = fuego_fail(&f, 1, NULL, "file too large (%zu bytes, at most %d)",
			   len, LAB_FUEGO_MAX_BYTES);
	else
		r = fuego_scan(&f, text, len);
	if (r == 0)
		r = s_build(&f, opts ? opts : &none, &entry);
	if (r == 0) {
		r = s_verify(f.file, &entry, ret_err);
	} else {
		*ret_err = f.err ? f.err : xasprintf("%s: cannot import", f.file);
		f.err = NULL;
	}
	if (r == 0)
		buf_append(out_yaml, entry.data, entry.len);
	free(f.err);
	for (size_t i = 0; i < f.n_vars; i++) {
		free(f.vars[i].name);
		free(f.vars[i].value);
	}
	free(f.vars);
	buf_free(&f.notes);
	buf_free(&entry);
	return r;
}

int lab_import_fuego_file(const char *path, const lab_fuego_opts_t *opts,
			  buf_t *out_yaml, char **ret_err)
{
	char *data = xmalloc(LAB_FUEGO_MAX_BYTES + 2);
	size_t len = 0;
	int fd, r = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		r = -errno;
		*ret_err = xasprintf("%s: %s", path, strerror(-r));
		free(data);
		return r;
	}
	while (len <= LAB_FUEGO_MAX_BYTES) {
		ssize_t n = read(fd, data + len, LAB_FUEGO_MAX_BYTES + 1 - len);

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
	if (r == 0)
		r = lab_import_fuego_text(path, data, len, opts, out_yaml, ret_err);
	free(data);
	return r;
}

int lab_import_fuego(const char *path, buf_t *out_yaml, char **ret_err)
{
	return lab_import_fuego_file(path, NULL, out_yaml, ret_err);
}
