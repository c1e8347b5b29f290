/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The benchmark's interruption flag (see interrupt.h).  The handler only
 * sets the flag: cleanup runs in the normal flow of each mode, where it is
 * safe to walk lists and call anything.
 */
#include "interrupt.h"

#include <errno.h>
#include <signal.h>
#include <time.h>

static volatile sig_atomic_t interrupt_flag;

static void on_signal(int sig) {
  (void)sig;
  interrupt_flag = 1;
}

static const int handled[] = {SIGINT, SIGTERM, SIGHUP};

void interrupt_install(void) {
  struct sigaction sa = {.sa_handler = on_signal};
  sigemptyset(&sa.sa_mask);
  for (size_t i = 0; i < sizeof(handled) / sizeof(handled[0]); i++)
    sigaction(handled[i], &sa, NULL);
}

void interrupt_reset_in_child(void) {
  for (size_t i = 0; i < sizeof(handled) / sizeof(handled[0]); i++)
    signal(handled[i], SIG_DFL);
}

bool interrupted(void) { return interrupt_flag != 0; }

bool interruptible_sleep(double seconds) {
  struct timespec left = {
      .tv_sec = (time_t)seconds,
      .tv_nsec = (long)((seconds - (double)(time_t)seconds) * 1e9)};
  while (!interrupted() && nanosleep(&left, &left) < 0 && errno == EINTR)
    ;
  return !interrupted();
}
