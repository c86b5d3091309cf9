/* SPDX-License-Identifier: MIT */
/* `ecp compare` for people: the table form (answers/compare.h). */
#include "answers/compare.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "common/units.h"
#include "viz/table.h"

/* Function columns of the TET matrix beside P: three "A -> B" cells fit
 * 80 columns. */
#define TET_COLUMNS 3
/* Functions the plain-language reading names. */
#define READING_FUNCTIONS 3

/* Where the table goes and what a failure says. */
struct sink {
	FILE *out;
	struct ecp_error *err;
};

static size_t shown(const struct ecp_compare_view *v, size_t n)
{
	return v->rows < n ? v->rows : n;
}

static uint64_t cpus_of(const struct ecp_model *m)
{
	return m->info.recorded_cpus ? m->info.recorded_cpus : 1;
}

static const char *program_of(const struct ecp_model *m)
{
	return m->info.program && *m->info.program ? m->info.program
						   : "(unknown program)";
}

void ecp_compare_thread_label(const struct ecp_model *m, const struct ecp_thread *t,
			      uint32_t index, char *buf, size_t len)
{
	const char *name = t->name;
	if (!name[0] && t->start_function != ECP_NO_ID &&
	    m->functions[t->start_function].name)
		name = m->functions[t->start_function].name;
	snprintf(buf, len, "#%" PRIu32 " %.60s (%" PRIu64 ")", index,
		 name[0] ? name : "thread", t->tid);
}

/* "+1.2 ms", "-850 us", "0 ns" */
static char *signed_ns(char *buf, size_t len, double ns)
{
	char t[32];
	ecp_format_ns(t, sizeof(t), ns);
	snprintf(buf, len, "%s%s", ns > 0 ? "+" : "", t);
	return buf;
}

static void cell_signed_ns(struct ecp_table *t, size_t col, double ns)
{
	char buf[40];
	ecp_table_cell(t, col, signed_ns(buf, sizeof(buf), ns));
}

static void cell_ratio(struct ecp_table *t, size_t col, double ratio)
{
	if (isnan(ratio))
		ecp_table_cell(t, col, "-");
	else
		ecp_table_cell_printf(t, col, "%.3f", ratio);
}

static int table_done(struct sink *sk, struct ecp_table *t)
{
	int rc = ecp_table_write(sk->out, t, 0, sk->err);
	ecp_table_destroy(t);
	return rc < 0 ? -1 : 0;
}

static struct ecp_table *new_table(size_t columns, const char *const *headers)
{
	struct ecp_table *t = ecp_table_create(columns);
	for (size_t c = 0; t && c < columns; c++)
		ecp_table_set_column(t, c, headers[c],
				     c ? ECP_TABLE_RIGHT : ECP_TABLE_LEFT,
				     c ? ECP_TABLE_KEEP : ECP_TABLE_SHORTEN);
	return t;
}

/* A paragraph built piece by piece, then printed wrapped at spaces. */
struct para {
	char buf[2048];
	size_t at;
};

__attribute__((format(printf, 2, 3))) static void para_add(struct para *p,
							   const char *fmt, ...)
{
	if (p->at >= sizeof(p->buf))
		return;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(p->buf + p->at, sizeof(p->buf) - p->at, fmt, ap);
	va_end(ap);
	if (n > 0)
		p->at += (size_t)n;
}

static void para_print(struct sink *sk, const struct para *p)
{
	const char *s = p->buf;
	while (*s) {
		size_t len = strlen(s), cut = len;
		if (len > ECP_TABLE_DEFAULT_WIDTH) {
			cut = ECP_TABLE_DEFAULT_WIDTH;
			while (cut > 0 && s[cut] != ' ')
				cut--;
			if (!cut) /* one word longer than the line */
				cut = strcspn(s, " ");
		}
		fprintf(sk->out, "%.*s\n", (int)cut, s);
		s += cut;
		while (*s == ' ')
			s++;
	}
}

static void print_side(struct sink *sk, const char *label, const char *dir,
		       const struct ecp_model *m)
{
	uint64_t n = cpus_of(m);
	if (n > 1)
		fprintf(sk->out,
			"%-6s %s: %s (recorded on %llu CPUs: its wall time is a measured "
			"T_%llu)\n",
			label, dir, program_of(m), (unsigned long long)n,
			(unsigned long long)n);
	else
		fprintf(sk->out, "%-6s %s: %s (recorded on 1 CPU)\n", label, dir,
			program_of(m));
}

