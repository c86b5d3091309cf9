/* SPDX-License-Identifier: MIT */
#include "viz/json.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "viz/utf8.h"

void ecp_json_init(struct ecp_json_writer *w, FILE *out, unsigned flags)
{
	memset(w, 0, sizeof(*w));
	w->out = out;
	w->flags = flags;
}

static void misuse(struct ecp_json_writer *w, const char *what)
{
	if (!w->misuse) {
		w->misuse = true;
		w->problem = what;
	}
}

void ecp_json_newline(struct ecp_json_writer *w)
{
	w->newline = true;
}

static void newline_indent(struct ecp_json_writer *w)
{
	if (w->newline && !(w->flags & ECP_JSON_PRETTY)) {
		w->newline = false;
		fputc('\n', w->out);
		return;
	}
	if (!(w->flags & ECP_JSON_PRETTY))
		return;
	fputc('\n', w->out);
	for (int i = 0; i < w->depth; i++)
		fputs("  ", w->out);
}

/* Everything a value needs before it: a comma and indentation inside an
 * array, nothing after a key; values in an object without a key are
 * misuse, as is a second top-level value. */
static bool before_value(struct ecp_json_writer *w)
{
	if (w->depth == 0) {
		if (w->done) {
			misuse(w, "second top-level value");
			return false;
		}
		return true;
	}
	char k = w->kind[w->depth - 1];
	if (k == 'o') {
		if (!w->after_key) {
			misuse(w, "value in an object without a key");
			return false;
		}
		w->after_key = false;
		return true;
	}
	if (w->has_member[w->depth - 1])
		fputc(',', w->out);
	w->has_member[w->depth - 1] = true;
	newline_indent(w);
	return true;
}

static void after_value(struct ecp_json_writer *w)
{
	if (w->depth == 0)
		w->done = true;
}

static void begin(struct ecp_json_writer *w, char kind, char open)
{
	if (!before_value(w))
		return;
	if (w->depth >= ECP_JSON_MAX_DEPTH) {
		misuse(w, "nesting too deep");
		return;
	}
	fputc(open, w->out);
	w->kind[w->depth] = kind;
	w->has_member[w->depth] = false;
	w->depth++;
}

static void end(struct ecp_json_writer *w, char kind, char close)
{
	if (w->depth == 0 || w->kind[w->depth - 1] != kind || w->after_key) {
		misuse(w, kind == 'o' ? "unbalanced end of object"
				      : "unbalanced end of array");
		return;
	}
	bool had = w->has_member[w->depth - 1];
	w->depth--;
	if (had)
		newline_indent(w);
	fputc(close, w->out);
	after_value(w);
}

void ecp_json_begin_object(struct ecp_json_writer *w)
{
	begin(w, 'o', '{');
}

void ecp_json_end_object(struct ecp_json_writer *w)
{
	end(w, 'o', '}');
}

void ecp_json_begin_array(struct ecp_json_writer *w)
{
	begin(w, 'a', '[');
}

void ecp_json_end_array(struct ecp_json_writer *w)
{
	end(w, 'a', ']');
}

void ecp_json_write_escaped(FILE *out, const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0;
	while (i < len) {
		unsigned char c = u[i];
		if (c >= 0x80) {
			uint32_t cp;
			size_t n = ecp_utf8_seq_len(u + i, len - i, &cp);
			if (n == 0) {
				fputs("\\ufffd", out);
				i++;
			} else if (cp == 0x2028 || cp == 0x2029) {
				fprintf(out, "\\u%04" PRIx32, cp);
				i += n;
			} else {
				fwrite(u + i, 1, n, out);
				i += n;
			}
			continue;
		}
		switch (c) {
		case '"':
			fputs("\\\"", out);
			break;
		case '\\':
			fputs("\\\\", out);
			break;
		case '\n':
			fputs("\\n", out);
			break;
		case '\r':
			fputs("\\r", out);
			break;
		case '\t':
			fputs("\\t", out);
			break;
		case '\b':
			fputs("\\b", out);
			break;
		case '\f':
			fputs("\\f", out);
			break;
		case '/':
			/* "</" would end an enclosing <script> element. */
			if (i > 0 && u[i - 1] == '<')
				fputs("\\/", out);
			else
				fputc('/', out);
			break;
		case '!':
			/* "<!--" would switch an enclosing <script> element's
			 * parsing into its escaped state. */
			if (i > 0 && u[i - 1] == '<')
				fputs("\\u0021", out);
			else
				fputc('!', out);
			break;
		default:
			if (c < 0x20 || c == 0x7F)
				fprintf(out, "\\u%04x", c);
			else
				fputc(c, out);
		}
		i++;
	}
}

