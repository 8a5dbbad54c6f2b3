/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The none tuner: no hardware. The emulated frontend announces cable, terrestrial and
 * satellite (so that any channel list can be "tuned"), accepts every tune and never locks;
 * demux0 and dvr0 run the software demux, which never gets a packet. */
#include <errno.h>
#include <stdio.h>

#include "tuner_file.h"

static struct ffdvb_tuner *none_create(struct event_base *base, const char *arg, char *err,
				       size_t errlen)
{
	static const uint8_t delsys[] = { SYS_DVBC_ANNEX_A, SYS_DVBT, SYS_DVBS, SYS_DVBS2 };
	struct ft_tuner *t;

	if (*arg) {
		snprintf(err, errlen, "none:%s: the none tuner takes no argument", arg);
		errno = EINVAL;
		return NULL;
	}
	t = ft_tuner_new(base, 1, delsys, sizeof(delsys));
	if (!t) {
		snprintf(err, errlen, "out of memory");
		errno = ENOMEM;
		return NULL;
	}
	t->fe.props[DTV_DELIVERY_SYSTEM] = SYS_DVBS; /* what the card announced before */
	return &t->base;
}

const struct tuner_backend_ops tuner_none_ops = {
	.prefix = "none",
	.validates_demux = 0,
	.create = none_create,
	.destroy = ft_destroy,
	.open = ft_open,
	.close = ft_close,
	.ioctl = ft_ioctl,
	.read = ft_read,
	.write = ft_write,
	.poll = ft_poll,
	.status_json = ft_status_json,
};
