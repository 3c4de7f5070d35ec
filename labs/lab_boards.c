/*
 * lab_boards: the boards section of a lab file — each board's identity,
 * transport (local, ssh, serial, adb), boot method (none, qemu, command)
 * and criteria overrides — plus the criteria reader suite.yaml shares.
 *
 * Each reader fills one struct from one mapping, applies defaults first,
 * and ends with yaml_check_unknown() on its mapping; cross-field rules
 * (qemu boot needs the qemu console, a password needs a login...) are
 * checked once the fields are read.
 */
#include "labs/lab_private.h"
#include "proto/mem.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define LAB_CONNECT_TIMEOUT_S 30
#define LAB_MAX_CONNECT_TIMEOUT_S 3600
#define LAB_BOOT_TIMEOUT_S 120
#define LAB_COMMAND_TIMEOUT_S 300
#define LAB_MAX_TIMEOUT_S 86400
#define LAB_MAX_MEMORY_MB (1024 * 1024)
#define LAB_MAX_CPUS 512
#define LAB_MAX_COUNT 1000000

/* ---- freeing --------------------------------------------------------------- */

void lab_criteria_init(lab_criteria_t *c)
{
	memset(c, 0, sizeof(*c));
	c->max_fail = -1;
	c->min_pass = -1;
}

void lab_criteria_free(lab_criteria_t *c)
{
	if (!c)
		return;
	free(c->suite);
	yaml_strlist_free(&c->must_pass, c->n_must_pass);
	for (size_t i = 0; i < c->n_fail_ok; i++) {
		free(c->fail_ok[i].path);
		free(c->fail_ok[i].reason);
	}
	free(c->fail_ok);
	for (size_t i = 0; i < c->n_metrics; i++)
		free(c->metrics[i].name);
	free(c->metrics);
	lab_criteria_init(c);
}

static void s_transport_free(lab_transport_t *t)
{
	free(t->host);
	free(t->user);
	free(t->identity);
	free(t->password);
	free(t->known_hosts);
	free(t->device);
	free(t->tcp_host);
	free(t->login);
	free(t->login_password);
	free(t->adb_serial);
	free(t->workdir);
}

static void s_boot_free(lab_boot_t *b)
{
	free(b->qemu);
	free(b->machine);
	free(b->cpu);
	free(b->kernel);
	free(b->initrd);
	free(b->rootfs);
	free(b->append);
	yaml_strlist_free(&b->qemu_args, b->n_qemu_args);
	free(b->deploy);
	free(b->power_on);
	free(b->power_off);
	free(b->power_cycle);
}

void lab_board_free(lab_board_t *b)
{
	free(b->name);
	free(b->arch);
	free(b->machine);
	free(b->description);
	yaml_strlist_free(&b->tags, b->n_tags);
	s_transport_free(&b->transport);
	s_boot_free(&b->boot);
	for (size_t i = 0; i < b->n_criteria; i++)
		lab_criteria_free(&b->criteria[i]);
	free(b->criteria);
	yaml_strlist_free(&b->submitters, b->n_submitters);
	free(b->health_cmd);
	memset(b, 0, sizeof(*b));
}

/* ---- criteria --------------------------------------------------------------- */

static bool s_case_valid(const char *s)
{
	size_t n = strlen(s);

	return n >= 1 && n <= 256 && lab_text_line_ok(s) && !strchr(s, ' ');
}

static int s_load_fail_ok(yaml_val_t *v, lab_fail_ok_t *f)
{
	int r = yaml_expect(v, YAML_KIND_MAP);

	if (r < 0)
		return r;
	r = lab_get_checked(v, "case", YAML_REQUIRED, 256, s_case_valid,
			    "case path", &f->path);
	if (r < 0)
		return r;
	r = lab_get_text(v, "reason", YAML_REQUIRED, LAB_MAX_STR, false,
			 &f->reason);
	if (r < 0)
		return r;
	return yaml_check_unknown(v);
}

