/* SPDX-License-Identifier: MIT */
/* The model cache: a compact binary dump of a model beside its trace
 * (DIR/ecp-model.cache), so that a second analysis does not decode CTF.
 *
 * Layout: a header (magic, cache format version, byte-order mark, the ecp
 * version that wrote it, the trace's fingerprint, the array lengths), then
 * the model's arrays as they are in memory but for segments, edges and
 * activities, packed as varints (cache-pack.h), then one string table.  The
 * fingerprint covers the size, mtime and name of every file under DIR/main
 * and DIR/sched and of DIR/ecp-record.meta, so re-recording into the same
 * directory invalidates it.  Written to a temporary file and renamed into
 * place (never through a symlink); read with O_NOFOLLOW, checked for exact
 * size, then ecp_model_validate()d. */
#ifndef ECP_SIMULATOR_CACHE_H
#define ECP_SIMULATOR_CACHE_H

#include <stdbool.h>
#include <stdint.h>

#include "common/error.h"
#include "simulator/model/model.h"

#define ECP_CACHE_FILE "ecp-model.cache"
/* the model by call site (ecp_load_options.by_callsite) */
#define ECP_CACHE_FILE_CALLSITE "ecp-model-callsite.cache"
/* Bump whenever the builder's semantics change (what a segment, delay or
 * edge means), so that caches written by an older build are not trusted;
 * a change of the structs' layout is caught by the header itself. */
/* 5: steal-scaled CPU times, channels, futexes, OpenMP re-deal; 6: samples;
 * 7: sampled calls; 8: the recorder's costs and the program's CPU time; 9:
 * the consistency check's figures; 10: their guessed part; 11: waits of
 * issue 32 (threads cut by the exit, signals, runs of timeouts); 12: the
 * work whose dependencies are unknown; 13: context switches perf lost, apart
 * from LTTng's discards; 14: the CPUs the program was shown and whether it
 * asked; 15: sampled functions the compiler inlined, [unknown] frames; 16:
 * what each delay waited in; 19: OpenMP tasks dealt out again (issue 37):
 * a model cached before misplaces a recorded task's work; 20: the spawn
 * sites' work and span; 21: libomp's tasks dealt (a worker's join post
 * stays in the epoch, task waits' spin is no work, a wait's join lands
 * after its end); 22: libgomp's tasks dealt by libgomp's rules (a
 * waiting thread runs only its own children, newest first); 23: segments,
 * edges and activities packed (issue 35: the cache of a sync-heavy trace
 * was 1.5x its CTF); 26: a poll a child's exit interrupted joins the
 * child (GNU make -j's pselect); 29-32: a child's exit hands off to the
 * wait it ends (rustc's link, GNU parallel's reads), a sem_trywait keeps
 * a poll's wake-up, hand-offs by preemption, the sleeps of a thread that
 * polls its children; 33: a child held while LTTng-UST registers in it is
 * the recorder's, no delay; 34: a tid the kernel gave again splits its
 * switch records at the earlier thread's exit; 35: the other events' cost
 * timed in the run, slow_window stretches taken out; 36: a child's parent
 * that blocked waiting for it did not hand off to it; 37: the windows that
 * wrote no event (quiet_windows) taken out; 38: the hypervisor's steal
 * while the program ran (steal_ns); 39: steal placed between the clock
 * readings of synchronization events (builder-clock-scale.c); 40: a
 * segment all its start routine's holds no activity (model.h); 41: the
 * self times of a scaled segment (steal, an OpenMP chunk resized) still
 * fill it, the truncation's ns given to its start routine; a dynamic
 * loop's chunks dealt after the steal is placed, on their own clocks;
 * 42: the task deal's tie check (task-deal.c) warns of a near tie; 43:
 * samples in a PLT stub are "name@plt"'s (plt.h), not `_init`'s, and a
 * frame-pointer chain whose first caller is not code is not used; the
 * model's info counts the tasks dealt and kept and the tie check's draws;
 * 44: a recording whose sampler the kernel throttled is warned of
 * (recorder/perf-throttle.h); 45: the model's info keeps the rate sampled
 * at and the kernel's stops of the sampler; 46: thread_clock events are
 * no reading of the clock of the thread that writes them (the process
 * exit's timed block is taken out after them, not clamped away); 47: the
 * model's info keeps other processes' time on the program's CPUs; 48: a
 * lock's holder displaced by another's taking releases it when its release
 * comes (builder-locks.c), and libomp's spins outside its waits
 * (ecp:omp_spin) are cut from the work */
#define ECP_CACHE_FORMAT 48

int ecp_cache_fingerprint(const char *trace_dir, uint64_t *fp, struct ecp_error *err);

/* Returns 1 and *out when the cache at path is present, intact, of this ecp
 * version and format, matches fp, and holds calls if need_calls; 0 when it
 * is absent or stale (not an error: the trace is read instead); negative
 * only when memory ran out. */
int ecp_cache_load(const char *path, uint64_t fp, bool need_calls, struct ecp_model **out,
		   struct ecp_error *err);

/* Returns 0 without writing anything when the directory is read-only.
 * calls_kept: the model was built with its calls (a later load that needs
 * them may use this cache even when there were none). */
int ecp_cache_write(const char *path, uint64_t fp, const struct ecp_model *m,
		    bool calls_kept, struct ecp_error *err);

#endif