static void print_sides(struct sink *sk, const struct ecp_compare_view *v)
{
	print_side(sk, "base", v->base.dir, v->r->base);
	print_side(sk, "other", v->other.dir, v->r->other);
}

/* ---- before/after: table ---- */

static int points_table(struct sink *sk, const struct ecp_compare_result *r)
{
	static const char *const hdr[] = {"P", "T_P base", "T_P other", "difference",
					  "ratio"};
	struct ecp_table *t = new_table(5, hdr);
	if (!t)
		return ecp_error_set(sk->err, ECP_ERR_NOMEM, "out of memory"), -1;
	ecp_table_set_column(t, 0, "P", ECP_TABLE_RIGHT, ECP_TABLE_KEEP);
	for (size_t i = 0; i < r->n_points; i++) {
		const struct ecp_compare_point *p = &r->points[i];
		ecp_table_add_row(t);
		ecp_table_cell_uint(t, 0, p->processors);
		ecp_table_cell_ns(t, 1, (double)p->makespan_base_ns);
		ecp_table_cell_ns(t, 2, (double)p->makespan_other_ns);
		cell_signed_ns(t, 3, (double)p->diff_ns);
		cell_ratio(t, 4,
			   p->makespan_base_ns ? (double)p->makespan_other_ns /
						     (double)p->makespan_base_ns
					       : NAN);
	}
	return table_done(sk, t);
}

/* The ratio column, or where a function ran in one recording only. */
static void cell_ratio_or_side(struct ecp_table *t, size_t col,
			       const struct ecp_compare_function *f, bool measured)
{
	if (!f->in_base)
		ecp_table_cell(t, col, measured ? "only at N" : "only OTHER");
	else if (!f->in_other)
		ecp_table_cell(t, col, measured ? "only at 1" : "only BASE");
	else if (isnan(f->ratio))
		ecp_table_cell(t, col, "-");
	else
		ecp_table_cell_printf(t, col, measured ? "x%.3f" : "%.3f", f->ratio);
}

/* Before/after: work base, work other, difference, ratio; measured: work
 * at 1, at N, inflation, extra. */
/* "x1.10-1.31": the lowest and highest inflation over the runs. */
static void cell_spread(struct ecp_table *t, size_t col, double lo, double hi)
{
	if (isnan(lo) || isnan(hi))
		ecp_table_cell(t, col, "-");
	else
		ecp_table_cell_printf(t, col, "x%.3f-%.3f", lo, hi);
}

static int functions_table(struct sink *sk, const struct ecp_compare_view *v,
			   const char *const *hdr)
{
	const struct ecp_compare_result *r = v->r;
	bool measured = r->mode == ECP_COMPARE_MEASURED;
	struct ecp_table *t = new_table(v->spread ? 6 : 5, hdr);
	if (!t)
		return ecp_error_set(sk->err, ECP_ERR_NOMEM, "out of memory"), -1;
	size_t rows = shown(v, r->n_functions);
	for (size_t i = 0; i < rows; i++) {
		const struct ecp_compare_function *f = &r->functions[i];
		ecp_table_add_row(t);
		ecp_table_cell(t, 0, f->name);
		ecp_table_cell_ns(t, 1, (double)f->work_base_ns);
		ecp_table_cell_ns(t, 2, (double)f->work_other_ns);
		cell_signed_ns(t, measured ? 4 : 3, (double)f->diff_ns);
		cell_ratio_or_side(t, measured ? 3 : 4, f, measured);
		if (v->spread)
			cell_spread(t, 5, v->spread->fn_min[i], v->spread->fn_max[i]);
	}
	int rc = table_done(sk, t);
	if (!rc && rows < r->n_functions)
		fprintf(sk->out, "(%zu more functions; --top 0 shows all)\n",
			r->n_functions - rows);
	return rc;
}

