#!/bin/sh
# cpu-float: floating-point throughput (matrix multiply and DAXPY in
# MFLOPS, a Whetstone-like transcendental loop), each checked against a
# known answer. FPU/SIMD state save and restore is kernel work on every
# context switch; a bug there corrupts results, a slowdown shows here.
cd "${LABMESH_DIR:-.}" || exit 1
exec ./cpufloat-bench
