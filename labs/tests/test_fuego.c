/*
 * Unit tests for the Fuego board file importer: three realistic board
 * files (ssh, serial, local/docker) import and the result loads with the
 * lab loader with the values the board files state; the scanner's rules
 * (quotes, expansion, functions, override/export) and its errors; the
 * `labmesh import` command's exit codes.
 *
 * usage: test-labs-fuego SAMPLES_DIR
 */
#include "proto/tests/check.h"
#include "labs/cli.h"
#include "labs/lab.h"
#include "proto/buf.h"

#include <errno.h>
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
			check_failures++;                                          \
		}                                                              \
	} while (0)

static const char *s_dir;

/* Import then load as the only board of a lab; NULL on any failure. */
static lab_config_t *s_round_trip(const char *yaml)
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

static lab_config_t *s_import_file(const char *name, const lab_fuego_opts_t *o,
				   buf_t *out)
{
	char path[4096];
	char *err = NULL;

	snprintf(path, sizeof(path), "%s/%s", s_dir, name);
	buf_reset(out);
	if (lab_import_fuego_file(path, o, out, &err) < 0) {
		fprintf(stderr, "%s: %s\n", name, err);
		free(err);
		check_failures++;
		return NULL;
	}
	return s_round_trip(buf_str(out));
}

static void test_samples(void)
{
	buf_t out;
	lab_config_t *cfg;
	const lab_board_t *b;
	lab_fuego_opts_t o = { .name = "rack1-bbb" };

	buf_init(&out, 0);
	cfg = s_import_file("bbb.board", NULL, &out);
	b = cfg ? lab_config_board(cfg, "bbb") : NULL;
	CHECK(b && b->transport.type == LAB_TRANSPORT_SSH);
	if (b) {
		CHECK_STR(b->arch, "arm");
		CHECK_STR(b->transport.host, "10.0.1.33");
		CHECK(b->transport.port == 2222);
		CHECK_STR(b->transport.user, "root");
		CHECK_STR(b->transport.identity, "/fuego-ro/boards/bbb_id_rsa");
		CHECK(b->transport.password == NULL); /* PASSWORD="" */
		CHECK_STR(b->transport.workdir, "/home/a");
		CHECK(b->boot.method == LAB_BOOT_NONE);
		CHECK(b->n_tags == 1);
	}
	/* the notes say what was left out */
	CHECK(strstr(buf_str(&out), "# note: line 16: BOARD_CONTROL=ttc is not imported"));
	CHECK(strstr(buf_str(&out), "'ttc bbb1 reboot'"));
	CHECK(strstr(buf_str(&out), "function definition skipped"));
	CHECK(strstr(buf_str(&out), "not imported (10): TOOLCHAIN, DISTRIB, MMC_DEV"));
	lab_config_destroy(&cfg);

	cfg = s_import_file("bbb.board", &o, &out);
	CHECK(cfg && lab_config_board(cfg, "rack1-bbb"));
	lab_config_destroy(&cfg);

	cfg = s_import_file("beaglebone-serial.board", NULL, &out);
	b = cfg ? lab_config_board(cfg, "beaglebone-serial") : NULL;
	CHECK(b && b->transport.type == LAB_TRANSPORT_SERIAL);
	if (b) {
		CHECK_STR(b->arch, "armv7l"); /* armhf: from TOOLCHAIN */
		CHECK(b->transport.serial_kind == LAB_SERIAL_TTY);
		CHECK_STR(b->transport.device, "/dev/ttyACM0");
		CHECK(b->transport.baud == 115200);
		CHECK_STR(b->transport.login, "root");
		CHECK_STR(b->transport.login_password, "fuego");
		CHECK_STR(b->transport.workdir, "/home/fuego");
	}
	CHECK(strstr(buf_str(&out), "IO_TIME_SERIAL"));
	lab_config_destroy(&cfg);

	cfg = s_import_file("docker.board", NULL, &out);
	b = cfg ? lab_config_board(cfg, "docker") : NULL;
	CHECK(b && b->transport.type == LAB_TRANSPORT_LOCAL);
	if (b) {
		CHECK_STR(b->arch, "x86_64");
		CHECK_STR(b->transport.workdir, "/home/jenkins/work");
	}
	CHECK(!strstr(buf_str(&out), "BOARD_CONTROL")); /* empty: nothing to say */
	lab_config_destroy(&cfg);
	buf_free(&out);
}

static void s_ok(int line, const char *text, const lab_fuego_opts_t *o,
		 lab_config_t **ret_cfg)
{
	buf_t out;
	char *err = NULL;

	buf_init(&out, 0);
	if (lab_import_fuego_text("x.board", text, strlen(text), o, &out, &err) < 0) {
		fprintf(stderr, "%s:%d: unexpected error: %s\n", __FILE__, line, err);
		free(err);
		check_failures++;
		*ret_cfg = NULL;
	} else {
		*ret_cfg = s_round_trip(buf_str(&out));
	}
	buf_free(&out);
}

