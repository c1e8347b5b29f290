/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Looking up the page's files (the table itself is generated; see
 * serve_assets.h).
 */
#include "serve_assets.h"

#include <string.h>

const struct serve_asset *serve_asset_find(const char *path) {
  for (size_t i = 0; path != NULL && i < serve_assets_count; i++)
    if (strcmp(serve_assets[i].path, path) == 0)
      return &serve_assets[i];
  return NULL;
}
