/* SPDX-License-Identifier: MIT */
#include "cli/session.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "cli/consistency.h"
#include "cli/progress.h"
#include "common/units.h"
#include "ecp/options.h"
#include "common/parse.h"
#include "common/strdist.h"
#include "simulator/trace/trace.h"

void ecp_cli_common_init(struct ecp_cli_common *c)
{
	memset(c, 0, sizeof(*c));
	c->trace_dir = "ecp.data";
	c->format = ECP_FORMAT_TABLE;
	c->lock_order = ECP_LOCK_ORDER_ARRIVAL;
}

int ecp_cli_common_option(const char *cmd, struct ecp_cli_common *c, int opt,
			  const char *arg, unsigned allowed_formats)
{
	switch (opt) {
	case ECP_OPT_FORMAT: {
		static const char *const names[] = {"table", "csv", "json"};
		for (unsigned i = 0; i < 3; i++) {
			if (!strcmp(arg, names[i]) && (allowed_formats & (1u << i))) {
				c->format = (enum ecp_format)i;
				return 0;
			}
		}
		return ecp_cli_usage_error(cmd, "unknown --format '%s'", arg);
	}
	case ECP_OPT_ALLOW_LOSS:
		c->allow_loss = true;
		return 0;
	case ECP_OPT_ALLOW_INCONSISTENT:
		c->allow_inconsistent = true;
		return 0;
	case ECP_OPT_LOCK_ORDER:
		if (!strcmp(arg, "arrival"))
			c->lock_order = ECP_LOCK_ORDER_ARRIVAL;
		else if (!strcmp(arg, "recorded"))
			c->lock_order = ECP_LOCK_ORDER_RECORDED;
		else
			return ecp_cli_usage_error(
			    cmd, "--lock-order must be 'arrival' or 'recorded', not '%s'",
			    arg);
		return 0;
	default:
		return ecp_cli_usage_error(cmd, "unexpected option");
	}
}

int ecp_cli_getopt(const char *cmd, int argc, char **argv, const char *shortopts,
		   const struct option *longopts)
{
	opterr = 0;
	int saved = optind;
	int opt = getopt_long(argc, argv, shortopts, longopts, NULL);
	if (opt == '?') {
		const char *bad = (saved < argc) ? argv[optind - 1] : "?";
		if (optopt)
			ecp_cli_usage_error(
			    cmd, "option '-%c' is unknown or needs a value", optopt);
		else
			ecp_cli_usage_error(
			    cmd, "option '%s' is unknown or needs a value", bad);
		return -2;
	}
	if (opt == ':') {
		ecp_cli_usage_error(cmd, "option '%s' needs a value", argv[optind - 1]);
		return -2;
	}
	return opt;
}

int ecp_cli_trace_operand(const char *cmd, struct ecp_cli_common *c, int argc,
			  char **argv)
{
	if (optind < argc)
		c->trace_dir = argv[optind++];
	if (optind < argc)
		return ecp_cli_usage_error(
		    cmd, "unexpected argument '%s' (one TRACE_DIR at most)",
		    argv[optind]);
	return 0;
}

int ecp_cli_parse_sched(const char *cmd, const char *arg, enum ecp_sched_model *out)
{
	if (!strcmp(arg, "ideal"))
		*out = ECP_SCHED_IDEAL;
	else if (!strcmp(arg, "linux"))
		*out = ECP_SCHED_LINUX;
	else
		return ecp_cli_usage_error(
		    cmd, "--sched takes 'ideal' or 'linux', not '%s'", arg);
	return 0;
}

unsigned ecp_cli_online_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (unsigned)n : 1;
}

int ecp_cli_parse_processors(const char *cmd, const char *arg, unsigned *out)
{
	uint64_t v;
	if (ecp_parse_u64(arg, &v) < 0 || v < 1 || v > ECP_CLI_MAX_PROCESSORS)
		return ecp_cli_usage_error(
		    cmd, "-P takes a processor count from 1 to %u, not '%s'",
		    ECP_CLI_MAX_PROCESSORS, arg);
	*out = (unsigned)v;
	return 0;
}

/* The engine's knobs from the environment (the engine reads none):
 * ECP_EXACT_BUDGET, events the exact re-simulations may process per P,
 * checked strictly (a user's); the tests' tuning knobs as given. */
