/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The layouts in librrd's words (see rrd_words.h): the DS and RRA
 * definitions a file is created with, the check of an info list against a
 * layout, and the refusal of a row that is not newer.  Both ways to the
 * files use them -- librrd directly (rrd_file.c) and rrdcached
 * (rrdcached_client.c) -- so a file made or checked either way is made and
 * checked alike.
 */
#include "pvecg/rrd_words.h"

#include "rrd_text.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- definitions ------------------------------------------------------- */

int rrd_words_definitions(const struct rrd_layout *layout,
                          struct rrd_words_definitions *defs) {
  if (layout->ds_count > RRD_LAYOUT_DS_MAX ||
      layout->rra_count > RRD_WORDS_RRA_MAX)
    return -EINVAL;
  int argc = 0;
  for (size_t i = 0; i < layout->ds_count; i++, argc++) {
    char max[RRD_LAYOUT_MAX_TEXT];
    int n = snprintf(defs->text[argc], RRD_WORDS_DEF_SIZE, "DS:%s:%s:%lu:%s:%s",
                     layout->ds[i].name, rrd_ds_type_name(layout->ds[i].type),
                     layout->heartbeat, layout->ds[i].negative ? "U" : "0",
                     rrd_layout_max_text(layout, max));
    if (n < 0 || n >= RRD_WORDS_DEF_SIZE)
      return -EINVAL;
    defs->argv[argc] = defs->text[argc];
  }
  for (size_t i = 0; i < layout->rra_count; i++, argc++) {
    const struct rrd_rra_def *rra = &layout->rra[i];
    /* %.17g: the file holds exactly the xff the check compares against */
    int n =
        snprintf(defs->text[argc], RRD_WORDS_DEF_SIZE, "RRA:%s:%.17g:%lu:%lu",
                 rrd_cf_name(rra->cf), layout->xff, rra->steps, rra->rows);
    if (n < 0 || n >= RRD_WORDS_DEF_SIZE)
      return -EINVAL;
    defs->argv[argc] = defs->text[argc];
  }
  defs->argc = argc;
  return 0;
}

/* ---- the check of an info list ---------------------------------------- */

static const rrd_info_t *info_find(const rrd_info_t *info, const char *key,
                                   rrd_info_type_t type) {
  for (; info != NULL; info = info->next)
    if (info->type == type && strcmp(info->key, key) == 0)
      return info;
  return NULL;
}

__attribute__((format(printf, 3, 4))) static const rrd_info_t *
info_findf(const rrd_info_t *info, rrd_info_type_t type, const char *fmt, ...) {
  char key[128];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(key, sizeof(key), fmt, ap);
  va_end(ap);
  if (n < 0 || (size_t)n >= sizeof(key))
    return NULL;
  return info_find(info, key, type);
}

/* The name in "ds[<name>].index", copied into out (at most size-1 bytes). */
static int ds_key_name(const char *key, char *out, size_t size) {
  if (strncmp(key, "ds[", 3) != 0)
    return -EINVAL;
  const char *end = strstr(key + 3, "].index");
  if (end == NULL || strcmp(end, "].index") != 0)
    return -EINVAL;
  snprintf(out, size, "%.*s", (int)(end - (key + 3)), key + 3);
  return 0;
}

/* Name of the file's DS at position pos; -ENOENT when there is none. */
static int file_ds_at(const rrd_info_t *info, unsigned long pos, char *out,
                      size_t size) {
  for (; info != NULL; info = info->next)
    if (info->type == RD_I_CNT && info->value.u_cnt == pos &&
        ds_key_name(info->key, out, size) == 0)
      return 0;
  return -ENOENT;
}

static unsigned long file_ds_count(const rrd_info_t *info) {
  unsigned long count = 0;
  char name[64];
  for (; info != NULL; info = info->next)
    if (info->type == RD_I_CNT &&
        ds_key_name(info->key, name, sizeof(name)) == 0)
      count++;
  return count;
}

