/* SPDX-License-Identifier: MIT */
/* ecp record: parse the options, then hand over to the recorder
 * (recorder/record.h). */
#include "cli/commands.h"
#include "cli/consistency.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <sys/stat.h>

#include "common/parse.h"
#include "common/units.h"
#include "recorder/record.h"
#include "recorder/time-slice.h"
#include "simulator/trace/build-advice.h"

enum {
	OPT_CPU = 256,
	OPT_DEPTH,
	OPT_INCLUDE,
	OPT_EXCLUDE,
	OPT_MIN_DURATION,
	OPT_NO_FUNCTIONS,
	OPT_AS_CPUS,
	OPT_CPUS,
	OPT_FUNCTIONS,
	OPT_SAMPLE_FREQ,
	OPT_TIME_SLICE
};

/* Where the samples are fewer than the rate asked for: the lengths stand
 * (each sample's cost is taken out as counted), the split among functions
 * is coarser, and nothing else would say so. */
static void warn_sampling(const struct ecp_record_summary *sum)
{
	if (sum->samples_lost)
		fprintf(stderr,
			"ecp record: warning: perf dropped %llu samples (the driver "
			"could not keep up): the split among functions is less "
			"precise\n",
			(unsigned long long)sum->samples_lost);
	if (sum->sample_hz && sum->sample_hz < sum->sample_hz_asked)
		fprintf(stderr,
			"ecp record: warning: sampled %u times a second, not %u: "
			"kernel.perf_event_max_sample_rate allows no more (the kernel "
			"lowers it when its sampling interrupts take too long; see "
			"dmesg)\n",
			sum->sample_hz, sum->sample_hz_asked);
	if (sum->samples_throttled)
		fprintf(stderr,
			"ecp record: warning: the kernel stopped the sampler %llu "
			"times for taking more samples in a tick than "
			"kernel.perf_event_max_sample_rate (%u at the end) allows: "
			"%llu samples where %u a second would take about %.0f; their "
			"cost is taken out as counted, but the split among functions "
			"is coarser\n",
			(unsigned long long)sum->samples_throttled, sum->sample_rate_max,
			(unsigned long long)sum->samples, sum->sample_hz,
			(double)sum->sample_hz * (double)sum->cpu_ns / 1e9);
}

/* Appends to a NULL-terminated list of borrowed strings. */
static int list_add(char ***list, size_t *n, char *s)
{
	char **grown = realloc(*list, (*n + 2) * sizeof(char *));
	if (!grown)
		return -1;
	grown[(*n)++] = s;
	grown[*n] = NULL;
	*list = grown;
	return 0;
}

