/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The emulated frontend (fe_emul.h): what src/card/frontend.c did for the tuner-less card, plus
 * dvb_frontend's event queue, lock status, legacy FE_SET/GET_FRONTEND and statistics. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>

#include <fcntl.h>
#include <libdvbv5/dvb-fe.h>
#include <linux/dvb/version.h>

#include "fe_emul.h"

int fe_emul_is_satellite(uint32_t s)
{
	return s == SYS_DVBS || s == SYS_DVBS2 || s == SYS_TURBO || s == SYS_ISDBS || s == SYS_DSS;
}

const char *fe_emul_delsys_name(uint32_t s)
{
	if (s < sizeof(delivery_system_name) / sizeof(delivery_system_name[0]) &&
	    delivery_system_name[s])
		return delivery_system_name[s];
	return "?";
}

void fe_emul_init(struct fe_emul *fe, const uint8_t *delsys, unsigned int n,
		  const struct fe_emul_ops *ops, void *ctx)
{
	memset(fe, 0, sizeof(*fe));
	if (n > FE_EMUL_MAX_DELSYS)
		n = FE_EMUL_MAX_DELSYS;
	if (n)
		memcpy(fe->delsys, delsys, n);
	fe->n_delsys = n;
	fe->props[DTV_DELIVERY_SYSTEM] = n ? delsys[0] : SYS_UNDEFINED;
	fe->ops = ops;
	fe->ctx = ctx;
}

static int is_writer(int flags)
{
	return (flags & O_ACCMODE) != O_RDONLY;
}

int fe_emul_open(struct fe_emul *fe, int flags)
{
	if (is_writer(flags)) {
		if (fe->writers)
			return -EBUSY;
		fe->writers++;
	}
	return 0;
}

void fe_emul_release(struct fe_emul *fe, int flags)
{
	if (is_writer(flags) && fe->writers)
		fe->writers--;
}

static int delsys_supported(const struct fe_emul *fe, uint32_t s)
{
	for (unsigned int i = 0; i < fe->n_delsys; i++)
		if (fe->delsys[i] == s)
			return 1;
	return 0;
}

static uint32_t cur_delsys(const struct fe_emul *fe)
{
	return fe->props[DTV_DELIVERY_SYSTEM];
}

/* dvb_frontend's dvbv3 type of the current delivery system */
static fe_type_t v3_type(uint32_t s)
{
	if (fe_emul_is_satellite(s))
		return FE_QPSK;
	switch (s) {
	case SYS_DVBT:
	case SYS_DVBT2:
	case SYS_ISDBT:
	case SYS_DTMB:
		return FE_OFDM;
	case SYS_ATSC:
	case SYS_ATSCMH:
	case SYS_DVBC_ANNEX_B:
		return FE_ATSC;
	default:
		return FE_QAM;
	}
}

static void get_info(const struct fe_emul *fe, struct dvb_frontend_info *info)
{
	memset(info, 0, sizeof(*info));
	snprintf(info->name, sizeof(info->name), "ffdvb virtual frontend");
	info->type = v3_type(cur_delsys(fe));
	if (info->type == FE_QPSK) { /* kHz, as dvb-core reports for satellite */
		info->frequency_min = 950000;
		info->frequency_max = 2150000;
		info->frequency_stepsize = 1000;
	} else {
		info->frequency_min = 47000000;
		info->frequency_max = 862000000;
		info->frequency_stepsize = 62500;
	}
	info->symbol_rate_min = 1000000;
	info->symbol_rate_max = 45000000;
	info->caps = FE_CAN_INVERSION_AUTO | FE_CAN_FEC_AUTO | FE_CAN_QPSK | FE_CAN_QAM_16 |
		     FE_CAN_QAM_32 | FE_CAN_QAM_64 | FE_CAN_QAM_128 | FE_CAN_QAM_256 |
		     FE_CAN_QAM_AUTO | FE_CAN_TRANSMISSION_MODE_AUTO | FE_CAN_BANDWIDTH_AUTO |
		     FE_CAN_GUARD_INTERVAL_AUTO | FE_CAN_HIERARCHY_AUTO;
	for (unsigned int i = 0; i < fe->n_delsys; i++)
		if (fe->delsys[i] == SYS_DVBS2 || fe->delsys[i] == SYS_DVBT2)
			info->caps |= FE_CAN_2G_MODULATION;
	if (info->type == FE_ATSC)
		info->caps |= FE_CAN_8VSB;
}