static unsigned long file_rra_count(const rrd_info_t *info) {
  unsigned long count = 0;
  while (info_findf(info, RD_I_STR, "rra[%lu].cf", count) != NULL)
    count++;
  return count;
}

/* Name and type of the DS at position i; the index must be i. */
static int check_ds_identity(const rrd_info_t *info,
                             const struct rrd_layout *layout, size_t i,
                             char *why, size_t why_size) {
  const struct rrd_ds_def *ds = &layout->ds[i];
  const char *want_type = rrd_ds_type_name(ds->type);
  const rrd_info_t *index =
      info_findf(info, RD_I_CNT, "ds[%s].index", ds->name);
  const rrd_info_t *type = info_findf(info, RD_I_STR, "ds[%s].type", ds->name);
  if (index != NULL && index->value.u_cnt == i && type != NULL &&
      strcmp(type->value.u_str, want_type) == 0)
    return 0;
  char name[64];
  if (file_ds_at(info, i, name, sizeof(name)) != 0) {
    rrd_text_set(why, why_size, "ds[%zu] is missing, expected '%s' (%s)", i,
                 ds->name, want_type);
    return -EPROTO;
  }
  type = info_findf(info, RD_I_STR, "ds[%s].type", name);
  rrd_text_set(why, why_size, "ds[%zu] is '%s' (%s), expected '%s' (%s)", i,
               name, type != NULL ? type->value.u_str : "no type", ds->name,
               want_type);
  return -EPROTO;
}

/* A DS limit as rrdtool writes it in a definition: "U" for unknown. */
static const char *limit_text(const rrd_info_t *v, char *buf, size_t size) {
  if (v == NULL)
    return "nothing";
  if (isnan(v->value.u_val))
    return "U";
  snprintf(buf, size, "%g", v->value.u_val);
  return buf;
}

/* Heartbeat, min 0 (U for a column that may be negative) and max (the
 * layout's, U for Proxmox's) of the DS at position i. */
static int check_ds_limits(const rrd_info_t *info,
                           const struct rrd_layout *layout, size_t i, char *why,
                           size_t why_size) {
  const char *name = layout->ds[i].name;
  const rrd_info_t *hb =
      info_findf(info, RD_I_CNT, "ds[%s].minimal_heartbeat", name);
  const rrd_info_t *min = info_findf(info, RD_I_VAL, "ds[%s].min", name);
  const rrd_info_t *max = info_findf(info, RD_I_VAL, "ds[%s].max", name);
  char text[32];
  if (hb == NULL) {
    rrd_text_set(why, why_size, "ds[%zu] '%s' has no heartbeat, expected %lu",
                 i, name, layout->heartbeat);
    return -EPROTO;
  }
  if (hb->value.u_cnt != layout->heartbeat) {
    rrd_text_set(why, why_size, "ds[%zu] '%s' has heartbeat %lu, expected %lu",
                 i, name, hb->value.u_cnt, layout->heartbeat);
    return -EPROTO;
  }
  bool negative = layout->ds[i].negative;
  if (min == NULL ||
      (negative ? !isnan(min->value.u_val) : min->value.u_val != 0)) {
    rrd_text_set(why, why_size, "ds[%zu] '%s' has min %s, expected %s", i, name,
                 limit_text(min, text, sizeof(text)), negative ? "U" : "0");
    return -EPROTO;
  }
  if (max == NULL || !rrd_layout_max_is(layout, max->value.u_val)) {
    char want[RRD_LAYOUT_MAX_TEXT];
    rrd_text_set(why, why_size, "ds[%zu] '%s' has max %s, expected %s", i, name,
                 limit_text(max, text, sizeof(text)),
                 rrd_layout_max_text(layout, want));
    return -EPROTO;
  }
  return 0;
}

