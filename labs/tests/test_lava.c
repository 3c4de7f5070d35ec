/*
 * Unit tests for the LAVA device configuration importer: the committed
 * renderings of lava-server's templates (qemu, a beaglebone-black behind
 * ser2net with pdudaemon power, an ssh device) import and load with the
 * values they hold; the console commands LAVA labs write (telnet, nc,
 * socat, picocom, screen, conmux); what makes an import fail.
 *
 * usage: test-labs-lava FIXTURES_DIR
 */
#include "proto/tests/check.h"
#include "labs/lab.h"
#include "proto/buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int check_failures;

#define CHECK_STR(a, b)                                                        \
	do {                                                                   \
		const char *a_ = (a), *b_ = (b);                               \
		if (!a_ || strcmp(a_, b_) != 0) {                              \
			fprintf(stderr, "%s:%d: got '%s', want '%s'\n",        \
				__FILE__, __LINE__, a_ ? a_ : "(null)", b_);   \
			check_failures++;                                      \
		}                                                              \
	} while (0)

static const char *s_dir;

static lab_config_t *s_load(const char *yaml)
{
	buf_t doc;
	lab_config_t *cfg = NULL;
	char *err = NULL;

	buf_init(&doc, 0);
	buf_puts(&doc, "lab: {name: t}\nboards:\n");
	buf_puts(&doc, yaml);
	if (lab_config_parse("(t)", buf_str(&doc), doc.len, &cfg, &err) < 0) {
		fprintf(stderr, "does not load: %s\n%s", err, yaml);
		free(err);
		check_failures++;
	}
	buf_free(&doc);
	return cfg;
}

static const lab_board_t *s_file(const char *name, const lab_import_opts_t *o,
				 buf_t *out, lab_config_t **cfg)
{
	char path[4096], *err = NULL;

	snprintf(path, sizeof(path), "%s/%s", s_dir, name);
	buf_reset(out);
	*cfg = NULL;
	if (lab_import_lava_file(path, o, out, &err) < 0) {
		fprintf(stderr, "%s: %s\n", name, err);
		free(err);
		check_failures++;
		return NULL;
	}
	*cfg = s_load(buf_str(out));
	return *cfg && (*cfg)->n_boards == 1 ? &(*cfg)->boards[0] : NULL;
}

static void test_fixtures(void)
{
	lab_import_opts_t qo = { .type = "qemu" }, bo = { .type = "beaglebone-black" };
	lab_import_opts_t so = { .type = "ssh", .arch = "x86_64", .name = "lab-ssh" };
	lab_config_t *cfg;
	const lab_board_t *b;
	buf_t out;

	buf_init(&out, 0);
	b = s_file("qemu01.yaml", &qo, &out, &cfg);
	CHECK(b != NULL);
	if (b) {
		CHECK_STR(b->name, "qemu01");
		CHECK_STR(b->arch, "x86_64");
		CHECK(b->boot.method == LAB_BOOT_QEMU);
		CHECK_STR(b->boot.qemu, "qemu-system-x86_64");
		CHECK(b->boot.memory_mb == 1024);
		CHECK(b->boot.cpu == NULL); /* -cpu host needs KVM: noted */
		CHECK(b->boot.n_qemu_args == 4);
		CHECK(b->transport.serial_kind == LAB_SERIAL_QEMU);
		CHECK(b->n_tags == 2);
		CHECK_STR(b->n_tags == 2 ? b->tags[1] : NULL, "qemu");
	}
	CHECK(strstr(buf_str(&out), "qemu -enable-kvm: not carried"));
	CHECK(strstr(buf_str(&out), "timeouts: not mapped"));
	lab_config_destroy(&cfg);

	b = s_file("bbb01.yaml", &bo, &out, &cfg);
	CHECK(b != NULL);
	if (b) {
		CHECK_STR(b->arch, "arm"); /* mkimage_arch */
		CHECK(b->transport.type == LAB_TRANSPORT_SERIAL);
		CHECK(b->transport.serial_kind == LAB_SERIAL_TCP);
		CHECK_STR(b->transport.tcp_host, "ser2net.lab.example.org");
		CHECK(b->transport.tcp_port == 7001);
		CHECK(b->boot.method == LAB_BOOT_COMMAND);
		CHECK_STR(b->boot.power_on, "pduclient --daemon pdu.lab.example.org "
			  "--hostname pdu01 --port 3 --command on");
		CHECK_STR(b->boot.power_off, "pduclient --daemon pdu.lab.example.org "
			  "--hostname pdu01 --port 3 --command off");
		CHECK_STR(b->boot.power_cycle, "pduclient --daemon pdu.lab.example.org "
			  "--hostname pdu01 --port 3 --command reboot");
		CHECK(b->boot.deploy && strstr(b->boot.deploy, "/srv/tftp/labmesh/"));
	}
	CHECK(strstr(buf_str(&out), "actions.boot.methods.u-boot: its bootloader"));
	CHECK(strstr(buf_str(&out), "character_delays: not mapped (serial pacing"));
	lab_config_destroy(&cfg);

	b = s_file("ssh01.yaml", &so, &out, &cfg);
	CHECK(b != NULL);
	if (b) {
		CHECK_STR(b->name, "lab-ssh");
		CHECK(b->transport.type == LAB_TRANSPORT_SSH);
		CHECK_STR(b->transport.host, "192.0.2.10");
		CHECK(b->transport.port == 2222);
		CHECK_STR(b->transport.user, "lava");
		CHECK_STR(b->transport.identity, "/etc/lava-dispatcher/keys/ssh01");
		CHECK(b->boot.method == LAB_BOOT_NONE);
	}
	lab_config_destroy(&cfg);
	buf_free(&out);
}

