/*
 * cpu-float: floating-point CPU throughput, printed as metric lines.
 *
 * A double-precision matrix multiply (N x N, i-k-j order, 2N^3 flops), a
 * DAXPY over an L1-sized vector, and a Whetstone-like loop of sqrt, exp,
 * log, sin and cos. Each is run in rounds until BUDGET_S has passed and
 * checked against a known answer, so a broken FPU context switch (lost
 * registers) shows as a failed check, not only a slow number.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <time.h>

#define BUDGET_S 0.4
#define N 96
#define VEC 2048

static volatile double s_sink;

static double s_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double a[N][N], b[N][N], c[N][N];

static void s_matmul(void)
{
	int i, j, k;

	for (i = 0; i < N; i++)
		for (j = 0; j < N; j++)
			c[i][j] = 0;
	for (i = 0; i < N; i++)
		for (k = 0; k < N; k++) {
			double aik = a[i][k];
			for (j = 0; j < N; j++)
				c[i][j] += aik * b[k][j];
		}
}

int main(void)
{
	static double x[VEC], y[VEC];
	double t0, dt, want, acc = 0;
	long rounds, i, j;

	/* a = all 1/N, b[k][j] = j: every c[i][j] must be exactly j */
	for (i = 0; i < N; i++)
		for (j = 0; j < N; j++) {
			a[i][j] = 1.0 / 64;
			b[i][j] = (double)j;
		}
	t0 = s_now();
	for (rounds = 0; (dt = s_now() - t0) < BUDGET_S; rounds++)
		s_matmul();
	want = (double)N / 64 * (N - 1);
	if (fabs(c[N - 1][N - 1] - want) > 1e-9 * want) {
		printf("# matmul check failed: %g != %g\n", c[N - 1][N - 1], want);
		return 1;
	}
	printf("matmul %.1f MFLOPS\n", rounds * 2.0 * N * N * N / dt / 1e6);

	for (i = 0; i < VEC; i++) {
		x[i] = 1.0;
		y[i] = 0.0;
	}
	t0 = s_now();
	for (rounds = 0; (dt = s_now() - t0) < BUDGET_S; rounds++)
		for (i = 0; i < VEC; i++)
			y[i] += 0.5 * x[i];
	if (fabs(y[VEC - 1] - 0.5 * rounds) > 1e-6) {
		printf("# daxpy check failed\n");
		return 1;
	}
	printf("daxpy %.1f MFLOPS\n", rounds * 2.0 * VEC / dt / 1e6);

	t0 = s_now();
	for (rounds = 0; (dt = s_now() - t0) < BUDGET_S; rounds++)
		for (i = 1; i <= 1000; i++) {
			double v = (double)i / 1000;
			acc += sqrt(exp(log(v + 1.0))) + sin(v) * sin(v) + cos(v) * cos(v);
		}
	/* sin^2 + cos^2 = 1 and sqrt(exp(log(v+1))) = sqrt(v+1) */
	want = 0;
	for (i = 1; i <= 1000; i++)
		want += sqrt((double)i / 1000 + 1.0) + 1.0;
	if (rounds > 0 && fabs(acc / rounds - want) > 1e-6 * want) {
		printf("# transcendental check failed: %.12g != %.12g\n", acc / rounds, want);
		return 1;
	}
	s_sink = acc;
	printf("transcendental %.3f Mcalls/s\n", rounds * 1000.0 * 6 / dt / 1e6);
	return 0;
}
