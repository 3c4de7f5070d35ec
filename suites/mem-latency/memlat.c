/*
 * mem-latency: load-to-use latency by pointer chasing, as metric lines.
 *
 * A buffer of SIZE bytes is cut into cache-line slots linked in one random
 * cycle (Sattolo's algorithm), so every load depends on the previous one
 * and hardware prefetchers cannot guess the next address. The chase runs
 * for a bounded number of loads (and time); ns per load is reported for
 * sizes that fall in L1, L2, L3 and DRAM on common machines. Sizes that do
 * not fit in a quarter of free memory are left out (reported MISS).
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define SLOT 64
#define BUDGET_S 0.3
#define STEPS_PER_CHECK (1 << 16)

static volatile uintptr_t s_sink;

static double s_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint64_t s_rand(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* ns per dependent load over a cycle through `bytes` bytes, or -1 */
static double s_chase(size_t bytes)
{
	size_t n = bytes / SLOT, i, j, *perm;
	char *buf = NULL;
	uint64_t seed = 0x9e3779b97f4a7c15ULL;
	void **p;
	double t0, dt;
	long steps = 0, k;

	perm = malloc(n * sizeof(*perm));
	if (!perm || posix_memalign((void **)&buf, 4096, bytes) != 0) {
		free(perm);
		return -1;
	}
	for (i = 0; i < n; i++)
		perm[i] = i;
	for (i = n - 1; i > 0; i--) { /* Sattolo: one cycle through all slots */
		j = s_rand(&seed) % i;
		size_t t = perm[i];
		perm[i] = perm[j];
		perm[j] = t;
	}
	for (i = 0; i < n; i++)
		*(void **)(buf + perm[i] * SLOT) = buf + perm[(i + 1) % n] * SLOT;
	free(perm);
	p = (void **)buf;
	for (k = 0; k < (long)n; k++) /* warm up: one full lap */
		p = *p;
	t0 = s_now();
	do {
		for (k = 0; k < STEPS_PER_CHECK; k += 8) {
			p = *p; p = *p; p = *p; p = *p;
			p = *p; p = *p; p = *p; p = *p;
		}
		steps += STEPS_PER_CHECK;
	} while ((dt = s_now() - t0) < BUDGET_S);
	s_sink = (uintptr_t)p;
	free(buf);
	return dt / steps * 1e9;
}

int main(void)
{
	static const struct {
		const char *name;
		size_t bytes;
	} sizes[] = {
		{ "latency_16k", 16 << 10 },
		{ "latency_256k", 256 << 10 },
		{ "latency_4m", 4 << 20 },
		{ "latency_64m", 64 << 20 },
	};
	long avail = sysconf(_SC_AVPHYS_PAGES) * sysconf(_SC_PAGESIZE);
	size_t i;
	double ns;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		if (avail > 0 && (long)sizes[i].bytes * 2 > avail / 4) {
			printf("# %s left out: %ld MiB free\n", sizes[i].name, avail >> 20);
			continue;
		}
		ns = s_chase(sizes[i].bytes);
		if (ns > 0)
			printf("%s %.2f ns\n", sizes[i].name, ns);
		else
			printf("# %s: allocation failed\n", sizes[i].name);
	}
	return 0;
}
