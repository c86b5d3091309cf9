/* SPDX-License-Identifier: MIT */
#include "answers/progress.h"

#include <stdarg.h>
#include <stdio.h>

void ecp_answer_progress_update(const struct ecp_answer_progress *p, const char *fmt, ...)
{
	if (!p || !p->update)
		return;
	char what[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	p->update(p->ctx, what);
}

void ecp_answer_progress_done(const struct ecp_answer_progress *p)
{
	if (p && p->done)
		p->done(p->ctx);
}
