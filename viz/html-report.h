/* SPDX-License-Identifier: MIT */
/* `ecp viz`: one self-contained HTML report (inline SVG, CSS and vanilla
 * JavaScript; nothing is loaded from the network; it opens from disk).
 *
 * Five parts, each a <section> with a stable id (tests and users link to
 * them):
 *   #gantt        the simulated run on P processors, a row per thread;
 *                 segments coloured by their dominant function, ECP segments
 *                 (nonzero weight) drawn taller with their weight in the
 *                 hover text, synchronization events as symbols; zoom and
 *                 pan (wheel, drag, buttons);
 *   #parallelism  running and runnable threads over time against P, on the
 *                 Gantt's time axis (zoomed with it);
 *   #tet-vs-p     the paper's plot: TET of the top functions against P,
 *                 crossovers marked;
 *   #speedup      predicted speedup T1/T_P with the linear and work/span
 *                 bounds; with measured runs, Acar et al.'s factored speedup
 *                 curves (see below);
 *   #functions    the per-function table, sortable by clicking a header.
 *
 * Everything the report needs comes in as plain arrays: viz/ never calls the
 * engine.  Every name is HTML-escaped where it is written and the script
 * reads names back from the DOM with textContent, so no symbol name (C++
 * names contain < and >; a hostile one may contain "</script>") can inject
 * markup or script.
 *
 * Size bound.  Long traces are summarised so that the file stays bounded
 * whatever the input, a 10 M-event trace included:
 *   - at most `max_segments` Gantt bars (default 20,000): consecutive
 *     segments of a thread shorter than a pixel-equivalent are merged into
 *     hatched summary bars, and the pixel-equivalent doubles until the count
 *     fits; the report states the cap and how many segments were merged;
 *   - at most ECP_HTML_MAX_THREAD_ROWS thread rows, ECP_HTML_MAX_MARKS
 *     synchronization symbols (beyond that they are left out, and the report
 *     says so), ECP_HTML_MAX_PROFILE_STEPS parallelism steps (beyond that,
 *     time-averaged per half pixel), ECP_HTML_MAX_TABLE_ROWS table rows,
 *     ECP_HTML_MAX_PLOT_FUNCTIONS curves, hover points for sweeps of at most
 *     ECP_HTML_MAX_SWEEP_POINTS processor counts, ECP_HTML_MAX_NAMED_FUNCTIONS
 *     distinct function names, each shortened to ECP_HTML_MAX_NAME_CHARS
 *     characters (thread names to 100).
 * Worst case with every cap reached: a bar with its summary hatch <= 240
 * bytes (times below 10^14 ns), 20,000 bars = 4.8 MB; marks 0.5 MB; names,
 * thread labels and the table <= 2.2 MB even if every character needs an
 * entity; the rest < 0.2 MB plus about 25 bytes per swept processor count:
 * the file stays under ECP_HTML_SIZE_BOUND (8 MiB).
 * Measured: 3.2 MB for a synthetic trace of a million segments and a million
 * profile steps (tests/viz/test-html.c checks the bound on it). */
#ifndef ECP_VIZ_HTML_REPORT_H
#define ECP_VIZ_HTML_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/error.h"

#define ECP_HTML_NO_FUNCTION UINT32_MAX

#define ECP_HTML_DEFAULT_MAX_SEGMENTS 20000
#define ECP_HTML_MAX_THREAD_ROWS      256
#define ECP_HTML_MAX_MARKS            5000
#define ECP_HTML_MAX_PROFILE_STEPS    4000
#define ECP_HTML_MAX_TABLE_ROWS       500
#define ECP_HTML_MAX_PLOT_FUNCTIONS   10
#define ECP_HTML_MAX_NAMED_FUNCTIONS  500
#define ECP_HTML_MAX_NAME_CHARS       200
#define ECP_HTML_MAX_SWEEP_POINTS     128
#define ECP_HTML_SIZE_BOUND           (8u << 20)

/* Synchronization event at a segment boundary, drawn as a symbol. */
enum ecp_html_mark {
	ECP_HTML_MARK_NONE = 0,
	ECP_HTML_MARK_CREATE, /* pthread_create */
	ECP_HTML_MARK_EXIT,   /* thread end */
	ECP_HTML_MARK_JOIN,   /* join returns */
	ECP_HTML_MARK_LOCK,   /* mutex/rwlock/spin acquire */
	ECP_HTML_MARK_UNLOCK,
	ECP_HTML_MARK_WAIT,   /* condition wait */
	ECP_HTML_MARK_SIGNAL, /* condition signal/broadcast */
	ECP_HTML_MARK_SEM_WAIT,
	ECP_HTML_MARK_SEM_POST,
	ECP_HTML_MARK_BARRIER,
	ECP_HTML_MARK_ONCE,
	ECP_HTML_MARK_DELAY, /* sleep or blocking I/O */
	ECP_HTML_MARK_COUNT
};

