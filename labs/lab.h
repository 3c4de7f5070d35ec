/*
 * lab: the lab configuration as loaded from one YAML file — the lab's
 * name, its node settings (listen endpoint, seeds, trust), its policy, its
 * build recipes and its boards with their transports and boot methods.
 *
 * These are plain-data structs: the loader fills them, everything else
 * reads them. Strings are owned by the config and freed with it. Every
 * entry remembers the line it came from so later checks can name it.
 */
#ifndef LABMESH_LABS_LAB_H
#define LABMESH_LABS_LAB_H

#include "proto/buf.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LAB_MAX_CONFIG_BYTES (1024 * 1024) /* a lab file larger is refused */
#define LAB_MAX_BOARDS 256
#define LAB_MAX_SEEDS 64
#define LAB_MAX_LIST 256 /* tags, trust keys, submitters, args... */
#define LAB_MAX_SUBMITTER_NAME 32
#define LAB_DEFAULT_LEASE_MS (3600LL * 1000) /* policy.leases.max */
#define LAB_DEFAULT_LIVENESS_MS 5000LL        /* node.liveness */
#define LAB_MIN_LIVENESS_MS 5000LL
#define LAB_MAX_LIVENESS_MS (10LL * 60 * 1000)
#define LAB_DEFAULT_CONFIRM_RERUNS 3	    /* policy.confirm.reruns */
#define LAB_DEFAULT_CONFIRM_PER_DAY 30	    /* policy.confirm.per_day */
#define LAB_MAX_NAME 64  /* lab and board names: [A-Za-z0-9_.-]{1,64} */
#define LAB_MAX_CRITERIA 64 /* criteria overrides per board */
#define LAB_HEALTH_FAILS 3          /* failed checks in a row: offline */
#define LAB_HEALTH_INTERVAL_S 60    /* health.interval by default */
#define LAB_HEALTH_TIMEOUT_S 30     /* health.timeout by default */
#define LAB_MAX_HEALTH_INTERVAL_S 86400
#define LAB_DEFAULT_BLOB_BUDGET (10ULL << 30) /* store.blob_budget: 10G */
#define LAB_MIN_BLOB_BUDGET 1024ULL           /* smaller is a typo */
#define LAB_MAX_BLOB_BUDGET (1ULL << 50)      /* 1 PiB */
#define LAB_DEFAULT_BUILD_BUDGET (20ULL << 30) /* store.build_budget: 20G */
#define LAB_MIN_BUILD_BUDGET (1ULL << 20)      /* smaller is a typo */

enum lab_transport_type {
	LAB_TRANSPORT_LOCAL = 0,
	LAB_TRANSPORT_SSH,
	LAB_TRANSPORT_SERIAL,
	LAB_TRANSPORT_ADB,
};

enum lab_serial_kind {
	LAB_SERIAL_TTY = 0, /* a tty device: termios baud, 8N1, raw */
	LAB_SERIAL_PTY,     /* a pty path (no baud) */
	LAB_SERIAL_UNIX,    /* a unix stream socket (QEMU chardev socket) */
	LAB_SERIAL_TCP,     /* raw TCP, as ser2net serves it */
	LAB_SERIAL_QEMU,    /* the console of the QEMU the boot method starts */
};

enum lab_boot_method {
	LAB_BOOT_NONE = 0, /* test the running system */
	LAB_BOOT_QEMU,     /* the node starts qemu-system-<arch> */
	LAB_BOOT_COMMAND,  /* operator deploy / power commands */
};

typedef struct {
	enum lab_transport_type type;
	/* ssh */
	char *host;
	int port;          /* 22 by default */
	char *user;
	char *identity;    /* private key file */
	char *password;    /* only when given explicitly (sshpass) */
	char *known_hosts; /* per-lab pinned host keys */
	/* serial */
	enum lab_serial_kind serial_kind;
	char *device;   /* tty or pty path, or unix socket path */
	char *tcp_host; /* ser2net */
	int tcp_port;
	int baud;       /* tty only; 115200 by default */
	char *login;    /* optional: user name sent at a login prompt */
	char *login_password;
	/* adb */
	char *adb_serial;
	/* all */
	char *workdir;      /* test directory on the target */
	int connect_timeout_s;
	int line;
	int device_line; /* of device, pty or socket */
} lab_transport_t;

