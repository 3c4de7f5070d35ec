/*
 * Unit tests for the lab loader: every example validates and reads back
 * the values it states; every kind of error gives the right one-line
 * message with the right line and field; YAML bombs are refused; the
 * built-in default lab.
 *
 * usage: test-labs-lab EXAMPLES_DIR
 */
#include "proto/tests/check.h"
#include "labs/lab.h"
#include "proto/buf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

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

static lab_config_t *s_load_example(const char *name)
{
	char path[4096];
	lab_config_t *cfg = NULL;
	char *err = NULL;

	snprintf(path, sizeof(path), "%s/%s", s_dir, name);
	if (lab_config_load(path, &cfg, &err) < 0) {
		fprintf(stderr, "%s: %s\n", name, err);
		free(err);
		check_failures++;
		return NULL;
	}
	return cfg;
}

static void test_examples(void)
{
	static const char *const names[] = {
		"local.yaml", "qemu.yaml", "ssh.yaml", "serial-tty.yaml",
		"ser2net.yaml", "adb.yaml", "pdudaemon.yaml", "full.yaml",
	};
	lab_config_t *cfg;
	const lab_board_t *b;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		cfg = s_load_example(names[i]);
		CHECK(cfg && cfg->n_boards >= 1);
		lab_config_destroy(&cfg);
		CHECK(cfg == NULL);
	}

	cfg = s_load_example("full.yaml");
	if (!cfg)
		return;
	CHECK_STR(cfg->name, "lab-a");
	CHECK_STR(cfg->listen, "tcp://0.0.0.0:7701");
	CHECK(cfg->n_seeds == 2 && cfg->seeds[1].line == 12);
	CHECK_STR(cfg->seeds[1].endpoint, "tcp://[2001:db8::7]:7701");
	/* keys are kept in lower case */
	CHECK_STR(cfg->seeds[1].key,
		  "8a88e3dd7409f195fd52db2d3cba5d72ca6709bf1d94121bf3748801b40f6f5c");
	CHECK(!cfg->trust_open && cfg->n_trust_keys == 2);
	CHECK(cfg->max_peers == 16 && cfg->beacon);
	CHECK(cfg->liveness_ms == 15000);
	CHECK(cfg->max_request_hours == 7 * 24); /* the default */
	CHECK_STR(cfg->http, "127.0.0.1:8080");
	CHECK(!cfg->submitters_any && cfg->n_submitters == 2);
	CHECK(cfg->quota_per_key == 200 && cfg->build_any);
	CHECK(cfg->n_recipes == 2);
	CHECK_STR(cfg->recipes[1].cross_compile, "aarch64-linux-gnu-");
	CHECK(cfg->recipes[1].timeout_s == 5400);
	CHECK(cfg->n_boards == 3);

	b = lab_config_board(cfg, "qemu-a");
	CHECK(b && b->boot.method == LAB_BOOT_QEMU);
	/* the qemu console is set when the transport is left out */
	CHECK(b && b->transport.type == LAB_TRANSPORT_SERIAL &&
	      b->transport.serial_kind == LAB_SERIAL_QEMU);
	CHECK_STR(b->boot.qemu, "qemu-system-x86_64");
	CHECK(b->boot.memory_mb == 256 && b->boot.cpus == 1 &&
	      b->boot.boot_timeout_s == 120);
	/* relative paths are resolved against the file's directory */
	CHECK(b->boot.kernel && b->boot.kernel[0] == '/' &&
	      strstr(b->boot.kernel, "/examples/boards/x86_64/vmlinuz"));
	CHECK(b->n_criteria == 2 && b->criteria[0].max_fail == 0 &&
	      b->criteria[0].min_pass == -1 && b->criteria[0].n_must_pass == 2);
	CHECK(b->criteria[1].n_metrics == 2 &&
	      b->criteria[1].metrics[0].op == LAB_OP_GT &&
	      b->criteria[1].metrics[0].lo == 100 &&
	      b->criteria[1].metrics[1].op == LAB_OP_RANGE &&
	      b->criteria[1].metrics[1].hi == 250.5);

	b = lab_config_board(cfg, "bbb");
	CHECK(b && b->transport.serial_kind == LAB_SERIAL_TTY &&
	      b->transport.baud == 115200 && b->n_submitters == 1);
	CHECK(b && b->boot.method == LAB_BOOT_COMMAND &&
	      b->boot.command_timeout_s == 30 && b->boot.power_cycle &&
	      !b->boot.power_on);
	CHECK(b && b->n_criteria == 1 && b->criteria[0].n_fail_ok == 1);
	CHECK_STR(b->criteria[0].fail_ok[0].path, "syscalls.fanotify22");
	CHECK(lab_config_board(cfg, "nope") == NULL);
	lab_config_destroy(&cfg);

	cfg = s_load_example("ser2net.yaml");
	b = cfg ? lab_config_board(cfg, "visionfive2") : NULL;
	CHECK(b && b->transport.serial_kind == LAB_SERIAL_TCP &&
	      b->transport.tcp_port == 2002 && b->transport.baud == 0);
	CHECK_STR(b ? b->transport.tcp_host : NULL, "2001:db8::10");
	lab_config_destroy(&cfg);

	cfg = s_load_example("ssh.yaml");
	b = cfg ? lab_config_board(cfg, "build-box") : NULL;
	CHECK(b && b->transport.port == 22 && b->transport.connect_timeout_s == 30);
	CHECK_STR(b ? b->transport.password : NULL, "not-a-real-password");
	b = cfg ? lab_config_board(cfg, "rpi4") : NULL;
	CHECK(b && b->transport.identity &&
	      strstr(b->transport.identity, "/examples/keys/lab_ed25519"));
	lab_config_destroy(&cfg);
}