/* ---- legacy parameters <-> property cache (dvb_frontend's dtv_property_cache_sync) ---- */

static const uint32_t bw_hz[] = { 8000000, 7000000, 6000000, 0, 5000000, 10000000, 1712000 };

static void legacy_get(const struct fe_emul *fe, struct dvb_frontend_parameters *p)
{
	const uint32_t *c = fe->props;

	memset(p, 0, sizeof(*p));
	p->frequency = c[DTV_FREQUENCY];
	p->inversion = c[DTV_INVERSION];
	switch (v3_type(cur_delsys(fe))) {
	case FE_QPSK:
		p->u.qpsk.symbol_rate = c[DTV_SYMBOL_RATE];
		p->u.qpsk.fec_inner = c[DTV_INNER_FEC];
		break;
	case FE_QAM:
		p->u.qam.symbol_rate = c[DTV_SYMBOL_RATE];
		p->u.qam.fec_inner = c[DTV_INNER_FEC];
		p->u.qam.modulation = c[DTV_MODULATION];
		break;
	case FE_OFDM:
		p->u.ofdm.bandwidth = BANDWIDTH_AUTO;
		for (unsigned int i = 0; i < sizeof(bw_hz) / sizeof(bw_hz[0]); i++)
			if (bw_hz[i] && bw_hz[i] == c[DTV_BANDWIDTH_HZ])
				p->u.ofdm.bandwidth = i;
		p->u.ofdm.code_rate_HP = c[DTV_CODE_RATE_HP];
		p->u.ofdm.code_rate_LP = c[DTV_CODE_RATE_LP];
		p->u.ofdm.constellation = c[DTV_MODULATION];
		p->u.ofdm.transmission_mode = c[DTV_TRANSMISSION_MODE];
		p->u.ofdm.guard_interval = c[DTV_GUARD_INTERVAL];
		p->u.ofdm.hierarchy_information = c[DTV_HIERARCHY];
		break;
	case FE_ATSC:
		p->u.vsb.modulation = c[DTV_MODULATION];
		break;
	}
}

static void legacy_set(struct fe_emul *fe, const struct dvb_frontend_parameters *p)
{
	uint32_t *c = fe->props;

	c[DTV_FREQUENCY] = p->frequency;
	c[DTV_INVERSION] = p->inversion;
	switch (v3_type(cur_delsys(fe))) {
	case FE_QPSK:
		c[DTV_SYMBOL_RATE] = p->u.qpsk.symbol_rate;
		c[DTV_INNER_FEC] = p->u.qpsk.fec_inner;
		break;
	case FE_QAM:
		c[DTV_SYMBOL_RATE] = p->u.qam.symbol_rate;
		c[DTV_INNER_FEC] = p->u.qam.fec_inner;
		c[DTV_MODULATION] = p->u.qam.modulation;
		break;
	case FE_OFDM:
		c[DTV_BANDWIDTH_HZ] = p->u.ofdm.bandwidth < sizeof(bw_hz) / sizeof(bw_hz[0])
					      ? bw_hz[p->u.ofdm.bandwidth] : 0;
		c[DTV_CODE_RATE_HP] = p->u.ofdm.code_rate_HP;
		c[DTV_CODE_RATE_LP] = p->u.ofdm.code_rate_LP;
		c[DTV_MODULATION] = p->u.ofdm.constellation;
		c[DTV_TRANSMISSION_MODE] = p->u.ofdm.transmission_mode;
		c[DTV_GUARD_INTERVAL] = p->u.ofdm.guard_interval;
		c[DTV_HIERARCHY] = p->u.ofdm.hierarchy_information;
		break;
	case FE_ATSC:
		c[DTV_MODULATION] = p->u.vsb.modulation;
		break;
	}
}

