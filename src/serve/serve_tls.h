/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The TLS versions and ciphers `pvecg serve` offers, as a GnuTLS priority
 * string given to libmicrohttpd.  The default is what pveproxy and
 * Mozilla's "intermediate" profile accept: TLS 1.2 and 1.3 only, ECDHE
 * key exchange (forward secrecy), AEAD ciphers only (AES-GCM,
 * ChaCha20-Poly1305: no CBC, no SHA-1 MAC, no plain RSA key exchange).
 * DHE is left out: GnuTLS offers it only with Diffie-Hellman parameters,
 * which libmicrohttpd does not set, so listing it would promise what is
 * never offered.  --tls-priorities replaces the string for a site that
 * must differ (tests/serve/serve_tls.sh states what a scanner sees).
 */
#ifndef PVECG_SERVE_TLS_H
#define PVECG_SERVE_TLS_H

#include <stddef.h>

#define SERVE_TLS_PRIORITIES                                                   \
  "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2:-KX-ALL:+ECDHE-ECDSA:"           \
  "+ECDHE-RSA:-CIPHER-ALL:+AES-128-GCM:+AES-256-GCM:"                          \
  "+CHACHA20-POLY1305:-MAC-ALL:+AEAD"

/*
 * Whether GnuTLS takes priorities (checked at start, so that a typo is a
 * clear message rather than a failed handshake later).  Returns 0, or
 * -EINVAL with err naming the position GnuTLS stopped at.
 */
int serve_tls_check_priorities(const char *priorities, char *err,
                               size_t err_size);

#endif