/* Parse text as "lab.yaml" and expect the one-line error want. */
static void s_err(int line, const char *text, const char *want)
{
	lab_config_t *cfg = NULL;
	char *err = NULL;
	int r = lab_config_parse("lab.yaml", text, strlen(text), &cfg, &err);

	if (r >= 0 || !err || strcmp(err, want) != 0 || strchr(err, '\n')) {
		fprintf(stderr, "%s:%d: got %d '%s', want '%s'\n", __FILE__,
			line, r, err ? err : "(none)", want);
		check_failures++;
	}
	CHECK(cfg == NULL);
	free(err);
}

#define ERR(text, want) s_err(__LINE__, text, want)

#define HEAD "lab: {name: t}\nboards:\n"

static void test_errors(void)
{
	ERR(HEAD "  - name: a\n"
		 "    arch: x86_64\n"
		 "    transport:\n"
		 "      type: telnet\n",
	    "lab.yaml:6: boards[0].transport.type: unknown transport 'telnet' "
	    "(expected local, ssh, serial, adb)");
	ERR(HEAD "  - name: a\n"
		 "    arch: x86_64\n"
		 "    transport: {type: local}\n"
		 "  - name: b\n"
		 "    arch: x86_64\n"
		 "    transport:\n"
		 "      type: ssh\n"
		 "      user: root\n",
	    "lab.yaml:9: boards[1].transport.host: required for an ssh transport");
	ERR(HEAD "  - name: a\n"
		 "    arch: x86_64\n"
		 "    transport:\n"
		 "      type: serial\n"
		 "      device: /dev/ttyUSB0\n"
		 "      baud: 115201\n",
	    "lab.yaml:8: boards[0].transport.baud: 115201 is not a standard baud "
	    "rate (e.g. 9600, 115200, 921600)");
	ERR(HEAD "  - name: a\n"
		 "    arch: x86_64\n"
		 "    transport: {type: local}\n"
		 "  - name: b\n"
		 "    arch: x86_64\n"
		 "    transport: {type: local}\n"
		 "  - name: c\n"
		 "    arch: x86_64\n"
		 "    transport:\n"
		 "      type: serial\n"
		 "      device: /dev/ttyUSB0\n"
		 "      bauds: 9600\n",
	    "lab.yaml:14: boards[2].transport.bauds: unknown field");
	ERR(HEAD "  - name: a\n"
		 "    arch: x86_64\n"
		 "    transport: {type: local}\n"
		 "  - name: a\n"
		 "    arch: aarch64\n"
		 "    transport: {type: local}\n",
	    "lab.yaml:6: boards[1].name: duplicate board name 'a' (first at line 3)");
	ERR("lab: {name: t}\n"
	    "node:\n"
	    "  seeds:\n"
	    "    - endpoint: tcp://127.0.0.1:7702\n"
	    "      key: 3b6a27bcZZb6a42d62a3a8d02a6f0d73653215771de243a63ac048a18b59da29\n",
	    "lab.yaml:5: node.seeds[0].key: '3b6a27bcZZb6a42d62a3a8d02a6f0d73653215771de243a63ac048a18b59da29' "
	    "is not a valid node key (64 hex digits)");
	ERR("node:\n  seeds: [{endpoint: 'tcp://*:7702', key: 3b6a27bcceb6a42d62a3a8d02a6f0d73653215771de243a63ac048a18b59da29}]\n",
	    "lab.yaml:2: node.seeds[0].endpoint: 'tcp://*:7702' is not a valid peer endpoint (tcp://HOST:PORT)");
	ERR(HEAD "  - name: a\n    arch: x86_64\n    transport: {type: ssh, host: h, identity: ~bob/k}\n",
	    "lab.yaml:5: boards[0].transport.identity: ~user paths are not supported");
	ERR("node:\n  trust: [abcd]\n",
	    "lab.yaml:2: node.trust[0]: 'abcd' is not a valid key id (64 hex digits)");
	ERR("node:\n  trust: closed\n",
	    "lab.yaml:2: node.trust: expected 'open' or a list of key ids, not 'closed'");
	ERR("node:\n  listen: 127.0.0.1:7701\n",
	    "lab.yaml:2: node.listen: '127.0.0.1:7701' is not a valid endpoint (tcp://HOST:PORT)");
	ERR("node:\n  listen: tcp://127.0.0.1:70000\n",
	    "lab.yaml:2: node.listen: 'tcp://127.0.0.1:70000' is not a valid endpoint (tcp://HOST:PORT)");
	ERR("node:\n  max_peers: 0\n",
	    "lab.yaml:2: node.max_peers: 0 is out of range (1 to 1024)");
	ERR("node:\n  liveness: 4s\n",
	    "lab.yaml:2: node.liveness: expected a time from 5s to 10m, like 5s or 30s");
	ERR("node:\n  liveness: 11m\n",
	    "lab.yaml:2: node.liveness: expected a time from 5s to 10m, like 5s or 30s");
	ERR("node:\n  liveness: soon\n",
	    "lab.yaml:2: node.liveness: expected a time from 5s to 10m, like 5s or 30s");
	ERR("node:\n  max_request_hours: 721\n",
	    "lab.yaml:2: node.max_request_hours: 721 is out of range (1 to 720)");
	ERR("node:\n  beacon: maybe\n",
	    "lab.yaml:2: node.beacon: 'maybe' is not a boolean (expected true or false)");
	ERR("lab:\n  name: bad name\n",
	    "lab.yaml:2: lab.name: 'bad name' is not a valid lab name ([A-Za-z0-9_.-]{1,64})");
	ERR("lab: {name: t, owner: me}\n", "lab.yaml:1: lab.owner: unknown field");
	ERR("labs: {name: t}\n", "lab.yaml:1: labs: unknown field");
	ERR("policy:\n  build: some\n",
	    "lab.yaml:2: policy.build: unknown build policy 'some' (expected any, none)");
	ERR("policy:\n  quota_per_key: -1\n",
	    "lab.yaml:2: policy.quota_per_key: -1 is out of range (0 to 1000000)");
	ERR("recipes:\n  - arch: x86_64\n",
	    "lab.yaml:2: recipes[0].command: required field is missing");
	ERR("recipes:\n  - {arch: x86_64, command: make, configs: [tiny config]}\n",
	    "lab.yaml:2: recipes[0].configs[0]: 'tiny config' is not a valid config name");
	ERR("store:\n  build_budget: 10K\n",
	    "lab.yaml:2: store.build_budget: expected a size from 1M to 1024T, like 20G");
	ERR("policy:\n  builds_from: some\n",
	    "lab.yaml:2: policy.builds_from: expected 'any' or a list of key ids, not 'some'");
	ERR("recipes:\n  - {arch: x86_64, command: make}\n  - {arch: x86_64, command: make}\n",
	    "lab.yaml:3: recipes[1].arch: a recipe for x86_64 is already given at line 2");
	ERR(HEAD "  - name: a\n    arch: arm64\n    transport: {type: local}\n",
	    "lab.yaml:4: boards[0].arch: unknown arch 'arm64' (expected x86_64, i386, "
	    "i686, aarch64, arm, armv5tel, armv6l, armv7l, riscv32, riscv64, ppc, "
	    "ppc64, ppc64le, s390x, mips, mipsel, mips64, mips64el, loongarch64, "
	    "sh4, m68k, sparc64)");
	ERR(HEAD "  - arch: x86_64\n    transport: {type: local}\n",
	    "lab.yaml:3: boards[0].name: required field is missing");
	ERR(HEAD "  - name: a\n    arch: x86_64\n",
	    "lab.yaml:3: boards[0].transport: required field is missing");
	ERR(HEAD "  - name: a\n    arch: x86_64\n    transport: {type: local, host: x}\n",
	    "lab.yaml:5: boards[0].transport.host: unknown field");
	ERR(HEAD "  - name: a\n    arch: x86_64\n    transport: {type: ssh, host: -oProxyCommand=x}\n",
	    "lab.yaml:5: boards[0].transport.host: '-oProxyCommand=x' is not a valid host name or address");
	ERR(HEAD "  - name: a\n    arch: x86_64\n    transport: {type: ssh, host: h, port: 0}\n",
	    "lab.yaml:5: boards[0].transport.port: 0 is out of range (1 to 65535)");
	ERR(HEAD "  - name: a\n    arch: x86_64\n    transport: {type: ssh, host: h, port: 22x}\n",
	    "lab.yaml:5: boards[0].transport.port: '22x' is not an integer");
	ERR(HEAD "  - name: a\n    arch: x86_64\n    transport:\n      type: serial\n",
	    "lab.yaml:6: boards[0].transport: a serial transport needs one of device, "
	    "pty, socket, tcp or console");
	ERR(HEAD "  - name: a\n    arch: x86_64\n    transport:\n      type: serial\n"
		 "      device: /dev/ttyS0\n      tcp: h:2000\n",
	    "lab.yaml:8: boards[0].transport.tcp: only one of device, pty, socket, "
	    "tcp, console may be given");
	ERR(HEAD "  - name: a\n    arch: x86_64\n    transport:\n      type: serial\n"
		 "      tcp: h:2000\n      baud: 9600\n",
	    "lab.yaml:8: boards[0].transport.baud: a baud rate applies to a serial device only");
	ERR(HEAD "  - name: a\n    arch: x86_64\n    transport:\n      type: serial\n"
		 "      device: ttyUSB0\n",
	    "lab.yaml:7: boards[0].transport.device: 'ttyUSB0' is not an absolute "
	    "path (e.g. /dev/ttyUSB0)");
	ERR(HEAD "  - name: a\n    arch: x86_64\n    transport:\n      type: serial\n"
		 "      tcp: h\n",
	    "lab.yaml:7: boards[0].transport.tcp: 'h' is not a valid address (HOST:PORT)");
	ERR(HEAD "  - name: a\n    arch: x86_64\n    transport:\n      type: serial\n"
		 "      device: /dev/ttyS0\n      password: x\n",
	    "lab.yaml:8: boards[0].transport.password: a password needs a login");
	ERR(HEAD "  - name: a\n    arch: x86_64\n    transport:\n      type: serial\n"
		 "      console: qemu\n",
	    "lab.yaml:7: boards[0].transport.console: the qemu console needs boot method qemu");
	ERR(HEAD "  - name: a\n    arch: x86_64\n    transport: {type: local}\n"
		 "    boot: {method: qemu}\n",
	    "lab.yaml:5: boards[0].transport: a qemu boot needs the transport "
	    "{type: serial, console: qemu}");
	ERR(HEAD "  - name: a\n    arch: x86_64\n    boot: {method: pxe}\n",
	    "lab.yaml:5: boards[0].boot.method: unknown boot method 'pxe' (expected "
	    "none, qemu, command)");
	ERR(HEAD "  - name: a\n    arch: x86_64\n    transport: {type: local}\n"
		 "    boot: {method: command}\n",
	    "lab.yaml:6: boards[0].boot: a command boot needs at least one of "
	    "deploy, power_on, power_off, power_cycle");
	ERR(HEAD "  - name: a\n    arch: x86_64\n    boot: {method: qemu, memory: 8}\n",
	    "lab.yaml:5: boards[0].boot.memory: 8 is out of range (16 to 1048576)");
	ERR(HEAD "  - name: a\n    arch: x86_64\n    boot: {method: qemu, machine: -hda}\n",
	    "lab.yaml:5: boards[0].boot.machine: '-hda' is not a valid QEMU machine");
	ERR(HEAD "  - name: a\n    arch: x86_64\n    boot: {method: none, kernel: k}\n",
	    "lab.yaml:5: boards[0].boot.kernel: unknown field");
	ERR(HEAD "  - name: a\n    arch: x86_64\n    tags: [ok, 'not ok']\n"
		 "    transport: {type: local}\n",
	    "lab.yaml:5: boards[0].tags[1]: 'not ok' is not a valid tag");
	ERR(HEAD "  - name: a\n    arch: x86_64\n    submitters: []\n"
		 "    transport: {type: local}\n",
	    "lab.yaml:5: boards[0].submitters: an empty list would let no one in; "
	    "leave the field out to follow the lab policy");
	ERR(HEAD "  - name: a\n    arch: x86_64\n    transport: {type: local, workdir: tmp}\n",
	    "lab.yaml:5: boards[0].transport.workdir: the target directory must be an absolute path");
	ERR(HEAD "  - name: a\n    arch: x86_64\n    transport: {type: adb, serial: -s}\n",
	    "lab.yaml:5: boards[0].transport.serial: '-s' is not a valid adb serial");
	ERR(HEAD "  - name: a\n    arch: x86_64\n    transport: {type: local}\n"
		 "    criteria:\n      - {max_fail: 1}\n",
	    "lab.yaml:7: boards[0].criteria[0].suite: required field is missing");
	ERR(HEAD "  - name: a\n    arch: x86_64\n    transport: {type: local}\n"
		 "    criteria:\n      - {suite: s, metrics: [{name: m, lt: 1, gt: 0}]}\n",
	    "lab.yaml:7: boards[0].criteria[0].metrics[0].gt: only one of lt, le, "
	    "gt, ge, range may be given");
	ERR(HEAD "  - name: a\n    arch: x86_64\n    transport: {type: local}\n"
		 "    criteria:\n      - {suite: s, metrics: [{name: m, range: [2, 1]}]}\n",
	    "lab.yaml:7: boards[0].criteria[0].metrics[0].range: the range's low "
	    "bound is above its high bound");
	ERR(HEAD "  - name: a\n    arch: x86_64\n    transport: {type: local}\n"
		 "    criteria:\n      - {suite: s, metrics: [{name: m, le: .nan}]}\n",
	    "lab.yaml:7: boards[0].criteria[0].metrics[0].le: '.nan' is not a number");
	ERR(HEAD "  - name: a\n    arch: x86_64\n    transport: {type: local}\n"
		 "    criteria:\n      - {suite: s, fail_ok: [{case: x}]}\n",
	    "lab.yaml:7: boards[0].criteria[0].fail_ok[0].reason: required field is missing");
	ERR(HEAD "  - name: a\n    arch: x86_64\n    transport: {type: local}\n"
		 "    criteria:\n      - {suite: s}\n      - {suite: s}\n",
	    "lab.yaml:8: boards[0].criteria[1].suite: criteria for suite 's' "
	    "already given at line 7");
	ERR("boards: {name: a}\n", "lab.yaml:1: boards: expected a list, not a mapping");
	ERR("- a\n- b\n", "lab.yaml:1: expected a mapping, not a list");
	ERR("", "lab.yaml:1: the file is empty (expected lab, node, policy, recipes and boards)");
	ERR("lab: {name: t}\nlab: {name: u}\n", "lab.yaml:2: duplicate key 'lab'");
}

