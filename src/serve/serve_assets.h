/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The page's files (src/serve/web/), compiled into the program so that the
 * server needs no files of its own at run time and a package cannot ship
 * a page that does not match its server.  The table is generated at build
 * time by embed_assets.cmake.
 */
#ifndef PVECG_SERVE_ASSETS_H
#define PVECG_SERVE_ASSETS_H

#include <stddef.h>

struct serve_asset {
  const char *path; /* as requested: "/", "/app.js" */
  const char *content_type;
  const unsigned char *data;
  size_t size;
};

extern const struct serve_asset serve_assets[];
extern const size_t serve_assets_count;

/* The asset served at path, or NULL. */
const struct serve_asset *serve_asset_find(const char *path);

#endif