static int s_load_metric(yaml_val_t *v, lab_metric_rule_t *m)
{
	static const char *const ops[] = { "lt", "le", "gt", "ge", "range" };
	yaml_val_t *found = NULL;
	int r = yaml_expect(v, YAML_KIND_MAP);

	if (r < 0)
		return r;
	r = lab_get_checked(v, "name", YAML_REQUIRED, 128, s_case_valid,
			    "metric name", &m->name);
	if (r < 0)
		return r;
	for (int i = 0; i < 5; i++) {
		yaml_val_t *x = yaml_get(v, ops[i]);

		if (!x)
			continue;
		if (found)
			return yaml_fail(x, "only one of lt, le, gt, ge, range may be given");
		found = x;
		m->op = (enum lab_metric_op)i;
	}
	if (!found)
		return yaml_fail(v, "a metric rule needs one of lt, le, gt, ge, range");
	if (m->op != LAB_OP_RANGE) {
		r = yaml_to_double(found, &m->lo);
	} else if (yaml_kind(found) != YAML_KIND_SEQ || yaml_len(found) != 2) {
		r = yaml_fail(found, "a range is a list of two numbers [LOW, HIGH]");
	} else {
		r = yaml_to_double(yaml_item(found, 0), &m->lo);
		if (r == 0)
			r = yaml_to_double(yaml_item(found, 1), &m->hi);
		if (r == 0 && m->lo > m->hi)
			r = yaml_fail(found, "the range's low bound is above its high bound");
	}
	if (r < 0)
		return r;
	return yaml_check_unknown(v);
}

static int s_load_fail_oks(yaml_val_t *map, lab_criteria_t *c)
{
	yaml_val_t *seq = NULL;
	size_t n;
	int r = yaml_get_seq(map, "fail_ok", YAML_OPTIONAL, &seq);

	if (r <= 0 || !(n = yaml_len(seq)))
		return r < 0 ? r : 0;
	if (n > LAB_MAX_LIST)
		return yaml_fail(seq, "too many entries (%zu, at most %d)", n,
				 LAB_MAX_LIST);
	c->fail_ok = xcalloc(n, sizeof(*c->fail_ok));
	for (size_t i = 0; i < n; i++) {
		c->n_fail_ok = i + 1;
		r = s_load_fail_ok(yaml_item(seq, i), &c->fail_ok[i]);
		if (r < 0)
			return r;
	}
	return 0;
}

static int s_load_metrics(yaml_val_t *map, lab_criteria_t *c)
{
	yaml_val_t *seq = NULL;
	size_t n;
	int r = yaml_get_seq(map, "metrics", YAML_OPTIONAL, &seq);

	if (r <= 0 || !(n = yaml_len(seq)))
		return r < 0 ? r : 0;
	if (n > LAB_MAX_LIST)
		return yaml_fail(seq, "too many metric rules (%zu, at most %d)",
				 n, LAB_MAX_LIST);
	c->metrics = xcalloc(n, sizeof(*c->metrics));
	for (size_t i = 0; i < n; i++) {
		c->n_metrics = i + 1;
		r = s_load_metric(yaml_item(seq, i), &c->metrics[i]);
		if (r < 0)
			return r;
	}
	return 0;
}

int lab_criteria_read(yaml_val_t *map, bool with_suite, lab_criteria_t *ret)
{
	lab_criteria_t c;
	int r = yaml_expect(map, YAML_KIND_MAP);

	if (r < 0)
		return r;
	lab_criteria_init(&c);
	c.line = yaml_line(map);
	if (with_suite)
		r = lab_get_checked(map, "suite", YAML_REQUIRED, LAB_MAX_NAME,
				    lab_name_valid, "suite name", &c.suite);
	if (r >= 0)
		r = yaml_get_int(map, "max_fail", YAML_OPTIONAL, 0, LAB_MAX_COUNT,
				 &c.max_fail);
	if (r >= 0)
		r = yaml_get_int(map, "min_pass", YAML_OPTIONAL, 0, LAB_MAX_COUNT,
				 &c.min_pass);
	if (r >= 0)
		r = lab_get_list(map, "must_pass", LAB_MAX_LIST, 256, s_case_valid,
				 "case path", &c.must_pass, &c.n_must_pass);
	if (r >= 0)
		r = s_load_fail_oks(map, &c);
	if (r >= 0)
		r = s_load_metrics(map, &c);
	if (r >= 0)
		r = yaml_check_unknown(map);
	if (r < 0) {
		lab_criteria_free(&c);
		return r;
	}
	*ret = c;
	return 0;
}