typedef struct {
	enum lab_boot_method method;
	/* qemu */
	char *qemu;      /* binary; default qemu-system-<arch> */
	char *machine;   /* -machine */
	char *cpu;       /* -cpu */
	int memory_mb;   /* -m; 512 by default */
	int cpus;        /* -smp; 1 by default */
	char *kernel;    /* default kernel when a request brings none */
	char *initrd;
	char *rootfs;    /* a disk image, attached as virtio drive */
	char *append;    /* kernel command line */
	char **qemu_args; /* extra arguments, as a list */
	size_t n_qemu_args;
	int boot_timeout_s; /* to a shell prompt; 120 by default */
	/* command: run by the node with LABMESH_BOARD, LABMESH_KERNEL,
	 * LABMESH_INITRD in the environment, never through request values */
	char *deploy;
	char *power_on;
	char *power_off;
	char *power_cycle;
	int command_timeout_s;
	int line;
	int qemu_line; /* of qemu, or of the boot block when defaulted */
} lab_boot_t;

/* Pass/fail rules (Fuego's criteria), from a suite or a board override. */
enum lab_metric_op { LAB_OP_LT = 0, LAB_OP_LE, LAB_OP_GT, LAB_OP_GE, LAB_OP_RANGE };

typedef struct {
	char *name; /* metric name within the suite */
	enum lab_metric_op op;
	double lo;  /* the bound; for range, the lower bound */
	double hi;  /* range only */
} lab_metric_rule_t;

typedef struct {
	char *path;   /* case path within the suite, e.g. "set.case" */
	char *reason; /* why this failure is acceptable */
} lab_fail_ok_t;

typedef struct {
	char *suite;  /* the suite these rules apply to (overrides) */
	int max_fail; /* -1: not set */
	int min_pass; /* -1: not set */
	char **must_pass;
	size_t n_must_pass;
	lab_fail_ok_t *fail_ok;
	size_t n_fail_ok;
	lab_metric_rule_t *metrics;
	size_t n_metrics;
	int line;
} lab_criteria_t;

typedef struct {
	char *name;
	char *arch;    /* x86_64, aarch64, armv7l, riscv64... */
	char *machine; /* free text: "qemu-q35", "beaglebone-black" */
	char *description;
	char **tags;
	size_t n_tags;
	lab_transport_t transport;
	lab_boot_t boot;
	lab_criteria_t *criteria; /* per-suite overrides */
	size_t n_criteria;
	char **submitters; /* NULL: the lab policy applies; else only these */
	size_t n_submitters;
	/* health: an operator's check run every interval while the board is
	 * idle, through its transport or (on_host) on the lab's machine with
	 * LABMESH_BOARD set; LAB_HEALTH_FAILS failures in a row take the
	 * board offline until one passes. NULL: no check. */
	char *health_cmd;
	int health_interval_s; /* LAB_HEALTH_INTERVAL_S by default */
	int health_timeout_s;  /* LAB_HEALTH_TIMEOUT_S by default */
	bool health_on_host;
	int health_line;
	int line;
} lab_board_t;

typedef struct {
	char *arch;
	char *command;     /* operator-written; runs in the checked-out tree */
	char *cross_compile; /* toolchain prefix, also used to build suites */
	char **configs;    /* config bases it builds; NULL: any *config target */
	size_t n_configs;
	int timeout_s;
	int line;
} lab_recipe_t;

typedef struct {
	char *endpoint; /* tcp://host:port */
	char *key;      /* the peer's node id, 64 hex */
	int line;
} lab_seed_t;