static int read_engine_options(const char *cmd, struct ecp_engine_options *out)
{
	struct ecp_engine_options opts = {0};
	const char *env = getenv("ECP_EXACT_BUDGET");
	if (env && *env) {
		uint64_t v;
		if (ecp_parse_u64(env, &v) < 0 || v == 0)
			return ecp_cli_usage_error(
			    cmd,
			    "ECP_EXACT_BUDGET must be a positive number of events, "
			    "not '%s'",
			    env);
		opts.exact_budget = v;
	}
	uint64_t n;
	if (ecp_env_knob_u64("ECP_PARALLEL_MIN_SEGMENTS", 1, UINT32_MAX, &n))
		opts.parallel_min_segments = (uint32_t)n;
	if (ecp_env_knob_u64("ECP_SNAPSHOT_ITEMS", 1, SIZE_MAX, &n))
		opts.snapshot_items = (size_t)n;
	if (ecp_env_knob_u64("ECP_UNIT_INSTANTS", 2, SIZE_MAX / 64, &n))
		opts.unit_instants = (size_t)n;
	ecp_engine_options_resolve(&opts, out);
	return 0;
}

/* "nanosleep 0.8 s, read 0.3 s, ..." -- the three largest kinds first
 * (issue 32: which wait controls the span, by name). */
static void delays_by_name(const uint64_t by_kind[ECP_DELAY_KINDS], char *out, size_t len)
{
	uint64_t left[ECP_DELAY_KINDS];
	memcpy(left, by_kind, sizeof(left));
	size_t used = 0;
	out[0] = 0;
	for (int shown = 0; shown < 3; shown++) {
		unsigned best = 0;
		for (unsigned k = 1; k < ECP_DELAY_KINDS; k++)
			if (left[k] > left[best])
				best = k;
		if (!left[best])
			break;
		char t[32];
		used +=
		    (size_t)snprintf(out + used, used < len ? len - used : 0, "%s%s %s",
				     shown ? ", " : "", ecp_delay_kind_name(best),
				     ecp_format_ns(t, sizeof(t), (double)left[best]));
		left[best] = 0;
	}
	uint64_t rest = 0;
	for (unsigned k = 0; k < ECP_DELAY_KINDS; k++)
		rest += left[k];
	if (rest && used < len) {
		char t[32];
		snprintf(out + used, len - used, "%sother waits %s", used ? ", " : "",
			 ecp_format_ns(t, sizeof(t), (double)rest));
	}
}

unsigned ecp_cli_max_of(const unsigned *p, size_t n)
{
	unsigned m = 0;
	for (size_t i = 0; i < n; i++)
		m = p[i] > m ? p[i] : m;
	return m;
}

/* A program that asked how many CPUs it has was told --as-cpus: a pool it
 * sized by that answer is the pool recorded, so for more processors the
 * prediction is for that pool, not the larger one it would make there
 * (issue 34: a 2-worker pool predicted a 1.83 ceiling at every P, no hint).
 * More threads than the count: not a pool sized by it.  Added to the
 * session's copy of the model's warnings (the cache is written already),
 * so that the JSON and HTML answers carry it as stderr does.  Returns 0,
 * or -1 when out of memory. */
static int warn_cpu_sized_pool(struct ecp_model *m, unsigned max_p)
{
	uint64_t told = m->info.as_cpus;
	if (!m->info.cpu_count_read || !told || max_p <= told || m->n_threads > told + 1)
		return 0;
	return ecp_model_add_warning(
	    m,
	    "the program asked how many CPUs it has, was told %llu (ecp record "
	    "--as-cpus; by default the CPUs ecp record may use) and made %u threads: if "
	    "it sizes its pool by that count, the answers for P above %llu are for the "
	    "pool recorded, not for the one it would make on P CPUs (record again with "
	    "--as-cpus %u)",
	    (unsigned long long)told, m->n_threads, (unsigned long long)told, max_p);
}

