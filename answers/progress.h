/* SPDX-License-Identifier: MIT */
/* How a long computation of an answer says how far it is.  The answers do
 * not know where progress is shown (the CLI draws a line on a terminal, a
 * test shows nothing): they call the hooks, if any, with a sentence. */
#ifndef ECP_ANSWERS_PROGRESS_H
#define ECP_ANSWERS_PROGRESS_H

struct ecp_answer_progress {
	void (*update)(void *ctx, const char *what);
	void (*done)(void *ctx);
	void *ctx;
};

/* Both do nothing when p or its hook is NULL. */
void ecp_answer_progress_update(const struct ecp_answer_progress *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void ecp_answer_progress_done(const struct ecp_answer_progress *p);

#endif
