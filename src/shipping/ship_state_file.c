/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The shipper's state on disk (see ship_state.h): saved so that a crash at
 * any moment leaves the new version, or the previous one, whole; loaded
 * with a fallback to the previous version, never to nothing.
 */
#include "ship_state.h"

#include "pvecg/file_durable.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define STATE_MAX (256u * 1024 * 1024) /* far beyond 100,000 files */
#define WHY_SIZE 512

static int state_path(const char *dir, const char *id, const char *suffix,
                      char *buf, size_t size) {
  int n = snprintf(buf, size, "%s/%s.state%s", dir, id, suffix);
  return n > 0 && (size_t)n < size ? 0 : -ENAMETOOLONG;
}

int ship_state_read(const char *path, struct ship_state *state, char *why,
                    size_t why_size) {
  char *text = NULL;
  size_t len = 0;
  int r = file_read_whole(path, STATE_MAX, &text, &len);
  if (r == -EFBIG || r == -EIO) {
    snprintf(why, why_size, "%s",
             r == -EFBIG ? "not a state file (too big, "
                           "or not a regular file)"
                         : "changed while read");
    return -EINVAL;
  }
  if (r < 0) { /* missing, or cannot be read at all: not its content */
    snprintf(why, why_size, "%s", strerror(-r));
    return r;
  }
  r = ship_state_parse(text, len, state, why, why_size);
  free(text);
  return r;
}

int ship_state_load(const char *dir, struct ship_state *state, char *err,
                    size_t err_size) {
  char path[PATH_MAX], prev[PATH_MAX], why[WHY_SIZE] = "", pwhy[WHY_SIZE] = "";
  if (state_path(dir, state->id, "", path, sizeof(path)) < 0 ||
      state_path(dir, state->id, ".prev", prev, sizeof(prev)) < 0)
    return -ENAMETOOLONG;
  char target[SHIP_TARGET_SIZE];
  memcpy(target, state->target, sizeof(target));
  int r = ship_state_read(path, state, why, sizeof(why));
  if (r < 0 && r != -ENOENT && r != -EINVAL) {
    snprintf(err, err_size, "%s: %s", path, why);
    return r; /* the directory or the file cannot be read: not damage */
  }
  int p = r == 0 ? 0 : ship_state_read(prev, state, pwhy, sizeof(pwhy));
  memcpy(state->target, target, sizeof(target));
  if (r == 0)
    return 0;
  if (r == -ENOENT && p == -ENOENT)
    return 1;
  if (p == 0) {
    snprintf(err, err_size,
             "%s: %s; went back to %s, the version before it (the rows "
             "acknowledged since are sent again)",
             path, r == -ENOENT ? "missing" : why, prev);
    return 2;
  }
  snprintf(err, err_size,
           "%s: %s, and %s: %s.  Restore one, or remove both to start "
           "again from --since (the files' first rows when not given)",
           path, r == -ENOENT ? "missing" : why, prev,
           p == -ENOENT ? "missing" : pwhy);
  return -EINVAL;
}

static int format(FILE *out, const void *state) {
  return ship_state_format(state, out);
}

int ship_state_save(const char *dir, const struct ship_state *state, char *err,
                    size_t err_size) {
  char path[PATH_MAX], prev[PATH_MAX], tmp[PATH_MAX];
  int r = state_path(dir, state->id, "", path, sizeof(path));
  if (r == 0)
    r = state_path(dir, state->id, ".prev", prev, sizeof(prev));
  if (r == 0)
    r = state_path(dir, state->id, ".tmp", tmp, sizeof(tmp));
  /* The version it replaces stays as .prev. */
  if (r == 0)
    r = file_write_durably(dir, path, tmp, prev, 0600, format, state);
  if (r < 0)
    snprintf(err, err_size, "saving %s: %s", path, strerror(-r));
  return r;
}