static int s_load_criteria(yaml_val_t *board, lab_board_t *b)
{
	yaml_val_t *seq = NULL;
	size_t n;
	int r = yaml_get_seq(board, "criteria", YAML_OPTIONAL, &seq);

	if (r <= 0 || !(n = yaml_len(seq)))
		return r < 0 ? r : 0;
	if (n > LAB_MAX_CRITERIA)
		return yaml_fail(seq, "too many criteria (%zu, at most %d)", n,
				 LAB_MAX_CRITERIA);
	b->criteria = xcalloc(n, sizeof(*b->criteria));
	for (size_t i = 0; i < n; i++) {
		yaml_val_t *item = yaml_item(seq, i);

		r = lab_criteria_read(item, true, &b->criteria[i]);
		if (r < 0)
			return r;
		b->n_criteria = i + 1;
		for (size_t k = 0; k < i; k++)
			if (strcmp(b->criteria[k].suite, b->criteria[i].suite) == 0)
				return yaml_fail(yaml_map_peek(item, "suite"),
						 "criteria for suite '%s' already given at line %d",
						 b->criteria[i].suite,
						 b->criteria[k].line);
	}
	return 0;
}

/* ---- transports ------------------------------------------------------------- */

static int s_load_ssh(yaml_val_t *m, const char *dir, lab_transport_t *t)
{
	int r;

	if (!yaml_map_peek(m, "host") || yaml_is_null(yaml_map_peek(m, "host")))
		return yaml_fail_field(m, "host", "required for an ssh transport");
	r = lab_get_checked(m, "host", YAML_REQUIRED, LAB_MAX_HOST, lab_host_valid,
			    "host name or address", &t->host);
	if (r >= 0)
		r = yaml_get_int(m, "port", YAML_OPTIONAL, 1, 65535, &t->port);
	if (r >= 0)
		r = lab_get_checked(m, "user", YAML_OPTIONAL, 32, lab_user_valid,
				    "user name", &t->user);
	if (r >= 0)
		r = lab_get_path(m, "identity", YAML_OPTIONAL, dir, &t->identity);
	if (r >= 0)
		r = lab_get_text(m, "password", YAML_OPTIONAL, 256, false,
				 &t->password);
	if (r >= 0)
		r = lab_get_path(m, "known_hosts", YAML_OPTIONAL, dir,
				 &t->known_hosts);
	return r < 0 ? r : 0;
}

/* tcp: HOST:PORT into tcp_host (brackets of an IPv6 address removed) and
 * tcp_port. */
static int s_load_tcp(yaml_val_t *m, lab_transport_t *t)
{
	char *hp = NULL, *colon;
	int r = lab_get_checked(m, "tcp", YAML_REQUIRED, LAB_MAX_HOST + 8,
				lab_hostport_valid, "address (HOST:PORT)", &hp);

	if (r < 0)
		return r;
	colon = strrchr(hp, ':');
	*colon = '\0';
	t->tcp_port = atoi(colon + 1);
	if (hp[0] == '[')
		t->tcp_host = xstrndup(hp + 1, strlen(hp) - 2);
	else
		t->tcp_host = xstrdup(hp);
	free(hp);
	return 0;
}

static int s_serial_kind(yaml_val_t *m, enum lab_serial_kind *ret)
{
	static const char *const keys[] = { "device", "pty", "socket", "tcp",
					    "console" };
	yaml_val_t *found = NULL;

	for (int i = 0; i < 5; i++) {
		yaml_val_t *v = yaml_map_peek(m, keys[i]);

		if (!v || yaml_is_null(v))
			continue;
		if (found)
			return yaml_fail(v, "only one of device, pty, socket, tcp, "
					    "console may be given");
		found = v;
		*ret = (enum lab_serial_kind)i;
	}
	if (!found)
		return yaml_fail(m, "a serial transport needs one of device, pty, "
				    "socket, tcp or console");
	return 0;
}

