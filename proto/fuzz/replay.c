/*
 * replay: run a fuzz harness over the files of its corpus directories
 * without libFuzzer, so the seeds and every crash input kept there are
 * replayed by the unit tests (and under ASan/UBSan in CI). Each input's
 * name goes to stderr first, so a crash names the input that caused it.
 *
 * usage: replay-NAME DIR...
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define REPLAY_MAX_INPUT (2 * 1024 * 1024)

static int s_run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *data;
	size_t n;

	if (!f) {
		perror(path);
		return -1;
	}
	data = malloc(REPLAY_MAX_INPUT);
	if (!data) {
		fclose(f);
		return -1;
	}
	n = fread(data, 1, REPLAY_MAX_INPUT, f);
	fclose(f);
	fprintf(stderr, "%s\n", path);
	LLVMFuzzerTestOneInput(data, n);
	free(data);
	return 0;
}

int main(int argc, char **argv)
{
	int files = 0;

	for (int i = 1; i < argc; i++) {
		DIR *d = opendir(argv[i]);
		struct dirent *e;

		if (!d) {
			perror(argv[i]);
			return 1;
		}
		while ((e = readdir(d))) {
			char path[4096];

			if (e->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s", argv[i], e->d_name);
			if (s_run_file(path) < 0) {
				closedir(d);
				return 1;
			}
			files++;
		}
		closedir(d);
	}
	printf("%d inputs replayed\n", files);
	return files > 0 ? 0 : 1;
}