/* ---- events ----------------------------------------------------------------------------- */

static void add_event(struct fe_emul *fe, fe_status_t status)
{
	unsigned int wp = (fe->evw + 1) % FE_EMUL_EVENTS;
	struct dvb_frontend_event *e = &fe->events[fe->evw];

	if (wp == fe->evr) { /* full: dvb_frontend drops the oldest and reports EOVERFLOW */
		fe->ev_overflow = 1;
		fe->evr = (fe->evr + 1) % FE_EMUL_EVENTS;
	}
	e->status = status;
	legacy_get(fe, &e->parameters);
	fe->evw = wp;
	if (fe->ops && fe->ops->event)
		fe->ops->event(fe, fe->ctx);
}

void fe_emul_set_status(struct fe_emul *fe, fe_status_t status)
{
	if (status == fe->status)
		return;
	fe->status = status;
	add_event(fe, status);
}

static int get_event(struct fe_emul *fe, struct dvb_frontend_event *out)
{
	if (fe->ev_overflow) {
		fe->ev_overflow = 0;
		return -EOVERFLOW;
	}
	if (fe->evw == fe->evr)
		return -EAGAIN; /* the card sleeps a blocking caller until the wake hook */
	*out = fe->events[fe->evr];
	fe->evr = (fe->evr + 1) % FE_EMUL_EVENTS;
	return 0;
}

unsigned int fe_emul_poll(const struct fe_emul *fe)
{
	return fe->evw != fe->evr ? POLLIN | POLLRDNORM | POLLPRI : 0;
}

/* dtv_set_frontend: range check, then clear the events, status 0 with an event, retune */
static int tune(struct fe_emul *fe)
{
	struct dvb_frontend_info info;
	uint32_t f = fe->props[DTV_FREQUENCY];

	get_info(fe, &info);
	if (f < info.frequency_min || f > info.frequency_max)
		return -EINVAL;
	fe->evr = fe->evw = 0;
	fe->ev_overflow = 0;
	fe->status = 0;
	if (fe->tune_event)
		add_event(fe, 0);
	if (fe->ops && fe->ops->tune)
		fe->ops->tune(fe, fe->ctx);
	return 0;
}

/* ---- properties ------------------------------------------------------------------------- */

static int settable(uint32_t cmd)
{
	switch (cmd) {
	case DTV_UNDEFINED:
	case DTV_DISEQC_MASTER:
	case DTV_DISEQC_SLAVE_REPLY:
	case DTV_FE_CAPABILITY_COUNT:
	case DTV_FE_CAPABILITY:
	case DTV_API_VERSION:
	case DTV_ENUM_DELSYS:
		return 0;
	default:
		return cmd <= DTV_MAX_COMMAND && !(cmd >= DTV_STAT_SIGNAL_STRENGTH &&
						   cmd <= DTV_STAT_TOTAL_BLOCK_COUNT);
	}
}

/* dvb-core: an unknown property fails the whole call with EINVAL (current kernels) */
static int get_prop(struct fe_emul *fe, struct dtv_property *p)
{
	switch (p->cmd) {
	case DTV_ENUM_DELSYS:
		memcpy(p->u.buffer.data, fe->delsys, fe->n_delsys);
		p->u.buffer.len = fe->n_delsys;
		break;
	case DTV_API_VERSION:
		p->u.data = (DVB_API_VERSION << 8) | DVB_API_VERSION_MINOR;
		break;
	case DTV_TUNE:
	case DTV_CLEAR:
		return -EINVAL;
	default:
		if (p->cmd >= DTV_STAT_SIGNAL_STRENGTH && p->cmd <= DTV_STAT_TOTAL_BLOCK_COUNT) {
			memset(&p->u.st, 0, sizeof(p->u.st)); /* no statistics available */
			if (fe->ops && fe->ops->stats)
				fe->ops->stats(fe, fe->ctx, p->cmd, &p->u.st);
			break;
		}
		if (!settable(p->cmd))
			return -EINVAL;
		p->u.data = fe->props[p->cmd];
		break;
	}
	p->result = 0;
	return 0;
}

