/*
 * mem-bandwidth: STREAM-like memory bandwidth, printed as metric lines.
 *
 * Copy (c = a), scale (b = k c), add (c = a + b) and triad (a = b + k c)
 * over three double arrays sized well beyond any cache (ARRAY_MB each by
 * default) but scaled down to a quarter of the free memory on small
 * boards. Each kernel is repeated until BUDGET_S has passed; the best
 * repetition is reported, as STREAM does. Results are checked at the end.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define ARRAY_MB 64
#define MIN_ARRAY_MB 4
#define BUDGET_S 0.4
#define MAX_REPS 50

static double s_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(void)
{
	static const char *names[4] = { "copy", "scale", "add", "triad" };
	static const int arrays[4] = { 2, 2, 3, 3 }; /* arrays touched */
	long avail = sysconf(_SC_AVPHYS_PAGES) * sysconf(_SC_PAGESIZE);
	size_t mb = ARRAY_MB, n, i;
	double *a, *b, *c, best[4], t0, t, start;
	const double k = 3.0;
	int kern, reps;

	while (mb > MIN_ARRAY_MB && avail > 0 && (long)(3 * mb) << 20 > avail / 4)
		mb /= 2;
	if (avail > 0 && (long)(3 * mb) << 20 > avail / 2) {
		printf("skip: only %ld MiB free, need %zu MiB\n", avail >> 20, 6 * mb);
		return 0;
	}
	n = (mb << 20) / sizeof(double);
	a = malloc(n * sizeof(double));
	b = malloc(n * sizeof(double));
	c = malloc(n * sizeof(double));
	if (!a || !b || !c) {
		printf("skip: cannot allocate 3 x %zu MiB\n", mb);
		return 0;
	}
	for (i = 0; i < n; i++) {
		a[i] = 1.0;
		b[i] = 2.0;
		c[i] = 0.0;
	}
	printf("# 3 arrays of %zu MiB (%ld MiB free)\n", mb, avail >> 20);
	for (kern = 0; kern < 4; kern++)
		best[kern] = 1e30;
	start = s_now();
	for (reps = 0; reps < MAX_REPS && (reps < 2 || s_now() - start < 4 * BUDGET_S); reps++) {
		for (kern = 0; kern < 4; kern++) {
			t0 = s_now();
			switch (kern) {
			case 0:
				for (i = 0; i < n; i++)
					c[i] = a[i];
				break;
			case 1:
				for (i = 0; i < n; i++)
					b[i] = k * c[i];
				break;
			case 2:
				for (i = 0; i < n; i++)
					c[i] = a[i] + b[i];
				break;
			default:
				for (i = 0; i < n; i++)
					a[i] = b[i] + k * c[i];
				break;
			}
			t = s_now() - t0;
			if (t < best[kern])
				best[kern] = t;
		}
	}
	/* after r rounds the values follow STREAM's recurrence */
	{
		double ea = 1.0, eb = 2.0, ec = 0.0;
		int r;
		for (r = 0; r < reps; r++) {
			ec = ea;
			eb = k * ec;
			ec = ea + eb;
			ea = eb + k * ec;
		}
		if (fabs(a[n - 1] - ea) > 1e-8 * fabs(ea) || fabs(c[0] - ec) > 1e-8 * fabs(ec)) {
			printf("# result check failed: memory returned wrong values\n");
			return 1;
		}
	}
	for (kern = 0; kern < 4; kern++)
		printf("%s %.1f MB/s\n", names[kern], arrays[kern] * n * sizeof(double) / best[kern] / 1e6);
	printf("# %d repetitions, best of each\n", reps);
	free(a);
	free(b);
	free(c);
	return 0;
}
