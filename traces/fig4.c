/* SPDX-License-Identifier: MIT */
/*
 * Fig. 4 of Broberg, Lundberg & Grahn (JPDC 2001): three threads and nine
 * functions, the paper's worked example of the critical path (Fig. 3) and of
 * the extended critical path on two processors (Fig. 5, 6).
 *
 *   Thread 1:          Thread 2:           Thread 3:
 *   Execute a()        Wait for event X    Wait for event Y
 *   Signal event X     Execute c()         Execute d()
 *   Execute b()        Signal event Y      Wait for event Z
 *   Signal event Z     Execute g()         Execute g()
 *   Execute c()        Wait for signal Y   Execute h()
 *   Wait for event X   Execute d()         Signal event X
 *   Execute e()        End                 Execute a()
 *   Execute i()                            Signal event Y
 *   End                                    Execute f()
 *                                          End
 *
 * Durations (time units) follow from the text: a 1, b 4, c 1, d 2, e 1, f 3,
 * g 1, h 1, i 1.  With them, on three processors thread 3 is blocked from 4 to
 * 5 waiting for Z and ends at 11 (critical path: thread 1 a, b; thread 3 g, h,
 * a, f); on two processors three threads are runnable during 2-3 and 8-9, each
 * of those units takes 1.5, and the run takes 12; g() of thread 2 then weighs
 * 0.5.
 *
 * X and Y are each signalled twice, to different threads (X: 1->2, then 3->1;
 * Y: 2->3, then 3->2).  Each signal/wait pair gets its own semaphore: with one
 * shared semaphore, on one CPU thread 2 could consume its own "Signal Y" in its
 * "Wait for signal Y" before thread 3 runs, which is not the program of the
 * figure.  Thread 1 is the main thread.
 *
 * Usage: fig4 [--scale S] [--check] [--quiet]; S scales the time unit.
 * ECP_EXAMPLE_FASTER=NAME (a..i) makes that function 20% cheaper.
 */
#include "example.h"

#include <stdio.h>

enum { FA, FB, FC, FD, FE, FF, FG, FH, FI, NFUNC };
static const char *const names[NFUNC] = {"a", "b", "c", "d", "e", "f", "g", "h", "i"};
static const double durations[NFUNC] = {1, 4, 1, 2, 1, 3, 1, 1, 1};
static const unsigned long expected_calls[NFUNC] = {2, 1, 2, 2, 1, 1, 2, 1, 1};

static double unit;
static double factor[NFUNC];
static unsigned long calls[NFUNC];
static sem_t x_1to2, x_3to1, y_2to3, y_3to2, z_1to3;

EX_HELPER void run(int fn)
{
	ex_work_units(durations[fn] * unit, factor[fn]);
	__atomic_fetch_add(&calls[fn], 1, __ATOMIC_RELAXED);
}

static EX_FUNC void a(void)
{
	run(FA);
}
static EX_FUNC void b(void)
{
	run(FB);
}
static EX_FUNC void c(void)
{
	run(FC);
}
static EX_FUNC void d(void)
{
	run(FD);
}
static EX_FUNC void e(void)
{
	run(FE);
}
static EX_FUNC void f(void)
{
	run(FF);
}
static EX_FUNC void g(void)
{
	run(FG);
}
static EX_FUNC void h(void)
{
	run(FH);
}
static EX_FUNC void i(void)
{
	run(FI);
}

static void *thread2(void *arg)
{
	(void)arg;
	ex_sem_wait(&x_1to2);
	c();
	ex_sem_post(&y_2to3);
	g();
	ex_sem_wait(&y_3to2);
	d();
	return NULL;
}

static void *thread3(void *arg)
{
	(void)arg;
	ex_sem_wait(&y_2to3);
	d();
	ex_sem_wait(&z_1to3);
	g();
	h();
	ex_sem_post(&x_3to1);
	a();
	ex_sem_post(&y_3to2);
	f();
	return NULL;
}

int main(int argc, char **argv)
{
	struct ex_options opts;
	if (!ex_parse_options(argc, argv, &opts))
		return 2;
	unit = opts.scale;
	for (int k = 0; k < NFUNC; k++)
		factor[k] = ex_work_factor(names[k]);
	sem_t *sems[] = {&x_1to2, &x_3to1, &y_2to3, &y_3to2, &z_1to3};
	for (size_t k = 0; k < sizeof sems / sizeof sems[0]; k++)
		ex_check_errno(sem_init(sems[k], 0, 0), "sem_init");

	pthread_t t2, t3;
	ex_check(pthread_create(&t2, NULL, thread2, NULL), "pthread_create");
	ex_check(pthread_create(&t3, NULL, thread3, NULL), "pthread_create");

	/* thread 1 */
	a();
	ex_sem_post(&x_1to2);
	b();
	ex_sem_post(&z_1to3);
	c();
	ex_sem_wait(&x_3to1);
	e();
	i();

	ex_check(pthread_join(t2, NULL), "pthread_join");
	ex_check(pthread_join(t3, NULL), "pthread_join");

	if (opts.check) {
		for (int k = 0; k < NFUNC; k++) {
			if (calls[k] != expected_calls[k]) {
				fprintf(stderr,
					"fig4: %s() ran %lu times, expected %lu\n",
					names[k], calls[k], expected_calls[k]);
				return 1;
			}
		}
	}
	if (!opts.quiet)
		printf("fig4: done\n");
	return 0;
}