static const lab_board_t *s_text(int line, const char *text, lab_config_t **cfg,
				 buf_t *out)
{
	char *err = NULL;
	lab_import_opts_t o = { .arch = "aarch64" };

	buf_reset(out);
	*cfg = NULL;
	if (lab_import_lava_text("dev.yaml", text, strlen(text), &o, out, &err) < 0) {
		fprintf(stderr, "%s:%d: %s\n", __FILE__, line, err);
		free(err);
		check_failures++;
		return NULL;
	}
	*cfg = s_load(buf_str(out));
	return *cfg && (*cfg)->n_boards ? &(*cfg)->boards[0] : NULL;
}

static void s_err(int line, const char *text, const char *want)
{
	buf_t out;
	char *err = NULL;
	int r;

	buf_init(&out, 0);
	r = lab_import_lava_text("dev.yaml", text, strlen(text), NULL, &out, &err);
	if (r >= 0 || !err || !strstr(err, want) || out.len) {
		fprintf(stderr, "%s:%d: got %d '%s', want '%s'\n", __FILE__, line, r,
			err ? err : "(none)", want);
		check_failures++;
	}
	free(err);
	buf_free(&out);
}

static void test_consoles(void)
{
	static const struct {
		const char *cmd, *device, *host;
		int baud, port;
	} c[] = {
		{ "telnet localhost 7002", NULL, "localhost", 0, 7002 },
		{ "telnet -e x 10.0.0.5 2001", NULL, "10.0.0.5", 0, 2001 },
		{ "nc consoles 4001", NULL, "consoles", 0, 4001 },
		{ "socat - TCP:ser2net.lab:3002", NULL, "ser2net.lab", 0, 3002 },
		{ "socat STDIO /dev/ttyUSB3,b921600,raw,echo=0", "/dev/ttyUSB3", NULL, 921600, 0 },
		{ "picocom -b 1500000 /dev/serial/by-id/usb-FTDI-if00", "/dev/serial/by-id/usb-FTDI-if00",
		  NULL, 1500000, 0 },
		{ "screen /dev/ttyS1 57600", "/dev/ttyS1", NULL, 57600, 0 },
		{ "/usr/bin/cu -l /dev/ttyACM0 -s 115200", "/dev/ttyACM0", NULL, 115200, 0 },
	};
	lab_config_t *cfg;
	const lab_board_t *b;
	buf_t out, doc;

	buf_init(&out, 0);
	buf_init(&doc, 0);
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		buf_reset(&doc);
		buf_printf(&doc, "commands:\n  connect: %s\n  power_on: relay on\n", c[i].cmd);
		b = s_text(__LINE__, buf_str(&doc), &cfg, &out);
		CHECK(b && b->transport.type == LAB_TRANSPORT_SERIAL);
		if (b && c[i].device) {
			CHECK_STR(b->transport.device, c[i].device);
			CHECK(b->transport.baud == c[i].baud);
		} else if (b) {
			CHECK_STR(b->transport.tcp_host, c[i].host);
			CHECK(b->transport.tcp_port == c[i].port);
		}
		CHECK(b && b->boot.method == LAB_BOOT_COMMAND);
		lab_config_destroy(&cfg);
	}
	/* connections: the primary one; the others noted */
	b = s_text(__LINE__,
		   "commands:\n  connections:\n"
		   "    uart1: {connect: telnet localhost 7001, tags: [telnet]}\n"
		   "    uart0: {connect: telnet localhost 7000, tags: [primary, telnet]}\n",
		   &cfg, &out);
	CHECK(b && b->transport.tcp_port == 7000);
	CHECK(strstr(buf_str(&out), "commands.connections.uart1: a second console"));
	lab_config_destroy(&cfg);
	/* conmux is reported, and then nothing usable remains */
	s_err(__LINE__, "commands:\n  connect: conmux-console bbb-01\n",
	      "dev.yaml: nothing usable: no console, ssh or qemu boot");
	s_err(__LINE__, "commands:\n  connect: ssh console-server\n",
	      "nothing usable");
	s_err(__LINE__, "- a\n- b\n", "dev.yaml: not a LAVA device configuration");
	s_err(__LINE__, "{% extends 'qemu.jinja2' %}\n{% set arch = 'amd64' %}\n",
	      "dev.yaml: a device dictionary (jinja2), not a rendered device configuration");
	s_err(__LINE__, "actions: [1, 2]\ncommands: 3\n", "nothing usable");
	s_err(__LINE__, "a: [\n", "dev.yaml:");
	s_err(__LINE__, "commands: {connect: telnet h 1}\n",
	      "dev.yaml: cannot tell the device's arch (give --arch)");
	s_err(__LINE__, "commands: {connect: telnet h 99999}\n", "nothing usable");
	s_err(__LINE__, "device_type: 'a b'\ncommands: {connect: telnet h 1}\n",
	      "device type 'a b' is not a valid tag");
	buf_free(&out);
	buf_free(&doc);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s FIXTURES_DIR\n", argv[0]);
		return 2;
	}
	s_dir = argv[1];
	test_fixtures();
	test_consoles();
	if (check_failures) {
		fprintf(stderr, "%d checks failed\n", check_failures);
		return 1;
	}
	printf("ok\n");
	return 0;
}
