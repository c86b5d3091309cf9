/* SPDX-License-Identifier: MIT */
#include "common/record-meta.h"

#include <string.h>

#include "common/parse.h"

static const struct {
	const char *name;
	enum ecp_meta_kind kind;
} keys[ECP_META_N_KEYS] = {
#define ECP_META_ROW(id, name, kind) [ECP_META_##id] = {name, kind},
    ECP_META_KEYS(ECP_META_ROW)
#undef ECP_META_ROW
};

const char *ecp_meta_key_name(enum ecp_meta_key key)
{
	return keys[key].name;
}

enum ecp_meta_kind ecp_meta_key_kind(enum ecp_meta_key key)
{
	return keys[key].kind;
}

int ecp_meta_key_find(const char *name)
{
	for (int k = 0; k < ECP_META_N_KEYS; k++)
		if (!strcmp(keys[k].name, name))
			return k;
	return -1;
}

bool ecp_meta_value_ok(enum ecp_meta_key key, const char *value)
{
	uint64_t v;
	switch (keys[key].kind) {
	case ECP_META_UINT:
		return ecp_parse_u64(value, &v) == 0;
	case ECP_META_BOOL:
		return !strcmp(value, "0") || !strcmp(value, "1");
	case ECP_META_EXIT:
		if (!strncmp(value, "signal:", 7))
			value += 7;
		return ecp_parse_u64(value, &v) == 0;
	case ECP_META_TEXT:
		return true;
	}
	return false;
}

void ecp_meta_put_uint(FILE *f, enum ecp_meta_key key, uint64_t v)
{
	fprintf(f, "%s=%llu\n", keys[key].name, (unsigned long long)v);
}

static void put_clean(FILE *f, const char *s)
{
	for (; s && *s; s++)
		fputc(*s == '\n' || *s == '\r' ? ' ' : *s, f);
}

void ecp_meta_put_text(FILE *f, enum ecp_meta_key key, const char *s)
{
	fprintf(f, "%s=", keys[key].name);
	put_clean(f, s);
	fputc('\n', f);
}

void ecp_meta_put_list(FILE *f, enum ecp_meta_key key, char *const *list, const char *sep)
{
	fprintf(f, "%s=", keys[key].name);
	for (size_t i = 0; list && list[i]; i++) {
		if (i)
			fputs(sep, f);
		put_clean(f, list[i]);
	}
	fputc('\n', f);
}
