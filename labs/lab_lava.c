/*
 * lab_lava: import a rendered LAVA device configuration (the YAML the
 * dispatcher reads with --device, or `lava-server manage
 * device-dictionary --review` prints) as a board entry of a lab file.
 *
 * Mapped: the serial console from commands.connect or the primary of
 * commands.connections (telnet/nc/socat to a console server, a tty through
 * picocom, microcom, screen, cu, minicom or socat); power from
 * commands.power_on, power_off and hard_reset; the boot from
 * actions.boot.methods (qemu: binary, -m, -smp, -cpu, -machine and the
 * other options; minimal, u-boot with a tftp deploy: a command boot); an
 * ssh device from actions.deploy.methods.ssh; the device type as a tag.
 * Every other key is named in a comment with why it is not mapped. The
 * file is read under the yaml module's limits; nothing in it is run.
 */
#include "labs/lab_private.h"
#include "labs/lab_import_int.h"
#include "proto/mem.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define LAVA_MAX_ARGS 64     /* extra QEMU arguments carried */
#define LAVA_MAX_COMMAND 4096 /* bytes of one power or connect command */

typedef struct {
	inotes_t notes;
	yaml_val_t *root;
	const char *file;
	char *name;
	const char *arch, *type;
	/* transport */
	const char *ttype;   /* "serial", "ssh"; NULL: the QEMU console or none */
	char *tcp;           /* HOST:PORT of a console server */
	char *device;        /* a tty */
	long baud;
	const char *ssh_host, *ssh_user, *ssh_identity;
	long ssh_port;
	/* boot */
	const char *method;  /* "none", "qemu", "command" */
	const char *qemu;
	char *cpu, *machine;
	long memory, cpus;
	char *args[LAVA_MAX_ARGS];
	size_t n_args;
	const char *power_on, *power_off, *power_cycle;
	char *deploy;
	char *err;
} lava_t;

