/* SPDX-License-Identifier: MIT */
/* OpenMP constructs ecp did not model (tasks, a dynamic schedule; tasks
 * that run nested regions and take locks), and
 * every construct it does (locks, nest locks, named critical, atomic,
 * ordered, single, sections, nowait loops), for the recorder-omp test:
 * the recording must name the former, analyse, and leave the program's
 * results and exit status unchanged.  Prints "key=value" lines. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

static volatile double sink;

/* The GOMP 1.0 ABI of GCC before 4.9 (still exported by libgomp): the
 * master calls the region's function itself between start and end. */
void GOMP_parallel_start(void (*fn)(void *), void *data, unsigned n);
void GOMP_parallel_end(void);
void GOMP_barrier(void);

static void old_region(void *p)
{
	int *count = p;
#pragma omp atomic
	(*count)++;
	GOMP_barrier();
}

__attribute__((noinline)) static long fib(int n)
{
	long a, b;
	if (n < 12)
		return n < 2 ? n : fib(n - 1) + fib(n - 2);
#pragma omp task shared(a)
	a = fib(n - 1);
#pragma omp task shared(b)
	b = fib(n - 2);
#pragma omp taskwait
	return a + b;
}

int main(void)
{
	long f = 0, sum = 0, ordered_sum = 0, nest = 0, inner = 0;
	int sections = 0;
	omp_lock_t lock;
	omp_nest_lock_t nlock;

	omp_init_lock(&lock);
	omp_init_nest_lock(&nlock);
#pragma omp parallel num_threads(3)
	{
#pragma omp single
		f = fib(20);
		/* tasks that run a nested region (a team of one: nesting is
		 * off by default) and take a lock: kept as recorded */
#pragma omp single
		for (int i = 0; i < 3; i++) {
#pragma omp task firstprivate(i) shared(inner)
			{
#pragma omp parallel num_threads(2)
				{
					omp_set_lock(&lock);
					inner += i + 1;
					omp_unset_lock(&lock);
				}
			}
		}
#pragma omp for schedule(dynamic, 2) reduction(+ : sum)
		for (int i = 0; i < 100; i++)
			sum += i;
#pragma omp for ordered schedule(static, 1)
		for (int i = 0; i < 9; i++) {
#pragma omp ordered
			ordered_sum = ordered_sum * 2 + i;
		}
#pragma omp sections
		{
#pragma omp section
			{
#pragma omp atomic
				sections++;
			}
#pragma omp section
			{
#pragma omp atomic
				sections++;
			}
		}
#pragma omp for nowait
		for (int i = 0; i < 6; i++) {
			omp_set_lock(&lock);
			sink += i;
			omp_unset_lock(&lock);
		}
		omp_set_nest_lock(&nlock);
		omp_set_nest_lock(&nlock);
#pragma omp critical(named)
		nest++;
		omp_unset_nest_lock(&nlock);
		omp_unset_nest_lock(&nlock);
		if (omp_test_lock(&lock))
			omp_unset_lock(&lock);
	}
	int old_abi = 0;
	GOMP_parallel_start(old_region, &old_abi, 2);
	old_region(&old_abi);
	GOMP_parallel_end();
	omp_destroy_lock(&lock);
	omp_destroy_nest_lock(&nlock);
	printf("wait_policy=%s\n",
	       getenv("OMP_WAIT_POLICY") ? getenv("OMP_WAIT_POLICY") : "");
	printf("old_abi=%d\n", old_abi);
	printf("fib=%ld\nsum=%ld\nordered=%ld\nsections=%d\nnest=%ld\ninner=%ld\n", f,
	       sum, ordered_sum, sections, nest, inner);
	return 3;
}