static void test_bombs(void)
{
	buf_t b;

	ERR("lab: &l {name: t}\nnode: *l\n",
	    "lab.yaml:1: anchors and aliases are not allowed");
	buf_init(&b, 0);
	buf_puts(&b, "lab: {name: t}\nboards: ");
	for (int i = 0; i < 100; i++)
		buf_putc(&b, '[');
	for (int i = 0; i < 100; i++)
		buf_putc(&b, ']');
	buf_putc(&b, '\n');
	ERR(buf_str(&b), "lab.yaml:2: nested too deep (more than 32 levels)");
	buf_reset(&b);
	buf_puts(&b, "lab: {name: t}\n");
	while (b.len <= LAB_MAX_CONFIG_BYTES)
		buf_puts(&b, "# padding padding padding padding padding padding\n");
	{
		char want[128];

		snprintf(want, sizeof(want),
			 "lab.yaml:1: file too large (%zu bytes, at most %d)", b.len,
			 LAB_MAX_CONFIG_BYTES);
		ERR(buf_str(&b), want);
	}
	/* many boards: the cap, not a slow crawl */
	buf_reset(&b);
	buf_puts(&b, "boards:\n");
	for (int i = 0; i < LAB_MAX_BOARDS + 1; i++)
		buf_printf(&b, "  - {name: b%d, arch: x86_64, transport: {type: local}}\n", i);
	ERR(buf_str(&b), "lab.yaml:2: boards: too many boards (257, at most 256)");
	buf_free(&b);
}