typedef struct {
	char *path; /* the file loaded, or "(default)" */
	char *name; /* the lab's name */
	/* node */
	char *listen;   /* ROUTER endpoint; tcp://127.0.0.1:7701 by default */
	lab_seed_t *seeds;
	size_t n_seeds;
	bool trust_open;   /* true: any CURVE peer; else trust_keys only */
	char **trust_keys; /* node ids (64 hex) */
	size_t n_trust_keys;
	int max_peers;     /* 8 by default */
	/* a peer silent this long is gone; pings after 2/5 of it */
	long long liveness_ms;
	/* requests living longer (expires - created) are refused: 168 by
	 * default, 1..PROTO_MAX_REQUEST_LIFETIME_MS in hours */
	int max_request_hours;
	bool beacon;       /* LAN beacon hint, off by default */
	char *http;        /* dashboard address, NULL: off */
	/* store: blob retention (logs, kernel images); the node keeps
	 * HOME/blobs within this many bytes, least recently used out */
	unsigned long long blob_budget; /* LAB_DEFAULT_BLOB_BUDGET by default */
	/* builds: git mirrors, kept trees, finished builds; within
	 * build_budget bytes under build_dir (NULL: HOME/work) */
	char *build_dir;
	unsigned long long build_budget; /* LAB_DEFAULT_BUILD_BUDGET */
	/* policy */
	bool submitters_any;
	char **submitters; /* key ids allowed when not "any" */
	size_t n_submitters;
	int quota_per_key; /* jobs per key per day; 0: unlimited */
	/* policy.names: display names of submitter keys, index for index
	 * (keys in lower case; names 1..LAB_MAX_SUBMITTER_NAME, name syntax) */
	char **name_keys;
	char **names;
	size_t n_names;
	bool build_any;    /* whose git source this lab builds: any allowed submitter */
	/* whose builds this lab boots instead of building the same (tree,
	 * commit, config, arch, toolchain) itself; none by default */
	bool builds_from_any;
	char **builds_from; /* node ids */
	size_t n_builds_from;
	/* policy.leases: who may hold which boards interactively, how long,
	 * how many at once; no leases without it */
	bool lease_any;	     /* any submitter (else lease_keys) */
	char **lease_keys;   /* key ids (lower case) */
	size_t n_lease_keys;
	bool lease_boards_any; /* every board (else lease_boards) */
	char **lease_boards;	/* board names */
	size_t n_lease_boards;
	long long lease_max_ms;	/* the longest lease (LAB_DEFAULT_LEASE_MS) */
	int lease_per_key;	/* boards one key holds or waits for at once */
	/* policy.confirm: a regression of this lab's own run is re-run
	 * confirm_reruns times on its board (0: only when asked), and this
	 * node starts at most confirm_per_day re-run requests a day */
	int confirm_reruns;
	int confirm_per_day;
	/* boards and recipes */
	lab_board_t *boards;
	size_t n_boards;
	lab_recipe_t *recipes;
	size_t n_recipes;
} lab_config_t;

/*
 * Load and validate a lab file. On success returns 0 and *ret_cfg (the
 * caller's, free with lab_config_destroy). On failure returns a negative
 * errno code and *ret_err, one line "FILE:LINE: FIELD: what is wrong"
 * (the caller frees it).
 */
int lab_config_load(const char *path, lab_config_t **ret_cfg, char **ret_err);
/*
 * Check that this host has what cfg names: each qemu board's QEMU binary
 * (looked up in PATH when it has no '/') and each tty serial device.
 * Returns 0, or -ENOENT and *ret_err "FILE:LINE: FIELD: what is missing"
 * (the caller frees it). Separate from loading, which does no I/O, so
 * that a lab file written for another machine can still be read.
 */
int lab_config_check_host(const lab_config_t *cfg, char **ret_err);
/* The same from a buffer; name is used in messages. */
int lab_config_parse(const char *name, const char *text, size_t len,
		     lab_config_t **ret_cfg, char **ret_err);