static int tet_table(struct sink *sk, const struct ecp_compare_view *v)
{
	const struct ecp_compare_result *r = v->r;
	size_t cols = shown(v, r->n_functions);
	cols = cols < TET_COLUMNS ? cols : TET_COLUMNS;
	if (!cols)
		return 0;
	struct ecp_table *t = ecp_table_create(1 + cols);
	if (!t)
		return ecp_error_set(sk->err, ECP_ERR_NOMEM, "out of memory"), -1;
	ecp_table_set_column(t, 0, "P", ECP_TABLE_RIGHT, ECP_TABLE_KEEP);
	for (size_t k = 0; k < cols; k++) {
		char hdr[16];
		snprintf(hdr, sizeof(hdr), "[%zu]", k + 1);
		ecp_table_set_column(t, 1 + k, hdr, ECP_TABLE_RIGHT, ECP_TABLE_KEEP);
	}
	for (size_t i = 0; i < r->n_points; i++) {
		ecp_table_add_row(t);
		ecp_table_cell_uint(t, 0, r->points[i].processors);
		for (size_t k = 0; k < cols; k++) {
			char a[32], b[32];
			const struct ecp_compare_function *f = &r->functions[k];
			ecp_table_cell_printf(
			    t, 1 + k, "%s -> %s",
			    ecp_format_ns(a, sizeof(a), f->tet_base_ns[i]),
			    ecp_format_ns(b, sizeof(b), f->tet_other_ns[i]));
		}
	}
	fprintf(sk->out,
		"\nTET (time on the extended critical path) at each P, BASE -> OTHER:\n");
	int rc = table_done(sk, t);
	for (size_t k = 0; !rc && k < cols; k++)
		fprintf(sk->out, "[%zu] %s\n", k + 1, r->functions[k].name);
	return rc;
}

static void before_after_reading(struct sink *sk, const struct ecp_compare_result *r)
{
	const struct ecp_compare_point *lo = &r->points[0];
	const struct ecp_compare_point *hi = &r->points[r->n_points - 1];
	char a[40];
	struct para p = {.at = 0};
	para_add(&p, "Reading: OTHER - BASE is %s at P=%u",
		 signed_ns(a, sizeof(a), (double)lo->diff_ns), lo->processors);
	if (hi != lo)
		para_add(&p, " and %s at P=%u",
			 signed_ns(a, sizeof(a), (double)hi->diff_ns), hi->processors);
	if (r->n_functions && r->functions[0].diff_ns)
		para_add(&p, "; the largest change in work is %s's, %s",
			 r->functions[0].name,
			 signed_ns(a, sizeof(a), (double)r->functions[0].diff_ns));
	else
		para_add(&p, "; no function's work changed");
	para_add(&p, ".");
	fprintf(sk->out, "\n");
	para_print(sk, &p);
}

static int before_after_table(struct sink *sk, const struct ecp_compare_view *v)
{
	static const char *const hdr[] = {"function", "work base", "work other",
					  "difference", "ratio"};
	print_sides(sk, v);
	fprintf(
	    sk->out,
	    "before/after: both recorded on one CPU; differences are OTHER - BASE\n\n");
	int rc = points_table(sk, v->r);
	if (!rc) {
		fprintf(sk->out,
			"\nWork (own CPU time) per function, largest change first:\n");
		rc = functions_table(sk, v, hdr);
	}
	if (!rc)
		rc = tet_table(sk, v);
	if (!rc)
		before_after_reading(sk, v->r);
	return rc;
}

/* ---- measured at N: table ---- */

static void total_row(struct ecp_table *t, const char *sym, const char *what, int64_t ns)
{
	ecp_table_add_row(t);
	ecp_table_cell(t, 0, sym);
	ecp_table_cell(t, 1, what);
	ecp_table_cell_ns(t, 2, (double)ns);
	ecp_table_cell_printf(t, 3, "%" PRId64, ns);
}

