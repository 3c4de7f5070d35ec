/*
 * Unit tests for the labgrid environment importer: the committed
 * environment files (serial + power, ser2net + PDU, ssh, QEMU, USB serial,
 * a remote place with its exporter) import and load with the values they
 * hold; both ways labgrid writes resources; what makes an import fail.
 *
 * usage: test-labs-labgrid FIXTURES_DIR
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

static lab_config_t *s_import(const char *name, lab_import_opts_t *o, buf_t *out)
{
	char path[4096], exp[4096], *err = NULL;
	lab_config_t *cfg = NULL;
	buf_t doc;

	snprintf(path, sizeof(path), "%s/%s", s_dir, name);
	if (o->exporter) {
		snprintf(exp, sizeof(exp), "%s/%s", s_dir, o->exporter);
		o->exporter = exp;
	}
	buf_reset(out);
	if (lab_import_labgrid_file(path, o, out, &err) < 0) {
		fprintf(stderr, "%s: %s\n", name, err);
		free(err);
		check_failures++;
		return NULL;
	}
	buf_init(&doc, 0);
	buf_puts(&doc, "lab: {name: t}\nboards:\n");
	buf_puts(&doc, buf_str(out));
	if (lab_config_parse("(t)", buf_str(&doc), doc.len, &cfg, &err) < 0) {
		fprintf(stderr, "%s: does not load: %s\n%s", name, err, buf_str(out));
		free(err);
		check_failures++;
	}
	buf_free(&doc);
	return cfg;
}

static void test_fixtures(void)
{
	lab_import_opts_t o;
	lab_config_t *cfg;
	const lab_board_t *b;
	buf_t out;

	buf_init(&out, 0);
	o = (lab_import_opts_t){ .arch = "arm" };
	cfg = s_import("serial-power.yaml", &o, &out);
	b = cfg ? lab_config_board(cfg, "serial-power") : NULL; /* "main": the file's name */
	CHECK(b && b->transport.serial_kind == LAB_SERIAL_TTY);
	if (b) {
		CHECK_STR(b->transport.device, "/dev/ttyUSB0");
		CHECK(b->transport.baud == 115200);
		CHECK_STR(b->transport.login, "root");
		CHECK_STR(b->transport.login_password, "temppwd");
		CHECK(b->boot.method == LAB_BOOT_COMMAND);
		CHECK_STR(b->boot.power_on, "relayctl --board 2 --channel 1 on");
		CHECK_STR(b->boot.power_off, "relayctl --board 2 --channel 1 off");
		CHECK_STR(b->boot.power_cycle, "relayctl --board 2 --channel 1 cycle");
	}
	CHECK(strstr(buf_str(&out), "ExternalPowerDriver delay"));
	lab_config_destroy(&cfg);

	o = (lab_import_opts_t){ .arch = "aarch64" };
	cfg = s_import("ser2net.yaml", &o, &out);
	CHECK(cfg && cfg->n_boards == 2);
	b = cfg ? lab_config_board(cfg, "rpi4") : NULL;
	CHECK(b && b->transport.serial_kind == LAB_SERIAL_TCP);
	if (b) {
		CHECK_STR(b->transport.tcp_host, "consoles.lab.example.org");
		CHECK(b->transport.tcp_port == 4001);
		CHECK_STR(b->boot.power_on, "pduclient --daemon pdu.lab.example.org "
			  "--hostname apc-1 --port 4 --command on");
	}
	b = cfg ? lab_config_board(cfg, "imx8mp") : NULL;
	CHECK(b && b->boot.method == LAB_BOOT_NONE && b->transport.tcp_port == 4002);
	CHECK(strstr(buf_str(&out), "protocol rfc2217 (labgrid's default)"));
	lab_config_destroy(&cfg);

	o = (lab_import_opts_t){ .arch = "riscv64" };
	cfg = s_import("ssh.yaml", &o, &out);
	b = cfg ? lab_config_board(cfg, "visionfive2") : NULL;
	CHECK(b && b->transport.type == LAB_TRANSPORT_SSH);
	if (b) {
		CHECK_STR(b->transport.host, "192.0.2.44");
		CHECK(b->transport.port == 2222);
		CHECK_STR(b->transport.user, "root");
		CHECK_STR(b->transport.identity, "/home/lab/.ssh/id_ed25519");
	}
	lab_config_destroy(&cfg);

	o = (lab_import_opts_t){ 0 };
	cfg = s_import("qemu.yaml", &o, &out);
	b = cfg ? lab_config_board(cfg, "qemu-arm64") : NULL;
	CHECK(b && b->boot.method == LAB_BOOT_QEMU);
	if (b) {
		CHECK_STR(b->arch, "aarch64"); /* from tools: qemu-system-aarch64 */
		CHECK_STR(b->boot.qemu, "/usr/bin/qemu-system-aarch64");
		CHECK_STR(b->boot.machine, "virt");
		CHECK_STR(b->boot.cpu, "cortex-a57");
		CHECK(b->boot.memory_mb == 1024);
		CHECK_STR(b->boot.kernel, "/srv/images/arm64/Image");
		CHECK_STR(b->boot.initrd, "/srv/images/arm64/initrd.img");
		CHECK_STR(b->boot.append, "console=ttyAMA0 panic=-1");
		CHECK(b->boot.cpus == 2); /* -smp 2 of extra_args */
		CHECK(b->boot.n_qemu_args == 1);
		CHECK_STR(b->boot.n_qemu_args ? b->boot.qemu_args[0] : NULL, "-no-reboot");
	}
	lab_config_destroy(&cfg);

	o = (lab_import_opts_t){ .arch = "aarch64" };
	cfg = s_import("usb-manual.yaml", &o, &out);
	b = cfg ? lab_config_board(cfg, "desk-board") : NULL;
	CHECK(b && b->transport.baud == 1500000 && b->boot.method == LAB_BOOT_NONE);
	CHECK_STR(b ? b->transport.device : NULL,
		  "/dev/serial/by-path/pci-0000:00:14.0-usb-0:2:1.0-port0");
	CHECK(strstr(buf_str(&out), "ManualPowerDriver: a person switches"));
	lab_config_destroy(&cfg);

	o = (lab_import_opts_t){ .arch = "arm", .exporter = "exporter.yaml" };
	cfg = s_import("remote.yaml", &o, &out);
	CHECK(cfg && cfg->n_boards == 1);
	b = cfg ? lab_config_board(cfg, "main") : NULL;
	CHECK(b && b->transport.tcp_port == 5002);
	CHECK_STR(b ? b->boot.power_cycle : NULL, "labgrid-client -p rack3-bbb power cycle");
	CHECK(strstr(buf_str(&out), "# not imported: no serial port, NetworkService or "
		     "QEMUDriver"));
	lab_config_destroy(&cfg);
	buf_free(&out);
}

