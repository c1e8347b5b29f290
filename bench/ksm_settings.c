/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Saving, changing and restoring KSM's sysfs settings (see
 * ksm_settings.h).
 */
#include "ksm_settings.h"

#include "small_file.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

static void ksm_path(const char *name, char *buf, size_t size) {
  snprintf(buf, size, "%s/%s", KSM_DIR, name);
}

int ksm_read(const char *name, unsigned long *ret) {
  char path[PATH_MAX];
  ksm_path(name, path, sizeof(path));
  return small_file_read_ulong(path, ret);
}

static int ksm_write(const char *name, unsigned long value) {
  char path[PATH_MAX], text[32];
  ksm_path(name, path, sizeof(path));
  snprintf(text, sizeof(text), "%lu\n", value);
  return small_file_write(path, text);
}

int ksm_settings_save(struct ksm_settings *s) {
  memset(s, 0, sizeof(*s));
  int err = ksm_read("run", &s->run);
  if (err == 0)
    err = ksm_read("pages_to_scan", &s->pages_to_scan);
  if (err == 0)
    err = ksm_read("sleep_millisecs", &s->sleep_millisecs);
  s->saved = err == 0;
  return err;
}

int ksm_settings_set(struct ksm_settings *s, const char *name,
                     unsigned long value) {
  if (!s->saved)
    return -EINVAL;
  s->changed = true;
  return ksm_write(name, value);
}

static void keep_first(int *first, int err, const char *what) {
  if (err < 0)
    fprintf(stderr, "pvecg-bench: cannot restore KSM %s: %s\n", what,
            strerror(-err));
  if (*first == 0)
    *first = err;
}

int ksm_settings_restore(struct ksm_settings *s) {
  if (!s->saved || !s->changed)
    return 0;
  int first = 0;
  /* run=2 stops ksmd and unmerges every merged page (it returns when
   * done); the original run value then applies to a clean state. */
  keep_first(&first, ksm_write("run", 2), "run=2 (unmerge)");
  keep_first(&first, ksm_write("pages_to_scan", s->pages_to_scan),
             "pages_to_scan");
  keep_first(&first, ksm_write("sleep_millisecs", s->sleep_millisecs),
             "sleep_millisecs");
  keep_first(&first, ksm_write("run", s->run), "run");
  s->changed = false;
  return first;
}