/* The built-in default: a lab named after the host with one local board. */
lab_config_t *lab_config_default(void);
void lab_config_destroy(lab_config_t **p);
/* Whether policy.leases lets the key (64 hex digits) lease board. */
bool lab_lease_allowed(const lab_config_t *cfg, const char *hex,
		       const char *board);

/* The display name policy.names gives the submitter key (64 hex digits,
 * any case), or NULL. Borrowed. */
const char *lab_submitter_name(const lab_config_t *cfg, const char *hex);
/* Borrowed pointer to a board by name, or NULL. */
const lab_board_t *lab_config_board(const lab_config_t *cfg, const char *name);

const char *lab_transport_name(enum lab_transport_type t);
const char *lab_boot_name(enum lab_boot_method m);
/* The YAML key that selects it: "device", "pty", "socket", "tcp", "console". */
const char *lab_serial_kind_name(enum lab_serial_kind k);

/* ---- checks the loader applies, for everyone to reuse ---- */

/* [A-Za-z0-9_.-]{1,64}, not starting with '.' or '-'. */
bool lab_name_valid(const char *s);
/* A node or submitter id: 64 hex digits (either case). */
bool lab_key_valid(const char *s);
/* One of the architectures we know (uname -m spelling: x86_64, aarch64,
 * armv7l, riscv64...). */
bool lab_arch_valid(const char *s);
/* The QEMU system emulator for an arch ("qemu-system-x86_64"), or NULL. */
const char *lab_arch_qemu(const char *arch);
/* A baud rate from the standard termios set (50 ... 4000000). */
bool lab_baud_valid(long baud);
/* tcp://HOST:PORT with HOST a name, an IPv4 address, [IPv6] or '*', and
 * PORT 1..65535. */
bool lab_endpoint_valid(const char *s);

/*
 * Criteria (Fuego-like pass rules) from a YAML mapping, as boards write
 * them in the lab file and suites in suite.yaml:
 *   {suite: NAME, max_fail: N, min_pass: N, must_pass: [case...],
 *    fail_ok: [{case: C, reason: R}], metrics: [{name: M, lt|le|gt|ge: X}
 *    or {name: M, range: [LO, HI]}]}
 * with_suite: the suite key is required (board overrides); otherwise it
 * is not allowed (suite.yaml). Unknown keys are errors. Errors are
 * recorded in map's tree (see labs/yaml.h). Returns 0 and fills *ret (free
 * with lab_criteria_free), or -EINVAL.
 */
typedef struct yaml_val yaml_val_t;
int lab_criteria_read(yaml_val_t *map, bool with_suite, lab_criteria_t *ret);
/* A criteria block with nothing set (max_fail, min_pass -1). */
void lab_criteria_init(lab_criteria_t *c);
/* Free what a criteria block owns (not the block itself) and leave it as
 * lab_criteria_init() does. c may be NULL. */
void lab_criteria_free(lab_criteria_t *c);

/* ---- importing other labs' board descriptions ---- */

#define LAB_FUEGO_MAX_BYTES (256 * 1024) /* a larger board file is refused */
#define LAB_FUEGO_MAX_LINE 4096           /* bytes in one (joined) line */
#define LAB_FUEGO_MAX_VARS 1024           /* assignments in one file */

typedef struct {
	const char *name; /* board name; NULL: the file name without .board */
	const char *arch; /* NULL: from ARCHITECTURE, else TOOLCHAIN */
} lab_fuego_opts_t;

