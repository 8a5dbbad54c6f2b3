/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Messages of the CUSE transport, prefixed with the device name. Requests refused because of
 * what a client sent are rate-limited: a misbehaving client must not flood the log. */
#include "cuse_internal.h"

#include <stdio.h>

#include "ffdvb/log.h"

#define RL_BURST 5        /* messages per interval */
#define RL_INTERVAL_S 10

static void vlog(struct ffdvb_cuse_dev *dev, int priority, const char *fmt, va_list ap)
{
	char text[400];

	vsnprintf(text, sizeof(text), fmt, ap);
	ffdvb_log(priority, "%s: %s", dev->devname, text);
}

void ffdvb_cuse_log(struct ffdvb_cuse_dev *dev, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(dev, FFDVB_LOG_NOTICE, fmt, ap);
	va_end(ap);
}

void ffdvb_cuse_log_refused(struct ffdvb_cuse_dev *dev, const char *fmt, ...)
{
	struct cuse_ratelimit *rl = &dev->rl;
	time_t now = time(NULL);
	va_list ap;

	if (now - rl->window >= RL_INTERVAL_S) {
		if (rl->suppressed)
			ffdvb_log(FFDVB_LOG_WARNING, "%s: %u similar messages suppressed",
				  dev->devname, rl->suppressed);
		rl->window = now;
		rl->printed = 0;
		rl->suppressed = 0;
	}
	if (rl->printed >= RL_BURST) {
		rl->suppressed++;
		return;
	}
	rl->printed++;
	va_start(ap, fmt);
	vlog(dev, FFDVB_LOG_WARNING, fmt, ap);
	va_end(ap);
}
