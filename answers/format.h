/* SPDX-License-Identifier: MIT */
/* The forms an answer is written in: a table (with the prose around it) for
 * people, CSV and JSON for scripts. */
#ifndef ECP_ANSWERS_FORMAT_H
#define ECP_ANSWERS_FORMAT_H

enum ecp_format { ECP_FORMAT_TABLE = 0, ECP_FORMAT_CSV, ECP_FORMAT_JSON };

#endif
