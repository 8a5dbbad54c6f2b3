/* SPDX-License-Identifier: GPL-2.0-or-later */
/* systemd's readiness protocol (sd_notify) by hand, without libsystemd: one datagram per
 * message to the unix socket named by $NOTIFY_SOCKET ('@' = abstract namespace). Outside
 * systemd the variable is unset and every call is a no-op. */
#ifndef FFDVBD_NOTIFY_H
#define FFDVBD_NOTIFY_H

#include <stdint.h>

/* Sends msg ("READY=1", "STOPPING=1", "WATCHDOG=1", ...) to the socket at path (a filesystem
 * path, or '@' followed by an abstract name). Returns 0 or -errno. */
int ffdvbd_notify_to(const char *path, const char *msg);

/* The same to $NOTIFY_SOCKET. Returns 1 when sent, 0 when the variable is unset or empty,
 * -errno when sending failed. */
int ffdvbd_notify(const char *msg);

/* The watchdog period systemd asks for ($WATCHDOG_USEC), in microseconds, when it is meant
 * for this process ($WATCHDOG_PID unset or equal to getpid()); 0 otherwise or when invalid.
 * The daemon pings every half of it. */
uint64_t ffdvbd_watchdog_usec(void);

struct event_base;
struct ffdvbd_periodic;

/* When ffdvbd_watchdog_usec() asks for it, adds to base a periodic callback (periodic.h: a
 * timerfd) that sends WATCHDOG=1 every half period and stores it in *ev (the caller
 * ffdvbd_periodic_free()s it); returns the
 * ping interval in microseconds. Returns 0 with *ev = NULL when no watchdog is asked for,
 * -ENOMEM when the timer cannot be added. */
long long ffdvbd_watchdog_start(struct event_base *base, struct ffdvbd_periodic **ev);

#endif
