/*
 * cpu-int: integer CPU throughput, printed as metric lines.
 *
 * Three kernels that stress different integer paths: FNV-1a hashing
 * (a multiply-dependent chain), table-driven CRC-32 (loads and shifts),
 * and sorting (branches and memory moves via qsort). Each runs in rounds
 * until BUDGET_S has passed, so the run takes the same time on a fast
 * host and on an emulated board; rates are per second. The working set
 * fits in L1/L2 on purpose: this measures the core, not memory.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BUDGET_S 0.4
#define BUF_BYTES (16 * 1024)
#define SORT_KEYS 4096

static volatile uint64_t s_sink;

static double s_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint64_t s_fnv(const unsigned char *p, size_t n, uint64_t h)
{
	size_t i;

	for (i = 0; i < n; i++) {
		h ^= p[i];
		h *= 1099511628211ULL;
	}
	return h;
}

static uint32_t s_crc_table[256];

static void s_crc_init(void)
{
	uint32_t c, i, k;

	for (i = 0; i < 256; i++) {
		c = i;
		for (k = 0; k < 8; k++)
			c = c & 1 ? 0xedb88320U ^ (c >> 1) : c >> 1;
		s_crc_table[i] = c;
	}
}

static uint32_t s_crc(const unsigned char *p, size_t n, uint32_t c)
{
	size_t i;

	c = ~c;
	for (i = 0; i < n; i++)
		c = s_crc_table[(c ^ p[i]) & 0xff] ^ (c >> 8);
	return ~c;
}

static int s_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

int main(void)
{
	static unsigned char buf[BUF_BYTES];
	static uint32_t keys[SORT_KEYS];
	uint64_t x = 88172645463325252ULL, h = 14695981039346656037ULL, rounds;
	double t0, dt;
	size_t i;

	for (i = 0; i < sizeof(buf); i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		buf[i] = (unsigned char)x;
	}
	s_crc_init();
	if (s_crc((const unsigned char *)"123456789", 9, 0) != 0xcbf43926U) {
		printf("# crc32 self-check failed: the CPU computes wrong results\n");
		return 1;
	}

	t0 = s_now();
	for (rounds = 0; (dt = s_now() - t0) < BUDGET_S; rounds++)
		h = s_fnv(buf, sizeof(buf), h);
	s_sink = h;
	printf("fnv1a_hash %.1f MB/s\n", rounds * (double)sizeof(buf) / dt / 1e6);

	t0 = s_now();
	for (rounds = 0; (dt = s_now() - t0) < BUDGET_S; rounds++)
		h += s_crc(buf, sizeof(buf), (uint32_t)rounds);
	s_sink = h;
	printf("crc32 %.1f MB/s\n", rounds * (double)sizeof(buf) / dt / 1e6);

	t0 = s_now();
	for (rounds = 0; (dt = s_now() - t0) < BUDGET_S; rounds++) {
		for (i = 0; i < SORT_KEYS; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			keys[i] = (uint32_t)x;
		}
		qsort(keys, SORT_KEYS, sizeof(keys[0]), s_cmp);
		for (i = 1; i < SORT_KEYS; i++)
			if (keys[i - 1] > keys[i]) {
				printf("# qsort produced unsorted output\n");
				return 1;
			}
	}
	printf("qsort %.3f Mkeys/s\n", rounds * (double)SORT_KEYS / dt / 1e6);
	return 0;
}
