/* SPDX-License-Identifier: MIT */
/* UTF-8 helpers shared by the writers: symbol names are bytes from an ELF
 * symbol table, so every writer that must produce valid text (JSON, HTML)
 * checks them instead of trusting them. */
#ifndef ECP_VIZ_UTF8_H
#define ECP_VIZ_UTF8_H

#include <stddef.h>
#include <stdint.h>

/* Length (1-4) of the well-formed UTF-8 sequence at s (len bytes left), or
 * 0 if the bytes there are not well-formed (overlong forms, surrogates and
 * code points above U+10FFFF are rejected, as RFC 3629 requires).  When the
 * result is not 0 and cp is not NULL, *cp receives the code point. */
size_t ecp_utf8_seq_len(const unsigned char *s, size_t len, uint32_t *cp);

/* Number of characters (code points; an invalid byte counts as one) in the
 * first len bytes of s: the display width used for text tables. */
size_t ecp_utf8_width(const char *s, size_t len);

/* Byte offset of the character number `chars` in s (or len if s is
 * shorter): cuts text on character boundaries. */
size_t ecp_utf8_offset(const char *s, size_t len, size_t chars);

#endif
