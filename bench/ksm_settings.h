/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The host's KSM settings (/sys/kernel/mm/ksm/) that the KSM mode changes:
 * saved before the first change, and every one of them written back by
 * ksm_settings_restore, which also unmerges everything (run=2) before
 * putting the original run value back.
 */
#ifndef PVECG_BENCH_KSM_SETTINGS_H
#define PVECG_BENCH_KSM_SETTINGS_H

#include <stdbool.h>

#define KSM_DIR "/sys/kernel/mm/ksm"

struct ksm_settings {
  unsigned long run, pages_to_scan, sleep_millisecs;
  bool saved;
  bool changed; /* something was written since the save */
};

/* Returns 0, or a negative errno (-ENOENT: no KSM in this kernel). */
int ksm_settings_save(struct ksm_settings *settings);

/* Writes one setting (marks the settings changed first). */
int ksm_settings_set(struct ksm_settings *settings, const char *name,
                     unsigned long value);

/* Reads a counter or setting of KSM_DIR, e.g. "pages_sharing". */
int ksm_read(const char *name, unsigned long *ret);

/* Unmerges (run=2) and writes every saved value back, when anything was
 * changed.  Returns 0 or the first error (after trying all). */
int ksm_settings_restore(struct ksm_settings *settings);

#endif
