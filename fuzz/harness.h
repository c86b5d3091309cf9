/* SPDX-License-Identifier: MIT */
/* The two fuzz harnesses, callable from libFuzzer (fuzz-*.c, clang) and from
 * the gcc-built replay test (tests/fuzz/replay.c) alike.
 *
 * Each takes one input, runs the library on it and returns 0 whatever the
 * library answered: an error return is a correct answer to a malformed
 * input.  A bug -- a model that the builder or loader handed over but that
 * fails ecp_model_validate() -- is reported on stderr and abort()s, so both
 * libFuzzer and the test see it as a crash.  Sanitizer reports and crashes
 * inside the library are crashes by themselves. */
#ifndef ECP_FUZZ_HARNESS_H
#define ECP_FUZZ_HARNESS_H

#include <stddef.h>
#include <stdint.h>

#include "simulator/model/model.h"

/* fuzz-builder: bytes (builder-format.h) -> builder pushes -> model ->
 * validate, ASAP DAG (both lock policies), ECP analysis at P = 1, 2, inf. */
int ecp_fuzz_builder_one(const uint8_t *data, size_t size);

/* fuzz-ctf: bytes -> mutations of a small valid recording (harness-ctf.c)
 * -> ecp_trace_load() without the cache -> the same checks on a model. */
int ecp_fuzz_ctf_one(const uint8_t *data, size_t size);

/* Shared: validates a model the library handed over (abort() if invalid,
 * naming `what`) and runs the DAG and the analyses on it; errors are fine. */
void ecp_fuzz_check_model(const struct ecp_model *m, const char *what);

/* With ECP_FUZZ_VERBOSE set in the environment, prints on stderr how each
 * attempt ended ("what: ok" or "what: the error"), to see what a seed or a
 * crash input exercises.  err NULL: success. */
struct ecp_error;
void ecp_fuzz_note(const char *what, const struct ecp_error *err);

#endif
