/* The remote: tuner's frontend: the calls a client makes, mapped onto libdvbv5's frontend
 * parameters of the file's connection (the remote protocol carries no raw ioctl):
 *   FE_GET_INFO                 the info libdvbv5 fetched at open
 *   FE_SET_PROPERTY             values kept until DTV_TUNE, then dvb_set_sys (if
 *                               DTV_DELIVERY_SYSTEM came), dvb_fe_store_parm each, dvb_fe_set_parms;
 *                               DTV_TUNE's result is the daemon's
 *   FE_GET_PROPERTY             DTV_STAT_*: dvb_fe_get_stats + dvb_fe_retrieve_stats_layer; the
 *                               rest from dvb_fe_get_parms / dvb_fe_retrieve_parm
 *   FE_READ_STATUS, _SIGNAL_STRENGTH, _SNR, _BER, _UNCORRECTED_BLOCKS   from dvb_fe_get_stats
 *   FE_SET_FRONTEND, FE_GET_FRONTEND   the DVBv3 fields mapped onto the same parameters
 *   FE_GET_EVENT, poll          events synthesized from status changes, seen by polling the
 *                               status every REMOTE_STATUS_POLL_MS while a client waits
 *   tone, voltage, DiSEqC       EOPNOTSUPP: libdvbv5's SEC calls work on a local fd only */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/ioctl.h>

#include <event2/event.h>

#include "tuner_remote.h"

static struct dvb_v5_fe_parms *parms(struct remote_file *rf)
{
	return rf->dvb ? rf->dvb->fe_parms : NULL;
}

static void push_event(struct remote_file *rf, fe_status_t st)
{
	struct dvb_frontend_event *e;
	uint32_t freq = 0;

	if (rf->ev_len == REMOTE_EVENTS) {
		rf->ev_overflow = 1; /* dvb-core drops the oldest and says so once */
		rf->ev_head = (rf->ev_head + 1) % REMOTE_EVENTS;
		rf->ev_len--;
	}
	e = &rf->events[(rf->ev_head + rf->ev_len) % REMOTE_EVENTS];
	memset(e, 0, sizeof(*e));
	e->status = st;
	if (parms(rf) && dvb_fe_retrieve_parm(parms(rf), DTV_FREQUENCY, &freq) == 0)
		e->parameters.frequency = freq;
	rf->ev_len++;
}

/* Asks the daemon for the status; a change queues an event. */
static int refresh(struct remote_file *rf)
{
	struct dvb_v5_fe_parms *p = parms(rf);
	uint32_t st = 0;
	int r;

	if (!p)
		return -ENODEV;
	r = remote_gone(rf, dvb_fe_get_stats(p));
	if (r < 0)
		return r;
	if (dvb_fe_retrieve_stats(p, DTV_STATUS, &st) != 0)
		st = 0;
	if ((fe_status_t)st != rf->status) {
		rf->status = (fe_status_t)st;
		push_event(rf, rf->status);
	}
	((struct remote_tuner *)rf->base.tuner)->locked = !!(st & FE_HAS_LOCK);
	return 0;
}

static void status_tick(evutil_socket_t fd, short what, void *ctx)
{
	struct remote_file *rf = ctx;

	(void)fd, (void)what;
	if (refresh(rf) < 0 || rf->ev_len) {
		event_del(rf->ev);
		tuner_file_wake(&rf->base);
	}
}

static void watch_status(struct remote_file *rf)
{
	struct timeval period = { 0, REMOTE_STATUS_POLL_MS * 1000 };

	if (!rf->ev)
		rf->ev = event_new(rf->base.tuner->base, -1, EV_PERSIST, status_tick, rf);
	if (rf->ev && !event_pending(rf->ev, EV_TIMEOUT, NULL))
		event_add(rf->ev, &period);
}

void remote_fe_opened(struct remote_file *rf)
{
	rf->status = 0;
	rf->ev_len = rf->ev_head = 0;
}

void remote_fe_closed(struct remote_file *rf)
{
	(void)rf;
}

static int result(struct remote_file *rf, int r)
{
	if (r == -1)
		r = errno > 0 ? -errno : -EINVAL;
	return remote_gone(rf, r);
}

static int tune(struct remote_file *rf)
{
	struct dvb_v5_fe_parms *p = parms(rf);
	int r;

	if (rf->pending_set[DTV_DELIVERY_SYSTEM]) {
		r = result(rf, dvb_set_sys(p, rf->pending_val[DTV_DELIVERY_SYSTEM]));
		if (r < 0)
			return r;
		p->current_sys = rf->pending_val[DTV_DELIVERY_SYSTEM];
	}
	/* the parameter list of the (new) delivery system, as the daemon has it */
	r = result(rf, dvb_fe_get_parms(p));
	if (r == -ENODEV)
		return r;
	for (unsigned int c = 0; c < PENDING_MAX; c++) {
		if (rf->pending_set[c] && c != DTV_DELIVERY_SYSTEM)
			dvb_fe_store_parm(p, c, rf->pending_val[c]);
	}
	r = result(rf, dvb_fe_set_parms(p));
	if (r == 0) {
		rf->status = 0;
		rf->have_parms = 0;
		push_event(rf, 0); /* dvb-core queues one at the start of a tune */
	}
	return r;
}