static int check_all_ds(const rrd_info_t *info, const struct rrd_layout *layout,
                        char *why, size_t why_size) {
  for (size_t i = 0; i < layout->ds_count; i++) {
    int r = check_ds_identity(info, layout, i, why, why_size);
    if (r == 0)
      r = check_ds_limits(info, layout, i, why, why_size);
    if (r != 0)
      return r;
  }
  unsigned long count = file_ds_count(info);
  if (count > layout->ds_count) {
    char name[64] = "?";
    file_ds_at(info, layout->ds_count, name, sizeof(name));
    rrd_text_set(
        why, why_size,
        "the file has %lu data sources, expected %zu (ds[%zu] is '%s')", count,
        layout->ds_count, layout->ds_count, name);
    return -EPROTO;
  }
  return 0;
}

static int check_rra(const rrd_info_t *info, const struct rrd_layout *layout,
                     size_t i, char *why, size_t why_size) {
  const struct rrd_rra_def *want = &layout->rra[i];
  const char *want_cf = rrd_cf_name(want->cf);
  const rrd_info_t *cf = info_findf(info, RD_I_STR, "rra[%zu].cf", i);
  const rrd_info_t *steps =
      info_findf(info, RD_I_CNT, "rra[%zu].pdp_per_row", i);
  const rrd_info_t *rows = info_findf(info, RD_I_CNT, "rra[%zu].rows", i);
  const rrd_info_t *xff = info_findf(info, RD_I_VAL, "rra[%zu].xff", i);
  if (cf == NULL) {
    rrd_text_set(why, why_size, "rra[%zu] is missing, expected %s %lu:%lu", i,
                 want_cf, want->steps, want->rows);
    return -EPROTO;
  }
  unsigned long have_steps = steps != NULL ? steps->value.u_cnt : 0;
  unsigned long have_rows = rows != NULL ? rows->value.u_cnt : 0;
  if (strcmp(cf->value.u_str, want_cf) != 0 || have_steps != want->steps ||
      have_rows != want->rows) {
    rrd_text_set(why, why_size, "rra[%zu] is %s %lu:%lu, expected %s %lu:%lu",
                 i, cf->value.u_str, have_steps, have_rows, want_cf,
                 want->steps, want->rows);
    return -EPROTO;
  }
  if (xff == NULL || xff->value.u_val != layout->xff) {
    rrd_text_set(why, why_size, "rra[%zu] has xff %g, expected %g", i,
                 xff != NULL ? xff->value.u_val : NAN, layout->xff);
    return -EPROTO;
  }
  return 0;
}

int rrd_words_check_info(const struct rrd_layout *layout,
                         const rrd_info_t *info, char *why, size_t why_size) {
  const rrd_info_t *step = info_find(info, "step", RD_I_CNT);
  if (step == NULL || step->value.u_cnt != layout->step) {
    rrd_text_set(why, why_size, "step is %ld s, expected %lu s",
                 step != NULL ? (long)step->value.u_cnt : -1L, layout->step);
    return -EPROTO;
  }
  int r = check_all_ds(info, layout, why, why_size);
  for (size_t i = 0; r == 0 && i < layout->rra_count; i++)
    r = check_rra(info, layout, i, why, why_size);
  if (r != 0)
    return r;
  unsigned long count = file_rra_count(info);
  if (count > layout->rra_count) {
    rrd_text_set(why, why_size, "the file has %lu archives, expected %zu",
                 count, layout->rra_count);
    return -EPROTO;
  }
  return 0;
}

/* ---- refusals ---------------------------------------------------------- */

int rrd_words_refusal(const char *err, time_t *ret) {
  static const char marker[] = "when last update time is ";
  const char *p = err != NULL ? strstr(err, "illegal attempt to update") : NULL;
  p = p != NULL ? strstr(p, marker) : NULL;
  if (p == NULL)
    return -ENOENT;
  /* librrd prints whole seconds, rrdcached "%f": both read as a double */
  char *end;
  double y = strtod(p + sizeof(marker) - 1, &end);
  if (end == p + sizeof(marker) - 1 || !(y >= 0 && y < 1e15))
    return -ENOENT;
  *ret = (time_t)y;
  return 0;
}
