/* SPDX-License-Identifier: MIT */
/* Reads of ready descriptors and closes, which write no event: the file
 * given is opened, read to its end (two reads: its data, then the end)
 * and closed, again and again.  What the recorder costs each -- the
 * zero-timeout poll that asks whether a read would block, LTTng-UST's
 * descriptor tracker around close -- must be taken out of the thread's
 * work.  Prints the thread's own CPU clock, for comparison with an
 * unrecorded run.  Arguments: the file, rounds (default 20,000). */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "tests/support/thread-clock.h"

int main(int argc, char **argv)
{
	uint64_t t0 = thread_cpu_ns();
	long rounds = argc > 2 && atol(argv[2]) > 0 ? atol(argv[2]) : 20000;
	static char buf[8192];
	uint64_t bytes = 0;
	if (argc < 2)
		return 2;
	for (long r = 0; r < rounds; r++) {
		int fd = open(argv[1], O_RDONLY);
		ssize_t n;
		if (fd < 0)
			return 1;
		while ((n = read(fd, buf, sizeof(buf))) > 0)
			bytes += (uint64_t)n;
		close(fd);
	}
	printf("main cpu_ns=%llu bytes=%llu\n",
	       (unsigned long long)(thread_cpu_ns() - t0), (unsigned long long)bytes);
	return 0;
}
