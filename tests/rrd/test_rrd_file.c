/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Tests of rrd/file/rrd_file.c against the real librrd: files are made in a
 * temporary directory and read back with rrd_info_r, and the check is fed
 * files made with definitions that differ from a layout in one property.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "pvecg/rrd_file.h"
#include "rrd_fixture.h"
#include "pvecg/rrd_row.h"

#include <rrd.h>

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define START 1700000000 /* 2023-11-14 22:13:20 UTC */

struct fixture {
  char *dir;
  char path[512];
};

static int setup(void **state) {
  struct fixture *f = calloc(1, sizeof(*f));
  f->dir = fixture_tmpdir("rrd-file");
  snprintf(f->path, sizeof(f->path), "%s/100", f->dir);
  *state = f;
  return 0;
}

static int teardown(void **state) {
  struct fixture *f = *state;
  fixture_remove(f->dir);
  free(f->dir);
  free(f);
  return 0;
}

/* ---- helpers ----------------------------------------------------------- */

static const rrd_info_t *find(const rrd_info_t *info, const char *key) {
  for (; info != NULL; info = info->next)
    if (strcmp(info->key, key) == 0)
      return info;
  fail_msg("no key %s", key);
  return NULL;
}

static unsigned long cnt(const rrd_info_t *info, const char *key) {
  const rrd_info_t *i = find(info, key);
  assert_int_equal(i->type, RD_I_CNT);
  return i->value.u_cnt;
}

static const char *str(const rrd_info_t *info, const char *key) {
  const rrd_info_t *i = find(info, key);
  assert_int_equal(i->type, RD_I_STR);
  return i->value.u_str;
}

static double val(const rrd_info_t *info, const char *key) {
  const rrd_info_t *i = find(info, key);
  assert_int_equal(i->type, RD_I_VAL);
  return i->value.u_val;
}

static size_t count_keys(const rrd_info_t *info, const char *prefix,
                         const char *suffix) {
  size_t n = 0;
  for (; info != NULL; info = info->next) {
    size_t kl = strlen(info->key), sl = strlen(suffix);
    if (strncmp(info->key, prefix, strlen(prefix)) == 0 && kl > sl &&
        strcmp(info->key + kl - sl, suffix) == 0 &&
        strstr(info->key, "cdp_prep") == NULL)
      n++;
  }
  return n;
}

/* Every DS and RRA of the file at path against the layout table. */
static void assert_file_matches(const char *path,
                                const struct rrd_layout *layout, time_t start) {
  rrd_info_t *info = rrd_info_r(path);
  assert_non_null(info);
  assert_string_equal(str(info, "rrd_version"), "0003");
  assert_int_equal(cnt(info, "step"), 60);
  assert_int_equal(cnt(info, "last_update"), start);
  assert_int_equal(count_keys(info, "ds[", "].index"), layout->ds_count);
  for (size_t i = 0; i < layout->ds_count; i++) {
    char key[128];
    const char *name = layout->ds[i].name;
    snprintf(key, sizeof(key), "ds[%s].index", name);
    assert_int_equal(cnt(info, key), i);
    snprintf(key, sizeof(key), "ds[%s].type", name);
    assert_string_equal(str(info, key), rrd_ds_type_name(layout->ds[i].type));
    snprintf(key, sizeof(key), "ds[%s].minimal_heartbeat", name);
    assert_int_equal(cnt(info, key), 120);
    snprintf(key, sizeof(key), "ds[%s].min", name);
    assert_true(layout->ds[i].negative ? isnan(val(info, key))
                                       : val(info, key) == 0);
    snprintf(key, sizeof(key), "ds[%s].max", name);
    assert_true(layout->ds_max == 0 ? isnan(val(info, key))
                                    : val(info, key) == layout->ds_max);
  }
  assert_int_equal(count_keys(info, "rra[", "].cf"), layout->rra_count);
  for (size_t i = 0; i < layout->rra_count; i++) {
    char key[128];
    snprintf(key, sizeof(key), "rra[%zu].cf", i);
    assert_string_equal(str(info, key), rrd_cf_name(layout->rra[i].cf));
    snprintf(key, sizeof(key), "rra[%zu].pdp_per_row", i);
    assert_int_equal(cnt(info, key), layout->rra[i].steps);
    snprintf(key, sizeof(key), "rra[%zu].rows", i);
    assert_int_equal(cnt(info, key), layout->rra[i].rows);
    snprintf(key, sizeof(key), "rra[%zu].xff", i);
    assert_true(val(info, key) == 0.5);
  }
  rrd_info_free(info);
}