static int totals_table(struct sink *sk, const struct ecp_inflation *x)
{
	static const char *const hdr[] = {"", "", "time", "ns"};
	struct ecp_table *t = new_table(4, hdr);
	if (!t)
		return ecp_error_set(sk->err, ECP_ERR_NOMEM, "out of memory"), -1;
	ecp_table_set_column(t, 1, "", ECP_TABLE_LEFT, ECP_TABLE_KEEP);
	unsigned long long n = (unsigned long long)x->cpus;
	char s[7][48];
	snprintf(s[0], sizeof(s[0]), "T_%llu", n);
	snprintf(s[1], sizeof(s[1]), "T^_%llu", n);
	snprintf(s[2], sizeof(s[2]), "W_%llu", n);
	snprintf(s[3], sizeof(s[3]), "R_%llu", n);
	snprintf(s[4], sizeof(s[4]), "F_%llu", n);
	snprintf(s[5], sizeof(s[5]), "I_%llu", n);
	snprintf(s[6], sizeof(s[6]), "I^_%llu", n);
	total_row(t, "T_1", "BASE predicted on 1 CPU", x->t1_ns);
	total_row(t, s[0], "measured: OTHER's wall time", x->tn_ns);
	total_row(t, s[1], "predicted: BASE's model at that P", x->tn_predicted_ns);
	total_row(t, s[2], "work: OTHER's segments", x->wn_ns);
	total_row(t, s[3],
		  x->rn_known ? "recorder, CPU time outside segments"
			      : "unknown (no program CPU time)",
		  x->rn_ns);
	total_row(t, s[4], "work inflation: W - T_1", x->fn_ns);
	total_row(t, s[5], "idle: N T - W - R", x->in_ns);
	total_row(t, s[6], "idle predicted: N T^ - T_1", x->in_predicted_ns);
	int rc = table_done(sk, t);
	if (!rc)
		/* in this order no partial sum leaves int64: T_1 + F = W,
		 * + R = the CPU time, + I = N T */
		fprintf(sk->out, "%llu x T_%llu = T_1 + F + I + R = %" PRId64 " ns\n", n,
			n, x->t1_ns + x->fn_ns + x->rn_ns + x->in_ns);
	return rc;
}

static void speedup_row(struct ecp_table *t, const char *name, double v, const char *how)
{
	ecp_table_add_row(t);
	ecp_table_cell(t, 0, name);
	if (isnan(v))
		ecp_table_cell(t, 1, "-");
	else
		ecp_table_cell_printf(t, 1, "%.2f", v);
	ecp_table_cell(t, 2, how);
}

static int speedups_table(struct sink *sk, const struct ecp_inflation *x)
{
	static const char *const hdr[] = {"speedup", "value", "as"};
	struct ecp_table *t = new_table(3, hdr);
	if (!t)
		return ecp_error_set(sk->err, ECP_ERR_NOMEM, "out of memory"), -1;
	ecp_table_set_column(t, 2, "as", ECP_TABLE_LEFT, ECP_TABLE_KEEP);
	speedup_row(t, "linear", x->speedup_linear, "N");
	speedup_row(t, "maximal", x->speedup_maximal, "N T_s / T_1: N, as T_s = T_1");
	speedup_row(t, "idle-specific", x->speedup_idle, "N T_s / (T_1 + I)");
	speedup_row(t, "inflation-specific", x->speedup_inflation, "N T_s / (N T - I)");
	speedup_row(t, "actual", x->speedup_actual, "T_s / T measured");
	speedup_row(t, "predicted", x->speedup_predicted, "T_s / T^ (the ideal model)");
	fprintf(
	    sk->out,
	    "\nFactored speedups at N = %llu (Acar, Chargueraud and Rainey). T_s = T_1:\n"
	    "no separate sequential run was measured, so maximal is N itself.\n",
	    (unsigned long long)x->cpus);
	return table_done(sk, t);
}

static int threads_table(struct sink *sk, const struct ecp_compare_view *v,
			 const char *const *hdr)
{
	const struct ecp_compare_result *r = v->r;
	struct ecp_table *t = new_table(v->spread ? 6 : 5, hdr);
	if (!t)
		return ecp_error_set(sk->err, ECP_ERR_NOMEM, "out of memory"), -1;
	size_t rows = shown(v, r->n_threads);
	for (size_t i = 0; i < rows; i++) {
		const struct ecp_compare_thread *x = &r->threads[i];
		char label[96];
		const struct ecp_model *m = x->base ? r->base : r->other;
		ecp_compare_thread_label(m, x->base ? x->base : x->other, x->index, label,
					 sizeof(label));
		ecp_table_add_row(t);
		ecp_table_cell(t, 0, label);
		ecp_table_cell_ns(t, 1, (double)x->work_base_ns);
		ecp_table_cell_ns(t, 2, (double)x->work_other_ns);
		if (isnan(x->ratio))
			ecp_table_cell(t, 3, "-");
		else
			ecp_table_cell_printf(t, 3, "x%.3f", x->ratio);
		cell_signed_ns(t, 4, (double)x->diff_ns);
		if (v->spread)
			cell_spread(t, 5, v->spread->th_min[i], v->spread->th_max[i]);
	}
	int rc = table_done(sk, t);
	if (!rc && rows < r->n_threads)
		fprintf(sk->out, "(%zu more threads; --top 0 shows all)\n",
			r->n_threads - rows);
	return rc;
}

