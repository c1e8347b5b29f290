/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Splitting "HOST:PORT" (see host_port.h).
 */
#include "pvecg/host_port.h"

#include <errno.h>
#include <string.h>

int host_port_split(const char *text, char *host, size_t size,
                    const char **port) {
  const char *begin = text, *end, *colon;
  if (text[0] == '[') {
    begin = text + 1;
    end = strchr(begin, ']');
    if (end == NULL || end[1] != ':' || strchr(end + 2, ':') != NULL)
      return -EINVAL;
    colon = end + 1;
  } else {
    colon = strrchr(text, ':');
    if (colon == NULL || memchr(text, ':', (size_t)(colon - text)) != NULL)
      return -EINVAL;
    end = colon;
  }
  size_t len = (size_t)(end - begin);
  if (len == 0 || len >= size || memchr(begin, '/', len) != NULL)
    return -EINVAL;
  memcpy(host, begin, len);
  host[len] = '\0';
  *port = colon + 1;
  return 0;
}