static void s_err(int line, const char *text, const lab_import_opts_t *o, const char *want)
{
	buf_t out;
	char *err = NULL;
	int r;

	buf_init(&out, 0);
	r = lab_import_labgrid_text("env.yaml", text, strlen(text), NULL, NULL, 0, o,
				    &out, &err);
	if (r >= 0 || !err || !strstr(err, want) || out.len) {
		fprintf(stderr, "%s:%d: got %d '%s', want '%s'\n", __FILE__, line, r,
			err ? err : "(none)", want);
		check_failures++;
	}
	free(err);
	buf_free(&out);
}

static void test_errors(void)
{
	lab_import_opts_t arm = { .arch = "arm" }, one = { .arch = "arm", .name = "b" };

	s_err(__LINE__, "tools: {}\n", &arm, "env.yaml: no targets:");
	s_err(__LINE__, "- 1\n", &arm, "not a labgrid environment");
	s_err(__LINE__, "targets: {a: {resources: {RawSerialPort: {port: /dev/ttyS0}}}}\n",
	      NULL, "nothing usable");
	s_err(__LINE__, "targets: {a: {resources: {NetworkSerialPort: {host: h}}}}\n", &arm,
	      "nothing usable");
	s_err(__LINE__, "targets: {a: {resources: {RawSerialPort: {port: /dev/ttyS0}}}}\n",
	      &one, "no target 'b'");
	s_err(__LINE__, "targets: {a: {resources: {X: !foo 1}}}\n", &arm, "env.yaml:1:");
	s_err(__LINE__, "targets: {}\n", &(lab_import_opts_t){ .arch = "arm64" },
	      "--arch: unknown arch 'arm64'");
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s FIXTURES_DIR\n", argv[0]);
		return 2;
	}
	s_dir = argv[1];
	test_fixtures();
	test_errors();
	if (check_failures) {
		fprintf(stderr, "%d checks failed\n", check_failures);
		return 1;
	}
	printf("ok\n");
	return 0;
}
