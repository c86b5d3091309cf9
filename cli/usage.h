/* SPDX-License-Identifier: MIT */
/* --help text of every command; kept in step with man/ecp-*.1.  Printed
 * with fputs, not printf: a percent sign is written once. */
#ifndef ECP_CLI_USAGE_H
#define ECP_CLI_USAGE_H

#define ECP_COMMON_ANALYSIS_OPTIONS                                                      \
	"  --format table|csv|json   output format (default table)\n"                    \
	"  --allow-loss              analyse a trace with discarded events (warns)\n"    \
	"  --allow-inconsistent      answer though the model does not hold the\n"        \
	"                            program's CPU time (warns; see ecp(1))\n"           \
	"  --lock-order arrival|recorded\n"                                              \
	"                            re-decide lock hand-offs by simulated arrival\n"    \
	"                            (default) or keep the recorded order\n"

#define ECP_USAGE_RECORD                                                                 \
	"usage: ecp record [-o DIR] [--force] [--cpu N | --cpus LIST] [--as-cpus N]\n"   \
	"                  [--depth N]\n"                                                \
	"                  [--include GLOB] [--exclude GLOB] [--min-duration NS]\n"      \
	"                  [--functions instrument|sample|both] [--sample-freq HZ]\n"    \
	"                  [--time-slice DURATION] [--no-functions] -- PROGRAM "         \
	"[ARGS...]\n\n"                                                                  \
	"Run PROGRAM with all its threads on one CPU and record its functions (entry/\n" \
	"exit with -finstrument-functions, else perf samples: no rebuild needed),\n"     \
	"every pthread synchronization, blocking calls and the CPU's context switches\n" \
	"into a CTF trace (LTTng-UST).  Exits with PROGRAM's own exit status.\n"         \
	"OpenMP programs built with GCC (-fopenmp) are recorded through libgomp's "      \
	"ABI,\n"                                                                         \
	"with passive waiting (OMP_WAIT_POLICY=passive unless set): see "                \
	"ecp-record(1),\n"                                                               \
	"OPENMP.\n\n"                                                                    \
	"  -o, --output DIR          trace directory (default ./ecp.data)\n"             \
	"  -f, --force               replace an existing trace directory\n"              \
	"  --cpu N                   CPU to run on (default: first CPU allowed)\n"       \
	"  --cpus LIST               run unpinned on these CPUs (e.g. 0-1): durations\n" \
	"                            as they cost side by side, the wall time a\n"       \
	"                            measured T_N, for ecp compare (ecp-compare(1))\n"   \
	"  --as-cpus N               CPUs the program is shown (default: the "           \
	"caller's)\n"                                                                    \
	"  --depth N                 record calls only down to call depth N\n"           \
	"  --include GLOB            record only functions matching GLOB (repeatable)\n" \
	"  --exclude GLOB            do not record functions matching GLOB "             \
	"(repeatable)\n"                                                                 \
	"  --min-duration NS         fold calls shorter than NS into their caller\n"     \
	"                            (counted, not emitted; default 10us, units "        \
	"ns/us/ms)\n"                                                                    \
	"  --functions MODE          instrument (entry/exit), sample (perf samples,\n"   \
	"                            unwound with libdw) or both; default: instrument\n" \
	"                            if built with -finstrument-functions, else "        \
	"sample\n"                                                                       \
	"  --sample-freq HZ          samples per second of CPU time (default 3000; no\n" \
	"                            more than kernel.perf_event_max_sample_rate)\n"     \
	"  --time-slice DURATION     the program's time slice on its one CPU (100us\n"   \
	"                            to 100ms, units ns/us/ms; default 0: the\n"         \
	"                            kernel's own): its threads' turns refill fewer\n"   \
	"                            caches (Linux 6.12 or later; ecp-record(1))\n"      \
	"  --no-functions            record synchronization and scheduling only\n"       \
	"  -q, --quiet               no summary on stderr\n"

#define ECP_USAGE_INFO                                                                   \
	"usage: ecp info [TRACE_DIR] [--format table|json] [--allow-loss]\n"             \
	"                [--allow-inconsistent]\n\n"                                     \
	"Summarise a recorded trace: program, threads, events, discarded events, "       \
	"clock\n"                                                                        \
	"source, work T1, span Tinf (critical path on unlimited processors), "           \
	"parallelism\n"                                                                  \
	"and the top functions by work.  TRACE_DIR defaults to ./ecp.data.\n\n"          \
	"  --format table|json       output format (default table)\n"                    \
	"  --allow-loss              analyse a trace with discarded events (warns)\n"    \
	"  --allow-inconsistent      answer though the model does not hold the\n"        \
	"                            program's CPU time (warns; see ecp(1))\n"

#define ECP_USAGE_REPORT                                                                 \
	"usage: ecp report [TRACE_DIR] [-P N] [--top K] [--sort KEY] [--by "             \
	"function|callsite]\n"                                                           \
	"                  [--format table|csv|json]\n\n"                                \
	"Which functions matter on N processors: per function the calls on the "         \
	"extended\n"                                                                     \
	"critical path, TET (weight x exclusive time), TETID (weight x inclusive "       \
	"time),\n"                                                                       \
	"share of T_P, work, span and idleness.  N defaults to the online CPUs.\n\n"     \
	"  -P, --processors N        processors to predict for\n"                        \
	"  --top K                   rows to show (default 20; 0 = all)\n"               \
	"  --sort tet|tetid|calls|work|span|idle   (default tet)\n"                      \
	"  --by function|callsite|spawnsite   a row per function (default), per call\n"  \
	"                            site: which call of a function matters (\"f <-\n"   \
	"                            caller (file.c:LINE)\"), or per OpenMP task-\n"     \
	"                            creating site: its work, span, parallelism\n"       \
	"  --own-code                sampled time in system libraries (libc, libm...)\n" \
	"                            goes to the program's function that called them\n"  \
	"  --functions-from all|instrument|samples   for a recording with both: the\n"   \
	"                            functions' time from one source only (default "     \
	"all)\n" ECP_COMMON_ANALYSIS_OPTIONS

