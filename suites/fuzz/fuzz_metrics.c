/*
 * libFuzzer harness: the metrics output parser, then the criteria over what
 * it produced.
 */
#include "suites/fuzz/fuzz_parser.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_parser_one(suite_parse_metrics, data, size);
}
