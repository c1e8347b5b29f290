/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * "HOST:PORT" or "[V6ADDR]:PORT", as `export --to` and `serve --listen`
 * take them: split into the host (without brackets) and the port's text,
 * which each caller checks by its own rule.
 */
#ifndef PVECG_HOST_PORT_H
#define PVECG_HOST_PORT_H

#include <stddef.h>

/*
 * Copies the host into host[size] and points *port at the text after the
 * separating ':'.  Returns 0, or -EINVAL for no ':' (or a second one
 * outside brackets), an empty host, a '/' in it, or one that does not fit.
 */
int host_port_split(const char *text, char *host, size_t size,
                    const char **port);

#endif
