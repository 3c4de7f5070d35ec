/*
 * lab_labgrid: import a labgrid environment configuration (and, for
 * places on a coordinator, the exporter configuration that serves them)
 * as board entries of a lab file, one per usable target.
 *
 * Mapped, per target:
 *   RawSerialPort {port, speed}          serial transport on a tty
 *   USBSerialPort {match}                a tty by DEVNAME or by-path ID_PATH
 *   NetworkSerialPort {host, port,       serial transport over TCP (raw; an
 *     protocol}                          rfc2217 port is read as raw, noted)
 *   NetworkService {address, username,   ssh transport
 *     port}
 *   ExternalPowerDriver {cmd_on,         power_on, power_off, power_cycle of
 *     cmd_off, cmd_cycle}                a command boot
 *   PDUDaemonPort {host, pdu, index}     the same, through pduclient
 *   RemotePlace {name}                   the exporter's group of that name,
 *                                        power through labgrid-client
 *   QEMUDriver {qemu_bin, machine, cpu,  a qemu boot; qemu_bin and the images
 *     memory, extra_args, boot_args,     are looked up in tools: and images:
 *     kernel, initrd, rootfs}
 *   ShellDriver {username, password}     the serial console's login
 * NetworkPowerPort and ManualPowerDriver are named with what to add; every
 * other resource, driver and field is named in a comment. Resources and
 * drivers may be written as a mapping or as a list of one-key mappings.
 * The files are read under the yaml module's limits; nothing is run.
 */
#include "labs/lab_private.h"
#include "labs/lab_import_int.h"
#include "proto/mem.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LG_MAX_TARGETS 256
#define LG_MAX_ARGS 64
#define LG_MAX_COMMAND 4096

typedef struct {
	inotes_t *notes;
	yaml_val_t *env, *exp;
	const char *file;
	char *name;
	const char *arch;
	/* transport */
	const char *ttype; /* "serial", "ssh", NULL */
	char *tcp, *device;
	long baud;
	const char *login, *password;
	const char *ssh_host, *ssh_user, *ssh_password, *ssh_identity;
	long ssh_port;
	/* boot */
	const char *method;
	const char *qemu, *machine, *cpu, *kernel, *initrd, *rootfs, *append;
	long memory, cpus;
	char *args[LG_MAX_ARGS];
	size_t n_args;
	char *power[3]; /* on, off, cycle */
	char *place;
} lgt_t;

static void s_tfree(lgt_t *t)
{
	free(t->name);
	free(t->tcp);
	free(t->device);
	for (size_t i = 0; i < t->n_args; i++)
		free(t->args[i]);
	for (int k = 0; k < 3; k++)
		free(t->power[k]);
	free(t->place);
	memset(t, 0, sizeof(*t));
}

/* ---- walking resources and drivers ------------------------------------------- */

typedef void (*lg_fn)(lgt_t *t, const char *cls, yaml_val_t *attrs, int line);

/* "{Cls: {...}, ...}", "[{Cls: {...}}, ...]", or an exporter group's
 * "name: {cls: Cls, ...}". */
static void s_each(lgt_t *t, yaml_val_t *v, lg_fn fn, bool skip_plain)
{
	if (!v)
		return;
	if (ikind(v) == YAML_KIND_SEQ) {
		for (size_t i = 0; i < iitems(v); i++)
			s_each(t, yaml_item(v, i), fn, skip_plain);
		return;
	}
	if (ikind(v) != YAML_KIND_MAP)
		return;
	for (size_t i = 0; i < ipairs(v); i++) {
		const char *k = yaml_str(yaml_pair_key(v, i));
		yaml_val_t *a = yaml_pair_value(v, i);
		const char *cls = istr(a, "cls");

		if (cls)
			fn(t, cls, a, iline(yaml_pair_key(v, i)));
		else if (!skip_plain || (a && ikind(a) == YAML_KIND_MAP))
			fn(t, k, a, iline(yaml_pair_key(v, i)));
	}
}

/* ---- attributes ----------------------------------------------------------------- */

static const char *s_attr(yaml_val_t *a, const char *key)
{
	const char *s = istr(a, key);

	return s && iprintable(s, LG_MAX_COMMAND) ? s : NULL;
}

static bool s_port(const char *s, long *ret)
{
	char *end;
	long p;

	if (!s || !s[0] || strspn(s, "0123456789") != strlen(s) || strlen(s) > 5)
		return false;
	p = strtol(s, &end, 10);
	if (p < 1 || p > 65535)
		return false;
	*ret = p;
	return true;
}

