/* SPDX-License-Identifier: MIT */
/* Function events: nested calls of known counts, short and long, a
 * synchronization inside a short call, and a longjmp that leaves frames
 * without exits.  Built with -finstrument-functions.  Prints each
 * function's address (as the hooks see it) and exits with status 0. */
#include <pthread.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

static volatile long sink;
static jmp_buf jump;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

__attribute__((noinline)) static void leaf(int i)
{
	sink += i;
}

/* ~50 us of CPU: far above the default --min-duration */
__attribute__((noinline)) static void slow(void)
{
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	do {
		sink++;
		clock_gettime(CLOCK_MONOTONIC, &b);
	} while ((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) < 50000);
}

__attribute__((noinline)) static void middle(int n)
{
	for (int i = 0; i < n; i++)
		leaf(i);
	pthread_mutex_lock(&lock);
	sink++;
	pthread_mutex_unlock(&lock);
	slow();
}

__attribute__((noinline)) static void outer(void)
{
	middle(200);
}

__attribute__((noinline)) static void deep(void)
{
	longjmp(jump, 1);
}

__attribute__((noinline)) static void jumper(void)
{
	deep();
	sink++;
}

#define ADDR(f) printf(#f "=%#lx\n", (unsigned long)(uintptr_t)f)

int main(void)
{
	for (int i = 0; i < 5; i++)
		outer();
	if (!setjmp(jump))
		jumper();
	slow();
	ADDR(main);
	ADDR(outer);
	ADDR(middle);
	ADDR(leaf);
	ADDR(slow);
	ADDR(jumper);
	ADDR(deep);
	return 0;
}