static int s_abs_device(yaml_val_t *m, const char *key, lab_transport_t *t)
{
	int r = lab_get_text(m, key, YAML_REQUIRED, LAB_MAX_PATH, false,
			     &t->device);

	if (r < 0)
		return r;
	t->device_line = yaml_line(yaml_map_peek(m, key));
	if (t->device[0] != '/')
		return yaml_fail(yaml_map_peek(m, key),
				 "'%.64s' is not an absolute path (e.g. /dev/ttyUSB0)",
				 t->device);
	return 0;
}

static int s_load_serial(yaml_val_t *m, const char *dir, lab_transport_t *t)
{
	static const char *const consoles[] = { "qemu", NULL };
	yaml_val_t *baud;
	int c, r = s_serial_kind(m, &t->serial_kind);

	if (r < 0)
		return r;
	switch (t->serial_kind) {
	case LAB_SERIAL_TTY:
	case LAB_SERIAL_PTY:
		r = s_abs_device(m, t->serial_kind == LAB_SERIAL_TTY ? "device" : "pty", t);
		break;
	case LAB_SERIAL_UNIX:
		r = lab_get_path(m, "socket", YAML_REQUIRED, dir, &t->device);
		break;
	case LAB_SERIAL_TCP:
		r = s_load_tcp(m, t);
		break;
	case LAB_SERIAL_QEMU:
		r = yaml_get_enum(m, "console", YAML_REQUIRED, "console", consoles, &c);
		break;
	}
	if (r < 0)
		return r;
	baud = yaml_get(m, "baud");
	if (baud && t->serial_kind != LAB_SERIAL_TTY)
		return yaml_fail(baud, "a baud rate applies to a serial device only");
	if (baud) {
		long long rate;

		r = yaml_to_ll(baud, 1, 100000000, &rate);
		if (r < 0)
			return r;
		if (!lab_baud_valid((long)rate))
			return yaml_fail(baud, "%lld is not a standard baud rate "
					       "(e.g. 9600, 115200, 921600)", rate);
		t->baud = (int)rate;
	}
	r = lab_get_checked(m, "login", YAML_OPTIONAL, 32, lab_user_valid,
			    "login name", &t->login);
	if (r >= 0)
		r = lab_get_text(m, "password", YAML_OPTIONAL, 256, false,
				 &t->login_password);
	if (r >= 0 && t->login_password && !t->login)
		r = yaml_fail(yaml_map_peek(m, "password"), "a password needs a login");
	return r < 0 ? r : 0;
}

static int s_load_transport(yaml_val_t *m, const char *dir, lab_transport_t *t)
{
	static const char *const types[] = { "local", "ssh", "serial", "adb", NULL };
	int type, r = yaml_expect(m, YAML_KIND_MAP);

	if (r < 0)
		return r;
	t->line = yaml_line(m);
	r = yaml_get_enum(m, "type", YAML_REQUIRED, "transport", types, &type);
	if (r < 0)
		return r;
	t->type = (enum lab_transport_type)type;
	t->connect_timeout_s = LAB_CONNECT_TIMEOUT_S;
	if (t->type == LAB_TRANSPORT_SSH)
		t->port = 22;
	if (t->type == LAB_TRANSPORT_SERIAL)
		t->baud = 115200;
	switch (t->type) {
	case LAB_TRANSPORT_LOCAL:
		break;
	case LAB_TRANSPORT_SSH:
		r = s_load_ssh(m, dir, t);
		break;
	case LAB_TRANSPORT_SERIAL:
		r = s_load_serial(m, dir, t);
		break;
	case LAB_TRANSPORT_ADB:
		r = lab_get_checked(m, "serial", YAML_OPTIONAL, 128,
				    lab_adb_serial_valid, "adb serial", &t->adb_serial);
		break;
	}
	if (r < 0)
		return r;
	if (t->type == LAB_TRANSPORT_SERIAL && t->serial_kind != LAB_SERIAL_TTY)
		t->baud = 0;
	r = lab_get_text(m, "workdir", YAML_OPTIONAL, LAB_MAX_PATH, false, &t->workdir);
	if (r > 0 && t->workdir[0] != '/')
		r = yaml_fail(yaml_map_peek(m, "workdir"),
			      "the target directory must be an absolute path");
	if (r >= 0)
		r = yaml_get_int(m, "connect_timeout", YAML_OPTIONAL, 1,
				 LAB_MAX_CONNECT_TIMEOUT_S, &t->connect_timeout_s);
	if (r < 0)
		return r;
	return yaml_check_unknown(m);
}

