/* SPDX-License-Identifier: MIT */
/* CSV output with RFC 4180 quoting.
 *
 * A field is quoted when it holds a comma, a double quote, CR or LF, or
 * starts or ends with a space (which some readers trim); quotes inside are
 * doubled.  Records end with "\n" rather than RFC 4180's CRLF: every reader
 * in use (Python csv, pandas, spreadsheets, awk) accepts it, and it keeps
 * the files diffable with the rest of the tree's text.  Numbers are written
 * as in JSON (integers exactly, doubles round-trip). */
#ifndef ECP_VIZ_CSV_H
#define ECP_VIZ_CSV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/error.h"

struct ecp_csv_writer {
	FILE *out;
	bool row_open; /* a field was written in the current record */
};

void ecp_csv_init(struct ecp_csv_writer *w, FILE *out);

void ecp_csv_string(struct ecp_csv_writer *w, const char *s); /* NULL -> empty */
void ecp_csv_int(struct ecp_csv_writer *w, int64_t v);
void ecp_csv_uint(struct ecp_csv_writer *w, uint64_t v);
void ecp_csv_double(struct ecp_csv_writer *w, double v); /* NaN -> empty */
void ecp_csv_end_row(struct ecp_csv_writer *w);

/* Flushes and reports a write error on the stream. */
int ecp_csv_finish(struct ecp_csv_writer *w, struct ecp_error *err);

/* One field, quoted if needed, with no separator: for callers with their
 * own layout. */
void ecp_csv_write_field(FILE *out, const char *s);

#endif
