/* SPDX-License-Identifier: MIT */
/* The OpenMP task graph the model builder collects
 * (simulator/trace/builder-tasks.c), dealt out again at finish
 * (task-deal.c), its edges made by builder-tasks-graph.c.  Private to
 * those files.
 *
 * An *epoch* is one team's stretch between two synchronizations of the
 * whole team: from the fork, or a barrier's end, to the next barrier's end
 * (every region ends with one, recorder/agent/agent-omp.c).  All the tasks
 * made in an epoch run in it, and its threads start it together, so the
 * deal is made per epoch.  A *context* is a piece of program order: a
 * thread's implicit task in an epoch, or one task's body.  Its items are
 * its segments in order, with the task constructs between them. */
#ifndef ECP_SIMULATOR_MODEL_TASK_GRAPH_H
#define ECP_SIMULATOR_MODEL_TASK_GRAPH_H

#include <stdbool.h>
#include <stdint.h>

#include "common/hmap.h"
#include "common/vec.h"
#include "simulator/model/model.h"

enum titem_kind {
	IT_SEG,    /* arg: a segment (temporary id) */
	IT_CREATE, /* arg: the task made here */
	IT_TW,     /* a taskwait: the context's children done first */
	IT_TG_END, /* arg: the taskgroup whose end waits here */
};

struct titem {
	uint32_t kind, arg;
};

struct tctx {
	struct ecp_vec items; /* struct titem */
	uint32_t task;        /* its task, ECP_NO_ID: an implicit task */
	ecp_id thread;        /* where it ran in the recording */
	uint32_t epoch;
	uint32_t group;          /* the innermost taskgroup open in it, or ECP_NO_ID */
	uint32_t deps;           /* its dependence table (struct tdeps), or ECP_NO_ID */
	uint32_t tw_mark;        /* its children before this index are waited for */
	uint32_t tg_wait;        /* the taskgroup whose end it waits in, or ECP_NO_ID */
	struct ecp_vec children; /* uint32_t task indices, in creation order */
};

/* A task's flags (omp_task_create's, recorder/EVENTS.md). */
#define TASK_F_UNDEFERRED 1u /* it runs at once on its creator, as a call */
#define TASK_F_LOOP       2u /* made by a taskloop */
#define TASK_F_OMPT       4u /* recorded through OMPT: LLVM's libomp made it */

/* The tie check of the deal (task-deal.c): each of up to
 * ECP_TASK_JITTER_DRAWS deals made again, half of them with every
 * segment's length moved by its own pseudo-random amount of at most
 * ECP_TASK_JITTER_NS either way -- what one recording cannot tell apart:
 * the recorder's cost subtracted per event is calibrated to tens of ns,
 * and a thread's switch onto a CPU costs it 0.5-2.3 us
 * (docs/VALIDATION.md) -- and half with every segment's moved by the same
 * amount of at most ECP_TASK_SHIFT_NS, what a run on P CPUs adds to each
 * and one CPU does not show (a sleeping thread woken to take a task, a
 * task made on a contended queue); as many as ECP_TASK_JITTER_WORK steps
 * of the deal's simulation allow, and none when that is fewer than
 * ECP_TASK_JITTER_MIN_DRAWS. */
#define ECP_TASK_JITTER_NS        300u
#define ECP_TASK_SHIFT_NS         1000u
#define ECP_TASK_JITTER_DRAWS     24u
#define ECP_TASK_JITTER_MIN_DRAWS 4u
#define ECP_TASK_JITTER_WORK      (1u << 23)
/* ... and the share of the deal's makespan a draw must move to make the
 * deal a near tie (builder-tasks.c warns) */
#define ECP_TASK_TIE_WARN 0.03

struct ttask {
	uint64_t id;
	uint32_t ctx;    /* its body */
	uint32_t parent; /* the context that made it */
	uint32_t group;  /* the taskgroup it counts in, or ECP_NO_ID */
	uint32_t epoch;
	uint16_t flags; /* TASK_F_* */
	uint64_t site;  /* the return address of the creating call */
	ecp_id site_fn; /* the function that made it */
	bool begun, ended;
	struct ecp_vec preds; /* uint32_t: sibling tasks its depend items wait for */
};

struct tgroup {
	uint32_t ctx;           /* the context that opened it */
	uint32_t parent;        /* the group open there before, or ECP_NO_ID */
	struct ecp_vec members; /* uint32_t task indices */
};

struct ep_thread {
	ecp_id thread;
	uint32_t ctx;       /* its implicit task in the epoch */
	size_t lo, hi;      /* its segments: th->segs[lo, hi) */
	bool closed;        /* hi is known */
	bool at_barrier;    /* it ended at a team barrier's end */
	struct ecp_vec seq; /* dealt: its segments in their new order */
};

struct tepoch {
	struct ecp_vec threads; /* struct ep_thread */
	uint32_t n_tasks;
	bool irregular; /* something else than tasks split its segments */
	bool dealt;     /* its threads' segments are ep_thread.seq */
};

