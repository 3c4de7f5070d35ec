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
#include "labs/lab_import_int.h"
#include "proto/mem.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- mapping ---------------------------------------------------------------- */

/*
 * One canonical arch per board, in our (uname -m) spelling, whichever of
 * ARCHITECTURE or TOOLCHAIN says it: the kernel's architecture, not the
 * userland's ABI. So every 32-bit ARM name (arm, armel, armhf, armv5tel,
 * armv7l, armv7hf...) is "arm", every 64-bit ARM name (arm64, aarch64) is
 * "aarch64", every 32-bit x86 name (ia32, x86, i386...i686) is "i686" and
 * x86-64 under any name is "x86_64". The toolchain name itself goes into
 * the tags ("toolchain:debian-armhf"), which keeps the ABI visible.
 */
static const char *const s_arch_map[][2] = {
	{ "x86_64", "x86_64" },   { "amd64", "x86_64" },    { "x86-64", "x86_64" },
	{ "x64", "x86_64" },      { "ia32", "i686" },       { "x86", "i686" },
	{ "x86_32", "i686" },     { "i386", "i686" },       { "i486", "i686" },
	{ "i586", "i686" },       { "i686", "i686" },       { "arm", "arm" },
	{ "armel", "arm" },       { "armhf", "arm" },       { "armv4t", "arm" },
	{ "armv5", "arm" },       { "armv5te", "arm" },     { "armv5tel", "arm" },
	{ "armv6", "arm" },       { "armv6l", "arm" },      { "armv7", "arm" },
	{ "armv7a", "arm" },      { "armv7l", "arm" },      { "armv7hf", "arm" },
	{ "armv7hl", "arm" },     { "arm64", "aarch64" },   { "aarch64", "aarch64" },
	{ "armv8", "aarch64" },   { "powerpc", "ppc" },     { "ppc", "ppc" },
	{ "powerpc64", "ppc64" }, { "ppc64", "ppc64" },     { "ppc64el", "ppc64le" },
	{ "ppc64le", "ppc64le" }, { "powerpc64le", "ppc64le" },
	{ "riscv", "riscv64" },   { "riscv64", "riscv64" }, { "riscv32", "riscv32" },
	{ "mips", "mips" },       { "mipsel", "mipsel" },   { "mips64", "mips64" },
	{ "mips64el", "mips64el" }, { "s390x", "s390x" },   { "sh4", "sh4" },
	{ "m68k", "m68k" },       { "sparc64", "sparc64" }, { "loongarch64", "loongarch64" },
};

/* Toolchains named after a board or a Yocto machine rather than an arch
 * (Fuego's fuego-ro/toolchains/NAME-tools.sh). */
static const char *const s_toolchain_map[][2] = {
	{ "lager", "arm" },          { "porter", "arm" },       { "koelsch", "arm" },
	{ "qemuarm", "arm" },        { "qemuarmv5", "arm" },    { "qemuarm64", "aarch64" },
	{ "qemux86", "i686" },       { "qemux86-64", "x86_64" }, { "bbb", "arm" },
	{ "beaglebone", "arm" },     { "raspberrypi", "arm" },  { "raspberrypi3", "arm" },
	{ "minnow", "x86_64" },      { "salvator-x", "aarch64" }, { "ulcb", "aarch64" },
};

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

static const char *s_lookup(const char *const (*map)[2], size_t n, const char *s,
			    size_t len)
{
	for (size_t i = 0; i < n; i++)
		if (strlen(map[i][0]) == len && strncmp(map[i][0], s, len) == 0)
			return map[i][1];
	return NULL;
}

/* Our arch for a Fuego ARCHITECTURE value, or NULL. */
static const char *s_arch_of(const char *v)
{
	return s_lookup(s_arch_map, N_OF(s_arch_map), v, strlen(v));
}

/* Our arch for a TOOLCHAIN name, or NULL: the name itself, without a
 * "debian-", "poky-" or "yocto-" prefix; a board-named toolchain; else the
 * first '-'-separated word that names an arch ("aarch64-linux-gnu",
 * "my-armhf-sdk"). */