/*
 * Turn a Fuego board file (fuego-ro/boards/NAME.board: shell-like
 * VAR="value" lines, comments; inherit/include/override-func/functions
 * skipped with a note) into one board entry of a lab file, appended to
 * out_yaml: comment lines (what was imported from where, and a note for
 * each thing that was not), then "  - name: ..." ready to go under
 * "boards:". Read: TRANSPORT (ssh, serial, local, adb), IPADDR, SSH_PORT,
 * LOGIN, PASSWORD, SSH_KEY, SERIAL, BAUD, BOARD_TESTDIR, MACHINE,
 * ARCHITECTURE / TOOLCHAIN (one arch per board, the kernel's: every
 * 32-bit ARM name is arm, arm64 aarch64, ia32/x86 i686), BOARD_CONTROL
 * (ttc, ebf, lc: a command boot with their power commands); $FUEGO_RW,
 * $FUEGO_RO, $FUEGO_CORE, $BOARD and $NODE_NAME take the values Fuego's
 * container gives them; IO_TIME_SERIAL, ORCHESTRATOR and placeholders
 * such as IPADDR="dut_ipaddr" are reported; every variable not imported
 * is listed. The entry is checked with the lab loader before it is
 * returned. Returns 0, or a negative errno code and
 * *ret_err, one line "FILE:LINE: VAR: what is wrong" (caller frees).
 */
int lab_import_fuego(const char *path, buf_t *out_yaml, char **ret_err);
int lab_import_fuego_file(const char *path, const lab_fuego_opts_t *opts,
			  buf_t *out_yaml, char **ret_err);
/* The same from memory; file names the input in messages (and gives the
 * board name when opts->name is NULL). */
int lab_import_fuego_text(const char *file, const char *text, size_t len,
			  const lab_fuego_opts_t *opts, buf_t *out_yaml,
			  char **ret_err);

/* Options of the LAVA and labgrid importers; any field may be NULL. */
typedef struct {
	const char *name;     /* LAVA: the board's name (default: the file's);
			       * labgrid: only this target */
	const char *arch;     /* the arch when the file does not tell */
	const char *type;     /* LAVA: the device type, when the file lacks it */
	const char *exporter; /* labgrid: the exporter configuration file */
} lab_import_opts_t;

#define LAB_IMPORT_MAX_BYTES (1024 * 1024) /* a larger LAVA/labgrid file is refused */

/*
 * Turn a rendered LAVA device configuration (the YAML the dispatcher
 * reads) into one board entry, appended to out_yaml like the Fuego
 * importer's: comments for every field not mapped, then "  - name: ...".
 * The serial console (commands.connect / connections: telnet, nc, socat
 * to a console server, a tty), power (commands.power_on, power_off,
 * hard_reset), the boot (qemu; a tftp deploy; ssh) and the device type as
 * a tag. The entry is checked with the lab loader. Returns 0, or a
 * negative errno code and *ret_err (one line, the caller frees) when
 * nothing usable remains.
 */
int lab_import_lava_text(const char *file, const char *text, size_t len,
			 const lab_import_opts_t *opts, buf_t *out_yaml,
			 char **ret_err);
int lab_import_lava_file(const char *path, const lab_import_opts_t *opts,
			 buf_t *out_yaml, char **ret_err);

/*
 * Turn a labgrid environment configuration (targets with resources and
 * drivers), and optionally its exporter configuration (where
 * RemotePlace resources are served), into board entries, one per target
 * with a usable transport or QEMU boot: RawSerialPort, USBSerialPort and
 * NetworkSerialPort become serial transports, NetworkService an ssh one,
 * NetworkPowerPort / ExternalPowerDriver / ManualPowerPort the power
 * commands of a command boot, QEMUDriver a qemu boot. Comments name
 * every resource, driver and field not mapped. Each entry is checked
 * with the lab loader. exp_text may be NULL. Returns 0, or a negative
 * errno code and *ret_err when no target is usable.
 */
int lab_import_labgrid_text(const char *file, const char *text, size_t len,
			    const char *exp_file, const char *exp_text,
			    size_t exp_len, const lab_import_opts_t *opts,
			    buf_t *out_yaml, char **ret_err);
int lab_import_labgrid_file(const char *path, const lab_import_opts_t *opts,
			    buf_t *out_yaml, char **ret_err);

/*
 * A size in bytes: "1048576", "512K", "100M", "10G", "1T" (binary units,
 * optionally followed by "iB" or "B"). 0, or -EINVAL for anything else
 * or a size over 2^64-1.
 */
int lab_parse_size(const char *s, uint64_t *ret);

#endif
