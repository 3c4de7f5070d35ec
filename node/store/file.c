/*
 * file: whole small files written as they are (file.h).
 */
#include "node/store/file.h"

#include <errno.h>
#include <stdio.h>

int file_write(const char *path, const void *p, size_t n)
{
	FILE *f = fopen(path, "wbe");
	int rc = 0;

	if (!f)
		return -errno;
	if (fwrite(p, 1, n, f) != n)
		rc = -EIO;
	if (fclose(f) != 0 && rc == 0)
		rc = -errno;
	return rc;
}
