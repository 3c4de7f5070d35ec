/*
 * Fuzz the labgrid environment importer: the input is an environment,
 * optionally followed by a NUL byte and an exporter configuration. Any
 * bytes either give board entries (which the importer has already loaded
 * with the lab loader; we load them again) or one error line.
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
	const uint8_t *nul = memchr(data, '\0', size);
	size_t env_len = nul ? (size_t)(nul - data) : size;
	const char *exp = nul ? (const char *)nul + 1 : NULL;
	size_t exp_len = nul ? size - env_len - 1 : 0;
	char *err = NULL;
	buf_t out, doc;

	if (size > 0 && (data[0] & 1))
		o.arch = "arm";
	buf_init(&out, 0);
	if (lab_import_labgrid_text("fuzz.yaml", (const char *)data, env_len, "exp.yaml",
				    exp, exp_len, &o, &out, &err) < 0) {
		if (!err || strchr(err, '\n') ||
		    (strncmp(err, "fuzz.yaml", 9) != 0 && strncmp(err, "exp.yaml", 8) != 0))
			abort();
		free(err);
		buf_free(&out);
		return 0;
	}
	buf_init(&doc, 0);
	buf_puts(&doc, "boards:\n");
	buf_append(&doc, out.data, out.len);
	if (lab_config_parse("x", buf_str(&doc), doc.len, &cfg, &err) < 0 ||
	    cfg->n_boards < 1)
		abort();
	lab_config_destroy(&cfg);
	buf_free(&doc);
	buf_free(&out);
	return 0;
}