static int set_prop(struct fe_emul *fe, const struct dtv_property *p)
{
	uint32_t delsys = cur_delsys(fe);

	switch (p->cmd) {
	case DTV_CLEAR: /* the delivery system survives a clear */
		memset(fe->props, 0, sizeof(fe->props));
		fe->props[DTV_DELIVERY_SYSTEM] = delsys;
		return 0;
	case DTV_TUNE:
		return tune(fe);
	case DTV_DELIVERY_SYSTEM:
		if (!delsys_supported(fe, p->u.data))
			return -EINVAL;
		fe->props[DTV_DELIVERY_SYSTEM] = p->u.data;
		return 0;
	default:
		if (!settable(p->cmd))
			return -EINVAL;
		fe->props[p->cmd] = p->u.data;
		return 0;
	}
}

static int properties(struct fe_emul *fe, struct ffdvb_ioctl *io, int get)
{
	const struct dtv_properties *tvps = io->buf;
	struct dtv_property *props = io->data;

	if (!tvps->num || tvps->num > DTV_IOCTL_MAX_MSGS)
		return -EINVAL;
	if (io->data_fault || !props || io->data_len < tvps->num * sizeof(*props))
		return -EFAULT;
	for (uint32_t i = 0; i < tvps->num; i++) {
		int r = get ? get_prop(fe, &props[i]) : set_prop(fe, &props[i]);

		if (r < 0) {
			props[i].result = r;
			return r;
		}
	}
	return 0;
}

static int locked(const struct fe_emul *fe)
{
	return (fe->status & FE_HAS_LOCK) != 0;
}

int fe_emul_ioctl(struct fe_emul *fe, int flags, struct ffdvb_ioctl *io)
{
	/* dvb_frontend: read-only openers get the _IOR calls except the ones that consume */
	if (!is_writer(flags) && (_IOC_DIR(io->cmd) != _IOC_READ || io->cmd == FE_GET_EVENT ||
				  io->cmd == FE_DISEQC_RECV_SLAVE_REPLY))
		return -EPERM;
	switch (io->cmd) {
	case FE_GET_INFO:
		get_info(fe, io->buf);
		return 0;
	case FE_READ_STATUS:
		*(fe_status_t *)io->buf = fe->status;
		return 0;
	case FE_READ_BER:
	case FE_READ_UNCORRECTED_BLOCKS:
		*(uint32_t *)io->buf = 0;
		return 0;
	case FE_READ_SIGNAL_STRENGTH: /* v3 scale: relative, 0xffff = strongest */
		*(uint16_t *)io->buf = locked(fe) ? 0xc000 : 0;
		return 0;
	case FE_READ_SNR:
		*(uint16_t *)io->buf = locked(fe) ? 0x0118 : 0; /* 28.0 dB in 0.1 dB */
		return 0;
	case FE_GET_PROPERTY:
		return properties(fe, io, 1);
	case FE_SET_PROPERTY:
		return properties(fe, io, 0);
	case FE_GET_EVENT:
		return get_event(fe, io->buf);
	case FE_SET_FRONTEND:
		legacy_set(fe, io->buf);
		return tune(fe);
	case FE_GET_FRONTEND:
		legacy_get(fe, io->buf);
		return 0;
	case FE_SET_TONE:
	case FE_SET_VOLTAGE:
	case FE_ENABLE_HIGH_LNB_VOLTAGE:
	case FE_DISEQC_SEND_MASTER_CMD:
	case FE_DISEQC_SEND_BURST:
	case FE_DISEQC_RESET_OVERLOAD:
	case FE_SET_FRONTEND_TUNE_MODE:
	case FE_DISHNETWORK_SEND_LEGACY_CMD: /* dvb-core plays it with set_voltage */
		return 0; /* accepted, nothing to drive */
	case FE_DISEQC_RECV_SLAVE_REPLY:
		return -EOPNOTSUPP; /* dvb-core's answer for a driver without the op */
	default:
		return -ENOTTY;
	}
}
