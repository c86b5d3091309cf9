/* SPDX-License-Identifier: MIT */
/* A string arena: many small strings (function names, object paths,
 * warnings) freed all at once with the model that owns them. */
#ifndef ECP_SIMULATOR_ARENA_H
#define ECP_SIMULATOR_ARENA_H

#include <stddef.h>

struct ecp_strings;

struct ecp_strings *ecp_strings_create(void);
void ecp_strings_destroy(struct ecp_strings *s);
/* Copies len bytes and a terminating NUL; NULL when memory ran out. */
char *ecp_strings_ndup(struct ecp_strings *s, const char *str, size_t len);
char *ecp_strings_dup(struct ecp_strings *s, const char *str);
char *ecp_strings_printf(struct ecp_strings *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