static off_t file_size(const char *path) {
  struct stat st;
  assert_int_equal(stat(path, &st), 0);
  return st.st_size;
}

static mode_t file_mode(const char *path) {
  struct stat st;
  assert_int_equal(stat(path, &st), 0);
  return st.st_mode & 07777;
}

static size_t dir_entries(const char *dir) {
  DIR *d = opendir(dir);
  assert_non_null(d);
  size_t n = 0;
  struct dirent *de;
  while ((de = readdir(d)) != NULL)
    n += strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0;
  closedir(d);
  return n;
}

static void create_ok(const struct rrd_layout *layout, const char *path,
                      time_t start) {
  char err[512] = "";
  int r = rrd_file_create(layout, path, start, err, sizeof(err));
  if (r != 0)
    fail_msg("create %s: %d %s", path, r, err);
}

/* ---- creation ---------------------------------------------------------- */

static void test_create_vm(void **state) {
  struct fixture *f = *state;
  create_ok(&layout_pve_vm_9_0, f->path, START);
  assert_file_matches(f->path, &layout_pve_vm_9_0, START);
  /* as measured on PVE's own files */
  assert_int_equal(file_size(f->path), 1346072);
  assert_int_equal(file_mode(f->path), 0644);
  time_t last = 0;
  assert_int_equal(rrd_file_last_update(f->path, &last, NULL, 0), 0);
  assert_int_equal(last, START);
  char why[256] = "";
  assert_int_equal(
      rrd_file_check(&layout_pve_vm_9_0, f->path, why, sizeof(why)), 0);
  /* the private directory librrd wrote into is gone */
  assert_int_equal(dir_entries(f->dir), 1);
}

static void test_create_every_layout(void **state) {
  struct fixture *f = *state;
  for (size_t i = 0; i < rrd_layouts_count; i++) {
    char path[600];
    fixture_path(path, "%s/%s", f->dir, rrd_layouts[i]->name);
    create_ok(rrd_layouts[i], path, START + (time_t)i);
    assert_file_matches(path, rrd_layouts[i], START + (time_t)i);
    assert_int_equal(file_mode(path), 0644);
    for (size_t j = 0; j < rrd_layouts_count; j++) {
      char why[256] = "";
      /* the guests' and the node's stall-time files are alike: only their
       * directories tell them apart */
      bool alike = rrd_layouts[i]->ds == rrd_layouts[j]->ds &&
                   rrd_layouts[i]->ds_count == rrd_layouts[j]->ds_count &&
                   rrd_layouts[i]->rra == rrd_layouts[j]->rra;
      assert_int_equal(rrd_file_check(rrd_layouts[j], path, why, sizeof(why)),
                       alike ? 0 : -EPROTO);
      assert_true(alike || why[0] != '\0');
    }
  }
  char path[600];
  fixture_path(path, "%s/pve2-vm", f->dir);
  assert_int_equal(file_size(path), 67744); /* as measured on PVE's own files */
  assert_int_equal(dir_entries(f->dir), rrd_layouts_count);
}

/* librrd chmods its temporary file to 0644 whatever the umask; PVE's files
 * are 0644, and readers running as other users depend on it. */
static void test_create_mode_ignores_umask(void **state) {
  struct fixture *f = *state;
  const mode_t masks[] = {077, 027, 0};
  for (size_t i = 0; i < 3; i++) {
    char path[600];
    fixture_path(path, "%s/m%zu", f->dir, i);
    mode_t old = umask(masks[i]);
    create_ok(&layout_pve2_vm, path, START);
    umask(old);
    assert_int_equal(file_mode(path), 0644);
  }
}

static void assert_exists_untouched(const char *path) {
  size_t len = 0;
  char *before = fixture_read(path, &len);
  char err[512] = "";
  assert_int_equal(
      rrd_file_create(&layout_pve_vm_9_0, path, START + 3600, err, sizeof(err)),
      -EEXIST);
  if (before != NULL)
    assert_true(fixture_same(path, before, len));
  free(before);
}