static long s_speed(lgt_t *t, yaml_val_t *a, int line)
{
	const char *s = s_attr(a, "speed");

	if (!s)
		return 0;
	if (strspn(s, "0123456789") == strlen(s) && strlen(s) <= 8 &&
	    lab_baud_valid(strtol(s, NULL, 10)))
		return strtol(s, NULL, 10);
	inote(t->notes, line, "speed %.16s is not a standard baud rate: 115200 used", s);
	return 0;
}

/* Note the fields of a mapping that are not in known[]. */
static void s_note_fields(lgt_t *t, const char *cls, yaml_val_t *a,
			  const char *const *known)
{
	if (!a || ikind(a) != YAML_KIND_MAP)
		return;
	for (size_t i = 0; i < ipairs(a); i++) {
		const char *k = yaml_str(yaml_pair_key(a, i));
		bool ok = strcmp(k, "name") == 0 || strcmp(k, "cls") == 0;

		for (size_t j = 0; known[j] && !ok; j++)
			ok = strcmp(known[j], k) == 0;
		if (!ok)
			inote(t->notes, iline(yaml_pair_key(a, i)), "%s.%.64s: not mapped",
			      cls, k);
	}
}

/* ---- resources ------------------------------------------------------------------- */

static void s_serial_dev(lgt_t *t, const char *dev, long baud, int line)
{
	if (t->ttype) {
		inote(t->notes, line, "a second console (%.128s) is not mapped", dev);
		return;
	}
	t->device = xstrdup(dev);
	t->baud = baud;
	t->ttype = "serial";
}

static void s_usb_serial(lgt_t *t, yaml_val_t *a, int line)
{
	const char *devname = s_attr(iat(a, "match"), "DEVNAME");
	const char *path = s_attr(iat(a, "match"), "ID_PATH");
	long baud = s_speed(t, a, line);

	if (devname && devname[0] == '/') {
		s_serial_dev(t, devname, baud, line);
	} else if (path && !strchr(path, '/')) {
		char *dev = xasprintf("/dev/serial/by-path/%s-port0", path);

		inote(t->notes, line, "USBSerialPort ID_PATH %.128s: the tty is taken as "
		      "%.160s (check it under /dev/serial/by-path)", path, dev);
		s_serial_dev(t, dev, baud, line);
		free(dev);
	} else {
		inote(t->notes, line, "USBSerialPort: no DEVNAME or ID_PATH in match: give "
		      "the tty (/dev/serial/by-id/...) as transport.device by hand");
	}
}

static void s_net_serial(lgt_t *t, yaml_val_t *a, int line)
{
	const char *host = s_attr(a, "host"), *proto = s_attr(a, "protocol");
	long port = 0;

	if (!host || !lab_host_valid(host) || !s_port(s_attr(a, "port"), &port)) {
		inote(t->notes, line, "NetworkSerialPort: host and port are needed");
		return;
	}
	if (t->ttype) {
		inote(t->notes, line, "a second console (%.64s) is not mapped", host);
		return;
	}
	if (!proto || strcmp(proto, "raw") != 0)
		inote(t->notes, line, "NetworkSerialPort protocol %s: the serial transport "
		      "speaks raw TCP; set the console server's port to raw (ser2net "
		      "\"raw\"/\"telnet(rfc2217)\" off)", proto ? proto : "rfc2217 (labgrid's default)");
	t->tcp = strchr(host, ':') ? xasprintf("[%s]:%ld", host, port)
				   : xasprintf("%s:%ld", host, port);
	t->ttype = "serial";
	if (s_attr(a, "speed"))
		inote(t->notes, line, "NetworkSerialPort speed: set on the console server, "
		      "not here");
}

static void s_net_service(lgt_t *t, yaml_val_t *a, int line)
{
	const char *addr = s_attr(a, "address"), *user = s_attr(a, "username");
	const char *port = s_attr(a, "port");

	if (!addr || !lab_host_valid(addr)) {
		inote(t->notes, line, "NetworkService: no usable address");
		return;
	}
	t->ssh_host = addr;
	if (user && lab_user_valid(user))
		t->ssh_user = user;
	if (port && !s_port(port, &t->ssh_port))
		inote(t->notes, line, "NetworkService port %.16s: not a port, 22 used", port);
	t->ssh_password = s_attr(a, "password");
}