/* ---- boot methods ----------------------------------------------------------- */

/* An option value that can never be read as an option itself. */
static bool s_word_ok(const char *s)
{
	return s[0] && s[0] != '-' && lab_text_line_ok(s);
}

static int s_load_qemu(yaml_val_t *m, const char *dir, const char *arch,
		       lab_boot_t *b)
{
	int r = lab_get_checked(m, "qemu", YAML_OPTIONAL, LAB_MAX_PATH, s_word_ok,
				"QEMU binary", &b->qemu);

	b->qemu_line = r > 0 ? yaml_line(yaml_map_peek(m, "qemu")) : yaml_line(m);
	if (r >= 0 && !b->qemu)
		b->qemu = xstrdup(lab_arch_qemu(arch));
	if (r > 0 && b->qemu[0] != '/' && strchr(b->qemu, '/')) {
		char *abs = xasprintf("%s/%s", dir, b->qemu);

		free(b->qemu);
		b->qemu = abs;
	}
	if (r >= 0)
		r = lab_get_checked(m, "machine", YAML_OPTIONAL, 128, s_word_ok,
				    "QEMU machine", &b->machine);
	if (r >= 0)
		r = lab_get_checked(m, "cpu", YAML_OPTIONAL, 128, s_word_ok,
				    "QEMU cpu", &b->cpu);
	if (r >= 0)
		r = yaml_get_int(m, "memory", YAML_OPTIONAL, 16, LAB_MAX_MEMORY_MB,
				 &b->memory_mb);
	if (r >= 0)
		r = yaml_get_int(m, "cpus", YAML_OPTIONAL, 1, LAB_MAX_CPUS, &b->cpus);
	if (r >= 0)
		r = lab_get_path(m, "kernel", YAML_OPTIONAL, dir, &b->kernel);
	if (r >= 0)
		r = lab_get_path(m, "initrd", YAML_OPTIONAL, dir, &b->initrd);
	if (r >= 0)
		r = lab_get_path(m, "rootfs", YAML_OPTIONAL, dir, &b->rootfs);
	if (r >= 0)
		r = lab_get_text(m, "append", YAML_OPTIONAL, 4096, false, &b->append);
	if (r >= 0)
		r = lab_get_list(m, "args", LAB_MAX_LIST, LAB_MAX_STR, NULL,
				 "QEMU argument", &b->qemu_args, &b->n_qemu_args);
	if (r >= 0)
		r = yaml_get_int(m, "timeout", YAML_OPTIONAL, 1, LAB_MAX_TIMEOUT_S,
				 &b->boot_timeout_s);
	return r < 0 ? r : 0;
}

static int s_load_command(yaml_val_t *m, lab_boot_t *b)
{
	static const char *const keys[] = { "deploy", "power_on", "power_off",
					    "power_cycle" };
	char **dst[] = { &b->deploy, &b->power_on, &b->power_off, &b->power_cycle };
	bool any = false;
	int r = 0;

	for (int i = 0; i < 4 && r >= 0; i++) {
		r = lab_get_text(m, keys[i], YAML_OPTIONAL, LAB_MAX_COMMAND, true,
				 dst[i]);
		any = any || r > 0;
	}
	if (r >= 0 && !any)
		r = yaml_fail(m, "a command boot needs at least one of deploy, "
				 "power_on, power_off, power_cycle");
	if (r >= 0)
		r = yaml_get_int(m, "timeout", YAML_OPTIONAL, 1, LAB_MAX_TIMEOUT_S,
				 &b->command_timeout_s);
	if (r >= 0)
		r = yaml_get_int(m, "boot_timeout", YAML_OPTIONAL, 1,
				 LAB_MAX_TIMEOUT_S, &b->boot_timeout_s);
	return r < 0 ? r : 0;
}

