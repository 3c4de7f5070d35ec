/*
 * Fuzz the LAVA device configuration importer: any bytes either give a
 * board entry (which the importer has already loaded with the lab loader;
 * we load it again) or one error line naming the input.
 */
#include "labs/lab.h"
#include "proto/buf.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	lab_import_opts_t o = { 0 };
	lab_config_t *cfg = NULL;
	char *err = NULL;
	buf_t out, doc;

	/* the first byte picks the options, so both paths are explored */
	if (size > 0 && (data[0] & 1))
		o.arch = "aarch64";
	if (size > 0 && (data[0] & 2))
		o.type = "qemu";
	buf_init(&out, 0);
	if (lab_import_lava_text("fuzz.yaml", (const char *)data, size, &o, &out, &err) < 0) {
		if (!err || strncmp(err, "fuzz.yaml", 9) != 0 || strchr(err, '\n'))
			abort();
		free(err);
		buf_free(&out);
		return 0;
	}
	buf_init(&doc, 0);
	buf_puts(&doc, "boards:\n");
	buf_append(&doc, out.data, out.len);
	if (lab_config_parse("x", buf_str(&doc), doc.len, &cfg, &err) < 0 ||
	    cfg->n_boards != 1)
		abort();
	lab_config_destroy(&cfg);
	buf_free(&doc);
	buf_free(&out);
	return 0;
}