static void s_set_power(lgt_t *t, const char *on, const char *off, const char *cycle)
{
	for (int k = 0; k < 3; k++)
		free(t->power[k]);
	t->power[0] = on ? xstrdup(on) : NULL;
	t->power[1] = off ? xstrdup(off) : NULL;
	t->power[2] = cycle ? xstrdup(cycle) : NULL;
}

static void s_pdudaemon(lgt_t *t, yaml_val_t *a, int line)
{
	const char *host = s_attr(a, "host"), *pdu = s_attr(a, "pdu");
	const char *index = s_attr(a, "index");
	char *c[3];
	static const char *const verb[3] = { "on", "off", "reboot" };

	if (!host || !pdu || !index || !lab_host_valid(host) || !lab_name_valid(pdu) ||
	    strspn(index, "0123456789") != strlen(index)) {
		inote(t->notes, line, "PDUDaemonPort: host, pdu and index are needed");
		return;
	}
	for (int k = 0; k < 3; k++)
		c[k] = xasprintf("pduclient --daemon %s --hostname %s --port %s --command %s",
				 host, pdu, index, verb[k]);
	s_set_power(t, c[0], c[1], c[2]);
	for (int k = 0; k < 3; k++)
		free(c[k]);
}

static void s_resource(lgt_t *t, const char *cls, yaml_val_t *a, int line)
{
	static const char *const raw[] = { "port", "speed", NULL };
	static const char *const net[] = { "host", "port", "speed", "protocol", NULL };
	static const char *const svc[] = { "address", "username", "password", "port", NULL };
	static const char *const usb[] = { "match", "speed", NULL };
	static const char *const pdu[] = { "host", "pdu", "index", NULL };

	if (strcmp(cls, "RawSerialPort") == 0) {
		const char *port = s_attr(a, "port");

		s_note_fields(t, cls, a, raw);
		if (port && port[0] == '/')
			s_serial_dev(t, port, s_speed(t, a, line), line);
		else
			inote(t->notes, line, "RawSerialPort: no port");
	} else if (strcmp(cls, "USBSerialPort") == 0) {
		s_note_fields(t, cls, a, usb);
		s_usb_serial(t, a, line);
	} else if (strcmp(cls, "NetworkSerialPort") == 0) {
		s_note_fields(t, cls, a, net);
		s_net_serial(t, a, line);
	} else if (strcmp(cls, "NetworkService") == 0) {
		s_note_fields(t, cls, a, svc);
		s_net_service(t, a, line);
	} else if (strcmp(cls, "PDUDaemonPort") == 0) {
		s_note_fields(t, cls, a, pdu);
		s_pdudaemon(t, a, line);
	} else if (strcmp(cls, "NetworkPowerPort") == 0) {
		const char *model = s_attr(a, "model"), *host = s_attr(a, "host");
		const char *index = s_attr(a, "index");

		inote(t->notes, line, "NetworkPowerPort %.32s at %.64s index %.16s: labgrid "
		      "drives it from Python; give the board power_on/power_off commands "
		      "for it (pdudaemon has a driver for most models)",
		      model ? model : "?", host ? host : "?", index ? index : "?");
	} else if (strcmp(cls, "ManualPowerPort") == 0) {
		inote(t->notes, line, "ManualPowerPort: a person switches this board; "
		      "it is imported without power control");
	} else if (strcmp(cls, "RemotePlace") == 0) {
		const char *n = s_attr(a, "name");

		if (n && lab_name_valid(n)) {
			free(t->place);
			t->place = xstrdup(n);
		}
	} else if (strcmp(cls, "location") != 0) {
		inote(t->notes, line, "resource %.64s: not mapped", cls);
	}
}

/* ---- drivers ---------------------------------------------------------------------- */

static const char *s_lookup(lgt_t *t, const char *section, const char *key)
{
	yaml_val_t *s = iat(t->env, section);
	const char *v = key ? s_attr(s, key) : NULL;

	return v ? v : NULL;
}

static void s_add_args(lgt_t *t, const char *s)
{
	char *buf, *w[IMPORT_MAX_WORDS];
	size_t n = iwords(s, &buf, w);

	for (size_t i = 0; i < n && t->n_args < LG_MAX_ARGS; i++) {
		if (strcmp(w[i], "-smp") == 0 && i + 1 < n &&
		    strspn(w[i + 1], "0123456789") == strlen(w[i + 1]) &&
		    strlen(w[i + 1]) <= 3 && strtol(w[i + 1], NULL, 10) >= 1 &&
		    strtol(w[i + 1], NULL, 10) <= 512) {
			t->cpus = strtol(w[++i], NULL, 10);
			continue;
		}
		t->args[t->n_args++] = xstrdup(w[i]);
	}
	free(buf);
}