static void test_create_never_overwrites(void **state) {
  struct fixture *f = *state;
  create_ok(&layout_pve_vm_9_0, f->path, START);
  assert_exists_untouched(f->path);
  time_t last = 0;
  assert_int_equal(rrd_file_last_update(f->path, &last, NULL, 0), 0);
  assert_int_equal(last, START);

  char path[600];
  fixture_path(path, "%s/text", f->dir);
  fixture_write(path, "not an rrd\n", 11);
  assert_exists_untouched(path);
  fixture_path(path, "%s/dangling", f->dir);
  assert_int_equal(symlink("/nonexistent/target", path), 0);
  assert_exists_untouched(path);
  fixture_path(path, "%s/dir", f->dir);
  assert_int_equal(mkdir(path, 0755), 0);
  assert_exists_untouched(path);
  assert_int_equal(dir_entries(f->dir), 4);
}

static void test_create_without_directory(void **state) {
  struct fixture *f = *state;
  char path[600], err[512] = "";
  fixture_path(path, "%s/missing/100", f->dir);
  assert_int_equal(
      rrd_file_create(&layout_pve_vm_9_0, path, START, err, sizeof(err)), -EIO);
  assert_true(err[0] != '\0');
  assert_int_equal(rrd_file_create(&layout_pve_vm_9_0, path, START, NULL, 0),
                   -EIO);
}

/* librrd refusing the definitions leaves nothing behind in the directory. */
static void test_create_refused_leaves_nothing(void **state) {
  struct fixture *f = *state;
  static const struct rrd_ds_def bad_ds[] = {
      {"cpu", (enum rrd_ds_type)99, false}};
  struct rrd_layout bad = layout_pve2_vm;
  bad.ds = bad_ds;
  bad.ds_count = 1;
  char err[512] = "";
  assert_int_equal(rrd_file_create(&bad, f->path, START, err, sizeof(err)),
                   -EIO);
  assert_non_null(strstr(err, "librrd"));
  assert_int_equal(dir_entries(f->dir), 0);
}

/* ---- check ------------------------------------------------------------- */

/* The definitions of a layout as rrdtool arguments, to be edited. */
struct defs {
  char arg[80][128];
  int n;
};

static void defs_of(const struct rrd_layout *layout, struct defs *d) {
  d->n = 0;
  char max[RRD_LAYOUT_MAX_TEXT];
  for (size_t i = 0; i < layout->ds_count; i++)
    snprintf(d->arg[d->n++], 128, "DS:%s:%s:120:%s:%s", layout->ds[i].name,
             rrd_ds_type_name(layout->ds[i].type),
             layout->ds[i].negative ? "U" : "0",
             rrd_layout_max_text(layout, max));
  for (size_t i = 0; i < layout->rra_count; i++)
    snprintf(d->arg[d->n++], 128, "RRA:%s:0.5:%lu:%lu",
             rrd_cf_name(layout->rra[i].cf), layout->rra[i].steps,
             layout->rra[i].rows);
}

static void defs_remove(struct defs *d, int i) {
  memmove(d->arg[i], d->arg[i + 1], (size_t)(d->n - i - 1) * sizeof(d->arg[0]));
  d->n--;
}

static void defs_insert(struct defs *d, int i, const char *arg) {
  memmove(d->arg[i + 1], d->arg[i], (size_t)(d->n - i) * sizeof(d->arg[0]));
  snprintf(d->arg[i], 128, "%s", arg);
  d->n++;
}

static void make_rrd(const char *path, unsigned long step,
                     const struct defs *d) {
  const char *argv[80];
  for (int i = 0; i < d->n; i++)
    argv[i] = d->arg[i];
  rrd_clear_error();
  if (rrd_create_r2(path, step, START, 0, NULL, NULL, d->n, argv) != 0)
    fail_msg("rrd_create_r2: %s", rrd_get_error());
}

/* The vm layout with one edit; the check must fail with why containing want. */
/* The file of definitions d differs from layout as want says. */
static void assert_variant_of(const struct rrd_layout *layout, const char *path,
                              const struct defs *d, unsigned long step,
                              const char *want) {
  unlink(path);
  make_rrd(path, step, d);
  char why[256] = "";
  assert_int_equal(rrd_file_check(layout, path, why, sizeof(why)), -EPROTO);
  if (strstr(why, want) == NULL)
    fail_msg("why is \"%s\", expected it to contain \"%s\"", why, want);
}