static void print_summary(const struct ecp_record_summary *s, const char *out)
{
	char wall[32];
	ecp_format_ns(wall, sizeof(wall), (double)s->wall_ns);
	/* the counts are the model's: none when it could not be built (the
	 * warning said why), never a made-up 0 */
	char counts[160] = "";
	if (s->events)
		snprintf(counts, sizeof(counts),
			 "%llu threads, %llu events, %llu discarded, ",
			 (unsigned long long)s->threads, (unsigned long long)s->events,
			 (unsigned long long)s->discarded);
	char where[300];
	if (s->n_cpus > 1)
		snprintf(where, sizeof(where), "CPUs %s (unpinned among %zu)",
			 s->cpu_list, s->n_cpus);
	else
		snprintf(where, sizeof(where), "CPU %d", s->cpu);
	bool run = s->event_cost_source && !strcmp(s->event_cost_source, "run");
	bool other_run =
	    s->other_event_cost_source && !strcmp(s->other_event_cost_source, "run");
	char cost[128];
	if (other_run && !run)
		snprintf(cost, sizeof(cost), "%.1f ns per event (timed in the run)",
			 (double)s->other_event_cost_ps / 1000.0);
	else if (run && s->other_event_cost_ps)
		snprintf(cost, sizeof(cost),
			 "%.1f ns per function record (%s), %.1f ns per other event (%s)",
			 (double)s->event_cost_ps / 1000.0,
			 run ? "timed in the run" : "calibrated",
			 (double)s->other_event_cost_ps / 1000.0,
			 other_run ? "timed in the run" : "calibrated");
	else
		snprintf(cost, sizeof(cost), "%.1f ns per event (%s)",
			 (double)s->event_cost_ps / 1000.0,
			 run ? "timed in the run" : "calibrated");
	fprintf(stderr,
		"ecp record: %s%.1f MB, wall %s\n"
		"ecp record: %s, clock %s (%llu context switches), %s; trace in %s\n",
		counts, (double)s->bytes / 1e6, wall, where, s->clock,
		(unsigned long long)s->switches, cost, out);
	if (s->samples)
		fprintf(stderr, "ecp record: functions %s: %llu samples\n",
			s->functions_mode == ECP_FUNCTIONS_BOTH
			    ? "instrumented and sampled"
			    : "sampled",
			(unsigned long long)s->samples);
	if (s->samples && s->sample_cost_ns)
		fprintf(stderr,
			"ecp record: a sample cost the program %.1f us (%.2f s in "
			"all), taken out of its threads' times\n",
			(double)s->sample_cost_ns / 1e3,
			(double)(s->sample_cost_ns * s->samples) / 1e9);
	/* 5 ms and 2% of the CPUs' time: a quiet CPU gives 0-2 ms (the
	 * loader, interrupts), --cpus on all of a machine's CPUs about 1% (the
	 * recorder's drain and daemons share them); the analyses say what it
	 * means for their answer (cli/session.c) */
	uint64_t cpus_time = s->wall_ns * (s->n_cpus ? s->n_cpus : 1);
	if (s->other_cpu_ns >= 5000000 && s->other_cpu_ns * 50 >= cpus_time) {
		char other[32];
		fprintf(stderr,
			"ecp record: warning: other processes used %s of %s while the "
			"program ran (%.0f%% of %s time): a wait of its that ended "
			"meanwhile lasted until it had the CPU back; record again on a "
			"quiet CPU (--cpu N)\n",
			ecp_format_ns(other, sizeof(other), (double)s->other_cpu_ns),
			where, 100.0 * (double)s->other_cpu_ns / (double)cpus_time,
			s->n_cpus > 1 ? "their" : "its");
	}
	if (s->calibration_problem)
		fprintf(stderr,
			"ecp record: warning: %s; nothing is subtracted for it, so "
			"the recorder's own cost stays in the times\n",
			s->calibration_problem);
	if (s->discarded)
		fprintf(stderr, "ecp record: warning: the trace lost %llu events\n",
			(unsigned long long)s->discarded);
}

/* Whether execvp() could run `prog`, checked before an LTTng session is set
 * up: the launcher only learns an errno from the failed exec, and the user
 * needs to hear which program it was and why.  Returns 0, or fills `why`. */
static int check_program(const char *prog, char *why, size_t len)
{
	struct stat st;
	if (strchr(prog, '/')) {
		if (stat(prog, &st) < 0) {
			snprintf(why, len, "%s", strerror(errno));
			return -1;
		}
		if (S_ISDIR(st.st_mode)) {
			snprintf(why, len, "it is a directory");
			return -1;
		}
		if (access(prog, X_OK) < 0) {
			snprintf(why, len, "%s (not executable%s)", strerror(errno),
				 errno == EACCES ? ": chmod +x, or compile it" : "");
			return -1;
		}
		return 0;
	}
	const char *path = getenv("PATH");
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (const char *p = path; *p;) {
		const char *end = strchr(p, ':');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		char full[PATH_MAX];
		if (snprintf(full, sizeof(full), "%.*s/%s", (int)n, n ? p : ".", prog) <
			(int)sizeof(full) &&
		    stat(full, &st) == 0 && S_ISREG(st.st_mode) &&
		    access(full, X_OK) == 0)
			return 0;
		p += n + (end ? 1 : 0);
	}
	if (access(prog, F_OK) == 0)
		snprintf(why, len,
			 "not found in PATH (for the one in this directory, write ./%s)",
			 prog);
	else
		snprintf(why, len, "not found in PATH");
	return -1;
}

