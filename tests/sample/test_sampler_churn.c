/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Churn soak of the sampler on a fixture tree: for thousands of runs,
 * guests are created, removed and re-created under the same VMID at
 * random.  Each guest's memory.current encodes its VMID and generation, so
 * every sample can be checked: it belongs to a guest that exists, carries
 * that guest's own numbers (no row under the wrong VMID, no stale file of
 * an earlier generation), every guest that existed for the whole run is
 * sampled exactly once, and afterwards the descriptors held are exactly
 * those of the guests left.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "fixture_tree.h"
#include "loop_count.h"
#include "pvecg/sampler.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SLOTS 24 /* VMIDs 100..123 */
#define RUNS 3000
#define CHANGES 3 /* per run */

static char root[256];

struct slot {
  bool exists;
  unsigned generation;
  unsigned seen; /* samples in the current run */
};

static struct slot slots[SLOTS];

static uint64_t encode(unsigned vmid, unsigned generation) {
  return (uint64_t)vmid * 1000000 + generation;
}

static void create(unsigned i) {
  char rel[64], text[32];
  struct slot *s = &slots[i];
  s->generation++;
  /* Made aside and moved into place, as a new cgroup is a new directory. */
  snprintf(rel, sizeof(rel), "cg/qemu.slice/new");
  snprintf(text, sizeof(text), "%llu\n",
           (unsigned long long)encode(100 + i, s->generation));
  fixture_guest(root, rel, text, "0");
  char from[PATH_MAX], to[PATH_MAX];
  snprintf(from, sizeof(from), "%s/cg/qemu.slice/new", root);
  snprintf(to, sizeof(to), "%s/cg/qemu.slice/%u.scope", root, 100 + i);
  assert_int_equal(rename(from, to), 0);
  s->exists = true;
}

/* A guest directory holds files only: unlink them, then the directory
 * (in-process, so thousands of runs stay fast). */
static void destroy(unsigned i) {
  char dir[PATH_MAX], path[PATH_MAX + 64];
  snprintf(dir, sizeof(dir), "%s/cg/qemu.slice/%u.scope", root, 100 + i);
  DIR *d = opendir(dir);
  assert_non_null(d);
  struct dirent *de;
  while ((de = readdir(d)) != NULL) {
    if (de->d_name[0] == '.')
      continue;
    int n = snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
    assert_true(n > 0 && (size_t)n < sizeof(path));
    assert_int_equal(unlink(path), 0);
  }
  closedir(d);
  assert_int_equal(rmdir(dir), 0);
  slots[i].exists = false;
}

static void check_sample(const struct guest_sample *g, void *ctx) {
  (void)ctx;
  assert_true(g->vmid >= 100 && g->vmid < 100 + SLOTS);
  struct slot *s = &slots[g->vmid - 100];
  assert_true(s->exists);
  assert_true(g->memory_valid);
  assert_int_equal(g->memory_used, encode(g->vmid, s->generation));
  s->seen++;
}

static void test_churn(void **state) {
  (void)state;
  srandom(6935);
  fixture_create(root, sizeof(root), "pvecg-churn");
  fixture_mkdir(root, "cg/qemu.slice");
  struct sampler_config c = {.types = {true, false}};
  snprintf(c.cgroup_root, sizeof(c.cgroup_root), "%s/cg", root);
  struct sampler *s;
  assert_int_equal(sampler_new(&c, &s), 0);
  unsigned long samples = 0;
  int runs = loop_count(RUNS);
  for (int run = 0; run < runs; run++) {
    for (int k = 0; k < CHANGES; k++) {
      unsigned i = (unsigned)random() % SLOTS;
      if (slots[i].exists && random() % 2)
        destroy(i);
      if (!slots[i].exists || random() % 4 == 0) {
        if (slots[i].exists)
          destroy(i);
        create(i); /* the same VMID, a new directory */
      }
    }
    for (unsigned i = 0; i < SLOTS; i++)
      slots[i].seen = 0;
    assert_int_equal(sampler_run(s, check_sample, NULL), 0);
    size_t existing = 0;
    for (unsigned i = 0; i < SLOTS; i++) {
      existing += slots[i].exists;
      assert_int_equal(slots[i].seen, slots[i].exists ? 1 : 0);
      samples += slots[i].seen;
    }
    assert_int_equal(sampler_guest_count(s), existing);
    assert_int_equal(
        sampler_fd_count(s),
        existing * (GUEST_FILE_COUNT - __builtin_popcount(GUEST_FILES_EXTRA)));
  }
  printf("# %d runs, %lu samples checked\n", runs, samples);
  sampler_free(s);
  fixture_remove(root);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_churn)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
