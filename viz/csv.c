/* SPDX-License-Identifier: MIT */
#include "viz/csv.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "viz/json.h"

void ecp_csv_init(struct ecp_csv_writer *w, FILE *out)
{
	w->out = out;
	w->row_open = false;
}

void ecp_csv_write_field(FILE *out, const char *s)
{
	if (!s)
		return;
	size_t len = strlen(s);
	bool quote = strpbrk(s, ",\"\r\n") != NULL ||
		     (len > 0 && (s[0] == ' ' || s[len - 1] == ' '));
	if (!quote) {
		fwrite(s, 1, len, out);
		return;
	}
	fputc('"', out);
	for (const char *p = s; *p; p++) {
		if (*p == '"')
			fputc('"', out);
		fputc(*p, out);
	}
	fputc('"', out);
}

static void separator(struct ecp_csv_writer *w)
{
	if (w->row_open)
		fputc(',', w->out);
	w->row_open = true;
}

void ecp_csv_string(struct ecp_csv_writer *w, const char *s)
{
	separator(w);
	ecp_csv_write_field(w->out, s);
}

void ecp_csv_int(struct ecp_csv_writer *w, int64_t v)
{
	separator(w);
	fprintf(w->out, "%" PRId64, v);
}

void ecp_csv_uint(struct ecp_csv_writer *w, uint64_t v)
{
	separator(w);
	fprintf(w->out, "%" PRIu64, v);
}

void ecp_csv_double(struct ecp_csv_writer *w, double v)
{
	separator(w);
	if (!isfinite(v))
		return;
	char buf[40];
	fputs(ecp_json_format_double(buf, sizeof(buf), v), w->out);
}

void ecp_csv_end_row(struct ecp_csv_writer *w)
{
	fputc('\n', w->out);
	w->row_open = false;
}

int ecp_csv_finish(struct ecp_csv_writer *w, struct ecp_error *err)
{
	if (w->row_open)
		ecp_csv_end_row(w);
	if (fflush(w->out) != 0 || ferror(w->out))
		return ecp_error_set(err, ECP_ERR_IO, "failed to write CSV output");
	return ECP_OK;
}
