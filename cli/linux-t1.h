/* SPDX-License-Identifier: MIT */
/* The Linux-like scheduler model's T_1 against the ideal one, said where it
 * overstates (`ecp scan` and `ecp whatif` with --sched linux). */
#ifndef ECP_CLI_LINUX_T1_H
#define ECP_CLI_LINUX_T1_H

#include <stdint.h>

/* Warns on stderr, as `cmd`, when linux_t1 is more than 10% above
 * ideal_t1: the model charges a cost for each context switch it makes, and
 * on a program that hands off between threads all the time, a recording
 * already holds that cost in its durations (recorder/calibrate-switch.h):
 * the model then counts it twice, at every P. */
void ecp_cli_check_linux_t1(const char *cmd, uint64_t linux_t1, uint64_t ideal_t1);

#endif
