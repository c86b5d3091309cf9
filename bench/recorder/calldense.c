/* SPDX-License-Identifier: MIT */
/* A call-dense program: N calls (default 10 M) of work(), which does about
 * 100 ns of dependent integer arithmetic.  Built three ways by meson.build:
 * plain (the unrecorded baseline), -finstrument-functions (for ecp record)
 * and -pg (for uftrace).  Prints the result so nothing is optimised away. */
#include <stdio.h>
#include <stdlib.h>

#ifndef WORK_ITERS
#define WORK_ITERS 80
#endif

__attribute__((noinline)) static unsigned long work(unsigned long x)
{
	for (int i = 0; i < WORK_ITERS; i++)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	return x;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 10000000;
	unsigned long acc = 1;
	for (long i = 0; i < n; i++)
		acc = work(acc);
	printf("calls=%ld result=%lu\n", n, acc);
	return 0;
}
