/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The count of a loop that holds one check to many generated inputs: the
 * whole count natively and under the sanitizers, a tenth under valgrind
 * (its valgrind_ test sets PVECG_UNDER_VALGRIND, tests/CMakeLists.txt).
 * Under valgrind each pass costs tens of times as much, and what valgrind
 * looks for -- reads of undefined or freed memory, leaks -- is found in the
 * same code by the first passes as by the last; the native run still holds
 * every value of the whole count to its exact result.
 */
#ifndef PVECG_TEST_LOOP_COUNT_H
#define PVECG_TEST_LOOP_COUNT_H

#include <stdlib.h>

static inline int loop_count(int full) {
  return getenv("PVECG_UNDER_VALGRIND") ? full / 10 : full;
}

#endif
