/* SPDX-License-Identifier: MIT */
#include "viz/utf8.h"

size_t ecp_utf8_seq_len(const unsigned char *s, size_t len, uint32_t *cp)
{
	if (len == 0)
		return 0;
	unsigned char c = s[0];
	size_t n;
	uint32_t v, min;
	if (c < 0x80) {
		if (cp)
			*cp = c;
		return 1;
	} else if ((c & 0xE0) == 0xC0) {
		n = 2, v = c & 0x1F, min = 0x80;
	} else if ((c & 0xF0) == 0xE0) {
		n = 3, v = c & 0x0F, min = 0x800;
	} else if ((c & 0xF8) == 0xF0) {
		n = 4, v = c & 0x07, min = 0x10000;
	} else {
		return 0;
	}
	if (len < n)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		v = (v << 6) | (s[i] & 0x3F);
	}
	if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
		return 0;
	if (cp)
		*cp = v;
	return n;
}

size_t ecp_utf8_width(const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t chars = 0;
	for (size_t i = 0; i < len; chars++) {
		size_t n = ecp_utf8_seq_len(u + i, len - i, NULL);
		i += n ? n : 1;
	}
	return chars;
}

size_t ecp_utf8_offset(const char *s, size_t len, size_t chars)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0;
	for (size_t c = 0; c < chars && i < len; c++) {
		size_t n = ecp_utf8_seq_len(u + i, len - i, NULL);
		i += n ? n : 1;
	}
	return i;
}
