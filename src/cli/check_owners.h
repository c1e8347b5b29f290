/* SPDX-License-Identifier: GPL-2.0-or-later */
#ifndef PVECG_CHECK_OWNERS_H
#define PVECG_CHECK_OWNERS_H

/* pvecg check --owners: lists every guest file of data_dir with its owner
 * and the hosts seen colliding (exit status 1 when one is, or the owners
 * file is bad) or, file given, gives it to host or (host NULL) forgets
 * its collisions.  An exit status. */
int check_owners(const char *data_dir, const char *file, const char *host);

#endif
