/* SPDX-License-Identifier: MIT */
/* Edit distance between short strings, for "did you mean" hints: the nearest
 * command to a typo, the nearest function names to an unknown one. */
#ifndef ECP_COMMON_STRDIST_H
#define ECP_COMMON_STRDIST_H

#include <stddef.h>

#define ECP_EDIT_IGNORE_CASE 0x1u /* 'A' and 'a' are the same letter */
#define ECP_EDIT_TRANSPOSE                                                               \
	0x2u /* two swapped neighbours count as one edit                                 \
	      * (optimal string alignment), as git's and                                 \
	      * perf's suggestions do */

/* Levenshtein distance, with the flags above.  SIZE_MAX when either string
 * is longer than ECP_EDIT_MAX_LEN (hints are for names, not texts). */
#define ECP_EDIT_MAX_LEN 127
size_t ecp_edit_distance(const char *a, const char *b, unsigned flags);

#endif