/* One segment of the simulated run at P. */
struct ecp_html_segment {
	uint32_t thread;          /* index into thread_names */
	uint32_t function;        /* dominant function or ECP_HTML_NO_FUNCTION */
	int64_t start_ns, end_ns; /* simulated interval at P */
	int64_t cpu_ns;           /* its CPU time (length in the model) */
	double weight;            /* ECP weight at P; nonzero = on the ECP */
	uint8_t start_mark;       /* enum ecp_html_mark at its start */
	uint8_t end_mark;         /* ... and at its end */
};

/* From time_ns until the next step's time (or the makespan). */
struct ecp_html_step {
	int64_t time_ns;
	uint32_t running;  /* threads executing (at most P) */
	uint32_t runnable; /* threads ready to run, the running ones included */
};

struct ecp_html_crossover {
	uint32_t processors; /* first P at which the top function changes */
	uint32_t before;     /* function ids */
	uint32_t after;
};

/* A processor sweep (`ecp scan`).  Arrays are aligned with processors[],
 * which is increasing. */
struct ecp_html_scan {
	size_t count;
	const uint32_t *processors;
	const int64_t *makespan_ns; /* predicted T_P */
	size_t top_count;           /* functions plotted (<= 10 are drawn) */
	const uint32_t *top_functions;
	const double *tet_ns; /* [count][top_count], row-major by P */
	size_t crossover_count;
	const struct ecp_html_crossover *crossovers;
};

/* A measured run of the uninstrumented program (`--measured P=SECONDS`). */
struct ecp_html_measured {
	uint32_t processors;
	double seconds;
};

struct ecp_html_function_row {
	uint32_t function;
	uint64_t calls;
	double tet_ns, tetid_ns, work_ns, span_ns, idle_ns;
};

/* A task-creating call site (OpenMP tasks, issue 37): Cilkprof's work and
 * span of the tasks made there (simulator/model/model.h). */
struct ecp_html_spawn_row {
	const char *name; /* "FUNCTION+0xOFF" */
	uint64_t tasks;
	double work_ns, span_ns;
};

struct ecp_html_report {
	const char *title;      /* NULL: "ecp report" */
	const char *trace_path; /* may be NULL */
	const char *program;    /* may be NULL */
	uint32_t processors;    /* P of the Gantt, the table and the profile */
	int64_t makespan_ns;    /* T_P at that P */
	int64_t work_ns;        /* T_1 */
	int64_t span_ns;        /* T_inf */

	size_t thread_count;
	const char *const *thread_names;
	size_t function_count;
	const char *const *function_names;

	size_t segment_count;
	const struct ecp_html_segment *segments; /* any order */
	size_t step_count;
	const struct ecp_html_step *steps; /* by time */

	const struct ecp_html_scan *scan; /* NULL: no sweep */
	size_t measured_count;
	const struct ecp_html_measured *measured;

	size_t row_count;
	const struct ecp_html_function_row *rows; /* in display order (by TET) */

	size_t spawn_count; /* 0: no task was recorded, no section */
	const struct ecp_html_spawn_row *spawn_rows;

	/* What the command says on standard error about the answer (the
	 * model's warnings, the consistency check's): shown under the
	 * summary, so that the report is not more confident than the
	 * command.  0: none, no box. */
	size_t warning_count;
	const char *const *warnings;

	/* 0: ECP_HTML_DEFAULT_MAX_SEGMENTS.  A larger cap loosens the size
	 * bound by about 240 bytes per extra bar. */
	size_t max_segments;
};

/* Acar, Charguéraud and Rainey's factored speedups at one measured P.  The
 * sequential baseline T_s is the measured P=1 run when one is given, else
 * the recorded work T_1; I_P is the predicted idle time P*T_P(sim) - T_1
 * (the processor time the simulated run leaves unused), and the work
 * inflation F_P = P*T_P - I_P - T_1 with the measured T_P. */
struct ecp_factored_speedup {
	uint32_t processors;
	double linear;             /* P */
	double maximal;            /* P*T_s/T_1 */
	double idle_specific;      /* P*T_s/(T_1 + I_P) */
	double inflation_specific; /* P*T_s/(P*T_P - I_P) */
	double actual;             /* T_s/T_P */
	double idle_ns;            /* I_P */
	double inflation_ns;       /* F_P */
};

/* Computes the factored speedups for one measured run; idle_ns is the
 * predicted I_P at that P (negative if unknown: the idle- and
 * inflation-specific values are then NaN). */
void ecp_factored_speedup(double baseline_ns, double work_ns, double measured_ns,
			  uint32_t processors, double idle_ns,
			  struct ecp_factored_speedup *out);

/* The parallelism profile implied by the Gantt segments under the paper's
 * processor-sharing model: a thread is runnable while one of its segments
 * is in its simulated interval, so runnable(t) = the segments whose
 * [start, end) holds t, and running(t) = min(runnable(t), P).  Returns the
 * steps (only where the counts change, the first at time 0) in *steps, to
 * be freed by the caller. */
int ecp_html_profile_from_segments(const struct ecp_html_segment *segments, size_t count,
				   uint32_t processors, struct ecp_html_step **steps,
				   size_t *step_count, struct ecp_error *err);

int ecp_html_report_write(FILE *out, const struct ecp_html_report *r,
			  struct ecp_error *err);

#endif
