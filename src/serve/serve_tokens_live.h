/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The tokens of a running `pvecg serve` and their scopes, as the token
 * file and the user.cfg of each cluster a scope's pools are in say now:
 * a pool that loses a guest in Proxmox's GUI loses it in the tenant's
 * answers within seconds, without a restart.  The files are looked at (a
 * stat each: device, inode, size, mtime) at most every RECHECK seconds,
 * by the first request after that; a change loads them anew, and the new
 * tokens replace the old ones at once for every request that starts
 * after (a request holds the ones it started with until its answer is
 * made).  Files that no longer read keep the last good tokens and scopes
 * (a scope is never widened by a mistake), logged once until they read
 * again.
 */
#ifndef PVECG_SERVE_TOKENS_LIVE_H
#define PVECG_SERVE_TOKENS_LIVE_H

#include "pvecg/serve.h"

#include "serve_auth.h"

#include <stdio.h>

#define SERVE_TOKENS_RECHECK 2.0 /* seconds between two looks */

struct serve_tokens_live;

/* Takes over tokens (loaded from path); log gets the lines to write.  Returns
 * 0 or -ENOMEM. */
int serve_tokens_live_new(const struct serve_config *config, const char *path,
                          struct serve_tokens *tokens, FILE *log,
                          struct serve_tokens_live **ret);
void serve_tokens_live_free(struct serve_tokens_live *live);

/* Looks at the files when RECHECK seconds have passed (now: monotonic
 * seconds), and loads them anew when they changed. */
void serve_tokens_live_check(struct serve_tokens_live *live, double now);

/* The tokens now, held until serve_tokens_live_release(): a reload waits
 * for them to be released before it frees them. */
const struct serve_tokens *serve_tokens_live_hold(struct serve_tokens_live *l);
void serve_tokens_live_release(struct serve_tokens_live *live);

#endif
