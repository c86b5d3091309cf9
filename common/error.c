/* SPDX-License-Identifier: MIT */
#include "common/error.h"

#include <stdio.h>
#include <string.h>

int ecp_error_set(struct ecp_error *err, int status, const char *fmt, ...)
{
	if (!err)
		return status;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	err->status = status;
	return status;
}

int ecp_error_prefix(struct ecp_error *err, const char *fmt, ...)
{
	if (!err)
		return ECP_ERR;
	char prefix[ECP_ERROR_MAX];
	char old[ECP_ERROR_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(prefix, sizeof(prefix), fmt, ap);
	va_end(ap);
	memcpy(old, err->msg, sizeof(old));
	/* Truncation is acceptable: the innermost detail is at the end and the
	 * buffer is generous; build the message piecewise to say so explicitly. */
	size_t n = strnlen(prefix, sizeof(err->msg) - 1);
	memcpy(err->msg, prefix, n);
	if (old[0] && n + 2 < sizeof(err->msg)) {
		memcpy(err->msg + n, ": ", 2);
		n += 2;
		size_t m = strnlen(old, sizeof(err->msg) - 1 - n);
		memcpy(err->msg + n, old, m);
		n += m;
	}
	err->msg[n] = '\0';
	if (err->status == ECP_OK)
		err->status = ECP_ERR;
	return err->status;
}

bool ecp_error_is_set(const struct ecp_error *err)
{
	return err && err->status != ECP_OK;
}