/* Other processes on the program's CPUs while it ran (ecp record measures
 * the CPUs' idle time, recorder/cpu-idle.h): a thread whose delay (a
 * sleep, I/O, a timeout) ended while one of them held its CPU waited for
 * the CPU, and its switch records hold that wait as part of the delay.
 * Only the critical path's delays move T_P, and of them at most the other
 * processes' time can be such a wait: warned of when that bound is 2% of
 * Tinf or more (and over what the idle readings may be off by).  A CI run
 * found a shell's `sleep 0.2` recorded as 270 ms, T_2 14% long, beside a
 * second recording on the same CPU.  Added to the caller's copy of the
 * model's warnings (the cache is written already), as warn_cpu_sized_pool
 * does. */
int ecp_cli_warn_other_processes(const char *cmd, struct ecp_model *m, uint64_t span_ns,
				 uint64_t span_delay_ns)
{
	uint64_t other = m->info.other_cpu_ns;
	uint64_t bound = other < span_delay_ns ? other : span_delay_ns;
	uint64_t floor = 2 * m->info.other_cpu_resolution_ns;
	if (floor < 1000000)
		floor = 1000000;
	if (bound < floor || bound * 50 < span_ns)
		return 0;
	char a[32], b[32], d[32];
	size_t before = m->n_warnings;
	if (ecp_model_add_warning(
		m,
		"other processes used %s of the program's CPU%s while it ran: a wait "
		"of its that ended meanwhile (a sleep, I/O, a timeout) lasted until "
		"its thread had the CPU back, so up to %s of the %s of delays on the "
		"critical path may be time it waited for the CPU, not its own; record "
		"again on a quiet CPU (ecp record --cpu N)",
		ecp_format_ns(a, sizeof(a), (double)other),
		m->info.recorded_cpus > 1 ? "s" : "",
		ecp_format_ns(b, sizeof(b), (double)bound),
		ecp_format_ns(d, sizeof(d), (double)span_delay_ns)) < 0)
		return -1;
	if (m->n_warnings > before)
		fprintf(stderr, "ecp %s: warning: %s\n", cmd,
			m->warnings[m->n_warnings - 1]);
	return 0;
}

int ecp_cli_session_open(const char *cmd, const struct ecp_cli_common *c,
			 struct ecp_cli_session *s)
{
	struct ecp_error err = {0};
	memset(s, 0, sizeof(*s));
	int brc = read_engine_options(cmd, &s->engine);
	if (brc)
		return brc;
	s->common = c;
	struct ecp_load_options opts = {
	    .allow_loss = c->allow_loss,
	    .use_cache = true,
	    .keep_calls = c->keep_calls,
	    .by_callsite = c->by_callsite,
	    .functions_from = (enum ecp_functions_from)c->functions_from,
	    .own_code = c->own_code,
	    .progress = isatty(STDERR_FILENO),
	};
	struct ecp_progress progress;
	ecp_cli_progress_init(&progress, cmd);
	if (ecp_trace_load(c->trace_dir, &opts, &s->model, &err) < 0)
		return ecp_cli_fail(cmd, "%s", err.msg);
	if (warn_cpu_sized_pool(s->model, c->max_processors) < 0) {
		ecp_model_destroy(s->model);
		s->model = NULL;
		return ecp_cli_fail(cmd, "out of memory");
	}
	for (size_t i = 0; i < s->model->n_warnings; i++)
		fprintf(stderr, "ecp %s: warning: %s\n", cmd, s->model->warnings[i]);
	int crc = ecp_cli_consistency(
	    cmd, c->trace_dir, s->model, c->format == ECP_FORMAT_JSON,
	    c->allow_inconsistent ? ECP_CHECK_OVERRIDE : ECP_CHECK_REFUSE,
	    &s->consistency);
	if (crc) {
		ecp_consistency_free(&s->consistency);
		ecp_model_destroy(s->model);
		s->model = NULL;
		return crc;
	}
	ecp_cli_progress_update(&progress,
				"building the schedule on unlimited processors "
				"(%u segments)",
				s->model->n_segments);
	int rc = ecp_dag_build(s->model, NULL, c->lock_order, &s->dag, &err);
	ecp_cli_progress_done(&progress);
	if (rc < 0) {
		ecp_consistency_free(&s->consistency);
		ecp_model_destroy(s->model);
		s->model = NULL;
		return ecp_cli_fail(cmd, "cannot simulate %s: %s", c->trace_dir, err.msg);
	}
	s->dag_ready = true;
	ecp_cli_consistency_span(cmd, s->model, s->dag.span, c->format == ECP_FORMAT_JSON,
				 &s->consistency);
	/* what no number of processors shortens, when it is much of T_inf */
	uint64_t by_kind[ECP_DELAY_KINDS];
	uint64_t waited = ecp_dag_span_delay_by_kind(&s->dag, s->model, by_kind);
	if (ecp_cli_warn_other_processes(cmd, s->model, s->dag.span, waited) < 0) {
		ecp_cli_session_close(s);
		return ecp_cli_fail(cmd, "out of memory");
	}
	if (c->format != ECP_FORMAT_JSON && s->dag.span && waited * 10 >= s->dag.span) {
		char a[32], b[32], what[512];
		delays_by_name(by_kind, what, sizeof(what));
		fprintf(stderr,
			"ecp %s: note: %s of Tinf %s (%.0f%%) is time the critical path "
			"waits on delays that no number of processors shortens: %s\n",
			cmd, ecp_format_ns(a, sizeof(a), (double)waited),
			ecp_format_ns(b, sizeof(b), (double)s->dag.span),
			100.0 * (double)waited / (double)s->dag.span, what);
	}
	return 0;
}

