/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Texts of reader errors for log lines (see error_text.h). */
#include "pvecg/error_text.h"

#include <errno.h>
#include <string.h>

const char *error_text(int err) {
  switch (err) {
  case -EBADMSG:
  case -EINVAL:
    return "malformed content";
  case -ERANGE:
    return "number out of range";
  case -ENOMSG:
    return "expected key missing";
  case -EFBIG:
    return "larger than expected";
  case -ENOENT:
    return "file missing";
  case -ESPIPE:
    return "not a regular file";
  default: {
    /* glibc's static description: no buffer, safe in any thread. */
    const char *text = strerrordesc_np(-err);
    return text ? text : "unknown error";
  }
  }
}
