/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The daemon's answer to one BATCH exchange (rrdcached(1)), read without
 * I/O so that it can be fuzzed: rrdcached_batch.c feeds it what has
 * arrived so far until it says the answer is whole.
 *
 *   0 Go ahead.  End with dot '.' on its own line.     (to BATCH)
 *   <n> errors                                          (to the dot)
 *   <command> <message>                                 n times
 *
 * A command is numbered from 1, the first line after BATCH.
 */
#ifndef PVECG_RRDCACHED_ANSWER_H
#define PVECG_RRDCACHED_ANSWER_H

#include <stddef.h>
#include <sys/types.h>

struct rrdcached_answer_error {
  size_t command;      /* 1 .. the number of commands sent */
  const char *message; /* into the answer; not NUL-terminated */
  size_t message_len;
};

/*
 * Parses buf[0..len) as the answer to a BATCH of `commands` commands.
 * Returns the answer's length when buf holds all of it, with its error
 * lines in errors[0..*count) (at most `commands` of them, each command at
 * most once, in increasing order); 0 when more bytes are needed;
 * -EOPNOTSUPP when the daemon refused BATCH itself (its first line is not
 * "0 ..."); -EPROTO when the bytes cannot be such an answer.  errors must
 * have room for `commands` entries.
 */
ssize_t rrdcached_answer_parse(const char *buf, size_t len, size_t commands,
                               struct rrdcached_answer_error *errors,
                               size_t *count);

#endif
