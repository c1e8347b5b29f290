/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A line of a command's log written whole, in one write(2).  The
 * shipper's children (one per Proxmox metric server entry) share their
 * parent's stderr: a line written in parts (prefix, message, newline)
 * is cut by another child's words and no longer says what it said.  A
 * write of at most PIPE_BUF bytes to a pipe is never interleaved, and
 * one to an O_APPEND file lands in one piece.
 */
#ifndef PVECG_LOG_LINE_H
#define PVECG_LOG_LINE_H

#include <stdarg.h>
#include <stdio.h>

/* The longest line written, newline included: POSIX's PIPE_BUF minimum
 * on Linux.  A longer one is cut and ends in "...\n". */
#define LOG_LINE_MAX 4096

/* Writes "<prefix><fmt...>\n" to out in one write and flushes it. */
__attribute__((format(printf, 3, 4))) void
log_line(FILE *out, const char *prefix, const char *fmt, ...);

/* The same with the arguments in a va_list. */
__attribute__((format(printf, 3, 0))) void
log_vline(FILE *out, const char *prefix, const char *fmt, va_list ap);

#endif
