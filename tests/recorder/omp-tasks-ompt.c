/* SPDX-License-Identifier: MIT */
/* OpenMP tasks for the task events (issue 37; test_omp_tasks_ompt.py): in a
 * team of three, one thread creates a recursive task tree with taskwait,
 * a taskgroup of two tasks with a depend(out) -> depend(in, inout) edge, a
 * taskloop of 8 tasks, and an undeferred (if(0)) task; the others run
 * tasks in the barrier at the single's end.  Each task body burns a little
 * CPU in an instrumented function, so its calls show where it ran.  Prints
 * "key=value" lines: the dependence variables' addresses and the tasks
 * each construct created. */
#include <omp.h>
#include <stdint.h>
#include <stdio.h>

static volatile double sink;

__attribute__((noinline)) static void task_work(int k)
{
	double s = 0;
	for (long i = 0; i < 20000 + 1000L * k; i++)
		s += (double)(i ^ k) * 1e-9;
	sink += s;
}

__attribute__((noinline)) static long tree(int n)
{
	long a, b;
	task_work(n);
	if (n < 2)
		return 1;
#pragma omp task shared(a)
	a = tree(n - 1);
#pragma omp task shared(b)
	b = tree(n - 2);
#pragma omp taskwait
	return a + b + 1;
}

int main(void)
{
	long nodes = 0;
	int a = 0, b = 0, loop = 0, undeferred = 0;
#pragma omp parallel num_threads(3)
#pragma omp single
	{
		nodes = tree(5);
#pragma omp taskgroup
		{
#pragma omp task depend(out : a) shared(a)
			{
				task_work(1);
				a = 1;
			}
#pragma omp task depend(in : a) depend(inout : b) shared(a, b)
			{
				task_work(2);
				b = a + 1;
			}
		}
#pragma omp taskloop num_tasks(8) shared(loop)
		for (int i = 0; i < 8; i++) {
			task_work(3);
#pragma omp atomic
			loop++;
		}
#pragma omp task if (0) shared(undeferred)
		undeferred = 1;
	}
	printf("nodes=%ld\n", nodes);
	printf("dep_a=%#lx\ndep_b=%#lx\n", (unsigned long)(uintptr_t)&a,
	       (unsigned long)(uintptr_t)&b);
	printf("b=%d\nloop=%d\nundeferred=%d\n", b, loop, undeferred);
	return b == 2 && loop == 8 && undeferred == 1 ? 0 : 1;
}