/* A memory size as QEMU's -m takes it ("512M", "1G", "256") in MiB. */
static long s_mib(const char *s)
{
	size_t digits = strspn(s, "0123456789");
	const char *end = s + digits;
	long v;

	if (digits == 0 || digits > 7)
		return 0;
	v = strtol(s, NULL, 10);
	if ((*end == 'G' || *end == 'g') && !end[1])
		v *= 1024;
	else if (*end && ((*end != 'M' && *end != 'm') || end[1]))
		return 0;
	return v >= 16 && v <= 1048576 ? v : 0;
}

static void s_image(lgt_t *t, yaml_val_t *a, const char *key, const char **ret, int line)
{
	const char *k = s_attr(a, key);
	const char *path;

	if (!k)
		return;
	path = s_lookup(t, "images", k);
	if (path)
		*ret = path;
	else
		inote(t->notes, line, "QEMUDriver %s: '%.64s' is not in images:", key, k);
}

static void s_qemu(lgt_t *t, yaml_val_t *a, int line)
{
	static const char *const known[] = { "qemu_bin", "machine", "cpu", "memory",
					     "extra_args", "boot_args", "kernel",
					     "initrd", "rootfs", "disk", "display", NULL };
	const char *bin = s_attr(a, "qemu_bin"), *path = NULL, *s;

	s_note_fields(t, "QEMUDriver", a, known);
	t->method = "qemu";
	if (bin)
		path = s_lookup(t, "tools", bin);
	if (path && iarch_of_qemu(path)) {
		t->qemu = path;
		if (!t->arch)
			t->arch = iarch_of_qemu(path);
	} else if (bin) {
		inote(t->notes, line, "QEMUDriver qemu_bin '%.64s' is not a qemu-system-ARCH "
		      "in tools:", bin);
	}
	t->machine = s_attr(a, "machine");
	t->cpu = s_attr(a, "cpu");
	if ((s = s_attr(a, "memory")) && !(t->memory = s_mib(s)))
		inote(t->notes, line, "QEMUDriver memory '%.32s' not understood", s);
	if ((s = s_attr(a, "extra_args")))
		s_add_args(t, s);
	t->append = s_attr(a, "boot_args");
	s_image(t, a, "kernel", &t->kernel, line);
	s_image(t, a, "initrd", &t->initrd, line);
	s_image(t, a, "rootfs", &t->rootfs, line);
	if (s_attr(a, "disk"))
		s_image(t, a, "disk", &t->rootfs, line);
	if (s_attr(a, "display"))
		inote(t->notes, line, "QEMUDriver display: labmesh runs QEMU without one");
}

static void s_driver(lgt_t *t, const char *cls, yaml_val_t *a, int line)
{
	if (strcmp(cls, "ExternalPowerDriver") == 0) {
		static const char *const known[] = { "cmd_on", "cmd_off", "cmd_cycle",
						     "delay", NULL };
		const char *on = s_attr(a, "cmd_on"), *off = s_attr(a, "cmd_off");

		s_note_fields(t, cls, a, known);

		if (on && off)
			s_set_power(t, on, off, s_attr(a, "cmd_cycle"));
		else
			inote(t->notes, line, "ExternalPowerDriver: cmd_on and cmd_off are "
			      "needed");
		if (s_attr(a, "delay"))
			inote(t->notes, line, "ExternalPowerDriver delay: the power commands "
			      "run one after the other; put a sleep in cmd_cycle if needed");
	} else if (strcmp(cls, "QEMUDriver") == 0) {
		s_qemu(t, a, line);
	} else if (strcmp(cls, "ShellDriver") == 0) {
		static const char *const known[] = { "username", "password", "prompt",
						     "login_prompt", NULL };
		const char *u = s_attr(a, "username"), *p = s_attr(a, "password");

		s_note_fields(t, cls, a, known);

		if (u && lab_user_valid(u)) {
			t->login = u;
			t->password = p && *p ? p : NULL;
		}
		if (s_attr(a, "prompt") || s_attr(a, "login_prompt"))
			inote(t->notes, line, "ShellDriver prompt, login_prompt: not needed, "
			      "the serial transport frames commands with its own markers");
	} else if (strcmp(cls, "ManualPowerDriver") == 0) {
		inote(t->notes, line, "ManualPowerDriver: a person switches this board; "
		      "it is imported without power control");
	} else if (strcmp(cls, "SSHDriver") == 0) {
		static const char *const known[] = { "keyfile", NULL };
		const char *k = s_attr(a, "keyfile");

		s_note_fields(t, cls, a, known);
		if (k && k[0] == '/')
			t->ssh_identity = k;
		else if (k)
			inote(t->notes, line, "SSHDriver keyfile %.128s is relative to "
			      "labgrid's working directory: not imported", k);
	} else if (strcmp(cls, "SerialDriver") == 0 ||
		   strcmp(cls, "NetworkPowerDriver") == 0 ||
		   strcmp(cls, "PDUDaemonDriver") == 0) {
		/* the resource carries what labmesh needs */
	} else {
		inote(t->notes, line, "driver %.64s: not mapped", cls);
	}
}