static void s_err(int line, const char *text, size_t len,
		  const lab_fuego_opts_t *o, const char *want)
{
	buf_t out;
	char *err = NULL;
	int r;

	buf_init(&out, 0);
	r = lab_import_fuego_text("x.board", text, len, o, &out, &err);
	if (r >= 0 || !err || strcmp(err, want) != 0 || out.len != 0) {
		fprintf(stderr, "%s:%d: got %d '%s', want '%s'\n", __FILE__, line,
			r, err ? err : "(none)", want);
		check_failures++;
	}
	free(err);
	buf_free(&out);
}

#define ERR(text, want) s_err(__LINE__, text, strlen(text), NULL, want)

static void test_scanner(void)
{
	lab_config_t *cfg;
	const lab_board_t *b;
	lab_fuego_opts_t arch = { .arch = "riscv64", .name = "rv" };

	/* expansion of earlier variables, override/export, escapes, quotes */
	s_ok(__LINE__,
	     "NET=10.1.2\n"
	     "override IPADDR=\"${NET}.7\"\n"
	     "export LOGIN=fuego\n"
	     "   TRANSPORT='ssh'   # indented, trailing comment\n"
	     "PASSWORD=\"pa\\\"ss$\"\n"
	     "ARCHITECTURE=arm64\r\n"
	     "BOARD_TESTDIR=/tmp/$LOGIN\n"
	     "MACHINE=\"Raspberry Pi 4: rev 1.4\"\n",
	     NULL, &cfg);
	b = cfg ? lab_config_board(cfg, "x") : NULL;
	CHECK(b != NULL);
	if (b) {
		CHECK_STR(b->transport.host, "10.1.2.7");
		CHECK_STR(b->transport.user, "fuego");
		CHECK_STR(b->transport.password, "pa\"ss$");
		CHECK_STR(b->arch, "aarch64");
		CHECK_STR(b->transport.workdir, "/tmp/fuego");
		CHECK_STR(b->machine, "Raspberry Pi 4: rev 1.4");
		CHECK(b->transport.port == 22);
	}
	lab_config_destroy(&cfg);

	/* --arch and --name win; no TRANSPORT means ssh; a full /dev path */
	s_ok(__LINE__, "IPADDR=board.lab\n", &arch, &cfg);
	b = cfg ? lab_config_board(cfg, "rv") : NULL;
	CHECK(b && b->transport.type == LAB_TRANSPORT_SSH);
	CHECK_STR(b ? b->arch : NULL, "riscv64");
	lab_config_destroy(&cfg);
	s_ok(__LINE__,
	     "TRANSPORT=serial\nSERIAL=/dev/serial/by-id/usb-x@y\nBAUD=921600\n"
	     "TOOLCHAIN=my-aarch64-sdk\n",
	     NULL, &cfg);
	b = cfg ? lab_config_board(cfg, "x") : NULL;
	CHECK(b && b->transport.baud == 921600);
	CHECK_STR(b ? b->transport.device : NULL, "/dev/serial/by-id/usb-x@y");
	CHECK_STR(b ? b->arch : NULL, "aarch64");
	lab_config_destroy(&cfg);

	ERR("TRANSPORT=\"ttc\"\nARCHITECTURE=arm\n",
	    "x.board:1: TRANSPORT: 'ttc' cannot be imported (expected ssh, serial, "
	    "local or adb; describe ttc, ssh2serial and lava boards by hand)");
	ERR("ARCHITECTURE=arm\nTRANSPORT=ssh\n",
	    "x.board:2: IPADDR: required for TRANSPORT=ssh");
	ERR("ARCHITECTURE=arm\nTRANSPORT=serial\nSERIAL=ttyS0\nBAUD=115201\n",
	    "x.board:4: BAUD: '115201' is not a valid baud rate");
	ERR("ARCHITECTURE=arm\nTRANSPORT=serial\n",
	    "x.board:2: SERIAL: required for TRANSPORT=serial");
	ERR("ARCHITECTURE=arm\nIPADDR=h\nSSH_PORT=65536\n",
	    "x.board:3: SSH_PORT: '65536' is not a valid port");
	ERR("ARCHITECTURE=arm\nIPADDR=\"-oProxyCommand=sh\"\n",
	    "x.board:2: IPADDR: '-oProxyCommand=sh' is not a valid host name or address");
	ERR("ARCHITECTURE=arm\nIPADDR=h\nLOGIN=\"root\n",
	    "x.board:3: LOGIN: unterminated quoted value");
	ERR("ARCHITECTURE=arm\nIPADDR=h\nLOGIN='root\n",
	    "x.board:3: LOGIN: unterminated quoted value");
	ERR("ARCHITECTURE=arm\nIPADDR=h\nPASSWORD=\"\xc3\xa9t\xc3\xa9\"\n",
	    "x.board:3: PASSWORD: only printable ASCII values are imported");
	ERR("ARCHITECTURE=arm\nIPADDR=h\nBOARD_TESTDIR=home\n",
	    "x.board:3: BOARD_TESTDIR: 'home' is not a valid absolute directory");
	ERR("IPADDR=h\n",
	    "x.board:1: ARCHITECTURE: neither ARCHITECTURE nor TOOLCHAIN is set (give --arch)");
	ERR("IPADDR=h\nTOOLCHAIN=vendor-sdk\n",
	    "x.board:2: TOOLCHAIN: cannot tell the arch of toolchain 'vendor-sdk' (give --arch)");
	ERR("ARCHITECTURE=arm\nIPADDR=h\nov_transport_cmd() {\n  echo {\n",
	    "x.board:4: function definition not closed");
	s_err(__LINE__, "ARCHITECTURE=arm\n\0IPADDR=h\n", 27, NULL,
	      "x.board:1: NUL byte in the file");
	{
		lab_fuego_opts_t bad = { .name = "a b" };

		s_err(__LINE__, "ARCHITECTURE=arm\nIPADDR=h\n", 25, &bad,
		      "x.board:1: name: 'a b' is not a valid board name "
		      "([A-Za-z0-9_.-]{1,64}; give --name)");
		bad.name = NULL;
		bad.arch = "arm64";
		s_err(__LINE__, "IPADDR=h\n", 9, &bad,
		      "x.board:1: --arch: unknown arch 'arm64'");
	}

	/* bounds: line length, file size, variable count */
	buf_t b2;
	char want[128];

	buf_init(&b2, 0);
	buf_puts(&b2, "A=\"");
	for (int i = 0; i < LAB_FUEGO_MAX_LINE; i++)
		buf_putc(&b2, 'x');
	buf_puts(&b2, "\"\n");
	s_err(__LINE__, buf_str(&b2), b2.len, NULL,
	      "x.board:1: line too long (more than 4096 bytes)");
	buf_reset(&b2);
	while (b2.len <= LAB_FUEGO_MAX_BYTES)
		buf_puts(&b2, "# a comment line that pads the file out\n");
	snprintf(want, sizeof(want), "x.board:1: file too large (%zu bytes, at most %d)",
		 b2.len, LAB_FUEGO_MAX_BYTES);
	s_err(__LINE__, buf_str(&b2), b2.len, NULL, want);
	buf_reset(&b2);
	for (int i = 0; i <= LAB_FUEGO_MAX_VARS; i++)
		buf_printf(&b2, "V%d=%d\n", i, i);
	s_err(__LINE__, buf_str(&b2), b2.len, NULL,
	      "x.board:1025: too many variables (more than 1024)");
	/* an expansion cannot grow a value past the cap */
	buf_reset(&b2);
	buf_puts(&b2, "A=\"");
	for (int i = 0; i < 2000; i++)
		buf_putc(&b2, 'x');
	buf_puts(&b2, "\"\nB=\"$A$A$A\"\n");
	s_err(__LINE__, buf_str(&b2), b2.len, NULL,
	      "x.board:2: B: value too long (more than 4096 bytes)");
	buf_free(&b2);
}

static void test_cli(void)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/bbb.board", s_dir);
	CHECK(cmd_import(2, (char *[]){ "import", "--help", NULL }) == 0);
	CHECK(cmd_import(1, (char *[]){ "import", NULL }) == 2);
	CHECK(cmd_import(3, (char *[]){ "import", "lava", "x", NULL }) == 2);
	CHECK(cmd_import(2, (char *[]){ "import", "fuego", NULL }) == 2);
	CHECK(cmd_import(4, (char *[]){ "import", "fuego", path, "--name", NULL }) == 2);
	CHECK(cmd_import(4, (char *[]){ "import", "fuego", path, "--bogus", NULL }) == 2);
	CHECK(cmd_import(3, (char *[]){ "import", "fuego", "/nonexistent.board", NULL }) == 1);
	CHECK(cmd_import(5, (char *[]){ "import", "fuego", path, "--name=cli-bbb",
					"--arch=armv7l", NULL }) == 0);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s SAMPLES_DIR\n", argv[0]);
		return 2;
	}
	s_dir = argv[1];
	test_samples();
	test_scanner();
	test_cli();
	if (check_failures) {
		fprintf(stderr, "%d checks failed\n", check_failures);
		return 1;
	}
	printf("ok\n");
	return 0;
}