/* --cpus LIST: each CPU one this process may run on (sched_setaffinity
 * would quietly run the program on fewer), at most ECP_RECORD_MAX_CPUS. */
static int parse_cpus(const char *arg, int cpus[ECP_RECORD_MAX_CPUS],
		      struct ecp_record_options *o, int *code)
{
	struct ecp_error err = {0};
	unsigned *v = NULL;
	size_t n = 0;
	cpu_set_t allowed;
	if (ecp_parse_cpu_list(arg, &v, &n, &err) < 0) {
		*code = ecp_cli_usage_error("record", "bad --cpus: %s", err.msg);
		return -1;
	}
	if (n > ECP_RECORD_MAX_CPUS) {
		free(v);
		*code =
		    ecp_cli_usage_error("record", "bad --cpus '%s': %zu CPUs, at most %d",
					arg, n, ECP_RECORD_MAX_CPUS);
		return -1;
	}
	CPU_ZERO(&allowed);
	if (sched_getaffinity(0, sizeof(allowed), &allowed) < 0)
		CPU_ZERO(&allowed);
	for (size_t i = 0; i < n; i++) {
		if (!CPU_ISSET(v[i], &allowed)) {
			*code = ecp_cli_usage_error(
			    "record",
			    "bad --cpus '%s': CPU %u is not one this process may run "
			    "on (see taskset -p $$ or nproc)",
			    arg, v[i]);
			free(v);
			return -1;
		}
		cpus[i] = (int)v[i];
	}
	free(v);
	o->cpus = cpus;
	o->n_cpus = n;
	return 0;
}

/* The options that take a number or a duration, into o: 0, or an exit code
 * (the message printed). */
static int parse_record_number(int c, const char *arg, struct ecp_record_options *o)
{
	uint64_t v;
	switch (c) {
	case OPT_CPU:
		if (ecp_parse_u64(arg, &v) || v >= CPU_SETSIZE)
			return ecp_cli_usage_error("record", "bad --cpu '%s'", arg);
		o->cpu = (int)v;
		break;
	case OPT_AS_CPUS:
		if (ecp_parse_u64(arg, &v) || v == 0 || v > CPU_SETSIZE)
			return ecp_cli_usage_error("record",
						   "bad --as-cpus '%s' (want 1 to %d)",
						   arg, CPU_SETSIZE);
		o->as_cpus = (uint32_t)v;
		break;
	case OPT_DEPTH:
		if (ecp_parse_u64(arg, &v) || v == 0 || v > UINT32_MAX)
			return ecp_cli_usage_error("record",
						   "bad --depth '%s' (want N >= 1)", arg);
		o->depth = (uint32_t)v;
		break;
	case OPT_MIN_DURATION:
		if (ecp_parse_duration_ns(arg, &v))
			return ecp_cli_usage_error("record", "bad --min-duration '%s'",
						   arg);
		o->min_duration_ns = v;
		break;
	case OPT_SAMPLE_FREQ:
		if (ecp_parse_u64(arg, &v) || v < 1 || v > ECP_RECORD_MAX_SAMPLE_HZ)
			return ecp_cli_usage_error(
			    "record", "bad --sample-freq '%s' (want 1 to %u Hz)", arg,
			    ECP_RECORD_MAX_SAMPLE_HZ);
		o->sample_hz = (unsigned)v;
		break;
	case OPT_TIME_SLICE:
		/* the kernel's bounds for a custom slice (sched_attr.sched_runtime) */
		if (ecp_parse_duration_ns(arg, &v) ||
		    (v != 0 && (v < ECP_TIME_SLICE_MIN_NS || v > ECP_TIME_SLICE_MAX_NS)))
			return ecp_cli_usage_error(
			    "record", "bad --time-slice '%s' (want 0, or 100us to 100ms)",
			    arg);
		o->time_slice_ns = v;
		break;
	}
	return 0;
}