/* ---- a target --------------------------------------------------------------------- */

/* RemotePlace: the exporter's group of the same name stands for the
 * place's resources; its power goes through the coordinator. */
static void s_place(lgt_t *t, int line)
{
	yaml_val_t *g = t->exp ? iat(t->exp, t->place) : NULL;
	char *c[3];
	static const char *const verb[3] = { "on", "off", "cycle" };

	if (!g) {
		inote(t->notes, line, "RemotePlace %.64s: %s", t->place,
		      t->exp ? "no group of that name in the exporter configuration"
			     : "give --exporter EXPORTER.yaml to map its resources");
		return;
	}
	for (size_t i = 0; i < ipairs(g); i++) {
		const char *k = yaml_str(yaml_pair_key(g, i));
		yaml_val_t *a = yaml_pair_value(g, i);
		const char *cls = istr(a, "cls") ? istr(a, "cls") : k;
		int l = iline(yaml_pair_key(g, i));

		if (strcmp(cls, "RawSerialPort") == 0 || strcmp(cls, "USBSerialPort") == 0)
			inote(t->notes, 0, "exporter line %d: exported %s: labgrid-exporter "
			      "serves it with "
			      "ser2net on a port it picks; give that port as transport.tcp "
			      "(labgrid-client -p %s show)", l, cls, t->place);
		else if (strcmp(cls, "NetworkPowerPort") == 0 ||
			 strcmp(cls, "PDUDaemonPort") == 0 ||
			 strcmp(cls, "YKUSHPowerPort") == 0 ||
			 strcmp(cls, "USBPowerPort") == 0) {
			for (int k2 = 0; k2 < 3; k2++)
				c[k2] = xasprintf("labgrid-client -p %s power %s", t->place,
						  verb[k2]);
			s_set_power(t, c[0], c[1], c[2]);
			for (int k2 = 0; k2 < 3; k2++)
				free(c[k2]);
			inote(t->notes, 0, "exporter line %d: exported %s: power through "
			      "the coordinator (labgrid-client -p %s power ...)", l, cls,
			      t->place);
		} else
			s_resource(t, cls, a, l);
	}
}

static int s_target(lgt_t *t, const lab_import_opts_t *o, yaml_val_t *tv, int line)
{
	t->method = "none";
	s_each(t, iat(tv, "resources"), s_resource, false);
	s_each(t, iat(tv, "drivers"), s_driver, false);
	if (t->place)
		s_place(t, line);
	for (size_t i = 0; tv && ikind(tv) == YAML_KIND_MAP && i < ipairs(tv); i++) {
		const char *k = yaml_str(yaml_pair_key(tv, i));

		if (strcmp(k, "resources") != 0 && strcmp(k, "drivers") != 0)
			inote(t->notes, iline(yaml_pair_key(tv, i)), "targets.%.64s.%.64s: "
			      "not mapped", t->name, k);
	}
	if (strcmp(t->method, "qemu") == 0) {
		if (t->ttype || t->ssh_host)
			inote(t->notes, line, "the QEMU console is the transport: the other "
			      "console/ssh resources are not used");
		t->ttype = NULL;
		if (t->power[0])
			inote(t->notes, line, "power commands not used: the qemu boot powers "
			      "the board");
		s_set_power(t, NULL, NULL, NULL);
	} else {
		if (!t->ttype && t->ssh_host)
			t->ttype = "ssh";
		if (t->power[0])
			t->method = "command";
	}
	if (!t->ttype && strcmp(t->method, "qemu") != 0)
		return -ENOENT;
	if (o->arch)
		t->arch = o->arch;
	if (!t->arch)
		return -EDOM;
	return 0;
}

