/* SPDX-License-Identifier: MIT */
/* Replays fuzz inputs through the fuzz harnesses compiled with the project's
 * compiler (fuzz/harness.h), without libFuzzer: the seed corpus and every
 * crash the fuzzer found (tests/fuzz/crashes/TARGET), so each fixed crash
 * stays fixed in the ordinary test run and under the CI's ASan/UBSan pass.
 *
 *     fuzz-replay builder|ctf PATH...    (files, or directories of files)
 *
 * A harness abort()s on a bug, which fails the test; exit 0 otherwise. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz/harness.h"

typedef int (*harness_fn)(const uint8_t *data, size_t size);

static int replay_file(harness_fn fn, const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		perror(path);
		return -1;
	}
	uint8_t *buf = NULL;
	size_t n = 0, cap = 0, got;
	do {
		if (n == cap) {
			cap = cap ? 2 * cap : 4096;
			uint8_t *p = realloc(buf, cap);
			if (!p) {
				free(buf);
				fclose(f);
				return -1;
			}
			buf = p;
		}
		got = fread(buf + n, 1, cap - n, f);
		n += got;
	} while (got > 0);
	int bad = ferror(f);
	fclose(f);
	if (bad) {
		perror(path);
		free(buf);
		return -1;
	}
	fprintf(stderr, "replay %s (%zu bytes)\n", path, n);
	fn(buf, n);
	free(buf);
	return 1;
}

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Returns the number of inputs replayed, or -1. */
static int replay_path(harness_fn fn, const char *path)
{
	struct stat st;
	if (stat(path, &st) < 0) {
		perror(path);
		return -1;
	}
	if (!S_ISDIR(st.st_mode))
		return replay_file(fn, path);
	struct dirent **list;
	int n = scandir(path, &list, NULL, NULL);
	if (n < 0) {
		perror(path);
		return -1;
	}
	/* A fixed order, so a failure reproduces the same way. */
	qsort(list, (size_t)n, sizeof(*list), cmp);
	int total = 0;
	for (int i = 0; i < n; i++) {
		char sub[4096];
		if (list[i]->d_name[0] != '.' && total >= 0) {
			snprintf(sub, sizeof(sub), "%s/%s", path, list[i]->d_name);
			int r = replay_path(fn, sub);
			total = r < 0 ? -1 : total + r;
		}
		free(list[i]);
	}
	free(list);
	return total;
}

int main(int argc, char **argv)
{
	if (argc < 3 || (strcmp(argv[1], "builder") && strcmp(argv[1], "ctf"))) {
		fprintf(stderr, "usage: fuzz-replay builder|ctf PATH...\n");
		return 2;
	}
	harness_fn fn =
	    strcmp(argv[1], "builder") ? ecp_fuzz_ctf_one : ecp_fuzz_builder_one;
	int total = 0;
	for (int i = 2; i < argc; i++) {
		int r = replay_path(fn, argv[i]);
		if (r < 0)
			return 1;
		total += r;
	}
	printf("replayed %d %s inputs\n", total, argv[1]);
	return total > 0 ? 0 : 1;
}
