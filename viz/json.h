/* SPDX-License-Identifier: MIT */
/* A small streaming JSON writer, used by every JSON output of ecp.
 *
 * Writes straight to a FILE, so memory does not grow with the document
 * (a Perfetto export of a large trace has millions of events).  The writer
 * tracks nesting and commas itself; callers only say what comes next.
 *
 * Strings are escaped completely: quote, backslash, every control character
 * (as \n, \t, ... or \u00XX), U+2028/U+2029 (line terminators in older
 * JavaScript), and "</" and "<!" are written as "<\/" and "<\u0021" so that
 * a document can be embedded in an HTML <script> element without a symbol
 * name such as "</script>" closing it.  Valid UTF-8 passes through unchanged; a byte
 * that is not part of valid UTF-8 becomes U+FFFD, so the output is always
 * valid JSON (RFC 8259) whatever bytes a symbol table held.
 *
 * Numbers: integers exactly; doubles with the fewest digits that read back
 * to the same value (at most 17 significant digits); NaN and infinities,
 * which JSON cannot represent, are written as null.
 *
 * Misuse (a value where a key is required, closing the wrong container,
 * nesting deeper than ECP_JSON_MAX_DEPTH) is recorded and reported by
 * ecp_json_finish(), together with any write error on the stream. */
#ifndef ECP_VIZ_JSON_H
#define ECP_VIZ_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/error.h"

#define ECP_JSON_MAX_DEPTH 64

enum ecp_json_flags {
	ECP_JSON_COMPACT = 0,
	/* Newline and indentation after every member: for files people read. */
	ECP_JSON_PRETTY = 1 << 0,
};

struct ecp_json_writer {
	FILE *out;
	unsigned flags;
	int depth;
	/* Per level: 'o' object, 'a' array; whether a member was written yet. */
	char kind[ECP_JSON_MAX_DEPTH];
	bool has_member[ECP_JSON_MAX_DEPTH];
	bool after_key;
	bool newline; /* ecp_json_newline() was called */
	bool done;    /* a complete top-level value was written */
	bool misuse;  /* first misuse is kept in `problem` */
	const char *problem;
};

void ecp_json_init(struct ecp_json_writer *w, FILE *out, unsigned flags);

void ecp_json_begin_object(struct ecp_json_writer *w);
void ecp_json_end_object(struct ecp_json_writer *w);
void ecp_json_begin_array(struct ecp_json_writer *w);
void ecp_json_end_array(struct ecp_json_writer *w);

/* Puts the next array element or object member on a new line, in compact
 * mode too: a large array of records then has one record per line, which
 * keeps the file greppable and diffable. */
void ecp_json_newline(struct ecp_json_writer *w);

/* A member name inside an object; the next call writes its value. */
void ecp_json_key(struct ecp_json_writer *w, const char *key);

void ecp_json_string(struct ecp_json_writer *w, const char *s); /* NULL -> null */
void ecp_json_string_n(struct ecp_json_writer *w, const char *s, size_t len);
void ecp_json_int(struct ecp_json_writer *w, int64_t v);
void ecp_json_uint(struct ecp_json_writer *w, uint64_t v);
void ecp_json_double(struct ecp_json_writer *w, double v);
void ecp_json_bool(struct ecp_json_writer *w, bool v);
void ecp_json_null(struct ecp_json_writer *w);

/* Key and value in one call, the common case. */
void ecp_json_kv_string(struct ecp_json_writer *w, const char *key, const char *s);
void ecp_json_kv_int(struct ecp_json_writer *w, const char *key, int64_t v);
void ecp_json_kv_uint(struct ecp_json_writer *w, const char *key, uint64_t v);
void ecp_json_kv_double(struct ecp_json_writer *w, const char *key, double v);
void ecp_json_kv_bool(struct ecp_json_writer *w, const char *key, bool v);

/* Checks that exactly one complete value was written, adds a final newline,
 * flushes, and reports misuse or a stream error.  Returns ECP_OK or an
 * error status with err filled (ECP_ERR_USAGE for misuse, ECP_ERR_IO). */
int ecp_json_finish(struct ecp_json_writer *w, struct ecp_error *err);

/* The escaping alone, for callers that build JSON text around it: writes the
 * contents of a JSON string (without the surrounding quotes). */
void ecp_json_write_escaped(FILE *out, const char *s, size_t len);

/* Shortest decimal text that reads back as v ("%.17g" at most); NaN and
 * infinities give "null".  buf must hold at least 32 bytes. */
char *ecp_json_format_double(char *buf, size_t len, double v);

#endif
