/* SPDX-License-Identifier: MIT */
#include "simulator/model/arena.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK_SIZE 65536

struct chunk {
	struct chunk *next;
	size_t used, cap;
	char data[];
};

struct ecp_strings {
	struct chunk *head;
};

struct ecp_strings *ecp_strings_create(void)
{
	return calloc(1, sizeof(struct ecp_strings));
}

void ecp_strings_destroy(struct ecp_strings *s)
{
	if (!s)
		return;
	for (struct chunk *c = s->head, *next; c; c = next) {
		next = c->next;
		free(c);
	}
	free(s);
}

char *ecp_strings_ndup(struct ecp_strings *s, const char *str, size_t len)
{
	struct chunk *c = s->head;
	if (len >= SIZE_MAX / 2)
		return NULL;
	if (!c || c->cap - c->used < len + 1) {
		size_t cap = len + 1 > CHUNK_SIZE ? len + 1 : CHUNK_SIZE;
		c = malloc(sizeof(*c) + cap);
		if (!c)
			return NULL;
		c->used = 0;
		c->cap = cap;
		/* A big string gets a chunk of its own behind the current one, so
		 * the current chunk's free space is not wasted. */
		if (s->head && cap > CHUNK_SIZE) {
			c->next = s->head->next;
			s->head->next = c;
		} else {
			c->next = s->head;
			s->head = c;
		}
	}
	char *p = c->data + c->used;
	memcpy(p, str, len);
	p[len] = '\0';
	c->used += len + 1;
	return p;
}

char *ecp_strings_dup(struct ecp_strings *s, const char *str)
{
	return ecp_strings_ndup(s, str, strlen(str));
}

char *ecp_strings_printf(struct ecp_strings *s, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		return NULL;
	if ((size_t)n < sizeof(buf))
		return ecp_strings_ndup(s, buf, (size_t)n);
	char *big = malloc((size_t)n + 1);
	if (!big)
		return NULL;
	va_start(ap, fmt);
	vsnprintf(big, (size_t)n + 1, fmt, ap);
	va_end(ap);
	char *p = ecp_strings_ndup(s, big, (size_t)n);
	free(big);
	return p;
}