static void assert_variant(const char *path, const struct defs *d,
                           unsigned long step, const char *want) {
  assert_variant_of(&layout_pve_vm_9_0, path, d, step, want);
}

#define VM_DS 17 /* the first RRA argument */

static void test_check_ds_differences(void **state) {
  struct fixture *f = *state;
  struct defs d;
  defs_of(&layout_pve_vm_9_0, &d);
  make_rrd(f->path, 60, &d); /* the unedited definitions pass */
  assert_int_equal(rrd_file_check(&layout_pve_vm_9_0, f->path, NULL, 0), 0);

  snprintf(d.arg[3], 128, "DS:memx:GAUGE:120:0:U");
  assert_variant(f->path, &d, 60,
                 "ds[3] is 'memx' (GAUGE), expected 'mem' (GAUGE)");

  defs_of(&layout_pve_vm_9_0, &d); /* types swapped */
  snprintf(d.arg[1], 128, "DS:cpu:DERIVE:120:0:U");
  snprintf(d.arg[6], 128, "DS:netin:GAUGE:120:0:U");
  assert_variant(f->path, &d, 60,
                 "ds[1] is 'cpu' (DERIVE), expected 'cpu' (GAUGE)");

  defs_of(&layout_pve_vm_9_0, &d); /* order swapped */
  snprintf(d.arg[0], 128, "DS:cpu:GAUGE:120:0:U");
  snprintf(d.arg[1], 128, "DS:maxcpu:GAUGE:120:0:U");
  assert_variant(f->path, &d, 60,
                 "ds[0] is 'cpu' (GAUGE), expected 'maxcpu' (GAUGE)");

  defs_of(&layout_pve_vm_9_0, &d); /* last DS missing */
  defs_remove(&d, 16);
  assert_variant(f->path, &d, 60,
                 "ds[16] is missing, expected 'pressurememoryfull' (GAUGE)");

  defs_of(&layout_pve_vm_9_0, &d); /* a middle DS missing */
  defs_remove(&d, 10);
  assert_variant(f->path, &d, 60,
                 "ds[10] is 'pressurecpusome' (GAUGE), expected 'memhost'");

  defs_of(&layout_pve_vm_9_0, &d); /* an extra DS */
  defs_insert(&d, VM_DS, "DS:extra:GAUGE:120:0:U");
  assert_variant(f->path, &d, 60,
                 "the file has 18 data sources, expected 17 (ds[17] is "
                 "'extra')");

  defs_of(&layout_pve_vm_9_0, &d);
  snprintf(d.arg[8], 128, "DS:diskread:COUNTER:120:0:U");
  assert_variant(f->path, &d, 60,
                 "ds[8] is 'diskread' (COUNTER), expected 'diskread' "
                 "(DERIVE)");
}

static void test_check_ds_limits(void **state) {
  struct fixture *f = *state;
  struct defs d;
  defs_of(&layout_pve_vm_9_0, &d);
  snprintf(d.arg[5], 128, "DS:disk:GAUGE:300:0:U");
  assert_variant(f->path, &d, 60,
                 "ds[5] 'disk' has heartbeat 300, expected 120");

  defs_of(&layout_pve_vm_9_0, &d);
  snprintf(d.arg[0], 128, "DS:maxcpu:GAUGE:120:U:U");
  assert_variant(f->path, &d, 60, "ds[0] 'maxcpu' has min U, expected 0");

  defs_of(&layout_pve_vm_9_0, &d);
  snprintf(d.arg[1], 128, "DS:cpu:GAUGE:120:0:100");
  assert_variant(f->path, &d, 60, "ds[1] 'cpu' has max 100, expected U");

  /* the KSM profit may be negative: its min is U, and 0 is another layout
   * (where a negative profit would be stored as unknown) */
  defs_of(&layout_pvecg_ksm_vm_1_0, &d);
  assert_string_equal(d.arg[2], "DS:ksmprofit:GAUGE:120:U:U");
  snprintf(d.arg[2], 128, "DS:ksmprofit:GAUGE:120:0:U");
  assert_variant_of(&layout_pvecg_ksm_vm_1_0, f->path, &d, 60,
                    "ds[2] 'ksmprofit' has min 0, expected U");

  /* the stall columns' max is 100 % of the time: a file without it (or
   * with another) is not of the layout */
  defs_of(&layout_pvecg_pressure_vm_1_0, &d);
  assert_string_equal(d.arg[0], "DS:stallcpusome:DERIVE:120:0:1000000");
  make_rrd(f->path, 60, &d);
  assert_int_equal(
      rrd_file_check(&layout_pvecg_pressure_vm_1_0, f->path, NULL, 0), 0);
  snprintf(d.arg[4], 128, "DS:stallmemorysome:DERIVE:120:0:U");
  assert_variant_of(&layout_pvecg_pressure_vm_1_0, f->path, &d, 60,
                    "ds[4] 'stallmemorysome' has max U, expected 1000000");
  snprintf(d.arg[4], 128, "DS:stallmemorysome:DERIVE:120:0:100");
  assert_variant_of(&layout_pvecg_pressure_vm_1_0, f->path, &d, 60,
                    "ds[4] 'stallmemorysome' has max 100, expected 1000000");
}

