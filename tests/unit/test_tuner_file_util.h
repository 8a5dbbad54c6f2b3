/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Helpers of the tuner tests (test_tuner_file*.c): ioctls through the public tuner API and a
 * real libevent loop. */
#ifndef FFDVB_TEST_TUNER_FILE_UTIL_H
#define FFDVB_TEST_TUNER_FILE_UTIL_H

#include <string.h>

#include <event2/event.h>
#include <linux/dvb/frontend.h>

#include "ffdvb/tuner.h"

static inline int tio_buf(struct ffdvb_tuner_file *f, unsigned int cmd, void *buf)
{
	struct ffdvb_ioctl io;

	memset(&io, 0, sizeof(io));
	io.cmd = cmd;
	io.buf = buf;
	io.nonblock = 1;
	return ffdvb_tuner_ioctl(f, &io);
}

static inline int tio_arg(struct ffdvb_tuner_file *f, unsigned int cmd, unsigned long arg)
{
	struct ffdvb_ioctl io;

	memset(&io, 0, sizeof(io));
	io.cmd = cmd;
	io.arg = arg;
	return ffdvb_tuner_ioctl(f, &io);
}

static inline int tprops(struct ffdvb_tuner_file *f, unsigned int cmd, struct dtv_property *p,
		  uint32_t n, int fault)
{
	struct dtv_properties tvps = { .num = n, .props = p };
	struct ffdvb_ioctl io;

	memset(&io, 0, sizeof(io));
	io.cmd = cmd;
	io.buf = &tvps;
	io.data = fault ? NULL : p;
	io.data_len = fault ? 0 : n * sizeof(*p);
	io.data_fault = fault;
	return ffdvb_tuner_ioctl(f, &io);
}

static inline int tune(struct ffdvb_tuner_file *f, uint32_t delsys, uint32_t freq)
{
	struct dtv_property p[3];

	memset(p, 0, sizeof(p));
	p[0].cmd = DTV_DELIVERY_SYSTEM;
	p[0].u.data = delsys;
	p[1].cmd = DTV_FREQUENCY;
	p[1].u.data = freq;
	p[2].cmd = DTV_TUNE;
	return tprops(f, FE_SET_PROPERTY, p, 3, 0);
}

static inline void run_ms(struct event_base *base, unsigned int ms)
{
	struct timeval tv = { ms / 1000, (suseconds_t)(ms % 1000) * 1000 };

	event_base_loopexit(base, &tv);
	event_base_dispatch(base);
}

#endif
