/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Flat-keyed cgroup files: one "key value" pair per line (memory.stat,
 * cpu.stat, memory.events, v1 memory.stat).  The kernel adds keys between
 * releases, anywhere in the file, so they are looked up by name.
 */
#ifndef PVECG_FLAT_KEYED_H
#define PVECG_FLAT_KEYED_H

#include <stddef.h>
#include <stdint.h>

#define FLAT_KEYED_MAX_KEYS 64

/*
 * Looks up nkeys (<= FLAT_KEYED_MAX_KEYS) keys in buf.  For every key found
 * stores its value in values[i] and sets bit i of *found.  Keys not asked for
 * are skipped without looking at their values.  A key is the text before
 * the first space of its line and matches only exactly ("file" is not
 * "file_mapped"); the keys asked for contain no space.  Returns 0 (even when
 * some keys are missing: check *found), -EBADMSG when a wanted key appears
 * twice or its value is not an unsigned decimal followed by end of line ('\n'
 * or the end of buf), -ERANGE when its digits overflow 64 bits (whatever
 * follows them), -EINVAL when nkeys is too large.  values[i] of keys not found
 * is not written; on error neither values nor *found is.
 */
int flat_keyed_parse(const char *buf, size_t len, const char *const *keys,
                     size_t nkeys, uint64_t *values, uint64_t *found);

#endif