static void test_default(void)
{
	lab_config_t *cfg = lab_config_default();
	const lab_board_t *b;
	struct utsname u;

	CHECK(cfg && lab_name_valid(cfg->name));
	CHECK_STR(cfg->path, "(default)");
	CHECK_STR(cfg->listen, "tcp://127.0.0.1:7701");
	CHECK(cfg->trust_open && cfg->submitters_any && cfg->n_boards == 1);
	b = lab_config_board(cfg, "host");
	CHECK(b && b->transport.type == LAB_TRANSPORT_LOCAL &&
	      b->boot.method == LAB_BOOT_NONE);
	CHECK(uname(&u) == 0);
	CHECK_STR(b ? b->arch : NULL, u.machine);
	lab_config_destroy(&cfg);
	lab_config_destroy(&cfg);

	CHECK_STR(lab_transport_name(LAB_TRANSPORT_ADB), "adb");
	CHECK_STR(lab_boot_name(LAB_BOOT_COMMAND), "command");
	CHECK_STR(lab_serial_kind_name(LAB_SERIAL_TCP), "tcp");
	CHECK_STR(lab_arch_qemu("armv7l"), "qemu-system-arm");
	CHECK(lab_arch_qemu("arm64") == NULL);
	CHECK(lab_baud_valid(115200) && !lab_baud_valid(115201));
	CHECK(lab_endpoint_valid("tcp://*:7701"));
	CHECK(lab_endpoint_valid("tcp://[::1]:7701"));
	CHECK(!lab_endpoint_valid("tcp://:7701"));
	CHECK(!lab_endpoint_valid("ipc:///tmp/x"));
	CHECK(!lab_name_valid("..") && !lab_name_valid("-x") && lab_name_valid("a.b-c_9"));

	/* a file without a lab name takes the host's */
	lab_config_t *c2 = NULL;
	char *err = NULL;
	CHECK(lab_config_parse("x.yaml", "boards: []\n", 11, &c2, &err) == 0);
	CHECK(c2 && lab_name_valid(c2->name) && c2->n_boards == 0);
	lab_config_destroy(&c2);
	free(err);

	/* ~/ is the user's home */
	const char *t = "boards:\n  - {name: a, arch: x86_64, transport: {type: ssh, host: h, identity: ~/.ssh/id}}\n";
	char want[4200];

	setenv("HOME", "/home/tester", 1);
	err = NULL;
	CHECK(lab_config_parse("x.yaml", t, strlen(t), &c2, &err) == 0);
	snprintf(want, sizeof(want), "%s/.ssh/id", getenv("HOME"));
	CHECK_STR(c2 ? c2->boards[0].transport.identity : NULL, want);
	lab_config_destroy(&c2);
	free(err);
}

