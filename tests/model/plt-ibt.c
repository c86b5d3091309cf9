/* SPDX-License-Identifier: MIT */
/* A program whose PLT is laid out for indirect-branch tracking (.plt.sec
 * beside .plt, endbr64 before each jump; meson.build links it with
 * -z ibtplt): test-plt.c names its stubs against objdump's.  Never run. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	printf("%f\n", exp(strtod(argc > 1 ? argv[1] : "1", NULL)));
	return 0;
}