static int set_props(struct remote_file *rf, struct dtv_property *props, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		uint32_t c = props[i].cmd;
		int r = 0;

		if (c == DTV_TUNE)
			r = tune(rf);
		else if (c == DTV_CLEAR)
			memset(rf->pending_set, 0, sizeof(rf->pending_set));
		else if (c < PENDING_MAX) {
			rf->pending_val[c] = props[i].u.data;
			rf->pending_set[c] = 1;
		} else
			r = -EINVAL;
		props[i].result = r;
		if (r < 0)
			return r;
	}
	return 0;
}

static int get_props(struct remote_file *rf, struct dtv_property *props, unsigned int n)
{
	struct dvb_v5_fe_parms *p = parms(rf);
	int have_stats = 0;

	for (unsigned int i = 0; i < n; i++) {
		uint32_t c = props[i].cmd, v = 0;

		if (c >= DTV_STAT_SIGNAL_STRENGTH && c <= DTV_STAT_TOTAL_BLOCK_COUNT) {
			struct dtv_stats *s;

			if (!have_stats && refresh(rf) < 0)
				return -ENODEV;
			have_stats = 1;
			s = dvb_fe_retrieve_stats_layer(p, c, 0);
			memset(&props[i].u.st, 0, sizeof(props[i].u.st));
			if (s) {
				props[i].u.st.len = 1;
				props[i].u.st.stat[0] = *s;
			}
			continue;
		}
		switch (c) {
		case DTV_API_VERSION:
			v = 0x050b; /* DVB API 5.11, kernel 6.1 */
			break;
		case DTV_DELIVERY_SYSTEM:
			v = p->current_sys;
			break;
		case DTV_ENUM_DELSYS:
			memset(&props[i].u.buffer, 0, sizeof(props[i].u.buffer));
			for (int k = 0; k < p->num_systems && k < 32; k++)
				props[i].u.buffer.data[k] = (uint8_t)p->systems[k];
			props[i].u.buffer.len = p->num_systems < 32 ? (uint32_t)p->num_systems : 32;
			continue;
		default:
			if (!rf->have_parms) {
				int r = result(rf, dvb_fe_get_parms(p));

				if (r == -ENODEV)
					return r;
				rf->have_parms = r == 0;
			}
			if (dvb_fe_retrieve_parm(p, c, &v) != 0)
				v = 0;
		}
		props[i].u.data = v;
	}
	return 0;
}

static uint16_t legacy_level(const struct dtv_stats *s)
{
	if (!s || s->scale == FE_SCALE_NOT_AVAILABLE)
		return 0;
	if (s->scale == FE_SCALE_RELATIVE)
		return (uint16_t)s->uvalue;
	/* decibel (0.001 dB): -100 dBm .. 0 dBm onto 0..65535, as a rough relative level */
	long long db = s->svalue / 1000 + 100;
	return db <= 0 ? 0 : db >= 100 ? 65535 : (uint16_t)(db * 65535 / 100);
}

static int legacy_set(struct remote_file *rf, const struct dvb_frontend_parameters *fp)
{
	struct dvb_v5_fe_parms *p = parms(rf);
	struct dtv_property props[6];
	unsigned int n = 0;

	props[n].cmd = DTV_FREQUENCY, props[n++].u.data = fp->frequency;
	props[n].cmd = DTV_INVERSION, props[n++].u.data = fp->inversion;
	switch (p->info.type) {
	case FE_QPSK:
		props[n].cmd = DTV_SYMBOL_RATE, props[n++].u.data = fp->u.qpsk.symbol_rate;
		props[n].cmd = DTV_INNER_FEC, props[n++].u.data = fp->u.qpsk.fec_inner;
		break;
	case FE_QAM:
		props[n].cmd = DTV_SYMBOL_RATE, props[n++].u.data = fp->u.qam.symbol_rate;
		props[n].cmd = DTV_INNER_FEC, props[n++].u.data = fp->u.qam.fec_inner;
		props[n].cmd = DTV_MODULATION, props[n++].u.data = fp->u.qam.modulation;
		break;
	case FE_OFDM:
		props[n].cmd = DTV_MODULATION, props[n++].u.data = fp->u.ofdm.constellation;
		break;
	default:
		break;
	}
	props[n++].cmd = DTV_TUNE;
	return set_props(rf, props, n);
}

