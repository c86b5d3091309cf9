/* SPDX-License-Identifier: MIT */
#include "viz/table.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/units.h"
#include "viz/utf8.h"

struct column {
	char *header;
	enum ecp_table_align align;
	enum ecp_table_shorten shorten;
};

struct ecp_table {
	size_t ncols;
	struct column *cols;
	size_t nrows, cap;
	char **cells; /* nrows * ncols, NULL = empty */
	bool failed;  /* an allocation failed: the table is incomplete */
};

struct ecp_table *ecp_table_create(size_t columns)
{
	if (columns == 0)
		return NULL;
	struct ecp_table *t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->cols = calloc(columns, sizeof(*t->cols));
	if (!t->cols) {
		free(t);
		return NULL;
	}
	t->ncols = columns;
	return t;
}

void ecp_table_destroy(struct ecp_table *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->ncols; i++)
		free(t->cols[i].header);
	for (size_t i = 0; i < t->nrows * t->ncols; i++)
		free(t->cells[i]);
	free(t->cells);
	free(t->cols);
	free(t);
}

int ecp_table_set_column(struct ecp_table *t, size_t col, const char *header,
			 enum ecp_table_align align, enum ecp_table_shorten shorten)
{
	if (col >= t->ncols)
		return ECP_ERR_USAGE;
	char *h = strdup(header ? header : "");
	if (!h) {
		t->failed = true;
		return ECP_ERR_NOMEM;
	}
	free(t->cols[col].header);
	t->cols[col] = (struct column){h, align, shorten};
	return ECP_OK;
}

int ecp_table_add_row(struct ecp_table *t)
{
	if (t->nrows == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 16;
		if (cap > SIZE_MAX / t->ncols / sizeof(char *)) {
			t->failed = true;
			return ECP_ERR_NOMEM;
		}
		char **c = realloc(t->cells, cap * t->ncols * sizeof(char *));
		if (!c) {
			t->failed = true;
			return ECP_ERR_NOMEM;
		}
		t->cells = c;
		t->cap = cap;
	}
	memset(t->cells + t->nrows * t->ncols, 0, t->ncols * sizeof(char *));
	t->nrows++;
	return ECP_OK;
}

size_t ecp_table_rows(const struct ecp_table *t)
{
	return t->nrows;
}

static int set_owned(struct ecp_table *t, size_t col, char *text)
{
	if (!text) {
		t->failed = true;
		return ECP_ERR_NOMEM;
	}
	if (col >= t->ncols || t->nrows == 0) {
		free(text);
		return ECP_ERR_USAGE;
	}
	char **cell = &t->cells[(t->nrows - 1) * t->ncols + col];
	free(*cell);
	*cell = text;
	return ECP_OK;
}

int ecp_table_cell(struct ecp_table *t, size_t col, const char *text)
{
	return set_owned(t, col, strdup(text ? text : ""));
}

int ecp_table_cell_ns(struct ecp_table *t, size_t col, double ns)
{
	char buf[64];
	return ecp_table_cell(t, col, ecp_format_ns(buf, sizeof(buf), ns));
}

int ecp_table_cell_uint(struct ecp_table *t, size_t col, uint64_t v)
{
	char buf[32];
	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	return ecp_table_cell(t, col, buf);
}

int ecp_table_cell_printf(struct ecp_table *t, size_t col, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = NULL;
	int n = vasprintf(&s, fmt, ap);
	va_end(ap);
	return set_owned(t, col, n < 0 ? NULL : s);
}

/* Index of the '(' opening the trailing parameter list of a C++ name, or
 * 0 if there is none ("operator()" and templates nest, hence the count). */
static size_t params_start(const char *s, size_t len)
{
	if (len < 3 || s[len - 1] != ')')
		return 0;
	int depth = 0;
	for (size_t i = len; i-- > 0;) {
		if (s[i] == ')')
			depth++;
		else if (s[i] == '(' && --depth == 0)
			return i;
	}
	return 0;
}

static void copy_out(char *buf, size_t len, const char *a, size_t alen, const char *b,
		     size_t blen)
{
	snprintf(buf, len, "%.*s%.*s", (int)alen, a, (int)blen, b);
}

