/* SPDX-License-Identifier: MIT */
/* When the engine splits its work over two threads (engine.c, plan.c; two
 * P-runs at once in analysis.c's sweep): on models of at least this many
 * segments, below which a second thread costs more than it saves.  The
 * caller may lower it (ecp/options.h), as the tests do to run the
 * two-thread path on small models against the oracle; results never depend
 * on it (each output is computed with the same arithmetic in the same
 * order either way). */
#ifndef ECP_ECP_PARALLEL_H
#define ECP_ECP_PARALLEL_H

#include <stdint.h>

#define ECP_PARALLEL_MIN_SEGMENTS_DEFAULT 65536u

#endif