void ecp_json_key(struct ecp_json_writer *w, const char *key)
{
	if (w->depth == 0 || w->kind[w->depth - 1] != 'o' || w->after_key) {
		misuse(w, "key outside an object");
		return;
	}
	if (w->has_member[w->depth - 1])
		fputc(',', w->out);
	w->has_member[w->depth - 1] = true;
	newline_indent(w);
	fputc('"', w->out);
	ecp_json_write_escaped(w->out, key, strlen(key));
	fputs((w->flags & ECP_JSON_PRETTY) ? "\": " : "\":", w->out);
	w->after_key = true;
}

void ecp_json_string_n(struct ecp_json_writer *w, const char *s, size_t len)
{
	if (!before_value(w))
		return;
	fputc('"', w->out);
	ecp_json_write_escaped(w->out, s, len);
	fputc('"', w->out);
	after_value(w);
}

void ecp_json_string(struct ecp_json_writer *w, const char *s)
{
	if (!s)
		ecp_json_null(w);
	else
		ecp_json_string_n(w, s, strlen(s));
}

void ecp_json_int(struct ecp_json_writer *w, int64_t v)
{
	if (!before_value(w))
		return;
	fprintf(w->out, "%" PRId64, v);
	after_value(w);
}

void ecp_json_uint(struct ecp_json_writer *w, uint64_t v)
{
	if (!before_value(w))
		return;
	fprintf(w->out, "%" PRIu64, v);
	after_value(w);
}

char *ecp_json_format_double(char *buf, size_t len, double v)
{
	if (!isfinite(v)) {
		snprintf(buf, len, "null");
		return buf;
	}
	/* The shortest of %.15g..%.17g that reads back exactly: 0.1 stays 0.1,
	 * and no value loses precision. */
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, len, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	return buf;
}

void ecp_json_double(struct ecp_json_writer *w, double v)
{
	if (!before_value(w))
		return;
	char buf[40];
	fputs(ecp_json_format_double(buf, sizeof(buf), v), w->out);
	after_value(w);
}

void ecp_json_bool(struct ecp_json_writer *w, bool v)
{
	if (!before_value(w))
		return;
	fputs(v ? "true" : "false", w->out);
	after_value(w);
}

void ecp_json_null(struct ecp_json_writer *w)
{
	if (!before_value(w))
		return;
	fputs("null", w->out);
	after_value(w);
}

void ecp_json_kv_string(struct ecp_json_writer *w, const char *key, const char *s)
{
	ecp_json_key(w, key);
	ecp_json_string(w, s);
}

void ecp_json_kv_int(struct ecp_json_writer *w, const char *key, int64_t v)
{
	ecp_json_key(w, key);
	ecp_json_int(w, v);
}

void ecp_json_kv_uint(struct ecp_json_writer *w, const char *key, uint64_t v)
{
	ecp_json_key(w, key);
	ecp_json_uint(w, v);
}

void ecp_json_kv_double(struct ecp_json_writer *w, const char *key, double v)
{
	ecp_json_key(w, key);
	ecp_json_double(w, v);
}

void ecp_json_kv_bool(struct ecp_json_writer *w, const char *key, bool v)
{
	ecp_json_key(w, key);
	ecp_json_bool(w, v);
}

int ecp_json_finish(struct ecp_json_writer *w, struct ecp_error *err)
{
	if (!w->misuse && (w->depth != 0 || !w->done))
		misuse(w, w->depth != 0 ? "unclosed container" : "no value written");
	if (w->misuse)
		return ecp_error_set(err, ECP_ERR_USAGE, "JSON writer misuse: %s",
				     w->problem);
	fputc('\n', w->out);
	if (fflush(w->out) != 0 || ferror(w->out))
		return ecp_error_set(err, ECP_ERR_IO, "failed to write JSON output");
	return ECP_OK;
}
