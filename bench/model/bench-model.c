/* SPDX-License-Identifier: MIT */
/* Model-building throughput and memory (issue 4's benchmark):
 *   - events/s decoding CTF into the model (babeltrace2 reader + builder),
 *   - events/s loading the same model from its cache,
 *   - peak resident memory growth per event while building, and the
 *     model's own bytes per event.
 * usage: bench-model DIR [--calls]   (a recording; its cache is replaced)
 * --calls keeps every call (model->calls) as timelines need. */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "simulator/model/cache.h"
#include "simulator/trace/trace.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static long maxrss_kb(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

static size_t model_bytes(const struct ecp_model *m)
{
	return m->n_threads * sizeof(*m->threads) + m->n_segments * sizeof(*m->segments) +
	       m->n_edges * sizeof(*m->edges) + m->n_locks * sizeof(*m->locks) +
	       m->n_functions * sizeof(*m->functions) +
	       m->n_activities * sizeof(*m->activities) + m->n_calls * sizeof(*m->calls);
}

/* *secs: CPU time of the load (the machine is shared: wall time would
 * measure the neighbours); *wall: wall time. */
static bool keep_calls;

static struct ecp_model *load(const char *dir, bool cache, double *secs, double *wall)
{
	struct ecp_load_options o = ECP_LOAD_OPTIONS_DEFAULT;
	o.use_cache = cache;
	o.keep_calls = keep_calls;
	/* Decoded in this process, not in the forked child ecp uses: its CPU
	 * time and peak memory are then this process's own, measured here. */
	o.in_process = true;
	struct ecp_error err = {0};
	struct ecp_model *m = NULL;
	double t0 = now(), c0 = cpu_now();
	if (ecp_trace_load(dir, &o, &m, &err) < 0) {
		fprintf(stderr, "bench-model: %s\n", err.msg);
		exit(1);
	}
	*secs = cpu_now() - c0;
	*wall = now() - t0;
	return m;
}

int main(int argc, char **argv)
{
	if (argc < 2 || argc > 3 || (argc == 3 && strcmp(argv[2], "--calls"))) {
		fprintf(stderr, "usage: bench-model TRACE_DIR [--calls]\n");
		return 2;
	}
	keep_calls = argc == 3;
	/* as the ecp CLI sets it (cli/main.c): the memory measured is what
	 * ecp's own decoding takes */
	(void)mallopt(M_MMAP_THRESHOLD, 1 << 20);
	char cache[4096];
	snprintf(cache, sizeof(cache), "%s/%s", argv[1], ECP_CACHE_FILE);
	unlink(cache);
	long rss0 = maxrss_kb();
	double t_ctf, t_write, t_cache, wall, w_ctf;
	struct ecp_model *m = load(argv[1], false, &t_ctf, &w_ctf);
	long rss1 = maxrss_kb();
	uint64_t events = m->info.events;
	size_t bytes = model_bytes(m);
	printf("trace            %s\n", argv[1]);
	printf("events           %llu\n", (unsigned long long)events);
	printf("model            %u threads, %u segments, %u edges, %llu activities, "
	       "%llu calls kept\n",
	       m->n_threads, m->n_segments, m->n_edges,
	       (unsigned long long)m->n_activities, (unsigned long long)m->n_calls);
	printf("from CTF         %.3f s CPU (%.3f s wall)  %.2f M events/s\n", t_ctf,
	       w_ctf, (double)events / t_ctf / 1e6);
	printf("peak RSS growth  %.1f bytes/event (%ld MB)\n",
	       (double)(rss1 - rss0) * 1024.0 / (double)events, (rss1 - rss0) / 1024);
	printf("model size       %.1f bytes/event (%zu MB)\n",
	       (double)bytes / (double)events, bytes >> 20);
	ecp_model_destroy(m);
	m = load(argv[1], true, &t_write, &wall); /* decodes again and writes the cache */
	ecp_model_destroy(m);
	double best = 1e9;
	for (int i = 0; i < 3; i++) {
		m = load(argv[1], true, &t_cache, &wall);
		if (m->info.events != events) {
			fprintf(stderr, "bench-model: cache gave %llu events, CTF %llu\n",
				(unsigned long long)m->info.events,
				(unsigned long long)events);
			return 1;
		}
		ecp_model_destroy(m);
		if (t_cache < best)
			best = t_cache;
	}
	printf("CTF + cache write %.3f s CPU\n", t_write);
	printf("from cache       %.3f s CPU  %.1f M events/s (best of 3)\n", best,
	       (double)events / best / 1e6);
	return 0;
}
