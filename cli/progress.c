/* SPDX-License-Identifier: MIT */
#include "cli/progress.h"

#include <stdarg.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#define PROGRESS_AFTER_S 0.5

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void ecp_cli_progress_init(struct ecp_progress *p, const char *cmd)
{
	p->cmd = cmd;
	p->on = isatty(STDERR_FILENO) == 1;
	p->shown = false;
	p->start = now_s();
}

void ecp_cli_progress_update(struct ecp_progress *p, const char *fmt, ...)
{
	if (!p->on || now_s() - p->start < PROGRESS_AFTER_S)
		return;
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "\r\033[Kecp %s: ", p->cmd);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fflush(stderr);
	p->shown = true;
}

void ecp_cli_progress_done(struct ecp_progress *p)
{
	if (p->shown)
		fputs("\r\033[K", stderr);
	p->shown = false;
}

static void hook_update(void *ctx, const char *what)
{
	ecp_cli_progress_update(ctx, "%s", what);
}

static void hook_done(void *ctx)
{
	ecp_cli_progress_done(ctx);
}

struct ecp_answer_progress ecp_cli_progress_hooks(struct ecp_progress *p)
{
	return (struct ecp_answer_progress){hook_update, hook_done, p};
}
