/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A periodic callback on the loop, driven by a timerfd instead of a libevent timer.
 *
 * With any libevent timer pending, every turn of the loop passes a timeout to epoll_wait, and
 * the kernel then reads the clock and arms a timer of its own for each wake-up: for every
 * CUSE request served. In the TCG test VM (HPET clock) that was a tenth of a bare CUSE
 * device's round trip (bench/README.md). A timerfd is one more fd in the epoll set and costs
 * nothing between its expirations. The daemon's own long-lived periods (the log's repeat
 * counts, the systemd watchdog) use this, so that an idle daemon has no libevent timer. */
#ifndef FFDVBD_PERIODIC_H
#define FFDVBD_PERIODIC_H

#include <stdint.h>

struct event_base;
struct ffdvbd_periodic;

/* Calls fn(arg) on base's loop every period_us microseconds (> 0), first after one period.
 * NULL with errno set on failure. */
struct ffdvbd_periodic *ffdvbd_periodic_new(struct event_base *base, uint64_t period_us,
					    void (*fn)(void *arg), void *arg);
/* Stops and frees it (NULL is fine). */
void ffdvbd_periodic_free(struct ffdvbd_periodic *p);

#endif
