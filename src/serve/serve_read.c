/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The server's read lock and newest-row reader (see serve_read.h). */
#include "serve_read.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t read_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rrd_last_reader *reader;
static const struct serve_config *reader_config;

void serve_read_begin(void) { pthread_mutex_lock(&read_lock); }

void serve_read_end(void) { pthread_mutex_unlock(&read_lock); }

int serve_read_last(const struct serve_config *config, const char *path,
                    struct rrd_last_row *ret, char *err, size_t err_size) {
  /* one server, one configuration: a test may run several in turn */
  if (reader != NULL && reader_config != config) {
    rrd_last_reader_free(reader);
    reader = NULL;
  }
  if (reader == NULL) {
    int r = rrd_last_reader_new(config->daemon, &reader);
    if (r != 0) {
      snprintf(err, err_size, "cannot use the daemon's address");
      return r;
    }
    reader_config = config;
  }
  return rrd_last_read(reader, path, ret, err, err_size);
}