static int s_load_boot(yaml_val_t *m, const char *dir, const char *arch,
		       lab_boot_t *b)
{
	static const char *const methods[] = { "none", "qemu", "command", NULL };
	int method = 0, r;

	b->memory_mb = 512;
	b->cpus = 1;
	b->boot_timeout_s = LAB_BOOT_TIMEOUT_S;
	b->command_timeout_s = LAB_COMMAND_TIMEOUT_S;
	if (!m)
		return 0;
	r = yaml_expect(m, YAML_KIND_MAP);
	if (r < 0)
		return r;
	b->line = yaml_line(m);
	r = yaml_get_enum(m, "method", YAML_REQUIRED, "boot method", methods, &method);
	if (r < 0)
		return r;
	b->method = (enum lab_boot_method)method;
	if (b->method == LAB_BOOT_QEMU)
		r = s_load_qemu(m, dir, arch, b);
	else if (b->method == LAB_BOOT_COMMAND)
		r = s_load_command(m, b);
	if (r < 0)
		return r;
	return yaml_check_unknown(m);
}

/* ---- boards ----------------------------------------------------------------- */

/* A board with qemu boot talks over the console of that QEMU: when no
 * transport is given it is set to {type: serial, console: qemu}; any
 * other transport is an error. The qemu console without qemu boot is an
 * error too. */
static int s_check_qemu(yaml_val_t *board, yaml_val_t *tm, lab_board_t *b)
{
	lab_transport_t *t = &b->transport;
	bool console = t->type == LAB_TRANSPORT_SERIAL &&
		       t->serial_kind == LAB_SERIAL_QEMU;

	if (b->boot.method == LAB_BOOT_QEMU && !tm) {
		t->type = LAB_TRANSPORT_SERIAL;
		t->serial_kind = LAB_SERIAL_QEMU;
		t->connect_timeout_s = LAB_CONNECT_TIMEOUT_S;
		t->line = b->line;
		return 0;
	}
	if (!tm)
		return lab_fail_missing(board, "transport");
	if (b->boot.method == LAB_BOOT_QEMU && !console)
		return yaml_fail(tm, "a qemu boot needs the transport "
				     "{type: serial, console: qemu}");
	if (console && b->boot.method != LAB_BOOT_QEMU)
		return yaml_fail(yaml_map_peek(tm, "console"),
				 "the qemu console needs boot method qemu");
	return 0;
}

static int s_load_identity(yaml_val_t *m, lab_board_t *b)
{
	int a, r;

	r = lab_get_checked(m, "name", YAML_REQUIRED, LAB_MAX_NAME, lab_name_valid,
			    "board name ([A-Za-z0-9_.-]{1,64})", &b->name);
	if (r >= 0)
		r = yaml_get_enum(m, "arch", YAML_REQUIRED, "arch", lab_arch_list(), &a);
	if (r < 0)
		return r;
	b->arch = xstrdup(lab_arch_list()[a]);
	r = lab_get_text(m, "machine", YAML_OPTIONAL, 128, false, &b->machine);
	if (r >= 0)
		r = lab_get_text(m, "description", YAML_OPTIONAL, LAB_MAX_STR, false,
				 &b->description);
	if (r >= 0)
		r = lab_get_list(m, "tags", LAB_MAX_LIST, LAB_MAX_NAME, lab_tag_valid,
				 "tag", &b->tags, &b->n_tags);
	if (r >= 0 && yaml_map_peek(m, "submitters") &&
	    yaml_kind(yaml_map_peek(m, "submitters")) == YAML_KIND_SEQ &&
	    yaml_len(yaml_map_peek(m, "submitters")) == 0)
		r = yaml_fail(yaml_map_peek(m, "submitters"),
			      "an empty list would let no one in; leave the field "
			      "out to follow the lab policy");
	if (r >= 0)
		r = lab_get_list(m, "submitters", LAB_MAX_LIST, 64, lab_key_valid,
				 "key id (64 hex digits)", &b->submitters,
				 &b->n_submitters);
	for (size_t i = 0; r >= 0 && i < b->n_submitters; i++)
		for (char *p = b->submitters[i]; *p; p++)
			*p = (char)tolower((unsigned char)*p);
	return r < 0 ? r : 0;
}

