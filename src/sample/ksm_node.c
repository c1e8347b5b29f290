/* SPDX-License-Identifier: GPL-2.0-or-later */
/* /sys/kernel/mm/ksm/ on the node (see ksm_node.h). */
#include "pvecg/ksm_node.h"

#include "kept_file.h"
#include "pvecg/decimal.h"
#include "pvecg/ksm_stat.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

struct ksm_node_reader {
  char dir[PATH_MAX];
  struct kept_file file[KSM_NODE_VALUE_COUNT];
};

static const char *const files[KSM_NODE_VALUE_COUNT] = {
    [KSM_NODE_RUN] = "run",
    [KSM_NODE_PAGES_SHARED] = "pages_shared",
    [KSM_NODE_PAGES_SHARING] = "pages_sharing",
    [KSM_NODE_ZERO_PAGES] = "ksm_zero_pages",
    [KSM_NODE_GENERAL_PROFIT] = "general_profit",
};

const char *ksm_node_file(enum ksm_node_value v) { return files[v]; }

int ksm_node_reader_new(const char *sys_root, struct ksm_node_reader **ret) {
  struct ksm_node_reader *r = calloc(1, sizeof(*r));
  if (r == NULL)
    return -ENOMEM;
  int n = snprintf(r->dir, sizeof(r->dir), "%s/kernel/mm/ksm", sys_root);
  if (n < 0 || (size_t)n >= sizeof(r->dir) - 32) {
    free(r);
    return -EINVAL;
  }
  for (int i = 0; i < KSM_NODE_VALUE_COUNT; i++)
    r->file[i] = (struct kept_file)KEPT_FILE_INIT;
  *ret = r;
  return 0;
}

void ksm_node_reader_free(struct ksm_node_reader *reader) {
  if (reader == NULL)
    return;
  for (int i = 0; i < KSM_NODE_VALUE_COUNT; i++)
    kept_file_close(&reader->file[i]);
  free(reader);
}

/* One value: general_profit is signed, the others are not. */
static int read_value(struct ksm_node_reader *r, enum ksm_node_value v,
                      double *ret) {
  char path[PATH_MAX + 32], buf[64];
  struct kept_file *f = &r->file[v];
  snprintf(path, sizeof(path), "%s/%s", r->dir, files[v]);
  int err = kept_file_open(f, AT_FDCWD, path);
  size_t len = 0;
  if (err == 0 && (err = file_pread_all(f->fd, buf, sizeof(buf), &len)) < 0)
    kept_file_close(f); /* opened afresh next time */
  if (err < 0)
    return err;
  int64_t profit = 0;
  uint64_t count = 0;
  if (v == KSM_NODE_GENERAL_PROFIT)
    err = signed_file_parse(buf, len, &profit);
  else
    err = decimal_parse_u64_file(buf, len, &count);
  if (err < 0)
    return -EBADMSG;
  *ret = v == KSM_NODE_GENERAL_PROFIT ? (double)profit : (double)count;
  return 0;
}

void ksm_node_read(struct ksm_node_reader *reader,
                   struct ksm_node_sample *ret) {
  *ret = (struct ksm_node_sample){0};
  for (int v = 0; v < KSM_NODE_VALUE_COUNT; v++) {
    double value = 0;
    ret->error[v] = read_value(reader, (enum ksm_node_value)v, &value);
    if (ret->error[v] == 0) {
      ret->value[v] = value;
      ret->valid |= 1u << v;
    }
  }
}