static void s_host_err(int line, const char *text, const char *want)
{
	lab_config_t *cfg = NULL;
	char *err = NULL;
	int r = lab_config_parse("lab.yaml", text, strlen(text), &cfg, &err);

	if (r < 0) {
		fprintf(stderr, "%s:%d: does not load: %s\n", __FILE__, line, err);
		free(err);
		check_failures++;
		return;
	}
	r = lab_config_check_host(cfg, &err);
	if (r != -ENOENT || !err || strcmp(err, want) != 0) {
		fprintf(stderr, "%s:%d: got %d '%s', want '%s'\n", __FILE__,
			line, r, err ? err : "(none)", want);
		check_failures++;
	}
	free(err);
	lab_config_destroy(&cfg);
}

/* policy.names: a display name per submitter key. */
static void test_names(void)
{
	static const char ok[] =
		"lab: {name: t}\npolicy:\n  names:\n"
		"    4A2D6C1E9B3F5A7C8D0E2F4A6B8C0D1E3F5A7B9C1D3E5F7A9B1C3D5E7F9A1B3C: alice\n";
	lab_config_t *cfg = NULL;
	char *err = NULL;

	CHECK(lab_config_parse("lab.yaml", ok, strlen(ok), &cfg, &err) == 0);
	CHECK(cfg && cfg->n_names == 1);
	if (cfg)
		CHECK_STR(lab_submitter_name(cfg, "4a2d6c1e9b3f5a7c8d0e2f4a6b8c0d1e"
						  "3f5a7b9c1d3e5f7a9b1c3d5e7f9a1b3c"),
			  "alice");
	lab_config_destroy(&cfg);
	ERR("lab: {name: t}\npolicy:\n  names: {abc: alice}\n",
	    "lab.yaml:3: policy.names.abc: 'abc' is not a key id (64 hex digits)");
}

