/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Which guests to sample: collectd's select-list semantics over VMIDs.
 *
 * Entries are exact VMIDs ("101") or POSIX extended regular expressions
 * between slashes ("/^1[0-9]{2}$/"), matched against the decimal VMID.
 * With no entries every guest is selected; otherwise a guest is selected
 * when it matches an entry, or, with ignore_selected, when it matches none.
 * (collectd's own ignorelist is not exported to plugins.)
 */
#ifndef PVECG_VMID_SELECT_H
#define PVECG_VMID_SELECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Limits on a "/regex/" entry, so that compiling it stays cheap (glibc's
 * regcomp is exponential in stacked and nested repetitions): its pattern
 * length, its repetition operators (* + ? {), never two in a row, its
 * counted ones ({n,m}), each count at most 9 -- a VMID has at most 9
 * digits. */
#define VMID_SELECT_PATTERN_MAX 64
#define VMID_SELECT_REPEATS_MAX 6
#define VMID_SELECT_COUNTS_MAX 2

struct vmid_select;

/* Returns 0 or -ENOMEM. */
int vmid_select_new(struct vmid_select **ret);
void vmid_select_free(struct vmid_select *select);

/*
 * Adds an entry.  Returns 0, -EINVAL when it is neither a VMID nor a
 * "/regex/" within the limits above that compiles (error, of error_size
 * bytes, then says why), or -ENOMEM.
 */
int vmid_select_add(struct vmid_select *select, const char *entry, char *error,
                    size_t error_size);

void vmid_select_set_ignore_selected(struct vmid_select *select, bool ignore);

bool vmid_select_match(const struct vmid_select *select, uint32_t vmid);

#endif