/* --functions MODE into o: 0, or an exit code (the message printed). */
static int parse_functions_mode(const char *arg, struct ecp_record_options *o)
{
	if (!strcmp(arg, "instrument"))
		o->functions_mode = ECP_FUNCTIONS_INSTRUMENT;
	else if (!strcmp(arg, "sample"))
		o->functions_mode = ECP_FUNCTIONS_SAMPLE;
	else if (!strcmp(arg, "both"))
		o->functions_mode = ECP_FUNCTIONS_BOTH;
	else
		return ecp_cli_usage_error("record",
					   "bad --functions '%s' (want "
					   "instrument, sample or both)",
					   arg);
	return 0;
}

/* One option c (from getopt_long, its argument in optarg) into o; n_inc and
 * n_exc count the --include and --exclude lists.  0, or an exit code (the
 * message printed). */
static int parse_record_option(int c, char **argv, struct ecp_record_options *o,
			       int cpus[ECP_RECORD_MAX_CPUS], size_t *n_inc,
			       size_t *n_exc)
{
	int code = ECP_EXIT_USAGE;
	switch (c) {
	case 'o':
		o->output = optarg;
		break;
	case 'f':
		o->force = true;
		break;
	case 'q':
		o->quiet = true;
		break;
	case OPT_CPUS:
		if (parse_cpus(optarg, cpus, o, &code) < 0)
			return code;
		break;
	case OPT_CPU:
	case OPT_AS_CPUS:
	case OPT_DEPTH:
	case OPT_MIN_DURATION:
	case OPT_SAMPLE_FREQ:
	case OPT_TIME_SLICE:
		return parse_record_number(c, optarg, o);
	case OPT_INCLUDE:
	case OPT_EXCLUDE:
		if (list_add(c == OPT_INCLUDE ? &o->include : &o->exclude,
			     c == OPT_INCLUDE ? n_inc : n_exc, optarg) < 0)
			return ecp_cli_fail("record", "out of memory");
		break;
	case OPT_NO_FUNCTIONS:
		o->functions = false;
		break;
	case OPT_FUNCTIONS:
		return parse_functions_mode(optarg, o);
	default:
		return ecp_cli_usage_error("record", "unknown option '%s'",
					   argv[optind - 1]);
	}
	return 0;
}

/* The options, into o (cpus holds --cpus' list); 0, or an exit code (the
 * message printed).  o.argv is the program's command line on success. */
static int parse_record_options(int argc, char **argv, struct ecp_record_options *o,
				int cpus[ECP_RECORD_MAX_CPUS])
{
	static const struct option longopts[] = {
	    {"output", required_argument, NULL, 'o'},
	    {"force", no_argument, NULL, 'f'},
	    {"quiet", no_argument, NULL, 'q'},
	    {"cpu", required_argument, NULL, OPT_CPU},
	    {"depth", required_argument, NULL, OPT_DEPTH},
	    {"include", required_argument, NULL, OPT_INCLUDE},
	    {"exclude", required_argument, NULL, OPT_EXCLUDE},
	    {"min-duration", required_argument, NULL, OPT_MIN_DURATION},
	    {"no-functions", no_argument, NULL, OPT_NO_FUNCTIONS},
	    {"as-cpus", required_argument, NULL, OPT_AS_CPUS},
	    {"cpus", required_argument, NULL, OPT_CPUS},
	    {"functions", required_argument, NULL, OPT_FUNCTIONS},
	    {"sample-freq", required_argument, NULL, OPT_SAMPLE_FREQ},
	    {"time-slice", required_argument, NULL, OPT_TIME_SLICE},
	    {NULL, 0, NULL, 0},
	};
	size_t n_inc = 0, n_exc = 0;
	int c, code;
	optind = 1;
	opterr = 0;
	/* '+': stop at the first non-option, the program's name. */
	while ((c = getopt_long(argc, argv, "+o:fq", longopts, NULL)) != -1)
		if ((code = parse_record_option(c, argv, o, cpus, &n_inc, &n_exc)))
			return code;
	if (o->n_cpus && o->cpu >= 0)
		return ecp_cli_usage_error("record",
					   "--cpu and --cpus exclude each other "
					   "(--cpus N is --cpu N)");
	if (optind < argc && !strcmp(argv[optind], "--"))
		optind++;
	if (optind >= argc)
		return ecp_cli_usage_error(
		    "record", "no program to record (ecp record -- PROGRAM)");
	o->argv = argv + optind;
	return 0;
}