char *ecp_shorten_name(const char *name, size_t width, char *buf, size_t len)
{
	size_t n = strlen(name);
	if (ecp_utf8_width(name, n) <= width) {
		snprintf(buf, len, "%s", name);
		return buf;
	}
	if (width <= 3) {
		copy_out(buf, len, name, ecp_utf8_offset(name, n, width), "", 0);
		return buf;
	}
	/* A C++ name: first the parameter list goes. */
	size_t base = n;
	const char *tail = "";
	size_t p = params_start(name, n);
	if (p > 0) {
		base = p;
		tail = "(...)";
		if (ecp_utf8_width(name, base) + 5 <= width) {
			copy_out(buf, len, name, base, tail, 5);
			return buf;
		}
	}
	size_t tail_len = strlen(tail);
	/* Then the outer scopes, cut after a "::" outside template brackets so
	 * that "ns::vector<a::b>::push_back" does not become "...b>::push_back". */
	size_t best = 0;
	int angle = 0;
	for (size_t i = 0; i + 1 < base; i++) {
		if (name[i] == '<')
			angle++;
		else if (name[i] == '>' && angle > 0)
			angle--;
		else if (angle == 0 && name[i] == ':' && name[i + 1] == ':') {
			size_t from = i + 2;
			size_t w =
			    3 + ecp_utf8_width(name + from, base - from) + tail_len;
			if (w <= width) {
				best = from;
				break; /* the longest suffix that fits */
			}
		}
	}
	if (best > 0) {
		snprintf(buf, len, "...%.*s%s", (int)(base - best), name + best, tail);
		return buf;
	}
	/* Otherwise the middle: keep the start and the end. */
	size_t keep = width - 3;
	size_t head_chars = (keep + 1) / 2, tail_chars = keep - head_chars;
	size_t total = ecp_utf8_width(name, n);
	size_t head = ecp_utf8_offset(name, n, head_chars);
	size_t tail_from = ecp_utf8_offset(name, n, total - tail_chars);
	snprintf(buf, len, "%.*s...%s", (int)head, name, name + tail_from);
	return buf;
}

static size_t text_width(const char *s)
{
	return s ? ecp_utf8_width(s, strlen(s)) : 0;
}

static void pad(FILE *out, size_t n)
{
	for (size_t i = 0; i < n; i++)
		fputc(' ', out);
}

static void write_cell(FILE *out, const char *text, size_t width, const struct column *c,
		       bool last, char *scratch, size_t scratch_len)
{
	const char *s = text ? text : "";
	if (text_width(s) > width)
		s = ecp_shorten_name(s, width, scratch, scratch_len);
	size_t w = text_width(s);
	if (c->align == ECP_TABLE_RIGHT)
		pad(out, width - w);
	fputs(s, out);
	if (c->align == ECP_TABLE_LEFT && !last)
		pad(out, width - w);
}

int ecp_table_write(FILE *out, const struct ecp_table *t, size_t max_width,
		    struct ecp_error *err)
{
	if (t->failed)
		return ecp_error_set(err, ECP_ERR_NOMEM,
				     "out of memory building a table");
	if (max_width == 0)
		max_width = ECP_TABLE_DEFAULT_WIDTH;
	size_t *width = calloc(t->ncols, sizeof(*width));
	size_t scratch_len = 4096;
	char *scratch = malloc(scratch_len);
	if (!width || !scratch) {
		free(width);
		free(scratch);
		return ecp_error_set(err, ECP_ERR_NOMEM, "out of memory writing a table");
	}
	size_t total = 0;
	for (size_t c = 0; c < t->ncols; c++) {
		width[c] = text_width(t->cols[c].header);
		for (size_t r = 0; r < t->nrows; r++) {
			size_t w = text_width(t->cells[r * t->ncols + c]);
			if (w > width[c])
				width[c] = w;
		}
		total += width[c] + (c ? 2 : 0);
	}
	/* Give up width from the widest shortenable column, one character at a
	 * time, until the table fits or every such column is at its minimum. */
	while (total > max_width) {
		size_t pick = t->ncols;
		for (size_t c = 0; c < t->ncols; c++) {
			size_t floor = text_width(t->cols[c].header);
			if (floor < ECP_TABLE_MIN_NAME_WIDTH)
				floor = ECP_TABLE_MIN_NAME_WIDTH;
			if (t->cols[c].shorten == ECP_TABLE_SHORTEN && width[c] > floor &&
			    (pick == t->ncols || width[c] > width[pick]))
				pick = c;
		}
		if (pick == t->ncols)
			break;
		width[pick]--;
		total--;
	}
	for (size_t c = 0; c < t->ncols; c++) {
		if (c)
			fputs("  ", out);
		write_cell(out, t->cols[c].header, width[c], &t->cols[c],
			   c + 1 == t->ncols, scratch, scratch_len);
	}
	fputc('\n', out);
	for (size_t c = 0; c < t->ncols; c++) {
		if (c)
			fputs("  ", out);
		for (size_t i = 0; i < width[c]; i++)
			fputc('-', out);
	}
	fputc('\n', out);
	for (size_t r = 0; r < t->nrows; r++) {
		for (size_t c = 0; c < t->ncols; c++) {
			if (c)
				fputs("  ", out);
			write_cell(out, t->cells[r * t->ncols + c], width[c], &t->cols[c],
				   c + 1 == t->ncols, scratch, scratch_len);
		}
		fputc('\n', out);
	}
	free(width);
	free(scratch);
	if (fflush(out) != 0 || ferror(out))
		return ecp_error_set(err, ECP_ERR_IO, "failed to write table output");
	return ECP_OK;
}
