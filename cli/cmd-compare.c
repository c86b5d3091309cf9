/* SPDX-License-Identifier: MIT */
/* ecp compare: two recordings of one program side by side -- before and
 * after a change (both on one CPU), or one CPU against N CPUs measured,
 * with the work inflation that explains where the measured run lost time
 * (ecp/compare.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli/commands.h"
#include "answers/compare.h"
#include "cli/output.h"
#include "cli/session.h"
#include "common/parse.h"
#include "ecp/compare.h"

struct compare_options {
	struct ecp_cli_common common; /* trace_dir: BASE */
	const char *other_dir;        /* the OTHER shown (the median run's) */
	char *const *other_dirs;      /* every OTHER given */
	size_t n_others;
	unsigned *processors;
	size_t n_processors;
	bool processors_given;
	size_t top;
	bool top_given;
	const char *html; /* --html FILE, or NULL */
};

static int parse_top(const char *arg, struct compare_options *o)
{
	uint64_t v;
	if (ecp_parse_u64(arg, &v) < 0 || v > 1000000)
		return ecp_cli_usage_error("compare", "--top takes a row count, not '%s'",
					   arg);
	o->top = (size_t)v;
	o->top_given = true;
	return 0;
}

static int parse_operands(int argc, char **argv, struct compare_options *o)
{
	if (argc - optind < 2)
		return ecp_cli_usage_error("compare",
					   "give two trace directories: BASE and OTHER");
	o->common.trace_dir = argv[optind];
	o->other_dirs = argv + optind + 1;
	o->n_others = (size_t)(argc - optind - 1);
	o->other_dir = o->other_dirs[0];
	return 0;
}

static int parse_options(int argc, char **argv, struct compare_options *o)
{
	static const struct option longopts[] = {
	    {"processors", required_argument, NULL, 'P'},
	    {"top", required_argument, NULL, 't'},
	    {"html", required_argument, NULL, 'H'},
	    ECP_CLI_COMMON_LONGOPTS,
	    {NULL, 0, NULL, 0},
	};
	ecp_cli_common_init(&o->common);
	o->top = 20;
	const char *list = "1-16"; /* scan's and whatif's */
	int opt, rc;
	optind = 1;
	while ((opt = ecp_cli_getopt("compare", argc, argv, "P:h", longopts)) != -1) {
		switch (opt) {
		case -2:
			return ECP_EXIT_USAGE;
		case 'P':
			list = optarg;
			o->processors_given = true;
			break;
		case 't':
			if ((rc = parse_top(optarg, o)))
				return rc;
			break;
		case 'H':
			o->html = optarg;
			break;
		default:
			if ((rc = ecp_cli_common_option("compare", &o->common, opt,
							optarg, ECP_FORMATS_ALL)))
				return rc;
		}
	}
	if ((rc = parse_operands(argc, argv, o)))
		return rc;
	struct ecp_error err = {0};
	if (ecp_parse_proc_list(list, ECP_CLI_MAX_PROCESSORS, &o->processors,
				&o->n_processors, &err) < 0)
		return ecp_cli_usage_error("compare", "%s", err.msg);
	return 0;
}

static const char *program_of(const struct ecp_model *m)
{
	return m->info.program && *m->info.program ? m->info.program : "(unknown)";
}

/* What the reader must know before the figures: which side is which, and
 * what may make the comparison mean less. */
static void say_what_is_compared(const struct compare_options *o,
				 const struct ecp_compare_result *r)
{
	if (!r->same_program)
		fprintf(stderr,
			"ecp compare: warning: the recordings are of different "
			"commands: BASE %s ran '%s', OTHER %s ran '%s'; compared by "
			"function name anyway\n",
			o->common.trace_dir, program_of(r->swapped ? r->other : r->base),
			o->other_dir, program_of(r->swapped ? r->base : r->other));
	if (r->swapped)
		fprintf(stderr,
			"ecp compare: note: BASE %s was recorded on %llu CPUs and OTHER "
			"%s on one: compared the other way round, %s as the single-CPU "
			"baseline\n",
			o->common.trace_dir, (unsigned long long)r->inflation.cpus,
			o->other_dir, o->other_dir);
}

/* The first P whose weights the engine could not all verify exact: the
 * TET there may be off (the budget is ECP_EXACT_BUDGET's). */
static void note_inexact(const struct ecp_compare_result *r, uint64_t exact_budget)
{
	for (size_t i = 0; i < r->n_points; i++) {
		const struct ecp_compare_point *p = &r->points[i];
		if (!p->inexact_base && !p->inexact_other)
			continue;
		fprintf(stderr,
			"ecp compare: note: at P=%u, %u segment weights of BASE and "
			"%u of OTHER could not be verified exact within the "
			"re-simulation budget (the program sleeps or blocks); the TET of "
			"their functions may be off: raise ECP_EXACT_BUDGET (now %llu) "
			"or run 'ecp report -P %u' on each for the functions affected\n",
			p->processors, p->inexact_base, p->inexact_other,
			(unsigned long long)exact_budget, p->processors);
		return;
	}
}