/* "f x1.20 +3.1 ms, g x1.05 +0.8 ms": the functions that inflated most. */
static void top_inflating(struct para *p, const struct ecp_compare_result *r)
{
	size_t named = 0;
	for (size_t i = 0; i < r->n_functions && named < READING_FUNCTIONS; i++) {
		const struct ecp_compare_function *f = &r->functions[i];
		if (f->diff_ns <= 0)
			break;
		char d[40];
		para_add(p, "%s%s ", named++ ? ", " : " (most in ", f->name);
		if (!isnan(f->ratio))
			para_add(p, "x%.2f ", f->ratio);
		para_add(p, "%s", signed_ns(d, sizeof(d), (double)f->diff_ns));
	}
	para_add(p, "%s", named ? ")" : " (no function did more work)");
}

/* N (T - T^) = F + (I - I^) + R: the gap, divided by N to be wall time,
 * laid to work inflation, idle the model did not foresee, the recorder. */
static void measured_reading(struct sink *sk, const struct ecp_compare_result *r)
{
	const struct ecp_inflation *x = &r->inflation;
	double n = (double)x->cpus;
	char a[40], b[40], c[40];
	struct para p = {.at = 0};
	para_add(&p, "Reading: the measured T_%llu (%s) is %s %s the prediction (%s). ",
		 (unsigned long long)x->cpus,
		 ecp_format_ns(a, sizeof(a), (double)x->tn_ns),
		 ecp_format_ns(b, sizeof(b), fabs((double)x->gap_cpu_ns / n)),
		 x->gap_cpu_ns < 0 ? "below" : "above",
		 ecp_format_ns(c, sizeof(c), (double)x->tn_predicted_ns));
	para_add(&p, "Of that, in wall time: work inflation F/N %s",
		 signed_ns(a, sizeof(a), (double)x->fn_ns / n));
	top_inflating(&p, r);
	para_add(&p, "; idle the model did not foresee (I - I^)/N %s; ",
		 signed_ns(b, sizeof(b), (double)x->unforeseen_idle_ns / n));
	if (x->rn_known)
		para_add(&p, "the recorder and the CPU time no segment holds R/N %s.",
			 signed_ns(c, sizeof(c), (double)x->rn_ns / n));
	else
		para_add(&p,
			 "the recorder's cost is unknown (OTHER's ecp-record.meta has "
			 "no program CPU time): it is counted in the idle.");
	const struct ecp_handoffs *h = &r->handoffs_other;
	if (h->count) {
		char d[40], e[40], f[40];
		para_add(
		    &p,
		    " Hand-offs: %llu waits another thread released resumed a median "
		    "%s after the release at N (%s in all), against %s on one CPU: "
		    "the time a woken thread waits for a CPU to take it up, which "
		    "the models take as 0.",
		    (unsigned long long)h->count,
		    ecp_format_ns(d, sizeof(d), (double)h->median_ns),
		    ecp_format_ns(e, sizeof(e), (double)h->total_ns),
		    ecp_format_ns(f, sizeof(f), (double)r->handoffs_base.median_ns));
	}
	if (r->tn_inflated_ns && x->tn_ns > 0)
		para_add(
		    &p,
		    " With each function's inflation, the model predicts T_%llu = %s, "
		    "%+.1f%% from the measured.",
		    (unsigned long long)x->cpus,
		    ecp_format_ns(a, sizeof(a), (double)r->tn_inflated_ns),
		    100.0 * ((double)r->tn_inflated_ns - (double)x->tn_ns) /
			(double)x->tn_ns);
	fprintf(sk->out, "\n");
	para_print(sk, &p);
}

/* The second model: T_P ideal and inflation-aware at each P, the share
 * of N's inflation assumed there, P beyond N marked as extrapolated. */