static void s_write(const lgt_t *t, buf_t *out)
{
	static const char *const keys[3] = { "power_on", "power_off", "power_cycle" };
	char *d = xasprintf("labgrid target %s", t->name);

	buf_printf(out, "  - name: %s\n    arch: %s\n", t->name, t->arch);
	ifield(out, 4, "description", d);
	free(d);
	buf_puts(out, "    tags: [labgrid]\n");
	if (t->ttype && strcmp(t->ttype, "serial") == 0) {
		buf_puts(out, "    transport:\n      type: serial\n");
		if (t->tcp) {
			ifield(out, 6, "tcp", t->tcp);
		} else {
			ifield(out, 6, "device", t->device);
			buf_printf(out, "      baud: %ld\n", t->baud ? t->baud : 115200);
		}
		ifield(out, 6, "login", t->login);
		ifield(out, 6, "password", t->login ? t->password : NULL);
	} else if (t->ttype) {
		buf_puts(out, "    transport:\n      type: ssh\n");
		ifield(out, 6, "host", t->ssh_host);
		if (t->ssh_port && t->ssh_port != 22)
			buf_printf(out, "      port: %ld\n", t->ssh_port);
		ifield(out, 6, "user", t->ssh_user);
		ifield(out, 6, "identity", t->ssh_identity);
		ifield(out, 6, "password", t->ssh_password && *t->ssh_password
						   ? t->ssh_password : NULL);
	} else {
		buf_puts(out, "    transport: {type: serial, console: qemu}\n");
	}
	buf_printf(out, "    boot:\n      method: %s\n", t->method);
	if (strcmp(t->method, "qemu") == 0) {
		ifield(out, 6, "qemu", t->qemu);
		ifield(out, 6, "machine", t->machine);
		ifield(out, 6, "cpu", t->cpu);
		if (t->memory)
			buf_printf(out, "      memory: %ld\n", t->memory);
		if (t->cpus)
			buf_printf(out, "      cpus: %ld\n", t->cpus);
		ifield(out, 6, "kernel", t->kernel);
		ifield(out, 6, "initrd", t->initrd);
		ifield(out, 6, "rootfs", t->rootfs);
		ifield(out, 6, "append", t->append);
		if (t->n_args) {
			buf_puts(out, "      args: [");
			for (size_t i = 0; i < t->n_args; i++) {
				buf_puts(out, i ? ", " : "");
				iquote(out, t->args[i]);
			}
			buf_puts(out, "]\n");
		}
	} else if (strcmp(t->method, "command") == 0) {
		for (int k = 0; k < 3; k++)
			ifield(out, 6, keys[k], t->power[k]);
	}
}

/* ---- entry points ------------------------------------------------------------------- */

typedef struct {
	const char *file;
	char *err;
} lgctx_t;

