/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Short texts for the errors the readers return, for log lines: the
 * parsers' -EBADMSG reads better as "malformed content" than as "Bad
 * message".
 */
#ifndef PVECG_ERROR_TEXT_H
#define PVECG_ERROR_TEXT_H

/* err is a negative errno.  Returns a static text (thread-safe). */
const char *error_text(int err);

#endif