/* A stall counter that jumps by more than the time elapsed (recorded after
 * a restart) is an unknown row; exactly 100 % of the time is kept. */
static void test_stall_above_full_unknown(void **state) {
  struct fixture *f = *state;
  create_ok(&layout_pvecg_pressure_vm_1_0, f->path, START);
  long long b = START - START % 60 + 60; /* updates on the rows' bounds */
  char rows[3][96];
  snprintf(rows[0], sizeof(rows[0]), "%lld:0:0:0:0:0:0", b);
  snprintf(rows[1], sizeof(rows[1]), "%lld:60000000:0:0:0:0:0",
           b + 60); /* 100 % */
  snprintf(rows[2], sizeof(rows[2]), "%lld:120000060:0:0:0:0:0",
           b + 120); /* 1 us above 100 % for each second */
  const char *argv[] = {rows[0], rows[1], rows[2]};
  rrd_clear_error();
  assert_int_equal(rrd_update_r(f->path, NULL, 3, argv), 0);
  time_t start = b, end = b + 120;
  unsigned long step = 60, ds_count;
  char **names;
  rrd_value_t *data;
  assert_int_equal(rrd_fetch_r(f->path, "AVERAGE", &start, &end, &step,
                               &ds_count, &names, &data),
                   0);
  /* row k of data ends at start + (k + 1) * step */
  long long first = (b - (long long)start) / 60; /* the row ending b+60 */
  assert_true(first >= 0);
  assert_true(data[first * ds_count] == 1e6);
  assert_true(isnan(data[(first + 1) * ds_count]));
  for (unsigned long i = 0; i < ds_count; i++)
    rrd_freemem(names[i]);
  rrd_freemem(names);
  rrd_freemem(data);
}

/* A negative KSM profit is kept as it is. */
static void test_negative_profit(void **state) {
  struct fixture *f = *state;
  create_ok(&layout_pvecg_ksm_vm_1_0, f->path, START);
  assert_int_equal(rrd_file_check(&layout_pvecg_ksm_vm_1_0, f->path, NULL, 0),
                   0);
  char row[64];
  snprintf(row, sizeof(row), "%lld:10:U:-98304:40960", (long long)START + 60);
  const char *argv[] = {row};
  rrd_clear_error();
  assert_int_equal(rrd_update_r(f->path, NULL, 1, argv), 0);
  rrd_info_t *info = rrd_info_r(f->path);
  assert_non_null(info);
  bool found = false;
  for (rrd_info_t *i = info; i != NULL; i = i->next)
    if (strcmp(i->key, "ds[ksmprofit].last_ds") == 0) {
      assert_string_equal(i->value.u_str, "-98304");
      found = true;
    }
  rrd_info_free(info);
  assert_true(found);
}

