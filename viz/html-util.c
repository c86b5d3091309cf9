/* SPDX-License-Identifier: MIT */
#include "viz/html-util.h"

#include <math.h>
#include <string.h>

#include "viz/table.h"
#include "viz/utf8.h"

void ecp_html_text(FILE *out, const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t len = strlen(s);
	for (size_t i = 0; i < len;) {
		unsigned char c = u[i];
		if (c >= 0x80) {
			size_t n = ecp_utf8_seq_len(u + i, len - i, NULL);
			if (n == 0) {
				fputs("&#xFFFD;", out);
				i++;
			} else {
				fwrite(u + i, 1, n, out);
				i += n;
			}
			continue;
		}
		switch (c) {
		case '&':
			fputs("&amp;", out);
			break;
		case '<':
			fputs("&lt;", out);
			break;
		case '>':
			fputs("&gt;", out);
			break;
		case '"':
			fputs("&quot;", out);
			break;
		case '\'':
			fputs("&#39;", out);
			break;
		default:
			fputc(c < 0x20 || c == 0x7F ? ' ' : c, out);
		}
		i++;
	}
}

void ecp_html_name(FILE *out, const char *s, size_t max_chars)
{
	char buf[4 * ECP_HTML_MAX_NAME_CHARS + 8];
	if (!s) {
		fputs("?", out);
		return;
	}
	ecp_html_text(out, ecp_shorten_name(s, max_chars, buf, sizeof(buf)));
}

int ecp_html_ticks(double lo, double hi, int target, double *first, double *step)
{
	if (!(hi > lo) || target < 1) {
		*first = lo;
		*step = 1;
		return 1;
	}
	double raw = (hi - lo) / target;
	double mag = pow(10, floor(log10(raw)));
	double f = raw / mag;
	double s = f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10;
	*step = s * mag;
	*first = ceil(lo / *step - 1e-9) * *step;
	return (int)floor((hi - *first) / *step + 1e-9) + 1;
}

double ecp_html_map(const struct ecp_html_scale *s, double v)
{
	if (s->d1 == s->d0)
		return s->p0;
	return s->p0 + (v - s->d0) / (s->d1 - s->d0) * (s->p1 - s->p0);
}

uint32_t ecp_html_rank(struct ecp_html_ctx *c, uint32_t function)
{
	if (function >= c->r->function_count)
		return ECP_HTML_NO_FUNCTION;
	if (c->local[function] != ECP_HTML_NO_FUNCTION)
		return c->local[function];
	if (c->named_count >= ECP_HTML_MAX_NAMED_FUNCTIONS)
		return ECP_HTML_NO_FUNCTION;
	c->local[function] = (uint32_t)c->named_count;
	c->named[c->named_count] = function;
	return (uint32_t)c->named_count++;
}

void ecp_html_colour(uint32_t rank, char *buf, size_t len)
{
	/* Twelve distinct hues for the functions that matter most (rank order
	 * puts the plotted and the top table functions first), then muted hues
	 * spread by the golden angle so neighbours differ. */
	static const char *const palette[] = {
	    "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948",
	    "#b07aa1", "#ff9da7", "#9c755f", "#3b8bc2", "#8cd17d", "#d37295",
	};
	size_t n = sizeof(palette) / sizeof(palette[0]);
	if (rank == ECP_HTML_NO_FUNCTION)
		snprintf(buf, len, "#b9b9b9");
	else if (rank < n)
		snprintf(buf, len, "%s", palette[rank]);
	else
		snprintf(buf, len, "hsl(%.0f,35%%,68%%)", fmod(rank * 137.508, 360.0));
}

const char *ecp_html_fname(const struct ecp_html_ctx *c, uint32_t function)
{
	if (function >= c->r->function_count || !c->r->function_names ||
	    !c->r->function_names[function])
		return "?";
	return c->r->function_names[function];
}