/* After the recording: its model, built once (the summary's counts, the
 * checks, and the cache the first analysis reads), the summary unless
 * -q, and every warning (with -q too: never a silent gap). */
static void report_recording(const struct ecp_record_options *o,
			     struct ecp_record_summary *sum)
{
	const char *dir = o->output ? o->output : "ecp.data";
	struct ecp_model *model = ecp_cli_record_model(dir);
	if (model) {
		sum->threads = model->n_threads;
		sum->events = model->info.events;
		sum->discarded = model->info.discarded_events + model->info.switches_lost;
	}
	if (!o->quiet)
		print_summary(sum, dir);
	/* warnings, with -q too: never a silent gap */
	/* ecp record sets passive waiting unless the caller chose a policy
	 * (recorder/README.md); an active one is kept, and costs this. */
	const char *policy = getenv("OMP_WAIT_POLICY");
	if (policy && strcasecmp(policy, "active") == 0)
		fprintf(stderr,
			"ecp record: warning: OMP_WAIT_POLICY=active: OpenMP threads "
			"spin while they wait, and on the recording CPU that spinning is "
			"recorded as work (unset it to record with passive waiting)\n");
	if (sum->sampling_problem)
		fprintf(
		    stderr,
		    "ecp record: warning: %s: functions are not sampled, each thread's "
		    "time is charged to its start routine\n",
		    sum->sampling_problem);
	warn_sampling(sum);
	for (int i = 0; i < sum->n_unmodelled; i++)
		fprintf(stderr,
			"ecp record: warning: the program called %s, which ecp does not "
			"model (or only in part): dependencies through it are not seen "
			"(ecp-record(1), UNMODELLED CALLS)\n",
			sum->unmodelled[i]);
	/* a C++ program instrumented whole (issue 34), with -q too */
	char advice[1024];
	if (model && ecp_library_calls_advice(model, advice, sizeof(advice)))
		fprintf(stderr, "ecp record: warning: %s\n", advice);
	/* the model against the program's CPU time (issue 31), with -q too */
	if (model) {
		ecp_cli_record_consistency(dir, model);
		ecp_model_destroy(model);
	}
}

int cmd_record(int argc, char **argv)
{
	struct ecp_record_options o = {
	    .cpu = -1,
	    .functions = true,
	    .min_duration_ns = ECP_RECORD_DEFAULT_MIN_DURATION_NS,
	    .time_slice_ns = ECP_TIME_SLICE_DEFAULT_NS,
	};
	struct ecp_record_summary sum;
	struct ecp_error err = {0};
	int cpus[ECP_RECORD_MAX_CPUS];
	int code = parse_record_options(argc, argv, &o, cpus);
	if (code)
		goto out;
	char why[PATH_MAX + 128];
	if (check_program(o.argv[0], why, sizeof(why)) < 0) {
		fprintf(stderr, "ecp record: error: cannot run '%s': %s\n", o.argv[0],
			why);
		code = ECP_EXIT_USAGE;
		goto out;
	}
	if (ecp_record_run(&o, &code, &sum, &err) != ECP_OK) {
		if (err.status == ECP_ERR_USAGE)
			code = ecp_cli_usage_error("record", "%s", err.msg);
		else
			code = ecp_cli_fail("record", "%s", err.msg);
		goto out;
	}
	report_recording(&o, &sum);
out:
	free(o.include);
	free(o.exclude);
	return code;
}