static const char *s_toolchain_arch(const char *v)
{
	static const char *const prefixes[] = { "debian-", "poky-", "yocto-", "agl-" };
	const char *a, *p;

	if ((a = s_arch_of(v)))
		return a;
	for (size_t i = 0; i < N_OF(prefixes); i++) {
		size_t n = strlen(prefixes[i]);

		if (strncmp(v, prefixes[i], n) == 0) {
			v += n;
			break;
		}
	}
	if ((a = s_arch_of(v)) ||
	    (a = s_lookup(s_toolchain_map, N_OF(s_toolchain_map), v, strlen(v))))
		return a;
	for (p = v; *p; p += strcspn(p, "-"), p += *p == '-') {
		size_t n = strcspn(p, "-");

		if (n && (a = s_lookup(s_arch_map, N_OF(s_arch_map), p, n)))
			return a;
		if (!p[n])
			break;
	}
	return NULL;
}

static int s_arch(fuego_t *f, const lab_fuego_opts_t *o, const char **ret)
{
	int aline = 1, tline = 1;
	const char *av = fuego_get(f, "ARCHITECTURE", &aline);
	const char *tv = fuego_get(f, "TOOLCHAIN", &tline);
	const char *a = av ? s_arch_of(av) : NULL;
	const char *t = tv ? s_toolchain_arch(tv) : NULL;

	if (o->arch) {
		if (!lab_arch_valid(o->arch))
			return fuego_fail(f, 1, "--arch", "unknown arch '%.64s'", o->arch);
		*ret = o->arch;
		return 0;
	}
	if (av && !a)
		fuego_note(f, "line %d: ARCHITECTURE=%.32s is not an arch we know%s",
			   aline, av, t ? ", the one of TOOLCHAIN is used" : "");
	if (a && t && strcmp(a, t) != 0)
		fuego_note(f, "line %d: TOOLCHAIN=%.64s is for %s, ARCHITECTURE says %s: "
			   "%s is used", tline, tv, t, a, a);
	if (a || t) {
		*ret = a ? a : t;
		return 0;
	}
	if (tv)
		return fuego_fail(f, tline, "TOOLCHAIN", "cannot tell the arch of "
				 "toolchain '%.64s' (give --arch)", tv);
	if (av)
		return fuego_fail(f, aline, "ARCHITECTURE", "unknown arch '%.64s' "
				  "(give --arch)", av);
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
	char *device;   /* SERIAL made into a path */
	char *host_own; /* a placeholder's stand-in host */
	char *power[3]; /* power_on, power_off, power_cycle from BOARD_CONTROL */
} fmap_t;

/* A value Fuego leaves for another tool to fill in at run time, as its
 * LAVA set-up hook does with IPADDR="dut_ipaddr": lower-case words joined
 * by '_', or <...>, @...@, %...%. */
static bool s_placeholder(const char *v)
{
	size_t n = strlen(v);

	if (n >= 3 && ((v[0] == '<' && v[n - 1] == '>') ||
		       (v[0] == '@' && v[n - 1] == '@') ||
		       (v[0] == '%' && v[n - 1] == '%')))
		return true;
	return strchr(v, '_') && strspn(v, "abcdefghijklmnopqrstuvwxyz0123456789_") == n;
}

static int s_map_host(fuego_t *f, int tline, fmap_t *m)
{
	int line = 1;
	const char *v = fuego_get(f, "IPADDR", &line);
	const char *filler = fuego_get(f, "TARGET_SETUP_LINK", NULL);

	if (v && s_placeholder(v) && !lab_host_valid(v)) {
		m->host_own = xasprintf("%s.invalid", v);
		for (char *p = m->host_own; *p; p++)
			if (*p == '_' || *p == '<' || *p == '>' || *p == '@' || *p == '%')
				*p = '-';
		m->host = m->host_own + strspn(m->host_own, "-");
		fuego_note(f, "line %d: placeholder: IPADDR=%.64s is filled in at run "
			   "time by %.64s%s; host: is set to %s (never resolves): put the "
			   "board's address there", line, v,
			   filler ? filler : "another tool",
			   filler ? " (TARGET_SETUP_LINK)" : "", m->host);
		return 1;
	}
	int r = s_value(f, "IPADDR", lab_host_valid, "host name or address", &m->host);

	if (r == 0)
		return fuego_fail(f, tline, "IPADDR", "required for TRANSPORT=ssh");
	return r;
}

static int s_map_ssh(fuego_t *f, int tline, fmap_t *m)
{
	int r = s_map_host(f, tline, m);

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
	if (r >= 0 && m->identity && strncmp(m->identity, "/fuego-", 7) == 0)
		fuego_note(f, "SSH_KEY %.128s is a path inside Fuego's container: copy "
			   "the key where the node can read it", m->identity);
	return r < 0 ? r : 0;
}

/* IO_TIME_SERIAL is how long serio waits for an echo; our serial
 * transport waits for its own markers instead, so the pacing needs no
 * field: say so, with the value, rather than drop it. */
