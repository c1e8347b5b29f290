/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "serve_overview.h"

void serve_overview_reply(const struct serve_config *config,
                          struct serve_reply *ret) {
  (void)config;
  serve_fail_reply(ret, 404, "no such path");
}
