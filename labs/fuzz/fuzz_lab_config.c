/*
 * Fuzz the lab loader: any bytes either load into a config that passes
 * the loader's own checks, or give one error line naming the input.
 */
#include "labs/lab.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	lab_config_t *cfg = NULL;
	char *err = NULL;

	if (lab_config_parse("fuzz.yaml", (const char *)data, size, &cfg, &err) < 0) {
		if (!err || strncmp(err, "fuzz.yaml:", 10) != 0 || strchr(err, '\n'))
			abort();
		free(err);
		return 0;
	}
	if (!lab_name_valid(cfg->name) || !lab_endpoint_valid(cfg->listen))
		abort();
	for (size_t i = 0; i < cfg->n_boards; i++) {
		const lab_board_t *b = &cfg->boards[i];

		if (!lab_name_valid(b->name) || !lab_arch_valid(b->arch) ||
		    lab_config_board(cfg, b->name) != b)
			abort();
		if (b->transport.type == LAB_TRANSPORT_SERIAL &&
		    b->transport.serial_kind == LAB_SERIAL_TTY &&
		    !lab_baud_valid(b->transport.baud))
			abort();
		if ((b->boot.method == LAB_BOOT_QEMU) !=
		    (b->transport.type == LAB_TRANSPORT_SERIAL &&
		     b->transport.serial_kind == LAB_SERIAL_QEMU))
			abort();
	}
	for (size_t i = 0; i < cfg->n_seeds; i++)
		if (!lab_key_valid(cfg->seeds[i].key))
			abort();
	lab_config_destroy(&cfg);
	return 0;
}
