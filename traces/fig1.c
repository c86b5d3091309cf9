/* SPDX-License-Identifier: MIT */
/*
 * Fig. 1 of Broberg, Lundberg & Grahn (JPDC 2001): three threads, functions
 * a()..d() of equal duration (one time unit each), events X, Y, Z.
 *
 *   Thread 1:          Thread 2:          Thread 3:
 *   Execute a()        Execute b()        Wait for event X
 *   Signal event X     Wait for event Y   Execute c()
 *   Execute b()        Execute d()        Signal event Y
 *   Wait for event Z   Signal event Z     Execute b()
 *   Execute a()        End                End
 *   End
 *
 * On three processors the run takes 4 units and a() matters most (2 eps per eps
 * saved: both calls are on the critical path); on one processor b() matters
 * most (3 calls).  Events are semaphores (each is signalled once and waited
 * for once).  Thread 1 is the main thread.
 *
 * Usage: fig1 [--scale S] [--check] [--quiet]; S scales the time unit.
 * ECP_EXAMPLE_FASTER=a (or b, c, d) makes that function 20% cheaper.
 */
#include "example.h"

#include <stdio.h>

static double unit;           /* one time unit, in units of EX_ITERS_PER_UNIT */
static double fa, fb, fc, fd; /* ECP_EXAMPLE_FASTER factors */
static sem_t event_x, event_y, event_z;
static unsigned long calls[4]; /* a..d, checked by --check */

static EX_FUNC void a(void)
{
	ex_work_units(unit, fa);
	__atomic_fetch_add(&calls[0], 1, __ATOMIC_RELAXED);
}

static EX_FUNC void b(void)
{
	ex_work_units(unit, fb);
	__atomic_fetch_add(&calls[1], 1, __ATOMIC_RELAXED);
}

static EX_FUNC void c(void)
{
	ex_work_units(unit, fc);
	__atomic_fetch_add(&calls[2], 1, __ATOMIC_RELAXED);
}

static EX_FUNC void d(void)
{
	ex_work_units(unit, fd);
	__atomic_fetch_add(&calls[3], 1, __ATOMIC_RELAXED);
}

static void *thread2(void *arg)
{
	(void)arg;
	b();
	ex_sem_wait(&event_y);
	d();
	ex_sem_post(&event_z);
	return NULL;
}

static void *thread3(void *arg)
{
	(void)arg;
	ex_sem_wait(&event_x);
	c();
	ex_sem_post(&event_y);
	b();
	return NULL;
}

int main(int argc, char **argv)
{
	struct ex_options opts;
	if (!ex_parse_options(argc, argv, &opts))
		return 2;
	unit = opts.scale;
	fa = ex_work_factor("a");
	fb = ex_work_factor("b");
	fc = ex_work_factor("c");
	fd = ex_work_factor("d");
	ex_check_errno(sem_init(&event_x, 0, 0), "sem_init");
	ex_check_errno(sem_init(&event_y, 0, 0), "sem_init");
	ex_check_errno(sem_init(&event_z, 0, 0), "sem_init");

	pthread_t t2, t3;
	ex_check(pthread_create(&t2, NULL, thread2, NULL), "pthread_create");
	ex_check(pthread_create(&t3, NULL, thread3, NULL), "pthread_create");

	/* thread 1 */
	a();
	ex_sem_post(&event_x);
	b();
	ex_sem_wait(&event_z);
	a();

	ex_check(pthread_join(t2, NULL), "pthread_join");
	ex_check(pthread_join(t3, NULL), "pthread_join");

	/* Every function ran as often as the figure says: a 2, b 3, c 1, d 1. */
	if (opts.check &&
	    (calls[0] != 2 || calls[1] != 3 || calls[2] != 1 || calls[3] != 1)) {
		fprintf(stderr, "fig1: wrong call counts a=%lu b=%lu c=%lu d=%lu\n",
			calls[0], calls[1], calls[2], calls[3]);
		return 1;
	}
	if (!opts.quiet)
		printf("fig1: done (a 2, b 3, c 1, d 1 calls)\n");
	return 0;
}