static void test_check_step_and_rra_differences(void **state) {
  struct fixture *f = *state;
  struct defs d;
  defs_of(&layout_pve_vm_9_0, &d);
  assert_variant(f->path, &d, 300, "step is 300 s, expected 60 s");

  snprintf(d.arg[VM_DS + 2], 128, "RRA:AVERAGE:0.5:360:1000");
  assert_variant(f->path, &d, 60,
                 "rra[2] is AVERAGE 360:1000, expected AVERAGE 360:1440");

  defs_of(&layout_pve_vm_9_0, &d);
  snprintf(d.arg[VM_DS + 5], 128, "RRA:MAX:0.5:60:1440");
  assert_variant(f->path, &d, 60,
                 "rra[5] is MAX 60:1440, expected MAX 30:1440");

  defs_of(&layout_pve_vm_9_0, &d);
  snprintf(d.arg[VM_DS], 128, "RRA:MAX:0.5:1:1440");
  assert_variant(f->path, &d, 60,
                 "rra[0] is MAX 1:1440, expected AVERAGE 1:1440");

  defs_of(&layout_pve_vm_9_0, &d); /* fewer RRAs */
  defs_remove(&d, VM_DS + 7);
  assert_variant(f->path, &d, 60, "rra[7] is missing, expected MAX 10080:570");

  defs_of(&layout_pve_vm_9_0, &d);
  defs_insert(&d, d.n, "RRA:MIN:0.5:1:1440");
  assert_variant(f->path, &d, 60, "the file has 9 archives, expected 8");

  defs_of(&layout_pve_vm_9_0, &d);
  snprintf(d.arg[VM_DS + 3], 128, "RRA:AVERAGE:0.3:10080:570");
  assert_variant(f->path, &d, 60, "rra[3] has xff 0.3, expected 0.5");
}

/* The realistic mix-ups: a PVE 8 file, a node file, a vm file. */
static void test_check_other_layouts(void **state) {
  struct fixture *f = *state;
  char why[256] = "";
  create_ok(&layout_pve2_vm, f->path, START);
  assert_int_equal(
      rrd_file_check(&layout_pve_vm_9_0, f->path, why, sizeof(why)), -EPROTO);
  assert_string_equal(why, "ds[10] is missing, expected 'memhost' (GAUGE)");
  unlink(f->path);
  create_ok(&layout_pve_node_9_0, f->path, START);
  assert_int_equal(
      rrd_file_check(&layout_pve_vm_9_0, f->path, why, sizeof(why)), -EPROTO);
  assert_string_equal(why,
                      "ds[0] is 'loadavg' (GAUGE), expected 'maxcpu' (GAUGE)");
  unlink(f->path);
  create_ok(&layout_pve_vm_9_0, f->path, START);
  assert_int_equal(rrd_file_check(&layout_pve2_vm, f->path, why, sizeof(why)),
                   -EPROTO);
  assert_string_equal(why,
                      "the file has 17 data sources, expected 10 (ds[10] is "
                      "'memhost')");
}

static void assert_not_rrd(const char *path) {
  char why[256] = "";
  assert_int_equal(rrd_file_check(&layout_pve_vm_9_0, path, why, sizeof(why)),
                   -EIO);
  assert_true(why[0] != '\0');
}

static void test_check_not_rrd(void **state) {
  struct fixture *f = *state;
  char path[600];
  fixture_path(path, "%s/text", f->dir);
  fixture_write(path, "hello, this is not an RRD file at all\n", 38);
  assert_not_rrd(path);
  fixture_path(path, "%s/empty", f->dir);
  fixture_write(path, "", 0);
  assert_not_rrd(path);
  fixture_path(path, "%s/dir", f->dir);
  assert_int_equal(mkdir(path, 0755), 0);
  assert_not_rrd(path);

  create_ok(&layout_pve_vm_9_0, f->path, START);
  size_t len = 0;
  char *bytes = fixture_read(f->path, &len);
  assert_non_null(bytes);
  const size_t cuts[] = {1, 100, 1000, 15991, 15992, len / 2, len - 1};
  for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
    fixture_path(path, "%s/cut%zu", f->dir, cuts[i]);
    fixture_write(path, bytes, cuts[i]);
    assert_not_rrd(path);
  }
  fixture_path(path, "%s/cookie", f->dir);
  memcpy(bytes, "XYZ", 3); /* the "RRD" cookie */
  fixture_write(path, bytes, len);
  assert_not_rrd(path);
  free(bytes);
}

static void test_check_missing(void **state) {
  struct fixture *f = *state;
  char path[600], why[256] = "";
  assert_int_equal(
      rrd_file_check(&layout_pve_vm_9_0, f->path, why, sizeof(why)), -ENOENT);
  fixture_path(path, "%s/text", f->dir);
  fixture_write(path, "x", 1);
  fixture_path(path, "%s/text/100", f->dir); /* a file where a dir should be */
  assert_int_equal(rrd_file_check(&layout_pve_vm_9_0, path, why, sizeof(why)),
                   -ENOENT);
}