static void s_note_pacing(fuego_t *f)
{
	int line = 1;
	const char *v = fuego_get(f, "IO_TIME_SERIAL", &line);

	if (v)
		fuego_note(f, "line %d: serial pacing IO_TIME_SERIAL=%.32s: not needed, "
			   "the serial transport waits for its own end-of-command "
			   "markers rather than a fixed time", line, v);
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
	s_note_pacing(f);
	/* Fuego writes the device without /dev/ ("ttyACM0") */
	m->device = m->serial[0] == '/' ? xstrdup(m->serial)
					: xasprintf("/dev/%s", m->serial);
	return 0;
}

/* BOARD_TESTDIR on the board; for a local board a directory under
 * Fuego's own $FUEGO_RW or $FUEGO_RO exists only inside Fuego's
 * container, so the node's own work directory is used instead. */
static int s_map_workdir(fuego_t *f, fmap_t *m)
{
	int line = 1;
	int r = s_value(f, "BOARD_TESTDIR", s_abs_path, "absolute directory",
			&m->workdir);

	if (r > 0 && strcmp(m->type, "local") == 0 &&
	    (strncmp(m->workdir, "/fuego-rw", 9) == 0 ||
	     strncmp(m->workdir, "/fuego-ro", 9) == 0)) {
		fuego_get(f, "BOARD_TESTDIR", &line);
		fuego_note(f, "line %d: BOARD_TESTDIR=%.128s is inside Fuego's container: "
			   "the local board runs tests in the node's own work directory",
			   line, m->workdir);
		m->workdir = NULL;
	}
	return r < 0 ? r : 0;
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
	if (strcmp(m->type, "serial") != 0)
		s_note_pacing(f);
	return s_map_workdir(f, m);
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

/* BOARD_CONTROL says how Fuego powers the board: ttc (ttc.conf's
 * on/off/reboot), ebf (the board farm's REST client) or lc (LabControl).
 * Each becomes a command boot with the same tool's power commands. */
static void s_map_control(fuego_t *f, const char *name, fmap_t *m)
{
	static const struct {
		const char *control, *target_var;
		const char *fmt[3]; /* power_on, power_off, power_cycle; %s the target */
	} tools[] = {
		{ "ttc", "TTC_TARGET", { "ttc %s on", "ttc %s off", "ttc %s reboot" } },
		{ "ebf", "EBF_DEVICE",
		  { "ebf %s power on", "ebf %s power off", "ebf %s power reboot" } },
		{ "lc", "LC_BOARD", { "lc %s power on", "lc %s power off", "lc %s power reboot" } },
	};
	int line = 1;
	const char *c = fuego_get(f, "BOARD_CONTROL", &line);

	if (!c)
		return;
	for (size_t i = 0; i < N_OF(tools); i++) {
		const char *target;

		if (strcmp(c, tools[i].control) != 0)
			continue;
		target = fuego_get(f, tools[i].target_var, NULL);
		if (!target)
			target = name;
		if (!lab_name_valid(target)) {
			fuego_note(f, "line %d: BOARD_CONTROL=%s: %s '%.64s' is not a plain "
				   "name, power commands not imported", line, c,
				   tools[i].target_var, target);
			return;
		}
		for (int k = 0; k < 3; k++)
			m->power[k] = xasprintf(tools[i].fmt[k], target);
		fuego_note(f, "line %d: BOARD_CONTROL=%s: its power commands make a "
			   "command boot (the board is powered on for each job and off "
			   "after it)", line, c);
		return;
	}
	fuego_note(f, "line %d: BOARD_CONTROL=%.32s is not imported; add a boot "
		  "{method: command} with its power commands", line, c);
}

/* ORCHESTRATOR and the set-up/tear-down hooks: the board is booted by
 * another system (LAVA) before Fuego reaches it; report, never drop. */
static void s_note_orchestrator(fuego_t *f)
{
	static const char *const vars[] = { "ORCHESTRATOR", "TARGET_SETUP_LINK",
					    "TARGET_TEARDOWN_LINK", "LAB_SERVER",
					    "LAB_BOARD_NAME" };
	const char *o = fuego_get(f, "ORCHESTRATOR", NULL);
	char list[1024];
	size_t n = 0;

	list[0] = '\0';
	for (size_t i = 0; i < N_OF(vars); i++) {
		int l = 1;
		const char *v = fuego_get(f, vars[i], &l);

		if (v && n < sizeof(list))
			n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%s=%.64s (line %d)",
					      n ? ", " : "", vars[i], v, l);
	}
	if (list[0])
		fuego_note(f, "%s not imported: %s", list,
			   o && strcmp(o, "lava") == 0
				   ? "LAVA boots this board for Fuego; import its device "
				     "with `labmesh import lava DEVICE.yaml`"
				   : "the board is set up by another system before each test");
}

