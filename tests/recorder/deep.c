/* SPDX-License-Identifier: MIT */
/* A recursion 3,000 calls deep, deeper than the agent's shadow stack of
 * 1,024 frames: the calls past it are not recorded, and the analysis must
 * say how many (issue 33: they vanished without a word). */
#include <stdio.h>

__attribute__((noinline)) static unsigned long depth(unsigned long n)
{
	return n ? 1 + depth(n - 1) : 0;
}

int main(void)
{
	printf("%lu\n", depth(3000));
	return 0;
}
