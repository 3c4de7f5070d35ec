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
		CHECK(b->n_tags == 2);
		CHECK_STR(b->n_tags == 2 ? b->tags[1] : NULL, "toolchain:debian-armhf");
	}
	/* the notes say what was left out */
	CHECK(strstr(buf_str(&out), "# note: line 16: BOARD_CONTROL=ttc: its power "
		     "commands make a command boot"));
	CHECK(strstr(buf_str(&out), "function definition skipped"));
	/* the whole list, however long, wrapped over comment lines */
	CHECK(strstr(buf_str(&out), "# not imported (9): DISTRIB, MMC_DEV, MMC_MP, "
		     "USB_DEV, USB_MP,\n#   EXPAT_SUBTEST_COUNT_POS, "
		     "EXPAT_SUBTEST_COUNT_NEG,\n#   LTP_OPEN_POSIX_SUBTEST_COUNT_POS, "
		     "LTP_OPEN_POSIX_SUBTEST_COUNT_NEG\n"));
	if (b) {
		CHECK(b->boot.method == LAB_BOOT_COMMAND);
		CHECK_STR(b->boot.power_on, "ttc bbb1 on");
		CHECK_STR(b->boot.power_off, "ttc bbb1 off");
		CHECK_STR(b->boot.power_cycle, "ttc bbb1 reboot");
	}
	lab_config_destroy(&cfg);

	cfg = s_import_file("bbb.board", &o, &out);
	CHECK(cfg && lab_config_board(cfg, "rack1-bbb"));
	lab_config_destroy(&cfg);

	cfg = s_import_file("beaglebone-serial.board", NULL, &out);
	b = cfg ? lab_config_board(cfg, "beaglebone-serial") : NULL;
	CHECK(b && b->transport.type == LAB_TRANSPORT_SERIAL);
	if (b) {
		CHECK_STR(b->arch, "arm"); /* armhf, as bbb's arm: one arch */
		CHECK(b->transport.serial_kind == LAB_SERIAL_TTY);
		CHECK_STR(b->transport.device, "/dev/ttyACM0");
		CHECK(b->transport.baud == 115200);
		CHECK_STR(b->transport.login, "root");
		CHECK_STR(b->transport.login_password, "fuego");
		CHECK_STR(b->transport.workdir, "/home/fuego");
	}
	CHECK(strstr(buf_str(&out), "# note: line 8: serial pacing IO_TIME_SERIAL=0.1: "));
	lab_config_destroy(&cfg);

	cfg = s_import_file("docker.board", NULL, &out);
	b = cfg ? lab_config_board(cfg, "docker") : NULL;
	CHECK(b && b->transport.type == LAB_TRANSPORT_LOCAL);
	if (b) {
		CHECK_STR(b->arch, "x86_64");
		/* $FUEGO_RW/tests exists only in Fuego's container */
		CHECK(b->transport.workdir == NULL);
		CHECK(b->boot.method == LAB_BOOT_NONE);
	}
	CHECK(!strstr(buf_str(&out), "BOARD_CONTROL")); /* empty: nothing to say */
	CHECK(strstr(buf_str(&out), "# note: line 7: BOARD_TESTDIR=/fuego-rw/tests is "
		     "inside Fuego's container"));
	CHECK(strstr(buf_str(&out), "# note: $FUEGO_RW is Fuego's own: taken as /fuego-rw"));
	lab_config_destroy(&cfg);
	buf_free(&out);
}

/* Every board file of the set imports, with the arch, transport and
 * power Fuego's own variables give it. */
