/* SPDX-License-Identifier: MIT */
/* The consistency check (simulator/model/consistency.h) as every JSON answer
 * carries it, so that info, report, scan and whatif say the same thing. */
#ifndef ECP_ANSWERS_CONSISTENCY_JSON_H
#define ECP_ANSWERS_CONSISTENCY_JSON_H

#include "simulator/model/consistency.h"
#include "simulator/model/model.h"
#include "viz/json.h"

/* "consistency": {...} as a member of the object being written. */
void ecp_answer_consistency_json(struct ecp_json_writer *w,
				 const struct ecp_consistency *c);

/* "warnings": [...], the model's (what stderr shows: events lost, tasks
 * kept as recorded, a near tie in a task deal...), so that a script
 * reading the JSON answer sees them too. */
void ecp_answer_warnings_json(struct ecp_json_writer *w, const struct ecp_model *m);

#endif