/* policy.leases: whose keys may lease which boards, how long, how many. */
static void test_leases(void)
{
	static const char key[] =
		"4a2d6c1e9b3f5a7c8d0e2f4a6b8c0d1e3f5a7b9c1d3e5f7a9b1c3d5e7f9a1b3c";
	static const char ok[] =
		"lab: {name: t}\npolicy:\n  leases:\n"
		"    submitters: [4A2D6C1E9B3F5A7C8D0E2F4A6B8C0D1E3F5A7B9C1D3E5F7A9B1C3D5E7F9A1B3C]\n"
		"    boards: [qemu-1]\n    max: 90m\n    per_submitter: 2\n";
	static const char any[] =
		"lab: {name: t}\npolicy:\n  leases: {submitters: any}\n";
	lab_config_t *cfg = NULL;
	char *err = NULL;

	CHECK(lab_config_parse("lab.yaml", ok, strlen(ok), &cfg, &err) == 0);
	if (cfg) {
		CHECK(cfg->lease_max_ms == 90LL * 60 * 1000);
		CHECK(cfg->lease_per_key == 2);
		CHECK(lab_lease_allowed(cfg, key, "qemu-1"));
		CHECK(!lab_lease_allowed(cfg, key, "qemu-2"));
		CHECK(!lab_lease_allowed(cfg, "00", "qemu-1"));
	}
	lab_config_destroy(&cfg);
	CHECK(lab_config_parse("lab.yaml", any, strlen(any), &cfg, &err) == 0);
	if (cfg) {
		CHECK(cfg->lease_max_ms == LAB_DEFAULT_LEASE_MS);
		CHECK(lab_lease_allowed(cfg, key, "anything"));
	}
	lab_config_destroy(&cfg);
	/* no policy.leases: no leases at all */
	CHECK(lab_config_parse("lab.yaml", "lab: {name: t}\n", 15, &cfg,
			       &err) == 0);
	if (cfg)
		CHECK(!lab_lease_allowed(cfg, key, "qemu-1"));
	lab_config_destroy(&cfg);
	ERR("lab: {name: t}\npolicy:\n  leases: {submitters: any, max: 9w}\n",
	    "lab.yaml:3: policy.leases.max: expected a time up to 7d, like"
	    " 30m, 2h or 1d");
	ERR("lab: {name: t}\npolicy:\n  leases: {submitters: any, color: red}\n",
	    "lab.yaml:3: policy.leases.color: unknown field");
}