static void test_set(void)
{
	static const struct {
		const char *file, *arch, *transport, *host;
		enum lab_boot_method boot;
		const char *power_on, *note;
	} set[] = {
		{ "docker.board", "x86_64", "local", NULL, LAB_BOOT_NONE, NULL, NULL },
		{ "local.board", "x86_64", "local", NULL, LAB_BOOT_NONE, NULL,
		  "# note: $BOARD is Fuego's own: taken as local" },
		{ "fuego-test.board", "i686", "local", NULL, LAB_BOOT_NONE, NULL, NULL },
		{ "bbb.board", "arm", "ssh", "10.0.1.33", LAB_BOOT_COMMAND, "ttc bbb1 on", NULL },
		{ "beaglebone-serial.board", "arm", "serial", NULL, LAB_BOOT_NONE, NULL, NULL },
		{ "qemu-arm.board", "arm", "ssh", "172.17.0.1", LAB_BOOT_NONE, NULL, NULL },
		{ "raspberrypi3.board", "arm", "ssh", "192.168.1.45", LAB_BOOT_COMMAND,
		  "ttc raspberrypi3 on", NULL },
		{ "minnow.board", "x86_64", "ssh", "10.0.1.61", LAB_BOOT_COMMAND,
		  "ttc min1 on", "# note: $FUEGO_RO is Fuego's own: taken as /fuego-ro" },
		{ "lager.board", "arm", "ssh", "192.168.0.16", LAB_BOOT_NONE, NULL, NULL },
		{ "renesas-porter.board", "arm", "serial", NULL, LAB_BOOT_COMMAND,
		  "ebf porter-1 power on", "IO_TIME_SERIAL=0.15" },
		{ "renesas-salvator-x.board", "aarch64", "ssh", "salvator-x.lab",
		  LAB_BOOT_COMMAND, "lc salvator-x-1 power on", NULL },
		{ "renesas-koelsch.board", "arm", "serial", NULL, LAB_BOOT_COMMAND,
		  "ttc koelsch on", "IO_TIME_SERIAL=0.1" },
		{ "raspberrypi4-64.board", "aarch64", "ssh", "rpi4.lab", LAB_BOOT_NONE, NULL,
		  "SSH_KEY /fuego-ro/boards/rpi4_id_ed25519 is a path inside Fuego's" },
		{ "bbb-ebf.board", "arm", "ssh", "10.0.3.12", LAB_BOOT_COMMAND,
		  "ebf bbb-07 power on", NULL },
		{ "renesas-ulcb-lava.board", "aarch64", "ssh", "dut-ipaddr.invalid",
		  LAB_BOOT_NONE, NULL,
		  "# note: line 12: placeholder: IPADDR=dut_ipaddr is filled in at run "
		  "time by fuego-lava-target-setup (TARGET_SETUP_LINK)" },
	};
	buf_t out;

	buf_init(&out, 0);
	for (size_t i = 0; i < sizeof(set) / sizeof(set[0]); i++) {
		lab_config_t *cfg = s_import_file(set[i].file, NULL, &out);
		const lab_board_t *b = cfg && cfg->n_boards == 1 ? &cfg->boards[0] : NULL;

		if (!b) {
			fprintf(stderr, "%s: no board\n", set[i].file);
			check_failures++;
			lab_config_destroy(&cfg);
			continue;
		}
		CHECK_STR(b->arch, set[i].arch);
		CHECK_STR(lab_transport_name(b->transport.type), set[i].transport);
		if (set[i].host)
			CHECK_STR(b->transport.host, set[i].host);
		CHECK(b->boot.method == set[i].boot);
		if (set[i].power_on)
			CHECK_STR(b->boot.power_on, set[i].power_on);
		if (set[i].note && !strstr(buf_str(&out), set[i].note)) {
			fprintf(stderr, "%s: no '%s' in\n%s", set[i].file, set[i].note,
				buf_str(&out));
			check_failures++;
		}
		lab_config_destroy(&cfg);
	}
	/* ORCHESTRATOR=lava is reported, not dropped */
	lab_config_destroy(&(lab_config_t *){ s_import_file("renesas-ulcb-lava.board",
							     NULL, &out) });
	CHECK(strstr(buf_str(&out), "# note: ORCHESTRATOR=lava (line 7), "
		     "TARGET_SETUP_LINK=fuego-lava-target-setup (line 10), "
		     "TARGET_TEARDOWN_LINK=fuego-lava-target-teardown (line 11), "
		     "LAB_SERVER=lava.lab.example.org (line 8), "
		     "LAB_BOARD_NAME=r8a7795-h3ulcb-01 (line 9) not imported: "
		     "LAVA boots this board for Fuego; import its device with "
		     "`labmesh import lava DEVICE.yaml`\n"));
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

	/* ${VAR:-word}, ${VAR-word}; $BOARD is the board's name; one arch
	 * whichever variable names it, ARCHITECTURE winning a disagreement */
	s_ok(__LINE__,
	     "IPADDR=\"${LAB_NET:-10.9.9}.1\"\nLOGIN=${NOBODY-fuego}\n"
	     "BOARD_TESTDIR=\"/srv/${BOARD}\"\nARCHITECTURE=ia32\nTOOLCHAIN=x86_64\n",
	     NULL, &cfg);
	b = cfg ? lab_config_board(cfg, "x") : NULL;
	CHECK_STR(b ? b->transport.host : NULL, "10.9.9.1");
	CHECK_STR(b ? b->transport.user : NULL, "fuego");
	CHECK_STR(b ? b->transport.workdir : NULL, "/srv/x");
	CHECK_STR(b ? b->arch : NULL, "i686");
	lab_config_destroy(&cfg);
	{
		static const char *const tc[][2] = {
			{ "debian-armel", "arm" },  { "debian-arm64", "aarch64" },
			{ "poky-qemuarm", "arm" },  { "poky-qemux86-64", "x86_64" },
			{ "arm-linux-gnueabihf", "arm" }, { "x86_64-poky-linux", "x86_64" },
			{ "debian-i386", "i686" },  { "debian-ppc64el", "ppc64le" },
			{ "riscv64-linux-gnu", "riscv64" }, { "lager", "arm" },
		};
		for (size_t i = 0; i < sizeof(tc) / sizeof(tc[0]); i++) {
			char text[128];

			snprintf(text, sizeof(text), "IPADDR=h\nTOOLCHAIN=%s\n", tc[i][0]);
			s_ok(__LINE__, text, NULL, &cfg);
			b = cfg ? lab_config_board(cfg, "x") : NULL;
			CHECK_STR(b ? b->arch : NULL, tc[i][1]);
			lab_config_destroy(&cfg);
		}
	}
	s_ok(__LINE__, "IPADDR=h\nARCHITECTURE=sparc-ish\nTOOLCHAIN=debian-armhf\n",
	     NULL, &cfg);
	CHECK_STR(cfg && cfg->n_boards ? cfg->boards[0].arch : NULL, "arm");
	lab_config_destroy(&cfg);
	ERR("IPADDR=h\nARCHITECTURE=vax\n",
	    "x.board:2: ARCHITECTURE: unknown arch 'vax' (give --arch)");
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
	CHECK(cmd_import(3, (char *[]){ "import", "bogus", "x", NULL }) == 2);
	CHECK(cmd_import(2, (char *[]){ "import", "fuego", NULL }) == 2);
	CHECK(cmd_import(4, (char *[]){ "import", "fuego", path, "--name", NULL }) == 2);
	CHECK(cmd_import(4, (char *[]){ "import", "fuego", path, "--bogus", NULL }) == 2);
	CHECK(cmd_import(3, (char *[]){ "import", "fuego", "/nonexistent.board", NULL }) == 1);
	CHECK(cmd_import(5, (char *[]){ "import", "fuego", path, "--name=cli-bbb",
					"--arch=armv7l", NULL }) == 0);
	/* the other formats and their own options */
	snprintf(path, sizeof(path), "%s/../lava/qemu01.yaml", s_dir);
	CHECK(cmd_import(4, (char *[]){ "import", "lava", path, "--type=qemu", NULL }) == 0);
	CHECK(cmd_import(4, (char *[]){ "import", "lava", path, "--exporter=x", NULL }) == 2);
	CHECK(cmd_import(2, (char *[]){ "import", "lava", NULL }) == 2);
	snprintf(path, sizeof(path), "%s/../labgrid/qemu.yaml", s_dir);
	CHECK(cmd_import(3, (char *[]){ "import", "labgrid", path, NULL }) == 0);
	CHECK(cmd_import(4, (char *[]){ "import", "labgrid", path, "--type=x", NULL }) == 2);
	CHECK(cmd_import(5, (char *[]){ "import", "labgrid", path, "--exporter",
					"/nonexistent.yaml", NULL }) == 1);
	/* nothing usable: exit 1 */
	snprintf(path, sizeof(path), "%s/../labgrid/serial-power.yaml", s_dir);
	CHECK(cmd_import(3, (char *[]){ "import", "labgrid", path, NULL }) == 1);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s SAMPLES_DIR\n", argv[0]);
		return 2;
	}
	s_dir = argv[1];
	test_samples();
	test_set();
	test_scanner();
	test_cli();
	if (check_failures) {
		fprintf(stderr, "%d checks failed\n", check_failures);
		return 1;
	}
	printf("ok\n");
	return 0;
}