static int s_fail(lgctx_t *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int s_fail(lgctx_t *c, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ivfail(&c->err, c->file, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static int s_targets(lgctx_t *c, yaml_val_t *env, yaml_val_t *exp,
		     const lab_import_opts_t *o, buf_t *out)
{
	yaml_val_t *targets = iat(env, "targets");
	inotes_t top;
	size_t done = 0, seen = 0;
	int r = 0;

	if (!targets || ikind(targets) != YAML_KIND_MAP || yaml_len(targets) == 0)
		return s_fail(c, "%s", "no targets: (not a labgrid environment)");
	if (yaml_len(targets) > LG_MAX_TARGETS)
		return s_fail(c, "more than %d targets", LG_MAX_TARGETS);
	inotes_init(&top);
	buf_printf(out, "# Imported from the labgrid environment %s.\n"
			"# Paste under \"boards:\" in a lab file.\n", c->file);
	for (size_t i = 0; i < ipairs(env); i++) {
		const char *k = yaml_str(yaml_pair_key(env, i));

		if (strcmp(k, "targets") != 0 && strcmp(k, "tools") != 0 &&
		    strcmp(k, "images") != 0)
			inote(&top, iline(yaml_pair_key(env, i)), "%.64s: not mapped", k);
	}
	buf_append(out, top.notes.data ? top.notes.data : (const uint8_t *)"",
		   top.notes.len);
	for (size_t i = 0; i < ipairs(targets); i++) {
		const char *tname = yaml_str(yaml_pair_key(targets, i));
		int line = iline(yaml_pair_key(targets, i));
		inotes_t notes;
		lgt_t t;
		int tr;

		if (o->name && strcmp(o->name, tname) != 0)
			continue;
		seen++;
		memset(&t, 0, sizeof(t));
		inotes_init(&notes);
		t.notes = &notes;
		t.env = env;
		t.exp = exp;
		t.file = c->file;
		/* "main" is labgrid's name for the only target: use the file's */
		t.name = strcmp(tname, "main") == 0 && yaml_len(targets) == 1
				 ? iname_of_file(c->file) : xstrdup(tname);
		tr = lab_name_valid(t.name) ? s_target(&t, o, yaml_pair_value(targets, i), line)
					    : -EBADMSG;
		buf_printf(out, "# target %s (line %d)\n", tname, line);
		buf_append(out, notes.notes.data ? notes.notes.data : (const uint8_t *)"",
			   notes.notes.len);
		if (tr == 0) {
			s_write(&t, out);
			done++;
		} else {
			buf_printf(out, "# not imported: %s\n",
				   tr == -ENOENT ? "no serial port, NetworkService or QEMUDriver"
				   : tr == -EDOM ? "cannot tell its arch (give --arch)"
						 : "not a valid board name");
		}
		s_tfree(&t);
		inotes_free(&notes);
	}
	inotes_free(&top);
	if (o->name && !seen)
		r = s_fail(c, "no target '%.64s'", o->name);
	else if (!done)
		r = s_fail(c, "%s", "nothing usable: no target has a serial port, "
			   "NetworkService or QEMUDriver labmesh can use (or its arch is "
			   "unknown: give --arch)");
	return r;
}

int lab_import_labgrid_text(const char *file, const char *text, size_t len,
			    const char *exp_file, const char *exp_text,
			    size_t exp_len, const lab_import_opts_t *opts,
			    buf_t *out_yaml, char **ret_err)
{
	lab_import_opts_t none = { 0 };
	yaml_tree_t *env = NULL, *exp = NULL;
	lgctx_t c = { .file = file ? file : "(env)" };
	buf_t entry;
	int r;

	opts = opts ? opts : &none;
	if (opts->arch && !lab_arch_valid(opts->arch)) {
		*ret_err = xasprintf("--arch: unknown arch '%.64s'", opts->arch);
		return -EINVAL;
	}
	buf_init(&entry, 0);
	r = yaml_tree_parse(c.file, text ? text : "", text ? len : 0, NULL, &env, ret_err);
	if (r == 0 && exp_text)
		r = yaml_tree_parse(exp_file ? exp_file : "(exporter)", exp_text, exp_len,
				    NULL, &exp, ret_err);
	if (r < 0)
		goto out;
	if (!yaml_tree_root(env) || ikind(yaml_tree_root(env)) != YAML_KIND_MAP)
		r = s_fail(&c, "%s", "not a labgrid environment (expected a mapping)");
	else
		r = s_targets(&c, yaml_tree_root(env), exp ? yaml_tree_root(exp) : NULL,
			      opts, &entry);
	if (r == 0)
		r = iverify(c.file, &entry, ret_err);
	else {
		*ret_err = c.err;
		c.err = NULL;
	}
	if (r == 0)
		buf_append(out_yaml, entry.data, entry.len);
out:
	free(c.err);
	buf_free(&entry);
	yaml_tree_destroy(&env);
	yaml_tree_destroy(&exp);
	return r;
}

int lab_import_labgrid_file(const char *path, const lab_import_opts_t *opts,
			    buf_t *out_yaml, char **ret_err)
{
	char *data = NULL, *exp = NULL;
	size_t len = 0, exp_len = 0;
	int r = iread_file(path, LAB_IMPORT_MAX_BYTES, &data, &len, ret_err);

	if (r == 0 && opts && opts->exporter)
		r = iread_file(opts->exporter, LAB_IMPORT_MAX_BYTES, &exp, &exp_len, ret_err);
	if (r == 0)
		r = lab_import_labgrid_text(path, data, len, opts ? opts->exporter : NULL,
					    exp, exp_len, opts, out_yaml, ret_err);
	free(data);
	free(exp);
	return r;
}