static int legacy_get(struct remote_file *rf, struct dvb_frontend_parameters *fp)
{
	struct dtv_property props[5] = {
		{ .cmd = DTV_FREQUENCY }, { .cmd = DTV_INVERSION }, { .cmd = DTV_SYMBOL_RATE },
		{ .cmd = DTV_INNER_FEC }, { .cmd = DTV_MODULATION },
	};
	int r;

	rf->have_parms = 0;
	r = get_props(rf, props, 5);
	if (r < 0)
		return r;
	memset(fp, 0, sizeof(*fp));
	fp->frequency = props[0].u.data;
	fp->inversion = props[1].u.data;
	fp->u.qam.symbol_rate = props[2].u.data; /* qpsk shares the layout of the first two */
	fp->u.qam.fec_inner = props[3].u.data;
	if (parms(rf)->info.type == FE_QAM)
		fp->u.qam.modulation = props[4].u.data;
	return 0;
}

int remote_fe_ioctl(struct remote_file *rf, struct ffdvb_ioctl *io)
{
	struct dvb_v5_fe_parms *p = parms(rf);
	unsigned int cmd = io->cmd;
	int r;

	if (!p)
		return -ENODEV;
	/* dvb-core: a read-only file may only ask */
	if ((rf->base.flags & O_ACCMODE) == O_RDONLY &&
	    (_IOC_DIR(cmd) != _IOC_READ || cmd == FE_GET_EVENT || cmd == FE_DISEQC_RECV_SLAVE_REPLY))
		return -EPERM;
	if (_IOC_SIZE(cmd) && !io->buf)
		return -EFAULT;
	switch (cmd) {
	case FE_GET_INFO:
		memcpy(io->buf, &p->info, sizeof(struct dvb_frontend_info));
		return 0;
	case FE_READ_STATUS:
		r = refresh(rf);
		if (r == 0)
			*(uint32_t *)io->buf = rf->status;
		return r;
	case FE_READ_SIGNAL_STRENGTH:
	case FE_READ_SNR:
		r = refresh(rf);
		if (r == 0)
			*(uint16_t *)io->buf = legacy_level(dvb_fe_retrieve_stats_layer(p,
				cmd == FE_READ_SNR ? DTV_STAT_CNR : DTV_STAT_SIGNAL_STRENGTH, 0));
		return r;
	case FE_READ_BER:
	case FE_READ_UNCORRECTED_BLOCKS: {
		uint32_t v = 0;

		r = refresh(rf);
		if (r == 0) {
			if (cmd == FE_READ_BER) {
				dvb_fe_retrieve_stats(p, DTV_BER, &v);
			} else {
				struct dtv_stats *s = dvb_fe_retrieve_stats_layer(p,
								DTV_STAT_ERROR_BLOCK_COUNT, 0);

				v = s && s->scale == FE_SCALE_COUNTER ? (uint32_t)s->uvalue : 0;
			}
			*(uint32_t *)io->buf = v;
		}
		return r;
	}
	case FE_SET_PROPERTY:
	case FE_GET_PROPERTY: {
		unsigned int n = ((struct dtv_properties *)io->buf)->num;

		if (n == 0 || n > DTV_IOCTL_MAX_MSGS)
			return -EINVAL;
		if (!io->data || io->data_fault)
			return -EFAULT;
		return cmd == FE_SET_PROPERTY ? set_props(rf, io->data, n) : get_props(rf, io->data, n);
	}
	case FE_SET_FRONTEND:
		return legacy_set(rf, io->buf);
	case FE_GET_FRONTEND:
		return legacy_get(rf, io->buf);
	case FE_GET_EVENT:
		if (rf->ev_overflow) {
			rf->ev_overflow = 0;
			return -EOVERFLOW;
		}
		if (!rf->ev_len) {
			r = refresh(rf);
			if (r < 0)
				return r;
		}
		if (!rf->ev_len) {
			watch_status(rf);
			return -EAGAIN;
		}
		memcpy(io->buf, &rf->events[rf->ev_head], sizeof(struct dvb_frontend_event));
		rf->ev_head = (rf->ev_head + 1) % REMOTE_EVENTS;
		rf->ev_len--;
		return 0;
	case FE_SET_TONE:
	case FE_SET_VOLTAGE:
	case FE_ENABLE_HIGH_LNB_VOLTAGE:
	case FE_DISEQC_SEND_MASTER_CMD:
	case FE_DISEQC_SEND_BURST:
	case FE_DISEQC_RECV_SLAVE_REPLY:
	case FE_DISEQC_RESET_OVERLOAD:
	case FE_DISHNETWORK_SEND_LEGACY_CMD:
	case FE_SET_FRONTEND_TUNE_MODE:
		return -EOPNOTSUPP;
	default:
		return -ENOTTY;
	}
}

unsigned int remote_fe_poll(struct remote_file *rf)
{
	if (!rf->ev_len && refresh(rf) < 0)
		return POLLERR | POLLHUP;
	if (rf->ev_len)
		return POLLIN | POLLRDNORM | POLLPRI;
	watch_status(rf);
	return 0;
}