void ecp_cli_session_close(struct ecp_cli_session *s)
{
	if (!s)
		return;
	if (s->dag_ready)
		ecp_dag_finish(&s->dag);
	ecp_consistency_free(&s->consistency);
	ecp_model_destroy(s->model);
	memset(s, 0, sizeof(*s));
}

size_t ecp_cli_near_functions(const struct ecp_model *m, const char *name,
			      const char **out, size_t max)
{
	/* Rank by: contains the name (or is contained), then edit distance. */
	size_t n = 0;
	size_t *score = calloc(max ? max : 1, sizeof(*score));
	if (!score)
		return 0;
	size_t len = strlen(name);
	for (uint32_t f = 0; f < m->n_functions; f++) {
		const char *cand = m->functions[f].name;
		if (!cand)
			continue;
		size_t d = ecp_edit_distance(name, cand, ECP_EDIT_IGNORE_CASE);
		if (strstr(cand, name) || strstr(name, cand))
			d = d < 1 ? 0 : 1;
		if (d == SIZE_MAX || d > (len / 2 > 3 ? len / 2 : 3))
			continue;
		size_t pos = n < max ? n : max;
		while (pos > 0 && score[pos - 1] > d)
			pos--;
		if (pos >= max)
			continue;
		size_t last = n < max ? n : max - 1;
		for (size_t k = last; k > pos; k--) {
			out[k] = out[k - 1];
			score[k] = score[k - 1];
		}
		out[pos] = cand;
		score[pos] = d;
		if (n < max)
			n++;
	}
	free(score);
	return n;
}

void ecp_cli_warn_inexact(const char *cmd, const struct ecp_cli_session *s,
			  const struct ecp_analysis *a)
{
	const struct ecp_model *model = s->model;
	size_t n = 0;
	for (size_t k = 0; k < a->n_functions; k++)
		n += a->functions[k].inexact;
	fprintf(stderr,
		"ecp %s: note: at P=%u the program sleeps or blocks, and %u segment "
		"weights could not be verified exact within the re-simulation budget "
		"(%u were re-simulated, %u followed exactly by the reverse pass); "
		"%zu functions are affected",
		cmd, a->processors, a->inexact_segments, a->resimulated_segments,
		a->reverse_pass_segments, n);
	size_t shown = 0;
	/* functions[] is sorted by TET: the first affected ones matter most */
	for (size_t k = 0; k < a->n_functions && shown < 5; k++)
		if (a->functions[k].inexact)
			fprintf(stderr, "%s%s", shown++ ? ", " : ": ",
				model->functions[a->functions[k].function].name);
	fprintf(stderr,
		"%s; their TET and TETID use the closed form, which can be off "
		"when a shortening changes the processor share during a sleep. "
		"Raise ECP_EXACT_BUDGET (events per P, now %llu) to verify them\n",
		n > shown ? ", ..." : "", (unsigned long long)s->engine.exact_budget);
}