static int inflated_table(struct sink *sk, const struct ecp_compare_result *r)
{
	static const char *const hdr[] = {"P", "ideal T_P", "inflation-aware", "share"};
	const struct ecp_inflated *m = &r->inflated;
	struct ecp_table *t = new_table(4, hdr);
	if (!t)
		return ecp_error_set(sk->err, ECP_ERR_NOMEM, "out of memory"), -1;
	bool beyond = false;
	for (size_t i = 0; i < m->n_points; i++) {
		const struct ecp_inflated_point *p = &m->points[i];
		ecp_table_add_row(t);
		ecp_table_cell_printf(t, 0, "%u%s", p->processors,
				      p->extrapolated ? "*" : "");
		ecp_table_cell_ns(t, 1, (double)p->ideal_ns);
		ecp_table_cell_ns(t, 2, (double)p->inflated_ns);
		ecp_table_cell_printf(t, 3, "%.2f", p->share);
		beyond |= p->extrapolated;
	}
	unsigned long long n = (unsigned long long)m->cpus;
	fprintf(
	    sk->out,
	    "\nInflation-aware prediction, a second model beside the ideal one: each\n"
	    "function's work at N over its work at 1 (x%.3f for the time no function\n"
	    "holds) lengthens the one-CPU model's segments, a share of it growing\n"
	    "linearly from none at P = 1 to all at P = %llu:\n",
	    m->residual_ratio, n);
	int rc = table_done(sk, t);
	if (rc)
		return rc;
	if (beyond)
		fprintf(
		    sk->out,
		    "* beyond N = %llu: N's inflation held, an extrapolation (more CPUs "
		    "running at once\n  may inflate more, or less).\n",
		    n);
	if (m->noise_functions) {
		char a[40];
		fprintf(sk->out,
			"%llu sampled functions (%s at 1 CPU) changed by less than %.0f "
			"standard\nerrors of their samples: taken as x1 (sampling noise, "
			"not inflation).\n",
			(unsigned long long)m->noise_functions,
			ecp_format_ns(a, sizeof(a), (double)m->noise_ns),
			ECP_INFLATED_NOISE_SIGMAS);
	}
	if (m->unplaced_ns) {
		char a[40];
		fprintf(
		    sk->out,
		    "%s of the work at N is in no function the one-CPU model has, and "
		    "is left out.\n",
		    ecp_format_ns(a, sizeof(a), (double)m->unplaced_ns));
	}
	return 0;
}

static int measured_table(struct sink *sk, const struct ecp_compare_view *v)
{
	static const char *const fhdr[] = {"function",  "work at 1", "work at N",
					   "inflation", "extra",     "over the runs"};
	static const char *const thdr[] = {"thread",    "work at 1", "work at N",
					   "inflation", "extra",     "over the runs"};
	const struct ecp_inflation *x = &v->r->inflation;
	print_sides(sk, v);
	fprintf(sk->out,
		"measured at N = %llu: work inflation (Acar, Chargueraud and Rainey)\n",
		(unsigned long long)x->cpus);
	if (v->spread) {
		char a[40], b[40];
		fprintf(sk->out,
			"%zu recordings on N CPUs: the one whose T_%llu is the median is "
			"shown, "
			"T_%llu from %s to %s over them, and each inflation's range\n",
			v->spread->runs, (unsigned long long)x->cpus,
			(unsigned long long)x->cpus,
			ecp_format_ns(a, sizeof(a), (double)v->spread->tn_min_ns),
			ecp_format_ns(b, sizeof(b), (double)v->spread->tn_max_ns));
	}
	fprintf(sk->out, "\n");
	int rc = totals_table(sk, x);
	if (!rc)
		rc = speedups_table(sk, x);
	if (!rc)
		rc = inflated_table(sk, v->r);
	if (!rc) {
		fprintf(sk->out,
			"\nWork per function, at 1 CPU (BASE) and at N (OTHER), largest "
			"extra first:\n");
		rc = functions_table(sk, v, fhdr);
	}
	if (!rc) {
		fprintf(sk->out,
			"\nWork per thread, matched by the order they were created:\n");
		rc = threads_table(sk, v, thdr);
	}
	if (!rc)
		measured_reading(sk, v->r);
	return rc;
}

int ecp_compare_write_table(FILE *out, const struct ecp_compare_view *v,
			    struct ecp_error *err)
{
	struct sink sink = {out, err}, *sk = &sink;
	int rc = v->r->mode == ECP_COMPARE_MEASURED ? measured_table(sk, v)
						    : before_after_table(sk, v);
	if (rc)
		return -1;
	if (fflush(out) != 0)
		return ecp_error_set(err, ECP_ERR_IO, "cannot write the output"), -1;
	return 0;
}