static int write_answer(const struct compare_options *o, const struct ecp_cli_session *b,
			const struct ecp_cli_session *x,
			const struct ecp_compare_result *r,
			const struct ecp_compare_spread *spread)
{
	struct ecp_compare_side bs = {o->common.trace_dir, b->model, b->dag.work,
				      b->dag.span, &b->consistency};
	struct ecp_compare_side xs = {o->other_dir, x->model, x->dag.work, x->dag.span,
				      &x->consistency};
	struct ecp_compare_view v = {
	    .r = r,
	    .base = r->swapped ? xs : bs,
	    .other = r->swapped ? bs : xs,
	    .rows = SIZE_MAX, /* all */
	    .spread = spread,
	};
	/* Tables show --top rows (20 by default); JSON and CSV every one
	 * unless --top was given, as `ecp report` does. */
	if ((o->common.format == ECP_FORMAT_TABLE || o->top_given) && o->top)
		v.rows = o->top;
	struct ecp_error err = {0};
	if (o->html) {
		/* the page shows --top bars (20 by default) whatever the format */
		struct ecp_compare_view page = v;
		page.rows = o->top ? o->top : SIZE_MAX;
		struct ecp_output out;
		if (ecp_cli_output_open("compare", o->html, &out) < 0)
			return ECP_EXIT_FAILED;
		if (ecp_compare_write_html(out.file, &page, &err) < 0) {
			ecp_cli_output_abort(&out);
			return ecp_cli_fail("compare", "%s: %s", o->html, err.msg);
		}
		if (ecp_cli_output_commit("compare", &out) < 0)
			return ECP_EXIT_FAILED;
		fprintf(stderr, "ecp compare: wrote %s\n", o->html);
	}
	if (ecp_compare_write(stdout, o->common.format, &v, &err) < 0)
		return ecp_cli_fail("compare", "%s", err.msg);
	return 0;
}

static int compare_one(const struct compare_options *o, struct ecp_cli_session *b,
		       struct ecp_cli_session *x, const char *other_dir,
		       struct ecp_compare_result *r)
{
	struct ecp_compare_input in = {
	    .base = b->model,
	    .other = x->model,
	    .base_dag = &b->dag,
	    .other_dag = &x->dag,
	    .processors = o->processors,
	    .n_processors = o->n_processors,
	    .lock_policy = o->common.lock_order,
	    .inflation_aware = true,
	    .engine_options = &b->engine,
	};
	struct ecp_error err = {0};
	if (ecp_compare(&in, r, &err) < 0)
		return ecp_cli_fail("compare", "BASE=%s OTHER=%s: %s",
				    o->common.trace_dir, other_dir, err.msg);
	return 0;
}

/* Every OTHER against BASE; with several, the median run's answer with the
 * spread of all (ecp/compare-spread.h). */
static int run(struct compare_options *o, struct ecp_cli_session *b,
	       struct ecp_cli_session *x)
{
	struct ecp_compare_result *r = calloc(o->n_others, sizeof(*r));
	struct ecp_compare_spread spread = {0};
	struct ecp_error err = {0};
	size_t done = 0;
	int rc = r ? 0 : ecp_cli_fail("compare", "out of memory");
	for (; !rc && done < o->n_others; done++)
		rc = compare_one(o, b, &x[done], o->other_dirs[done], &r[done]);
	if (!rc && o->n_others > 1 &&
	    ecp_compare_spread_of(r, o->n_others, &spread, &err) < 0)
		rc = ecp_cli_fail("compare", "%s", err.msg);
	size_t shown = spread.runs ? spread.median : 0;
	if (!rc) {
		o->other_dir = o->other_dirs[shown];
		say_what_is_compared(o, &r[shown]);
		note_inexact(&r[shown], b->engine.exact_budget);
		rc = write_answer(o, b, &x[shown], &r[shown],
				  spread.runs ? &spread : NULL);
	}
	for (size_t i = 0; r && i < done; i++)
		ecp_compare_finish(&r[i]);
	free(r);
	ecp_compare_spread_finish(&spread);
	return rc;
}

int cmd_compare(int argc, char **argv)
{
	struct compare_options o;
	memset(&o, 0, sizeof(o));
	int rc = parse_options(argc, argv, &o);
	if (rc) {
		free(o.processors);
		return rc;
	}
	o.common.max_processors = ecp_cli_max_of(o.processors, o.n_processors);
	struct ecp_cli_session b, *x = calloc(o.n_others, sizeof(*x));
	size_t opened = 0;
	/* labelled, so that each recording's warnings say whose they are */
	if (!x)
		rc = ecp_cli_fail("compare", "out of memory");
	else if ((rc = ecp_cli_session_open("compare BASE", &o.common, &b))) {
		free(x);
		x = NULL;
	}
	for (; x && !rc && opened < o.n_others; opened++) {
		struct ecp_cli_common other_common = o.common;
		other_common.trace_dir = o.other_dirs[opened];
		char label[48];
		if (o.n_others > 1)
			snprintf(label, sizeof(label), "compare OTHER #%zu", opened + 1);
		else
			snprintf(label, sizeof(label), "compare OTHER");
		if ((rc = ecp_cli_session_open(label, &other_common, &x[opened])))
			break;
	}
	if (x && !rc)
		rc = run(&o, &b, x);
	for (size_t i = 0; x && i < opened; i++)
		ecp_cli_session_close(&x[i]);
	if (x) {
		ecp_cli_session_close(&b);
		free(x);
	}
	free(o.processors);
	return rc;
}