#define ECP_USAGE_SCAN                                                                   \
	"usage: ecp scan [TRACE_DIR] -P LIST [--top K] [--format table|csv|json]\n\n"    \
	"Predicted T_P and speedup for every P in LIST (like 1-16 or 1,2,4,8), the "     \
	"TET\n"                                                                          \
	"of the top functions per P, and the crossovers: the processor counts at "       \
	"which\n"                                                                        \
	"the function that matters most changes.\n\n"                                    \
	"  -P, --processors LIST     processor counts (default 1-16)\n"                  \
	"  --top K                   functions in the matrix (default 5)\n"              \
	"  --sched linux             also T_P from the Linux-like scheduler "            \
	"model\n" ECP_COMMON_ANALYSIS_OPTIONS

#define ECP_USAGE_WHATIF                                                                 \
	"usage: ecp whatif [TRACE_DIR] --faster NAME=PCT [--faster ...] [--self] [-P "   \
	"LIST]\n"                                                                        \
	"                  [--format table|csv|json]\n\n"                                \
	"Re-simulate with the named functions' time reduced by PCT percent (the "        \
	"paper's\n"                                                                      \
	"pseudo-optimized simulation) and print baseline and predicted T_P and the "     \
	"gain\n"                                                                         \
	"for every P in LIST.  By default a function is shortened with its callees\n"    \
	"(inclusive time); --self shortens only its own (exclusive) time.\n\n"           \
	"  --faster NAME=PCT         e.g. parse=20% (repeatable)\n"                      \
	"  --self                    shorten only the functions' own time, not "         \
	"callees'\n"                                                                     \
	"  --sched ideal|linux       scheduler model of the run times (default ideal)\n" \
	"  -P, --processors LIST     processor counts (default "                         \
	"1-16)\n" ECP_COMMON_ANALYSIS_OPTIONS

#define ECP_USAGE_COMPARE                                                                \
	"usage: ecp compare BASE OTHER [OTHER...] [-P LIST] [--top K] [--html FILE]\n"   \
	"                   [--format "                                                  \
	"table|csv|json]\n\n"                                                            \
	"Two recordings of the same program side by side.  Both recorded on one "        \
	"CPU\n"                                                                          \
	"(before and after a change): per function the work in each, the difference\n"   \
	"and ratio, and its TET at every P in LIST; predicted T_P of both at every P.\n" \
	"BASE on one CPU and OTHER on N (ecp record --cpus): work inflation at N --\n"   \
	"T_1, the measured and predicted T_N, work W_N, recorder R_N, inflation F_N\n"   \
	"and idle I_N (N T_N = T_1 + F_N + I_N + R_N), the factored speedups, and per\n" \
	"function and per thread the work at 1 against the work at N, the hand-offs\n"   \
	"each run saw, and an inflation-aware prediction at every P.  A BASE\n"          \
	"recorded on N CPUs is compared the other way round (said on stderr).\n"         \
	"Several OTHERs on N CPUs: the median run, and each inflation's range.\n\n"      \
	"  -P, --processors LIST     processor counts (default 1-16): before/after,\n"   \
	"                            and measured for the inflation-aware model\n"       \
	"  --html FILE               also write an HTML page: speedup curves, the\n"     \
	"                            factored speedups at N, per-function bars\n"        \
	"  --top K                   rows to show (default 20; 0 = "                     \
	"all)\n" ECP_COMMON_ANALYSIS_OPTIONS

#define ECP_USAGE_VIZ                                                                    \
	"usage: ecp viz [TRACE_DIR] [-P N] [--range LIST] [--measured P=SECONDS,...]\n"  \
	"               -o FILE.html\n\n"                                                \
	"Write one self-contained HTML report: Gantt chart of the simulated run on N\n"  \
	"processors with the extended critical path, parallelism over time, TET of "     \
	"the\n"                                                                          \
	"top functions against P, speedup curves, and the function table.\n\n"           \
	"  -P, --processors N        processors for the Gantt chart (default: online "   \
	"CPUs)\n"                                                                        \
	"  --range LIST              processor counts for the plots (default 1-16)\n"    \
	"  --measured P=SECONDS,...  measured run times, for Acar's factored speedups\n" \
	"  -o, --output FILE         output file (required)\n"

#define ECP_USAGE_EXPORT                                                                 \
	"usage: ecp export [TRACE_DIR] [-P N] --format perfetto|folded|csv -o FILE\n\n"  \
	"Export the simulated run on N processors: Chrome trace-event JSON for\n"        \
	"ui.perfetto.dev (perfetto), ECP-weighted folded stacks for flamegraph.pl and\n" \
	"speedscope (folded), or the segments with their weights (csv).\n\n"             \
	"  -P, --processors N        processors (default: online CPUs)\n"                \
	"  --format perfetto|folded|csv\n"                                               \
	"  -o, --output FILE         output file ('-' for stdout)\n"

#define ECP_USAGE_HELP                                                                   \
	"usage: ecp help COMMAND\n\n"                                                    \
	"Show the help of COMMAND (also 'ecp COMMAND --help' or 'man ecp-COMMAND').\n"

#endif