/* ---- update ------------------------------------------------------------ */

static void test_update_round_trip(void **state) {
  struct fixture *f = *state;
  create_ok(&layout_pve_vm_9_0, f->path, START);
  double v[17];
  for (size_t i = 0; i < 17; i++)
    v[i] = (double)(i * 1000) +
           0.5 * (layout_pve_vm_9_0.ds[i].type == RRD_DS_GAUGE);
  char row[RRD_ROW_SIZE], err[512] = "";
  assert_true(rrd_row_format(&layout_pve_vm_9_0, START + 60, v, 17, row,
                             sizeof(row)) > 0);
  assert_int_equal(rrd_file_update(f->path, row, err, sizeof(err)), 0);
  time_t last = 0;
  assert_int_equal(rrd_file_last_update(f->path, &last, err, sizeof(err)), 0);
  assert_int_equal(last, START + 60);

  time_t t = 0;
  unsigned long n = 0;
  char **names = NULL, **values = NULL;
  assert_int_equal(rrd_lastupdate_r(f->path, &t, &n, &names, &values), 0);
  assert_int_equal(n, 17);
  char *field = strchr(row, ':');
  for (unsigned long i = 0; i < n; i++) {
    assert_string_equal(names[i], layout_pve_vm_9_0.ds[i].name);
    size_t flen = strcspn(field + 1, ":");
    assert_int_equal(strlen(values[i]), flen);
    assert_memory_equal(values[i], field + 1, flen);
    field += flen + 1;
    free(names[i]);
    free(values[i]);
  }
  free(names);
  free(values);
}

static void test_update_not_newer(void **state) {
  struct fixture *f = *state;
  create_ok(&layout_pve2_vm, f->path, START);
  char err[512] = "";
  assert_int_equal(rrd_file_update(f->path, "1700000060:1:2:3:4:5:6:7:8:9:10",
                                   err, sizeof(err)),
                   0);
  size_t len = 0;
  char *before = fixture_read(f->path, &len);
  assert_int_equal(rrd_file_update(f->path, "1700000060:1:2:3:4:5:6:7:8:9:10",
                                   err, sizeof(err)),
                   -EIO);
  assert_non_null(strstr(err, "illegal attempt to update"));
  assert_int_equal(rrd_file_update(f->path, "1700000030:1:2:3:4:5:6:7:8:9:10",
                                   err, sizeof(err)),
                   -EIO);
  assert_int_equal(
      rrd_file_update(f->path, "1700000120:1:2:3", err, sizeof(err)), -EIO);
  assert_true(fixture_same(f->path, before, len));
  free(before);
  time_t last = 0;
  assert_int_equal(rrd_file_last_update(f->path, &last, NULL, 0), 0);
  assert_int_equal(last, START + 60);
}

static void test_update_missing_file(void **state) {
  struct fixture *f = *state;
  char err[512] = "";
  assert_int_equal(rrd_file_update(f->path, "1700000060:1", err, sizeof(err)),
                   -EIO);
  assert_true(err[0] != '\0');
  time_t last = 42;
  assert_int_equal(rrd_file_last_update(f->path, &last, err, sizeof(err)),
                   -EIO);
  assert_int_equal(last, 42); /* untouched on failure */
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_create_vm, setup, teardown),
      cmocka_unit_test_setup_teardown(test_create_every_layout, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_create_mode_ignores_umask, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_create_never_overwrites, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_create_without_directory, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_create_refused_leaves_nothing, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_check_ds_differences, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_check_ds_limits, setup, teardown),
      cmocka_unit_test_setup_teardown(test_negative_profit, setup, teardown),
      cmocka_unit_test_setup_teardown(test_stall_above_full_unknown, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_check_step_and_rra_differences,
                                      setup, teardown),
      cmocka_unit_test_setup_teardown(test_check_other_layouts, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_check_not_rrd, setup, teardown),
      cmocka_unit_test_setup_teardown(test_check_missing, setup, teardown),
      cmocka_unit_test_setup_teardown(test_update_round_trip, setup, teardown),
      cmocka_unit_test_setup_teardown(test_update_not_newer, setup, teardown),
      cmocka_unit_test_setup_teardown(test_update_missing_file, setup,
                                      teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
