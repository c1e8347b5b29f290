/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pvecg check --owners (check_owners.c): the owners pve_rrd keeps of a
 * data directory's guest files, and settling one of them.
 */
#ifndef PVECG_CHECK_OWNERS_H
#define PVECG_CHECK_OWNERS_H

/* Every file with its owner and the hosts seen colliding (and since when).
 * An exit status: 1 when a host is seen colliding or the file is bad. */
int check_owners_list(const char *data_dir);

/* --give FILE HOST (host not NULL) or --forget FILE; an exit status. */
int check_owners_settle(const char *data_dir, const char *file,
                        const char *host);

#endif
