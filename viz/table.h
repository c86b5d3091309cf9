/* SPDX-License-Identifier: MIT */
/* Text tables for the terminal: `ecp report`, `scan`, `info` in table form.
 *
 * Cells are text; helpers format times with common/units.h ("12.3 ms") and
 * numbers.  ecp_table_write() fits the table into a maximum width (80 by
 * default): columns marked shortenable (function names) give up width
 * first, and their texts are shortened so that the informative part stays:
 *
 *   - a C++ name loses its parameter list first ("f(int, char const*)" ->
 *     "f(...)"), then its outer scopes from the left, cut at "::"
 *     ("...::detail::push_back(...)"), because the innermost scope names the
 *     function;
 *   - any other text is cut in the middle ("very_long...function_name"),
 *     keeping the prefix (module) and the suffix (what differs).
 *
 * Widths count characters (UTF-8 code points), not bytes. */
#ifndef ECP_VIZ_TABLE_H
#define ECP_VIZ_TABLE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/error.h"

#define ECP_TABLE_DEFAULT_WIDTH 80
/* A shortenable column keeps at least this many characters. */
#define ECP_TABLE_MIN_NAME_WIDTH 16

enum ecp_table_align {
	ECP_TABLE_LEFT = 0,
	ECP_TABLE_RIGHT,
};

enum ecp_table_shorten {
	ECP_TABLE_KEEP = 0, /* never shortened */
	ECP_TABLE_SHORTEN,  /* a name: shortened as described above */
};

struct ecp_table;

/* NULL on allocation failure. */
struct ecp_table *ecp_table_create(size_t columns);
void ecp_table_destroy(struct ecp_table *t);

int ecp_table_set_column(struct ecp_table *t, size_t col, const char *header,
			 enum ecp_table_align align, enum ecp_table_shorten shorten);

/* Starts a new row; its cells are empty until set. */
int ecp_table_add_row(struct ecp_table *t);

/* Set a cell of the last row added.  They return ECP_OK, ECP_ERR_USAGE for
 * a bad column or no row, or ECP_ERR_NOMEM (then ecp_table_write fails too,
 * so callers may check once at the end). */
int ecp_table_cell(struct ecp_table *t, size_t col, const char *text);
int ecp_table_cell_ns(struct ecp_table *t, size_t col, double ns);
int ecp_table_cell_uint(struct ecp_table *t, size_t col, uint64_t v);
int ecp_table_cell_printf(struct ecp_table *t, size_t col, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

size_t ecp_table_rows(const struct ecp_table *t);

/* max_width 0 means ECP_TABLE_DEFAULT_WIDTH.  If even shortened names do
 * not fit, the table is written wider than max_width rather than dropping
 * columns. */
int ecp_table_write(FILE *out, const struct ecp_table *t, size_t max_width,
		    struct ecp_error *err);

/* The shortening rule alone: writes `name` shortened to at most `width`
 * characters into buf (always NUL-terminated, truncated to len).  Returns
 * buf. */
char *ecp_shorten_name(const char *name, size_t width, char *buf, size_t len);

#endif