static void s_note_defaults(fuego_t *f)
{
	for (int i = 0; i < FUEGO_N_DEFS; i++)
		if (f->defaults_used & (1u << i))
			fuego_note(f, "$%s is Fuego's own: taken as %.64s",
				   fuego_default_name(i), fuego_default_value(f, i));
}

/* Every variable nobody read (per-test knobs and such), in full, wrapped
 * over as many comment lines as it takes. */
static void s_write_unused(fuego_t *f, buf_t *out)
{
	size_t n = 0, col = 0;

	for (size_t i = 0; i < f->n_vars; i++)
		n += !f->vars[i].used;
	if (!n)
		return;
	buf_printf(out, "# not imported (%zu):", n);
	col = 20;
	for (size_t i = 0, k = 0; i < f->n_vars; i++) {
		const char *v = f->vars[i].name;

		if (f->vars[i].used)
			continue;
		if (col + strlen(v) + 2 > 78) {
			buf_puts(out, "\n#  ");
			col = 3;
		}
		buf_printf(out, " %s%s", v, ++k < n ? "," : "");
		col += strlen(v) + 2;
	}
	buf_putc(out, '\n');
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

static void s_write_boot(buf_t *out, const fmap_t *m)
{
	static const char *const keys[3] = { "power_on", "power_off", "power_cycle" };

	if (!m->power[0]) {
		buf_puts(out, "    boot:\n      method: none\n");
		return;
	}
	buf_puts(out, "    boot:\n      method: command\n");
	for (int k = 0; k < 3; k++)
		s_field(out, 6, keys[k], m->power[k]);
}

static int s_build(fuego_t *f, const lab_fuego_opts_t *o, buf_t *out)
{
	const char *name = f->board;
	const char *arch = NULL, *machine = NULL, *toolchain;
	char *tag = NULL;
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
	toolchain = fuego_get(f, "TOOLCHAIN", NULL);
	if (toolchain) {
		tag = xasprintf("toolchain:%s", toolchain);
		if (!lab_tag_valid(tag)) {
			free(tag);
			tag = NULL;
		}
	}
	s_map_control(f, name, &m);
	s_note_orchestrator(f);
	s_note_defaults(f);
	buf_printf(out, "# Imported from the Fuego board file %s.\n"
			"# Paste under \"boards:\" in a lab file.\n",
		   f->file);
	buf_append(out, f->notes.data ? f->notes.data : (const uint8_t *)"",
		   f->notes.len);
	s_write_unused(f, out);
	buf_printf(out, "  - name: %s\n    arch: %s\n", name, arch);
	s_field(out, 4, "machine", machine);
	buf_printf(out, "    description: ");
	{
		char *d = xasprintf("Fuego board %s", name);

		s_quote(out, d);
		free(d);
	}
	if (tag)
		buf_printf(out, "\n    tags: [fuego, \"%s\"]\n", tag);
	else
		buf_printf(out, "\n    tags: [fuego]\n");
	s_write_transport(out, &m);
	s_write_boot(out, &m);
	r = 0;
out:
	free(m.device);
	free(m.host_own);
	free(tag);
	for (int k = 0; k < 3; k++)
		free(m.power[k]);
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
	char *name;
	int r;

	memset(&f, 0, sizeof(f));
	f.file = file ? file : "(board)";
	opts = opts ? opts : &none;
	name = opts->name ? xstrdup(opts->name) : s_default_name(f.file);
	f.board = name;
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
		r = s_build(&f, opts, &entry);
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
	free(name);
	return r;
}

int lab_import_fuego_file(const char *path, const lab_fuego_opts_t *opts,
			  buf_t *out_yaml, char **ret_err)
{
	char *data = NULL;
	size_t len = 0;
	/* one byte more than the text may have: the text's own check then
	 * says that the board file is too large */
	int r = iread_file(path, LAB_FUEGO_MAX_BYTES + 1, &data, &len, ret_err);

	if (r == 0)
		r = lab_import_fuego_text(path, data, len, opts, out_yaml, ret_err);
	free(data);
	return r;
}

int lab_import_fuego(const char *path, buf_t *out_yaml, char **ret_err)
{
	return lab_import_fuego_file(path, NULL, out_yaml, ret_err);
}
