/*
 * timer-latency: wake-up latency of clock_nanosleep, as metric lines.
 *
 * The thread sleeps to absolute CLOCK_MONOTONIC deadlines INTERVAL_US
 * apart and records how late it woke (wake time - deadline). min, avg,
 * p99 and max are reported in microseconds; the histogram (power-of-two
 * buckets) is printed as comments. The sleeper runs at normal priority so
 * figures compare across boards whether or not the suite runs as root.
 * Bounded by MAX_SAMPLES and BUDGET_S.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define INTERVAL_US 1000
#define MAX_SAMPLES 1500
#define BUDGET_S 2.0
#define BUCKETS 20

static long long s_ns(const struct timespec *t)
{
	return t->tv_sec * 1000000000LL + t->tv_nsec;
}

static int s_cmp(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return (x > y) - (x < y);
}

int main(void)
{
	static long long lat[MAX_SAMPLES];
	long hist[BUCKETS] = { 0 };
	struct timespec next, now, start;
	long long sum = 0, d;
	int n = 0, b, r;

	clock_gettime(CLOCK_MONOTONIC, &start);
	next = start;
	while (n < MAX_SAMPLES) {
		next.tv_nsec += INTERVAL_US * 1000L;
		while (next.tv_nsec >= 1000000000L) {
			next.tv_nsec -= 1000000000L;
			next.tv_sec++;
		}
		while ((r = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL)) == EINTR)
			;
		if (r != 0) {
			printf("# clock_nanosleep failed: %d\n", r);
			return 1;
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
		d = s_ns(&now) - s_ns(&next);
		if (d < 0) {
			printf("# woke %lld ns before the deadline: timer broken\n", -d);
			return 1;
		}
		lat[n++] = d;
		sum += d;
		for (b = 0; b < BUCKETS - 1 && d >= (1000LL << b); b++)
			;
		hist[b]++;
		if (s_ns(&now) - s_ns(&start) > (long long)(BUDGET_S * 1e9))
			break;
		/* if we fell behind by several periods, re-base instead of bursting */
		if (d > 10LL * INTERVAL_US * 1000)
			next = now;
	}
	qsort(lat, n, sizeof(lat[0]), s_cmp);
	printf("# %d wake-ups at %d us intervals\n", n, INTERVAL_US);
	for (b = 0; b < BUCKETS - 1; b++)
		if (hist[b])
			printf("# < %lld us: %ld\n", 1LL << b, hist[b]);
	if (hist[BUCKETS - 1])
		printf("# >= %lld us: %ld\n", 1LL << (BUCKETS - 2), hist[BUCKETS - 1]);
	printf("min %.1f us\n", lat[0] / 1e3);
	printf("avg %.1f us\n", (double)sum / n / 1e3);
	printf("p99 %.1f us\n", lat[(n * 99) / 100] / 1e3);
	printf("max %.1f us\n", lat[n - 1] / 1e3);
	return 0;
}