static void test_health(void)
{
	static const char ok[] =
		HEAD "  - name: a\n    arch: x86_64\n    transport: {type: local}\n"
		"    health: {command: 'test -e /tmp/x', interval: 5, on: host}\n"
		"  - name: b\n    arch: x86_64\n    transport: {type: local}\n";
	lab_config_t *cfg = NULL;
	char *err = NULL;

	CHECK(lab_config_parse("lab.yaml", ok, strlen(ok), &cfg, &err) == 0);
	if (cfg) {
		CHECK(strcmp(cfg->boards[0].health_cmd, "test -e /tmp/x") == 0);
		CHECK(cfg->boards[0].health_interval_s == 5);
		CHECK(cfg->boards[0].health_timeout_s == LAB_HEALTH_TIMEOUT_S);
		CHECK(cfg->boards[0].health_on_host);
		CHECK(cfg->boards[1].health_cmd == NULL);
	}
	lab_config_destroy(&cfg);
	free(err);
	ERR(HEAD "  - name: a\n    arch: x86_64\n    transport: {type: local}\n"
		 "    health: {interval: 5}\n",
	    "lab.yaml:6: boards[0].health.command: required field is missing");
	ERR(HEAD "  - name: a\n    arch: x86_64\n    transport: {type: local}\n"
		 "    health: {command: 'true', interval: 0}\n",
	    "lab.yaml:6: boards[0].health.interval: 0 is out of range (1 to"
	    " 86400)");
	ERR(HEAD "  - name: a\n    arch: x86_64\n    transport: {type: local}\n"
		 "    health: {command: 'true', on: pdu}\n",
	    "lab.yaml:6: boards[0].health.on: unknown health.on 'pdu'"
	    " (expected board, host)");
	ERR(HEAD "  - name: a\n    arch: x86_64\n    boot: {method: qemu}\n"
		 "    health: {command: 'true'}\n",
	    "lab.yaml:6: boards[0].health: a qemu board has no console between"
	    " jobs: check it with on: host");
}