/* A sibling set's dependences on one address: the last writer, and the
 * readers since. */
struct tdep_addr {
	uint32_t writer;
	struct ecp_vec readers; /* uint32_t task indices */
};

struct tdeps {
	struct ecp_hmap by_addr; /* address -> index in addrs */
	struct ecp_vec addrs;    /* struct tdep_addr */
};

/* A context a thread is in, and the wait it interrupted (a barrier's
 * tasks run inside the barrier wait). */
struct tframe {
	uint32_t ctx;
	/* the context waits for its tasks (taskwait, taskgroup end): the CPU
	 * time the thread uses outside their bodies until the wait ends is
	 * the runtime's, spinning (libomp's loops there never sleep) */
	bool spin;
	int wait;
	uint64_t wait_obj, wait_ts, wait_cpu, wait_timeout;
};

/* A thread's place in an outer region while it runs a nested one. */
struct tsaved {
	uint32_t epoch;
	uint64_t team;
	uint32_t round;
	struct ecp_vec stack; /* struct tframe */
	bool early;
};

struct tthread {
	uint32_t epoch; /* 1 + its epoch, 0: outside any team */
	uint64_t team;
	uint32_t round;       /* team barriers it has left in the team */
	size_t mark;          /* th->segs.len when last filed */
	struct ecp_vec stack; /* struct tframe; [0]: the implicit task */
	uint32_t last_task;   /* the last it made (for omp_task_dep) */
	bool early; /* it entered `round` at a task begin, before its barrier end */
	/* it posted its join with the epoch's tasks not all run: it stays in
	 * the epoch, at its closing barrier, until the master joins */
	bool joined;
	struct ecp_vec saved; /* struct tsaved: the regions it is nested in */
};

struct ecp_task_graph {
	struct ecp_vec ctxs;    /* struct tctx */
	struct ecp_vec tasks;   /* struct ttask */
	struct ecp_vec groups;  /* struct tgroup */
	struct ecp_vec epochs;  /* struct tepoch */
	struct ecp_vec threads; /* struct tthread, by thread index */
	struct ecp_vec deps;    /* struct tdeps */
	struct ecp_hmap task_by_id, epoch_by_key;
	/* what finish did (the model's notes) */
	uint64_t dealt_epochs, kept_epochs, dealt_tasks, kept_tasks;
	/* The tie check (task-deal.c): the dealt epochs' makespans in work
	 * time (each thread on its own CPU), added up, for the deal and for
	 * each of tie_draws deals on lengths moved by up to
	 * ECP_TASK_JITTER_NS (0 draws: too many tasks to check); the same
	 * on two CPUs under ideal sharing; the largest team dealt. */
	uint32_t tie_draws, tie_team;
	uint64_t tie_dealt_ns, tie_dealt_two_ns;
	uint64_t tie_drawn_ns[ECP_TASK_JITTER_DRAWS];
	uint64_t tie_drawn_two_ns[ECP_TASK_JITTER_DRAWS];
	bool lossy; /* the trace lost events: kept, without the graph's edges */
	struct ecp_spawn_site *sites; /* work and span per spawn site, for the model */
	uint32_t n_sites;
};

static inline struct tctx *tctx_at(struct ecp_task_graph *t, uint32_t i)
{
	return &ECP_VEC_AT(&t->ctxs, struct tctx, i);
}

static inline struct ttask *ttask_at(struct ecp_task_graph *t, uint32_t i)
{
	return &ECP_VEC_AT(&t->tasks, struct ttask, i);
}

/* task-span.c: Cilkprof's work and span per spawn site on the task graph
 * (model.h, struct ecp_spawn_site), from the segments' lengths (by
 * temporary id): *out sorted by site, *n of them.  Returns 0, or -1 when
 * out of memory. */
int ecp_task_spawn_sites(struct ecp_task_graph *tk, const struct ecp_segment_record *segs,
			 struct ecp_spawn_site **out, uint32_t *n);

/* A thread busy in a deal, from start to end in work time. */
struct ecp_task_busy {
	uint64_t start, end;
};

/* task-shared.c: the time the busy intervals take on procs processors
 * under ideal sharing, into *out.  Returns 0, or -1 when out of memory. */
int ecp_task_shared_ns(const struct ecp_task_busy *busy, size_t n, unsigned procs,
		       uint64_t *out);

/* task-deal.c: deals every epoch with tasks that can be dealt
 * (tasks[first[e], first[e+1]) are epoch e's) to its threads, as P
 * processors would in work time: ep_thread.seq, the segments' `thread`
 * (segs: the builder's segments, by temporary id), and tepoch.dealt;
 * counts what it dealt and kept.  Returns 0, or -1 when out of memory. */
int ecp_task_deal_all(struct ecp_task_graph *tk, struct ecp_segment_record *segs,
		      const uint32_t *first, const uint32_t *tasks);

#endif
