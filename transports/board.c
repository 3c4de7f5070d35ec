/*
 * board: boot methods and power control around a transport.
 *   none    — the board is up: just open its transport;
 *   command — the lab operator's deploy / power_on / power_off /
 *             power_cycle commands, each run by /bin/sh -c of the
 *             OPERATOR's string with LABMESH_BOARD, LABMESH_KERNEL,
 *             LABMESH_INITRD and LABMESH_APPEND in the environment (values
 *             from a request only ever travel as environment variables),
 *             a timeout, output to the console log;
 *   qemu    — delegated to qemu_boot()/qemu_halt() (qemu.c).
 */
#include "transports/backend.h"
#include "transports/proc.h"

#include "proto/log.h"
#include "proto/mem.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BOARD_COMMAND_TIMEOUT_S 300 /* operator command, when not configured */
#define BOARD_BOOT_TIMEOUT_S 120    /* to a reachable transport after power on */
#define BOARD_RETRY_MS 1000

static void s_error(board_t *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void s_error(board_t *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(b->err, sizeof(b->err), fmt, ap);
	va_end(ap);
	log_debug("%s", b->err);
}

const char *board_error(const board_t *b)
{
	return b ? b->err : "no board";
}

transport_t *board_transport(board_t *b)
{
	return b ? b->t : NULL;
}

static void s_console(void *arg, enum transport_stream st, const char *data,
		      size_t len)
{
	board_t *b = arg;

	if (b->opts.console_fn)
		b->opts.console_fn(b->opts.console_arg, st, data, len);
}

/* Run one operator command (NULL or empty: nothing to do). */
static int s_command(board_t *b, const char *what, const char *cmd)
{
	const lab_boot_t *boot = &b->cfg->boot;
	char *env[4];
	proc_spec_t s;
	char err[256];
	int r, status = 0;

	if (!cmd || !*cmd)
		return 0;
	env[0] = xasprintf("LABMESH_BOARD=%s", b->cfg->name ? b->cfg->name : "");
	env[1] = xasprintf("LABMESH_KERNEL=%s", b->kernel.kernel ? b->kernel.kernel : "");
	env[2] = xasprintf("LABMESH_INITRD=%s", b->kernel.initrd ? b->kernel.initrd : "");
	env[3] = xasprintf("LABMESH_APPEND=%s", b->kernel.append ? b->kernel.append : "");
	proc_spec_init(&s);
	proc_arg(&s, "/bin/sh");
	proc_arg(&s, "-c");
	proc_arg(&s, cmd);
	for (int i = 0; i < 4; i++)
		proc_env(&s, env[i]);
	s.cwd = b->workdir;
	s.timeout_ms = 1000 * (boot->command_timeout_s > 0 ? boot->command_timeout_s
							    : BOARD_COMMAND_TIMEOUT_S);
	s.fn = s_console;
	s.arg = b;
	r = proc_run(&s, &status, err, sizeof(err));
	if (r < 0)
		s_error(b, "%s command: %s", what, err);
	else if (status != 0) {
		s_error(b, "%s command exited with status %d", what, status);
		r = -EIO;
	}
	for (int i = 0; i < 4; i++)
		free(env[i]);
	return r;
}

static long long s_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Open the transport; after a power on, retry until the boot timeout (the
 * board is still booting). */
static int s_open_transport(board_t *b, bool wait_boot)
{
	int boot_s = b->cfg->boot.boot_timeout_s > 0 ? b->cfg->boot.boot_timeout_s
						     : BOARD_BOOT_TIMEOUT_S;
	long long deadline = s_now_ms() + 1000LL * boot_s;
	transport_opts_t o = b->opts;
	int r;

	o.workdir = b->workdir;
	for (;;) {
		char *err = NULL;

		r = transport_open(b->cfg, &o, &b->t, &err);
		if (r == 0)
			return 0;
		s_error(b, "%s", err);
		free(err);
		if (!wait_boot || s_now_ms() + BOARD_RETRY_MS > deadline)
			return r;
		usleep(BOARD_RETRY_MS * 1000);
	}
}

static int s_power_on(board_t *b, bool cycle)
{
	const lab_boot_t *boot = &b->cfg->boot;
	int r;

	if (cycle && boot->power_cycle && *boot->power_cycle)
		r = s_command(b, "power_cycle", boot->power_cycle);
	else if (cycle) {
		r = s_command(b, "power_off", boot->power_off);
		if (r == 0)
			r = s_command(b, "power_on", boot->power_on);
	} else
		r = s_command(b, "power_on", boot->power_on);
	return r;
}

static int s_boot(board_t *b, char **ret_err)
{
	int r;

	switch (b->cfg->boot.method) {
	case LAB_BOOT_NONE:
		return s_open_transport(b, false);
	case LAB_BOOT_COMMAND:
		r = s_command(b, "deploy", b->cfg->boot.deploy);
		if (r == 0)
			r = s_power_on(b, false);
		if (r == 0)
			r = s_open_transport(b, true);
		return r;
	case LAB_BOOT_QEMU:
		return qemu_boot(b, &b->kernel, ret_err);
	}
	s_error(b, "unknown boot method %d", (int)b->cfg->boot.method);
	return -EINVAL;
}

static const char *s_or(const char *a, const char *b)
{
	return a ? a : b;
}

int board_open(const lab_board_t *board, const board_kernel_t *kernel,
	       const transport_opts_t *opts, board_t **ret_b, char **ret_err)
{
	board_kernel_t none = { 0 };
	char *err = NULL;
	board_t *b;
	int r;

	if (!board || !ret_b || !ret_err)
		return -EINVAL;
	if (!kernel)
		kernel = &none;
	b = xzalloc(sizeof(*b));
	b->cfg = board;
	if (opts)
		b->opts = *opts;
	b->kernel.kernel = kernel->kernel || board->boot.kernel
				   ? xstrdup(s_or(kernel->kernel, board->boot.kernel))
				   : NULL;
	b->kernel.initrd = kernel->initrd || board->boot.initrd
				   ? xstrdup(s_or(kernel->initrd, board->boot.initrd))
				   : NULL;
	b->kernel.append = kernel->append || board->boot.append
				   ? xstrdup(s_or(kernel->append, board->boot.append))
				   : NULL;
	r = transport_workdir(b->opts.workdir, &b->workdir, &b->own_workdir,
			      b->err, sizeof(b->err));
	b->opts.workdir = b->workdir;
	if (r == 0)
		r = s_boot(b, &err);
	if (r < 0) {
		*ret_err = err ? err
			       : xasprintf("board %s: %s",
					   board->name ? board->name : "?",
					   b->err[0] ? b->err : strerror(-r));
		board_close(&b);
		return r;
	}
	*ret_b = b;
	return 0;
}

static int s_power_qemu(board_t *b, enum transport_power op)
{
	char *err = NULL;
	int r = 0;

	if (op != TRANSPORT_POWER_ON) {
		transport_close(&b->t);
		qemu_halt(b);
	}
	if (op != TRANSPORT_POWER_OFF && !b->qemu) {
		r = qemu_boot(b, &b->kernel, &err);
		if (r < 0) {
			s_error(b, "%s", err ? err : strerror(-r));
			free(err);
		}
	}
	return r;
}

int board_power(board_t *b, enum transport_power op)
{
	int r;

	if (!b)
		return -EINVAL;
	b->err[0] = '\0';
	switch (b->cfg->boot.method) {
	case LAB_BOOT_NONE:
		s_error(b, "board %s has no power control (boot method none)",
			b->cfg->name ? b->cfg->name : "?");
		return -ENOTSUP;
	case LAB_BOOT_QEMU:
		return s_power_qemu(b, op);
	case LAB_BOOT_COMMAND:
		break;
	}
	transport_close(&b->t);
	if (op == TRANSPORT_POWER_OFF)
		return s_command(b, "power_off", b->cfg->boot.power_off);
	r = s_power_on(b, op == TRANSPORT_POWER_CYCLE);
	if (r == 0)
		r = s_open_transport(b, true);
	return r;
}

void board_close(board_t **p)
{
	board_t *b;

	if (!p || !*p)
		return;
	b = *p;
	transport_close(&b->t);
	if (b->cfg->boot.method == LAB_BOOT_QEMU)
		qemu_halt(b);
	else if (b->cfg->boot.method == LAB_BOOT_COMMAND)
		s_command(b, "power_off", b->cfg->boot.power_off);
	if (b->own_workdir && b->workdir)
		transport_rmtree(b->workdir);
	free(b->workdir);
	free((char *)b->kernel.kernel);
	free((char *)b->kernel.initrd);
	free((char *)b->kernel.append);
	free(b);
	*p = NULL;
}