/* policy.confirm: re-runs of regressions and their daily bound. */
static void test_confirm(void)
{
	static const char ok[] =
		"lab: {name: t}\npolicy:\n  confirm: {reruns: 5, per_day: 7}\n";
	lab_config_t *cfg = NULL;
	char *err = NULL;

	CHECK(lab_config_parse("lab.yaml", ok, strlen(ok), &cfg, &err) == 0);
	if (cfg)
		CHECK(cfg->confirm_reruns == 5 && cfg->confirm_per_day == 7);
	lab_config_destroy(&cfg);
	CHECK(lab_config_parse("lab.yaml", "lab: {name: t}\n", 15, &cfg,
			       &err) == 0);
	if (cfg)
		CHECK(cfg->confirm_reruns == LAB_DEFAULT_CONFIRM_RERUNS &&
		      cfg->confirm_per_day == LAB_DEFAULT_CONFIRM_PER_DAY);
	lab_config_destroy(&cfg);
	ERR("lab: {name: t}\npolicy:\n  confirm: {reruns: 11}\n",
	    "lab.yaml:3: policy.confirm.reruns: 11 is out of range (0 to 10)");
	ERR("lab: {name: t}\npolicy:\n  confirm: {often: 2}\n",
	    "lab.yaml:3: policy.confirm.often: unknown field");
}

/* What the file names must exist on this host; loading alone does not ask. */
static void test_host(void)
{
	static const char ok[] = HEAD "  - name: a\n"
				      "    arch: x86_64\n"
				      "    transport: {type: serial, device: /dev/null}\n";
	lab_config_t *cfg = NULL;
	char *err = NULL;

	CHECK(lab_config_parse("lab.yaml", ok, strlen(ok), &cfg, &err) == 0);
	CHECK(cfg && lab_config_check_host(cfg, &err) == 0);
	lab_config_destroy(&cfg);
	s_host_err(__LINE__, HEAD "  - name: a\n"
				  "    arch: x86_64\n"
				  "    transport: {type: local}\n"
				  "  - name: b\n"
				  "    arch: x86_64\n"
				  "    transport:\n"
				  "      type: serial\n"
				  "      device: /dev/labmesh-no-such-tty\n",
		   "lab.yaml:10: boards[1].transport.device: "
		   "'/dev/labmesh-no-such-tty': No such file or directory");
	s_host_err(__LINE__, HEAD "  - name: q\n"
				  "    arch: x86_64\n"
				  "    boot:\n"
				  "      method: qemu\n"
				  "      qemu: /opt/labmesh-none/qemu-system-x86_64\n",
		   "lab.yaml:7: boards[0].boot.qemu: "
		   "'/opt/labmesh-none/qemu-system-x86_64' is not installed "
		   "(no such executable)");
	s_host_err(__LINE__, HEAD "  - name: q\n"
				  "    arch: x86_64\n"
				  "    boot: {method: qemu, qemu: labmesh-no-qemu}\n",
		   "lab.yaml:5: boards[0].boot.qemu: 'labmesh-no-qemu' is not "
		   "installed (no such executable in PATH)");
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s EXAMPLES_DIR\n", argv[0]);
		return 2;
	}
	s_dir = argv[1];
	test_examples();
	test_errors();
	test_host();
	test_names();
	test_leases();
	test_health();
	test_confirm();
	test_bombs();
	test_default();
	if (check_failures) {
		fprintf(stderr, "%d checks failed\n", check_failures);
		return 1;
	}
	printf("ok\n");
	return 0;
}
