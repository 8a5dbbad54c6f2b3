/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ffdvb clock: CLOCK_MONOTONIC in nanoseconds, the one time base of the daemon (the card's
 * timers, the decoder, the outputs, the log's repeat counting) and of the tools and tests that
 * compare their times with it. Header-only, as checksum.h: any library may use it without a
 * link to another, so it breaks no layering. */
#ifndef FFDVB_CLOCK_H
#define FFDVB_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t ffdvb_monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#endif
