/*
 * libFuzzer harness: the suite.yaml loader (YAML tree + every field check),
 * without the folder checks.
 */
#include "suites/catalog.h"

#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	suite_def_t *d = NULL;
	char *err = NULL;

	if (suite_def_parse("fuzz.yaml", (const char *)data, size, NULL, &d, &err) == 0)
		suite_def_destroy(&d);
	free(err);
	return 0;
}
