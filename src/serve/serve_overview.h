/* SPDX-License-Identifier: GPL-2.0-or-later */
/* GET /api2/json/pvecg/overview: every file's newest values at once, for
 * the page's overview. */
#ifndef PVECG_SERVE_OVERVIEW_H
#define PVECG_SERVE_OVERVIEW_H

#include "serve_answer.h"

void serve_overview_reply(const struct serve_config *config,
                          struct serve_reply *ret);

#endif
