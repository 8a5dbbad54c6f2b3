/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Sleeping on the real-time clock of the outputs that are not on a virtual clock. */
#include <errno.h>
#include <time.h>

#include "output_internal.h"

void output_sleep_until(uint64_t t, uint64_t max_ns)
{
	uint64_t now = output_monotonic_ns();
	if (t <= now)
		return;
	if (max_ns && t - now > max_ns)
		t = now + max_ns;
	struct timespec ts = { .tv_sec = (time_t)(t / NS_PER_S), .tv_nsec = (long)(t % NS_PER_S) };
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}