static int s_fail(lava_t *l, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Keep the first error as "FILE: message"; returns -EINVAL. */
static int s_fail(lava_t *l, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ivfail(&l->err, l->file, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* ---- the serial console --------------------------------------------------- */

static bool s_port_ok(const char *s, long *ret)
{
	char *end;
	long p;

	if (!s[0] || strspn(s, "0123456789") != strlen(s) || strlen(s) > 5)
		return false;
	p = strtol(s, &end, 10);
	if (p < 1 || p > 65535)
		return false;
	*ret = p;
	return true;
}

static bool s_set_tcp(lava_t *l, const char *host, const char *port)
{
	long p;

	if (!lab_host_valid(host) || !s_port_ok(port, &p))
		return false;
	l->tcp = strchr(host, ':') ? xasprintf("[%s]:%ld", host, p)
				   : xasprintf("%s:%ld", host, p);
	return true;
}

/* socat's "TCP:host:port", "tcp4:host:port" or "/dev/ttyX,b115200,raw" */
static bool s_socat_addr(lava_t *l, const char *w)
{
	if (strncasecmp(w, "tcp:", 4) == 0 || strncasecmp(w, "tcp4:", 5) == 0 ||
	    strncasecmp(w, "tcp6:", 5) == 0 || strncasecmp(w, "tcp-connect:", 12) == 0) {
		char *host = xstrdup(strchr(w, ':') + 1), *port;
		bool ok;

		host[strcspn(host, ",")] = '\0';
		port = strrchr(host, ':');
		if (!port) {
			free(host);
			return false;
		}
		*port++ = '\0';
		ok = s_set_tcp(l, host, port);
		free(host);
		return ok;
	}
	if (strncmp(w, "/dev/", 5) == 0) {
		const char *b = strstr(w, ",b");

		l->device = xstrndup(w, strcspn(w, ","));
		if (b && lab_baud_valid(strtol(b + 2, NULL, 10)))
			l->baud = strtol(b + 2, NULL, 10);
		return true;
	}
	return false;
}

/* Read a console command: 1 mapped, 0 not. */
static int s_console(lava_t *l, yaml_val_t *v)
{
	const char *cmd = ikind(v) == YAML_KIND_SCALAR ? yaml_str(v) : NULL;
	char *buf = NULL, *w[IMPORT_MAX_WORDS];
	const char *tool;
	size_t n;
	int ok = 0;

	if (!cmd || !iprintable(cmd, LAVA_MAX_COMMAND))
		return 0;
	n = iwords(cmd, &buf, w);
	if (n == 0)
		goto out;
	tool = strrchr(w[0], '/') ? strrchr(w[0], '/') + 1 : w[0];
	if (strcmp(tool, "telnet") == 0 || strcmp(tool, "nc") == 0 ||
	    strcmp(tool, "netcat") == 0 || strcmp(tool, "ncat") == 0) {
		const char *args[2] = { NULL, NULL };
		size_t k = 0;

		for (size_t i = 1; i < n && k < 2; i++) {
			if (w[i][0] == '-') {
				/* telnet -e C, -l USER, nc -w N take a value */
				if (w[i][1] && strchr("elwsp", w[i][1]) && !w[i][2] &&
				    i + 1 < n)
					i++;
				continue;
			}
			args[k++] = w[i];
		}
		ok = k == 2 && s_set_tcp(l, args[0], args[1]);
		if (ok && strcmp(tool, "telnet") == 0)
			inote(&l->notes, iline(v), "console %.64s:%.16s: the serial transport "
			      "speaks raw TCP: the console server's port must be raw "
			      "(ser2net: a raw accepter, not telnet)", args[0], args[1]);
	} else if (strcmp(tool, "socat") == 0) {
		for (size_t i = 1; i < n && !ok; i++)
			ok = s_socat_addr(l, w[i]);
	} else if (strcmp(tool, "conmux-console") == 0) {
		inote(&l->notes, iline(v), "commands.connect: conmux (%.64s) has no "
		      "labmesh transport: serve the console with ser2net and use "
		      "transport {type: serial, tcp: HOST:PORT}", n > 1 ? w[n - 1] : "?");
		goto out;
	} else if (strcmp(tool, "picocom") == 0 || strcmp(tool, "microcom") == 0 ||
		   strcmp(tool, "screen") == 0 || strcmp(tool, "cu") == 0 ||
		   strcmp(tool, "minicom") == 0) {
		for (size_t i = 1; i < n; i++) {
			if (strncmp(w[i], "/dev/", 5) == 0 && !l->device)
				l->device = xstrdup(w[i]);
			else if (strspn(w[i], "0123456789") == strlen(w[i]) &&
				 lab_baud_valid(strtol(w[i], NULL, 10)))
				l->baud = strtol(w[i], NULL, 10);
			else if (strncmp(w[i], "--baud=", 7) == 0 &&
				 lab_baud_valid(strtol(w[i] + 7, NULL, 10)))
				l->baud = strtol(w[i] + 7, NULL, 10);
			else if (strncmp(w[i], "-l/dev/", 7) == 0 && !l->device)
				l->device = xstrdup(w[i] + 2);
		}
		ok = l->device != NULL;
	}
	if (!ok)
		inote(&l->notes, iline(v), "console command '%.200s' is not one we "
		      "can read (telnet/nc/socat to HOST PORT, or a /dev tty)", cmd);
out:
	free(buf);
	if (ok)
		l->ttype = "serial";
	return ok;
}

/* commands.connections: the one tagged primary, else the first. */
static void s_connections(lava_t *l, yaml_val_t *c)
{
	yaml_val_t *pick = NULL;

	if (ikind(c) != YAML_KIND_MAP)
		return;
	for (size_t i = 0; i < ipairs(c); i++) {
		yaml_val_t *v = yaml_pair_value(c, i), *tags = iat(v, "tags");

		if (!pick)
			pick = v;
		if (tags && ikind(tags) == YAML_KIND_SEQ)
			for (size_t k = 0; k < iitems(tags); k++)
				if (yaml_str(yaml_item(tags, k)) &&
				    strcmp(yaml_str(yaml_item(tags, k)), "primary") == 0)
					pick = v;
	}
	for (size_t i = 0; i < ipairs(c); i++) {
		yaml_val_t *v = yaml_pair_value(c, i);

		if (v != pick)
			inote(&l->notes, iline(v), "commands.connections.%.64s: a second "
			      "console is not mapped (one console a board)",
			      yaml_str(yaml_pair_key(c, i)));
	}
	if (pick && iat(pick, "connect"))
		s_console(l, iat(pick, "connect"));
}

/* ---- commands ------------------------------------------------------------------ */

static const char *s_command(lava_t *l, yaml_val_t *v, const char *key)
{
	const char *s = ikind(v) == YAML_KIND_SCALAR ? yaml_str(v) : NULL;

	if (!s || yaml_is_null(v))
		return NULL;
	if (!iprintable(s, LAVA_MAX_COMMAND)) {
		inote(&l->notes, iline(v), "commands.%s: not printable ASCII, not "
		      "imported", key);
		return NULL;
	}
	return s;
}

static void s_commands(lava_t *l, yaml_val_t *c)
{
	if (!c || ikind(c) != YAML_KIND_MAP)
		return;
	for (size_t i = 0; i < ipairs(c); i++) {
		const char *k = yaml_str(yaml_pair_key(c, i));
		yaml_val_t *v = yaml_pair_value(c, i);

		if (strcmp(k, "connect") == 0)
			s_console(l, v);
		else if (strcmp(k, "connections") == 0)
			s_connections(l, v);
		else if (strcmp(k, "power_on") == 0)
			l->power_on = s_command(l, v, k);
		else if (strcmp(k, "power_off") == 0)
			l->power_off = s_command(l, v, k);
		else if (strcmp(k, "hard_reset") == 0)
			l->power_cycle = s_command(l, v, k);
		else
			inote(&l->notes, iline(v), "commands.%.64s: not mapped (labmesh "
			      "has power_on, power_off and power_cycle only)", k);
	}
}

/* ---- boot and deploy methods ---------------------------------------------------- */

static void s_add_arg(lava_t *l, const char *a)
{
	if (l->n_args < LAVA_MAX_ARGS)
		l->args[l->n_args++] = xstrdup(a);
}

/* A plain decimal in [lo, hi] ("1024", not "1024M" or "1e3"). */
static bool s_number(const char *s, long lo, long hi)
{
	long v;

	if (!s[0] || strspn(s, "0123456789") != strlen(s) || strlen(s) > 9)
		return false;
	v = strtol(s, NULL, 10);
	return v >= lo && v <= hi;
}

/* LAVA's qemu options are strings of one or more words ("-m 1024",
 * "-net nic,model=virtio -net user"). */
static void s_qemu_options(lava_t *l, yaml_val_t *opts)
{
	for (size_t i = 0; opts && i < iitems(opts); i++) {
		yaml_val_t *o = yaml_item(opts, i);
		const char *s = yaml_str(o);
		char *buf, *w[IMPORT_MAX_WORDS];
		size_t n;

		if (!s || !iprintable(s, LAVA_MAX_COMMAND))
			continue;
		n = iwords(s, &buf, w);
		for (size_t k = 0; k < n; k++) {
			const char *val = k + 1 < n ? w[k + 1] : NULL;

			if (strcmp(w[k], "-m") == 0 && val && s_number(val, 16, 1048576)) {
				l->memory = strtol(val, NULL, 10);
				k++;
			} else if (strcmp(w[k], "-smp") == 0 && val && s_number(val, 1, 512)) {
				l->cpus = strtol(val, NULL, 10);
				k++;
			} else if (strcmp(w[k], "-cpu") == 0 && val) {
				if (strcmp(val, "host") == 0)
					inote(&l->notes, iline(o), "qemu -cpu host needs "
					      "KVM: not carried (labmesh runs TCG unless "
					      "told; add cpu: host and args: [-enable-kvm] "
					      "where KVM works)");
				else {
					free(l->cpu);
					l->cpu = xstrdup(val);
				}
				k++;
			} else if ((strcmp(w[k], "-machine") == 0 || strcmp(w[k], "-M") == 0) &&
				   val) {
				free(l->machine);
				l->machine = xstrdup(val);
				k++;
			} else if (strcmp(w[k], "-enable-kvm") == 0 ||
				   (strcmp(w[k], "-accel") == 0 && val &&
				    strncmp(val, "kvm", 3) == 0)) {
				inote(&l->notes, iline(o), "qemu %s: not carried (TCG "
				      "unless told: add it to args where KVM works)", w[k]);
				k += strcmp(w[k], "-accel") == 0;
			} else if (strcmp(w[k], "-nographic") == 0 ||
				   (strcmp(w[k], "-monitor") == 0 && val) ||
				   (strcmp(w[k], "-serial") == 0 && val) ||
				   (strcmp(w[k], "-display") == 0 && val)) {
				inote(&l->notes, iline(o), "qemu %s: not carried (labmesh "
				      "owns the console and the monitor)", w[k]);
				k += strcmp(w[k], "-nographic") != 0;
			} else {
				s_add_arg(l, w[k]);
			}
		}
		free(buf);
	}
}

static void s_qemu(lava_t *l, yaml_val_t *m)
{
	yaml_val_t *p = iat(m, "parameters");
	const char *bin = istr(p, "command");

	l->method = "qemu";
	l->ttype = NULL;
	if (bin && iprintable(bin, 256) && iarch_of_qemu(bin)) {
		l->qemu = bin;
		if (!l->arch)
			l->arch = iarch_of_qemu(bin);
	}
	s_qemu_options(l, iat(p, "options"));
	if (iat(p, "boot_options") || iat(p, "append"))
		inote(&l->notes, iline(m), "qemu boot_options/append: LAVA's job "
		      "fills them; labmesh's kernel command line comes from the board's "
		      "append or the request");
	inote(&l->notes, 0, "kernel, initrd: a LAVA job brings them; set "
	      "boot.kernel and boot.initrd for runs that bring none");
}

static void s_boot_methods(lava_t *l, yaml_val_t *m)
{
	yaml_val_t *qemu = NULL;

	if (!m || ikind(m) != YAML_KIND_MAP)
		return;
	for (size_t i = 0; i < ipairs(m); i++) {
		const char *k = yaml_str(yaml_pair_key(m, i));

		if (strcmp(k, "qemu") == 0)
			qemu = yaml_pair_value(m, i);
	}
	if (qemu) {
		s_qemu(l, qemu);
		for (size_t i = 0; i < ipairs(m); i++) {
			const char *k = yaml_str(yaml_pair_key(m, i));

			if (strcmp(k, "qemu") != 0)
				inote(&l->notes, iline(yaml_pair_key(m, i)),
				      "actions.boot.methods.%.64s: not mapped (the board "
				      "boots with qemu)", k);
		}
		return;
	}
	for (size_t i = 0; i < ipairs(m); i++) {
		const char *k = yaml_str(yaml_pair_key(m, i));
		int line = iline(yaml_pair_key(m, i));

		if (strcmp(k, "minimal") == 0 || strcmp(k, "ssh") == 0)
			continue; /* power on and wait; the transport: what we do */
		if (strcmp(k, "u-boot") == 0 || strcmp(k, "barebox") == 0 ||
		    strcmp(k, "grub") == 0 || strcmp(k, "depthcharge") == 0)
			inote(&l->notes, line, "actions.boot.methods.%s: its bootloader "
			      "commands are LAVA's, typed per job; labmesh powers the board "
			      "on and waits for its shell: set the bootloader to boot what "
			      "the deploy command puts in place", k);
		else
			inote(&l->notes, line, "actions.boot.methods.%.64s: no labmesh "
			      "equivalent", k);
	}
}

static void s_ssh(lava_t *l, yaml_val_t *s)
{
	const char *host = istr(s, "host"), *user = istr(s, "user");
	const char *id = istr(s, "identity_file"), *port = istr(s, "port");

	if (!host || !*host) {
		inote(&l->notes, iline(s), "actions.deploy.methods.ssh: no host (a "
		      "secondary connection LAVA fills in per job): not mapped");
		return;
	}
	if (!lab_host_valid(host)) {
		inote(&l->notes, iline(s), "actions.deploy.methods.ssh.host '%.64s' "
		      "is not a host name or address", host);
		return;
	}
	l->ssh_host = host;
	if (port && !s_port_ok(port, &l->ssh_port))
		inote(&l->notes, iline(s), "ssh port '%.16s' is not a port: 22 used",
		      port);
	if (user && lab_user_valid(user))
		l->ssh_user = user;
	if (id && iprintable(id, 4096) && id[0] == '/')
		l->ssh_identity = id;
	else if (id)
		inote(&l->notes, iline(s), "ssh identity_file %.128s is relative to "
		      "LAVA's dispatcher: not imported", id);
	if (iat(s, "options"))
		inote(&l->notes, iline(iat(s, "options")), "ssh options: not carried "
		      "(labmesh pins host keys and sets its own)");
}

static void s_deploy_methods(lava_t *l, yaml_val_t *m)
{
	if (!m || ikind(m) != YAML_KIND_MAP)
		return;
	for (size_t i = 0; i < ipairs(m); i++) {
		const char *k = yaml_str(yaml_pair_key(m, i));
		yaml_val_t *v = yaml_pair_value(m, i);
		int line = iline(yaml_pair_key(m, i));

		if (strcmp(k, "ssh") == 0) {
			s_ssh(l, v);
		} else if (strcmp(k, "tftp") == 0) {
			l->deploy = xstrdup(
				"[ -z \"$LABMESH_KERNEL\" ] || { "
				"dir=/srv/tftp/labmesh/\"$LABMESH_BOARD\" && mkdir -p \"$dir\" && "
				"install -m 0644 \"$LABMESH_KERNEL\" \"$dir/kernel\" && "
				"{ [ -z \"$LABMESH_INITRD\" ] || "
				"install -m 0644 \"$LABMESH_INITRD\" \"$dir/initrd\"; }; }");
			inote(&l->notes, line, "actions.deploy.methods.tftp: a deploy command "
			      "copies the request's kernel and initrd to "
			      "/srv/tftp/labmesh/BOARD/ (LAVA's TFTP root); with no kernel "
			      "the board boots what it has");
		} else if (strcmp(k, "image") != 0 || !iat(l->root, "actions.boot.methods.qemu")) {
			inote(&l->notes, line, "actions.deploy.methods.%.64s: no labmesh "
			      "equivalent", k);
		}
	}
}

/* ---- the rest of the file ------------------------------------------------------ */

/* Why each top-level key LAVA writes is not mapped, for the comments. */
static const char *const s_unmapped[][2] = {
	{ "constants", "LAVA's prompts and bootloader messages: the serial transport "
		       "frames commands with its own markers" },
	{ "timeouts", "LAVA's per-action timeouts: labmesh has boot.timeout and "
		      "transport.connect_timeout" },
	{ "parameters", "load addresses and interfaces for LAVA's bootloader commands" },
	{ "character_delays", "serial pacing: not needed, the serial transport waits "
			      "for its own markers" },
	{ "available_architectures", "the arches LAVA's qemu type may run: the board "
				     "has one" },
	{ "device_info", "LXC device passthrough" },
	{ "static_info", "LXC device passthrough" },
};

static void s_note_rest(lava_t *l)
{
	for (size_t i = 0; i < ipairs(l->root); i++) {
		const char *k = yaml_str(yaml_pair_key(l->root, i));
		int line = iline(yaml_pair_key(l->root, i));
		const char *why = "no labmesh equivalent";

		if (strcmp(k, "commands") == 0 || strcmp(k, "actions") == 0 ||
		    strcmp(k, "device_type") == 0)
			continue;
		for (size_t u = 0; u < sizeof(s_unmapped) / sizeof(s_unmapped[0]); u++)
			if (strcmp(s_unmapped[u][0], k) == 0)
				why = s_unmapped[u][1];
		inote(&l->notes, line, "%.64s: not mapped (%s)", k, why);
	}
}

/* The arch when no qemu binary said it: mkimage's -A, or a device type
 * whose arch is known. */
static const char *const s_type_arch[][2] = {
	{ "beaglebone-black", "arm" }, { "am57xx-beagle-x15", "arm" },
	{ "bcm2711-rpi-4-b", "aarch64" }, { "bcm2837-rpi-3-b", "aarch64" },
	{ "bcm2837-rpi-3-b-32", "arm" }, { "x86", "x86_64" },
	{ "juno-r2", "aarch64" }, { "hi6220-hikey", "aarch64" },
	{ "dragonboard-410c", "aarch64" }, { "imx8mq-evk", "aarch64" },
	{ "r8a7795-h3ulcb", "aarch64" }, { "r8a7796-m3ulcb", "aarch64" },
	{ "imx6q-sabrelite", "arm" }, { "sun8i-h3-orangepi-pc", "arm" },
};

static int s_arch(lava_t *l, const lab_import_opts_t *o)
{
	const char *mk = istr(l->root, "actions.deploy.parameters.mkimage_arch");

	if (o->arch) {
		if (!lab_arch_valid(o->arch))
			return s_fail(l, "--arch: unknown arch '%.64s'", o->arch);
		l->arch = o->arch;
		return 0;
	}
	if (l->arch)
		return 0;
	if (mk && iarch_of(mk)) {
		l->arch = iarch_of(mk);
		return 0;
	}
	for (size_t i = 0; l->type && i < sizeof(s_type_arch) / sizeof(s_type_arch[0]); i++)
		if (strcmp(s_type_arch[i][0], l->type) == 0) {
			l->arch = s_type_arch[i][1];
			return 0;
		}
	return s_fail(l, "cannot tell the device's arch (give --arch)");
}

/* ---- writing ------------------------------------------------------------------- */

static void s_write(lava_t *l, buf_t *out)
{
	char *d;

	buf_printf(out, "# Imported from the LAVA device configuration %s.\n"
			"# Paste under \"boards:\" in a lab file.\n", l->file);
	buf_append(out, l->notes.notes.data ? l->notes.notes.data : (const uint8_t *)"",
		   l->notes.notes.len);
	buf_printf(out, "  - name: %s\n    arch: %s\n", l->name, l->arch);
	d = l->type ? xasprintf("LAVA device %s (%s)", l->name, l->type)
		    : xasprintf("LAVA device %s", l->name);
	ifield(out, 4, "description", d);
	free(d);
	if (l->type)
		buf_printf(out, "    tags: [lava, \"%s\"]\n", l->type);
	else
		buf_puts(out, "    tags: [lava]\n");
	if (l->ttype && strcmp(l->ttype, "serial") == 0) {
		buf_puts(out, "    transport:\n      type: serial\n");
		if (l->tcp)
			ifield(out, 6, "tcp", l->tcp);
		else {
			ifield(out, 6, "device", l->device);
			buf_printf(out, "      baud: %ld\n", l->baud ? l->baud : 115200);
		}
	} else if (l->ttype) {
		buf_puts(out, "    transport:\n      type: ssh\n");
		ifield(out, 6, "host", l->ssh_host);
		if (l->ssh_port && l->ssh_port != 22)
			buf_printf(out, "      port: %ld\n", l->ssh_port);
		ifield(out, 6, "user", l->ssh_user);
		ifield(out, 6, "identity", l->ssh_identity);
	} else if (strcmp(l->method, "qemu") == 0) {
		buf_puts(out, "    transport: {type: serial, console: qemu}\n");
	}
	buf_printf(out, "    boot:\n      method: %s\n", l->method);
	if (strcmp(l->method, "qemu") == 0) {
		ifield(out, 6, "qemu", l->qemu);
		ifield(out, 6, "machine", l->machine);
		ifield(out, 6, "cpu", l->cpu);
		if (l->memory)
			buf_printf(out, "      memory: %ld\n", l->memory);
		if (l->cpus)
			buf_printf(out, "      cpus: %ld\n", l->cpus);
		if (l->n_args) {
			buf_puts(out, "      args: [");
			for (size_t i = 0; i < l->n_args; i++) {
				buf_puts(out, i ? ", " : "");
				iquote(out, l->args[i]);
			}
			buf_puts(out, "]\n");
		}
	} else if (strcmp(l->method, "command") == 0) {
		ifield(out, 6, "deploy", l->deploy);
		ifield(out, 6, "power_on", l->power_on);
		ifield(out, 6, "power_off", l->power_off);
		ifield(out, 6, "power_cycle", l->power_cycle);
	}
}

static int s_map(lava_t *l, const lab_import_opts_t *o)
{
	const char *t = istr(l->root, "device_type");
	int r;

	l->type = o->type ? o->type : t;
	if (l->type && !lab_tag_valid(l->type))
		return s_fail(l, "device type '%.64s' is not a valid tag", l->type);
	if (!l->type)
		inote(&l->notes, 0, "the file does not name its device type: give --type "
		      "to tag the board with it");
	l->method = "none";
	s_commands(l, iat(l->root, "commands"));
	s_boot_methods(l, iat(l->root, "actions.boot.methods"));
	s_deploy_methods(l, iat(l->root, "actions.deploy.methods"));
	if (iat(l->root, "actions")) {
		yaml_val_t *a = iat(l->root, "actions");

		for (size_t i = 0; i < ipairs(a); i++) {
			const char *k = yaml_str(yaml_pair_key(a, i));

			yaml_val_t *v = yaml_pair_value(a, i);

			if (strcmp(k, "deploy") != 0 && strcmp(k, "boot") != 0) {
				inote(&l->notes, iline(yaml_pair_key(a, i)),
				      "actions.%.64s: no labmesh equivalent", k);
				continue;
			}
			for (size_t j = 0; j < ipairs(v); j++) {
				const char *sub = yaml_str(yaml_pair_key(v, j));

				if (strcmp(sub, "methods") != 0 &&
				    !(strcmp(sub, "parameters") == 0 &&
				      istr(v, "parameters.mkimage_arch")))
					inote(&l->notes, iline(yaml_pair_key(v, j)),
					      "actions.%s.%.64s: not mapped (%s)", k, sub,
					      strcmp(sub, "connections") == 0
						      ? "LAVA's connection kinds per action"
						      : "LAVA's per-job settings");
			}
		}
	}
	s_note_rest(l);
	if (!l->ttype && strcmp(l->method, "qemu") != 0 && l->ssh_host)
		l->ttype = "ssh";
	if (strcmp(l->method, "qemu") != 0 && (l->power_on || l->power_off ||
					      l->power_cycle || l->deploy))
		l->method = "command";
	if (l->ttype && strcmp(l->ttype, "serial") == 0 && l->ssh_host)
		inote(&l->notes, 0, "ssh to %.64s not used: the serial console is the "
		      "transport", l->ssh_host);
	if (!l->ttype && strcmp(l->method, "qemu") != 0)
		return s_fail(l, "%s", "nothing usable: no console, ssh or qemu "
			      "boot that labmesh can use");
	r = s_arch(l, o);
	if (r == 0 && !lab_name_valid(l->name))
		r = s_fail(l, "'%.64s' is not a valid board name ([A-Za-z0-9_.-]{1,64}; "
			   "give --name)", l->name);
	return r;
}

int lab_import_lava_text(const char *file, const char *text, size_t len,
			 const lab_import_opts_t *opts, buf_t *out_yaml,
			 char **ret_err)
{
	lab_import_opts_t none = { 0 };
	yaml_tree_t *t = NULL;
	buf_t entry;
	lava_t l;
	int r;

	memset(&l, 0, sizeof(l));
	opts = opts ? opts : &none;
	l.file = file ? file : "(device)";
	inotes_init(&l.notes);
	buf_init(&entry, 0);
	if (text && memmem(text, len, "{% extends", 10)) {
		*ret_err = xasprintf("%s: a device dictionary (jinja2), not a rendered "
				     "device configuration: render it first (scripts/lava-devices, "
				     "or lava-server manage device-dictionary --review)", l.file);
		r = -EINVAL;
		goto out;
	}
	r = yaml_tree_parse(l.file, text ? text : "", text ? len : 0, NULL, &t, ret_err);
	if (r < 0)
		goto out;
	l.root = yaml_tree_root(t);
	l.name = opts->name ? xstrdup(opts->name) : iname_of_file(l.file);
	if (!l.root || ikind(l.root) != YAML_KIND_MAP)
		r = s_fail(&l, "%s", "not a LAVA device configuration (expected a "
			   "mapping)");
	else
		r = s_map(&l, opts);
	if (r == 0) {
		s_write(&l, &entry);
		r = iverify(l.file, &entry, ret_err);
	} else {
		*ret_err = l.err;
		l.err = NULL;
	}
	if (r == 0)
		buf_append(out_yaml, entry.data, entry.len);
out:
	free(l.err);
	free(l.name);
	free(l.tcp);
	free(l.device);
	free(l.cpu);
	free(l.machine);
	free(l.deploy);
	for (size_t i = 0; i < l.n_args; i++)
		free(l.args[i]);
	inotes_free(&l.notes);
	buf_free(&entry);
	yaml_tree_destroy(&t);
	return r;
}

int lab_import_lava_file(const char *path, const lab_import_opts_t *opts,
			 buf_t *out_yaml, char **ret_err)
{
	char *data;
	size_t len;
	int r = iread_file(path, LAB_IMPORT_MAX_BYTES, &data, &len, ret_err);

	if (r < 0)
		return r;
	r = lab_import_lava_text(path, data, len, opts, out_yaml, ret_err);
	free(data);
	return r;
}