/* health: {command: CMD, interval: S, timeout: S, on: board|host} */
static int s_load_health(yaml_val_t *board, lab_board_t *b)
{
	static const char *const where[] = { "board", "host", NULL };
	yaml_val_t *m = NULL;
	int on = 0;
	int r = yaml_get_map(board, "health", YAML_OPTIONAL, &m);

	b->health_interval_s = LAB_HEALTH_INTERVAL_S;
	b->health_timeout_s = LAB_HEALTH_TIMEOUT_S;
	if (r <= 0 || !m)
		return r < 0 ? r : 0;
	b->health_line = yaml_line(m);
	r = lab_get_text(m, "command", YAML_REQUIRED, LAB_MAX_COMMAND, true,
			 &b->health_cmd);
	if (r >= 0)
		r = yaml_get_int(m, "interval", YAML_OPTIONAL, 1,
				 LAB_MAX_HEALTH_INTERVAL_S,
				 &b->health_interval_s);
	if (r >= 0)
		r = yaml_get_int(m, "timeout", YAML_OPTIONAL, 1,
				 LAB_MAX_TIMEOUT_S, &b->health_timeout_s);
	if (r >= 0)
		r = yaml_get_enum(m, "on", YAML_OPTIONAL, "health.on", where,
				  &on);
	if (r < 0)
		return r;
	b->health_on_host = on == 1;
	/* a QEMU board is off between jobs: its console is not there */
	if (!b->health_on_host && b->boot.method == LAB_BOOT_QEMU)
		return yaml_fail(m, "a qemu board has no console between jobs:"
				 " check it with on: host");
	return yaml_check_unknown(m);
}

static int s_load_board(yaml_val_t *m, const char *dir, lab_board_t *b)
{
	yaml_val_t *tm = NULL, *bm = NULL;
	int r = yaml_expect(m, YAML_KIND_MAP);

	if (r < 0)
		return r;
	b->line = yaml_line(m);
	r = s_load_identity(m, b);
	if (r >= 0)
		r = yaml_get_map(m, "boot", YAML_OPTIONAL, &bm);
	if (r >= 0)
		r = s_load_boot(bm, dir, b->arch, &b->boot);
	if (r >= 0)
		r = yaml_get_map(m, "transport", YAML_OPTIONAL, &tm);
	if (r >= 0 && tm)
		r = s_load_transport(tm, dir, &b->transport);
	if (r >= 0)
		r = s_check_qemu(m, tm, b);
	if (r >= 0)
		r = s_load_criteria(m, b);
	if (r >= 0)
		r = s_load_health(m, b);
	if (r < 0)
		return r;
	return yaml_check_unknown(m);
}

int lab_load_boards(yaml_val_t *seq, const char *dir, lab_config_t *cfg)
{
	size_t n = yaml_len(seq);
	int r;

	if (n > LAB_MAX_BOARDS)
		return yaml_fail(seq, "too many boards (%zu, at most %d)", n,
				 LAB_MAX_BOARDS);
	if (!n)
		return 0;
	cfg->boards = xcalloc(n, sizeof(*cfg->boards));
	for (size_t i = 0; i < n; i++) {
		yaml_val_t *item = yaml_item(seq, i);

		cfg->n_boards = i + 1;
		r = s_load_board(item, dir, &cfg->boards[i]);
		if (r < 0)
			return r;
		for (size_t k = 0; k < i; k++)
			if (strcmp(cfg->boards[k].name, cfg->boards[i].name) == 0)
				return yaml_fail(yaml_map_peek(item, "name"),
						 "duplicate board name '%s' (first at line %d)",
						 cfg->boards[i].name,
						 cfg->boards[k].line);
	}
	return 0;
}
