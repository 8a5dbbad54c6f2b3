/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The remote: tuner's frontend: a client's calls mapped onto dvbv5-daemon's frontend commands
 * (the protocol carries no raw ioctl):
 *   FE_GET_INFO, DTV_ENUM_DELSYS  what the daemon logged when it opened the frontend (name,
 *                               capabilities, delivery systems, frequency range), completed by
 *                               fe_get_parms' symbol rates once that answers: 1.22.1 answers
 *                               -EINVAL until the frontend was tuned once
 *   FE_SET_PROPERTY             values kept until DTV_TUNE, which sends fe_set_parms with the
 *                               daemon's own property list (from fe_get_parms, or libdvbv5's
 *                               list of the delivery system before the first tune) carrying
 *                               them; DTV_DELIVERY_SYSTEM goes as dev_set_sys first
 *   FE_GET_PROPERTY             fe_get_parms' values (the ones set since the last tune before
 *                               the first); DTV_STAT_* from fe_get_stats, which carries only
 *                               the first 4 bytes of each: scale and the low 16 bits of layer 0
 *                               (decibels read as -65.535..0 dBm signal, 0..65.535 dB CNR)
 *   FE_READ_STATUS, _SIGNAL_STRENGTH, _SNR, _BER, _UNCORRECTED_BLOCKS   from fe_get_stats
 *   FE_SET_FRONTEND, FE_GET_FRONTEND   the DVBv3 fields mapped onto the same parameters
 *   FE_GET_EVENT, poll          events synthesized from status changes, seen by polling the
 *                               status every REMOTE_STATUS_POLL_MS while a client waits
 *   tone, voltage, DiSEqC       EOPNOTSUPP: the protocol has no SEC command */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include <event2/event.h>
#include <libdvbv5/dvb-fe.h>
#include <libdvbv5/dvb-v5-std.h>

#include "tuner_remote.h"

/* ---------------------------------------------------------------- the daemon's log */

enum { LOG_NONE, LOG_CAPS, LOG_SYSTEMS };

#define CAP(x) { FE_##x, #x }
static const struct {
	uint32_t bit;
	const char *name;
} cap_names[] = {
	CAP(IS_STUPID), CAP(CAN_INVERSION_AUTO), CAP(CAN_FEC_1_2), CAP(CAN_FEC_2_3),
	CAP(CAN_FEC_3_4), CAP(CAN_FEC_4_5), CAP(CAN_FEC_5_6), CAP(CAN_FEC_6_7), CAP(CAN_FEC_7_8),
	CAP(CAN_FEC_8_9), CAP(CAN_FEC_AUTO), CAP(CAN_QPSK), CAP(CAN_QAM_16), CAP(CAN_QAM_32),
	CAP(CAN_QAM_64), CAP(CAN_QAM_128), CAP(CAN_QAM_256), CAP(CAN_QAM_AUTO),
	CAP(CAN_TRANSMISSION_MODE_AUTO), CAP(CAN_BANDWIDTH_AUTO), CAP(CAN_GUARD_INTERVAL_AUTO),
	CAP(CAN_HIERARCHY_AUTO), CAP(CAN_8VSB), CAP(CAN_16VSB), CAP(HAS_EXTENDED_CAPS),
	CAP(CAN_MULTISTREAM), CAP(CAN_TURBO_FEC), CAP(CAN_2G_MODULATION), CAP(NEEDS_BENDING),
	CAP(CAN_RECOVER), CAP(CAN_MUTE_TS),
};

static int sys_by_name(const char *name)
{
	for (int i = 0; i < 20; i++) {
		if (delivery_system_name[i] && !strcmp(delivery_system_name[i], name))
			return i;
	}
	return -1;
}

/* "51.0 MHz", "2.15 GHz", "62.5 kHz" */
static uint32_t parse_freq(const char *s)
{
	char *end;
	double v = strtod(s, &end);

	while (*end == ' ')
		end++;
	if (!strncmp(end, "GHz", 3))
		v *= 1e9;
	else if (!strncmp(end, "MHz", 3))
		v *= 1e6;
	else if (!strncmp(end, "kHz", 3))
		v *= 1e3;
	return v < 0 || v > 4e9 ? 0 : (uint32_t)(v + 0.5);
}

/* libdvbv5's dvb_fe_open logs, on every dev_open of a frontend in the daemon:
 *   Device NAME (PATH) capabilities:  /  CAN_xxx lines  /  DVB API Version 5.11, Current v5
 *   delivery system: DVBT  /  Supported delivery systems:  /  [DVBT] (current) or DVBT2 lines
 *   /  Frequency range for the current standard:  From: / To: / Step: / Tolerance: */
void remote_fe_log_line(struct remote_tuner *rt, const char *text)
{
	struct remote_fe_log *l = &rt->fe;
	char line[256];
	size_t n;
	const char *t;

	snprintf(line, sizeof(line), "%s", text);
	n = strlen(line);
	while (n && (line[n - 1] == '\n' || line[n - 1] == ' '))
		line[--n] = '\0';
	t = line;
	while (*t == ' ')
		t++;
	if (!strncmp(line, "Device ", 7) && n > 14 && !strcmp(line + n - 14, " capabilities:")) {
		char *paren = strrchr(line, '(');

		if (paren && paren > line + 8)
			paren[-1] = '\0';
		snprintf(l->name, sizeof(l->name), "%.127s", line + 7);
		l->caps = 0;
		l->state = LOG_CAPS;
	} else if (!strncmp(t, "DVB API Version", 15)) {
		const char *cur = strstr(t, "delivery system: ");

		if (cur && sys_by_name(cur + 17) >= 0)
			l->current_sys = sys_by_name(cur + 17);
		l->state = LOG_NONE;
	} else if (!strncmp(t, "Supported delivery system", 25)) {
		l->num_systems = 0;
		l->state = LOG_SYSTEMS;
	} else if (!strncmp(t, "From:", 5)) {
		l->freq_min = parse_freq(t + 5);
	} else if (!strncmp(t, "To:", 3)) {
		l->freq_max = parse_freq(t + 3);
	} else if (!strncmp(t, "Step:", 5)) {
		l->stepsize = parse_freq(t + 5);
	} else if (!strncmp(t, "Tolerance:", 10)) {
		l->tolerance = parse_freq(t + 10);
	} else if (l->state == LOG_CAPS) {
		for (size_t i = 0; i < sizeof(cap_names) / sizeof(cap_names[0]); i++) {
			if (!strcmp(t, cap_names[i].name))
				l->caps |= cap_names[i].bit;
		}
	} else if (l->state == LOG_SYSTEMS) {
		char name[64];
		int current = *t == '[', sys;

		snprintf(name, sizeof(name), "%s", t + current);
		if (current && strchr(name, ']'))
			*strchr(name, ']') = '\0';
		sys = sys_by_name(name);
		if (sys < 0 || l->num_systems == DVBV5_WIRE_MAX_SYSTEMS) {
			l->state = LOG_NONE;
			return;
		}
		l->systems[l->num_systems++] = sys;
		if (current)
			l->current_sys = sys;
	}
}

/* what a successful fe_get_parms says about the frontend */
static void learn(struct remote_tuner *rt, const struct dvbv5_wire_fe_parms *p)
{
	struct remote_fe_log *l = &rt->fe;

	if (p->name[0])
		snprintf(l->name, sizeof(l->name), "%.127s", p->name);
	l->freq_min = p->freq_min;
	l->freq_max = p->freq_max;
	l->stepsize = p->stepsize;
	l->tolerance = p->tolerance;
	l->sr_min = p->sr_min;
	l->sr_max = p->sr_max;
	l->sr_tolerance = p->sr_tolerance;
	if (p->num_systems > 0) {
		l->num_systems = p->num_systems;
		memcpy(l->systems, p->systems, sizeof(l->systems));
	}
	l->current_sys = p->current_sys;
}

/* fe_get_parms: 0 (and learnt), -EINVAL before the first tune, -ENODEV */
static int get_parms(struct remote_file *rf, struct dvbv5_wire_fe_parms *p)
{
	struct remote_tuner *rt = remote_tuner_of(rf);
	int r = remote_gone(rf, dvbv5_wire_fe_get_parms(rt->w, p));

	if (r == 0)
		learn(rt, p);
	return r;
}

/* ---------------------------------------------------------------- status and events */

static void push_event(struct remote_file *rf, fe_status_t st)
{
	struct dvb_frontend_event *e;

	if (rf->ev_len == REMOTE_EVENTS) {
		rf->ev_overflow = 1; /* dvb-core drops the oldest and says so once */
		rf->ev_head = (rf->ev_head + 1) % REMOTE_EVENTS;
		rf->ev_len--;
	}
	e = &rf->events[(rf->ev_head + rf->ev_len) % REMOTE_EVENTS];
	memset(e, 0, sizeof(*e));
	e->status = st;
	e->parameters.frequency = rf->freq;
	rf->ev_len++;
}

/* fe_get_stats; a status change queues an event */
static int refresh(struct remote_file *rf, struct dvbv5_wire_fe_stats *s)
{
	struct remote_tuner *rt = remote_tuner_of(rf);
	int r;

	if (rf->gone || !rt->w)
		return -ENODEV;
	r = remote_gone(rf, dvbv5_wire_fe_get_stats(rt->w, s));
	if (r < 0)
		return r;
	if ((fe_status_t)s->status != rf->status) {
		rf->status = (fe_status_t)s->status;
		push_event(rf, rf->status);
	}
	rt->locked = !!(s->status & FE_HAS_LOCK);
	return 0;
}

/* A statistic as the daemon sends it: u.data only, i.e. the first 4 bytes of the kernel's
 * struct dtv_fe_stats (len, then stat[0]'s scale and the low 16 bits of its value). */
static int stat_of(const struct dvbv5_wire_fe_stats *s, uint32_t cmd, struct dtv_stats *out)
{
	memset(out, 0, sizeof(*out));
	for (int i = 0; i < s->n_props; i++) {
		uint32_t d = s->props[i].data;

		if (s->props[i].cmd != cmd)
			continue;
		if ((d & 0xff) == 0 || ((d >> 8) & 0xff) == FE_SCALE_NOT_AVAILABLE)
			return 0;
		out->scale = (d >> 8) & 0xff;
		/* 16 bits of a decibel value (0.001 dB): read as a signal strength of -65.535..0
		 * dBm and a CNR of 0..65.535 dB, where real values lie */
		if (out->scale == FE_SCALE_DECIBEL && cmd == DTV_STAT_SIGNAL_STRENGTH)
			out->svalue = (d >> 16) ? (int64_t)(d >> 16) - 65536 : 0;
		else if (out->scale == FE_SCALE_DECIBEL)
			out->svalue = (int64_t)(d >> 16);
		else
			out->uvalue = d >> 16;
		return 1;
	}
	return 0;
}

static void status_tick(evutil_socket_t fd, short what, void *ctx)
{
	struct remote_file *rf = ctx;
	struct dvbv5_wire_fe_stats s;

	(void)fd, (void)what;
	pthread_mutex_lock(&remote_tuner_of(rf)->lock);
	if (refresh(rf, &s) < 0 || rf->ev_len) {
		if (rf->ev)
			event_del(rf->ev);
		remote_mark_wake(rf);
	}
	pthread_mutex_unlock(&remote_tuner_of(rf)->lock);
}

void remote_fe_watch(struct remote_file *rf)
{
	struct timeval period = { 0, REMOTE_STATUS_POLL_MS * 1000 };

	if (!rf->ev)
		rf->ev = event_new(remote_tuner_of(rf)->wbase, -1, EV_PERSIST, status_tick, rf);
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

/* ---------------------------------------------------------------- tuning */

/* libdvbv5 answers -1 for some failures (errno on the daemon's side is lost) */
static int daemon_result(struct remote_file *rf, int r)
{
	return remote_gone(rf, r == -1 ? -EINVAL : r);
}

static int tune(struct remote_file *rf)
{
	struct remote_tuner *rt = remote_tuner_of(rf);
	struct dvbv5_wire_fe_parms p;
	int sys = rf->pending_set[DTV_DELIVERY_SYSTEM] ? (int)rf->pending_val[DTV_DELIVERY_SYSTEM] :
		  rt->fe.current_sys;
	int r;

	if (sys < 0 || sys >= 20)
		return -EINVAL;
	r = get_parms(rf, &p);
	if (r == 0 && p.current_sys != sys) {
		r = daemon_result(rf, dvbv5_wire_dev_set_sys(rt->w, sys));
		if (r < 0)
			return r;
		r = get_parms(rf, &p);
	}
	if (r == -ENODEV)
		return r;
	if (r < 0) {
		/* never tuned: the daemon rebuilds its list for the system dev_set_sys sets,
		 * libdvbv5's list of it + DTV_DELIVERY_SYSTEM; send exactly that */
		uint32_t cmds[DVBV5_WIRE_MAX_PROPS];
		const unsigned int *list = dvb_v5_delivery_system[sys];
		int n = 0;

		if (!list)
			return -EINVAL;
		r = daemon_result(rf, dvbv5_wire_dev_set_sys(rt->w, sys));
		if (r < 0)
			return r;
		while (list[n] && n < DVBV5_WIRE_MAX_PROPS - 1) {
			cmds[n] = list[n];
			n++;
		}
		if (dvbv5_wire_fe_parms_init(&p, sys, cmds, n) < 0)
			return -EINVAL;
	}
	for (int i = 0; i < p.n_props; i++) {
		uint32_t c = p.props[i].cmd;

		if (c == DTV_DELIVERY_SYSTEM)
			p.props[i].data = (uint32_t)sys;
		else if (c < PENDING_MAX && rf->pending_set[c])
			p.props[i].data = rf->pending_val[c];
		if (c == DTV_FREQUENCY)
			rf->freq = p.props[i].data;
	}
	r = daemon_result(rf, dvbv5_wire_fe_set_parms(rt->w, &p));
	if (r == 0) {
		rt->fe.current_sys = sys;
		memset(rf->pending_set, 0, sizeof(rf->pending_set));
		rf->status = 0;
		push_event(rf, 0); /* dvb-core queues one at the start of a tune */
	}
	return r;
}

static int set_props(struct remote_file *rf, struct dtv_property *props, unsigned int n)
{
	struct remote_fe_log *l = &remote_tuner_of(rf)->fe;

	for (unsigned int i = 0; i < n; i++) {
		uint32_t c = props[i].cmd;
		int r = 0;

		if (c == DTV_TUNE) {
			r = tune(rf);
		} else if (c == DTV_CLEAR) {
			memset(rf->pending_set, 0, sizeof(rf->pending_set));
		} else if (c == DTV_DELIVERY_SYSTEM && l->num_systems) {
			/* dvb-core switches at once and refuses a system the frontend lacks */
			r = -EINVAL;
			for (int k = 0; k < l->num_systems; k++) {
				if ((uint32_t)l->systems[k] == props[i].u.data)
					r = 0;
			}
			if (r == 0) {
				rf->pending_val[c] = props[i].u.data;
				rf->pending_set[c] = 1;
			}
		} else if (c < PENDING_MAX) {
			rf->pending_val[c] = props[i].u.data;
			rf->pending_set[c] = 1;
		} else {
			r = -EINVAL;
		}
		props[i].result = r;
		if (r < 0)
			return r;
	}
	return 0;
}

static int get_props(struct remote_file *rf, struct dtv_property *props, unsigned int n)
{
	struct remote_fe_log *l = &remote_tuner_of(rf)->fe;
	struct dvbv5_wire_fe_stats s;
	struct dvbv5_wire_fe_parms p;
	int have_stats = 0, have_parms = 0;

	for (unsigned int i = 0; i < n; i++) {
		uint32_t c = props[i].cmd, v = 0;
		int r;

		if (c >= DTV_STAT_SIGNAL_STRENGTH && c <= DTV_STAT_TOTAL_BLOCK_COUNT) {
			if (!have_stats && refresh(rf, &s) < 0)
				return -ENODEV;
			have_stats = 1;
			memset(&props[i].u.st, 0, sizeof(props[i].u.st));
			if (stat_of(&s, c, &props[i].u.st.stat[0]))
				props[i].u.st.len = 1;
			continue;
		}
		switch (c) {
		case DTV_API_VERSION:
			v = 0x050b; /* DVB API 5.11, what 1.22.1's daemon logs for kernel 6.1 */
			break;
		case DTV_DELIVERY_SYSTEM:
			v = rf->pending_set[c] ? rf->pending_val[c] : (uint32_t)l->current_sys;
			break;
		case DTV_ENUM_DELSYS:
			memset(&props[i].u.buffer, 0, sizeof(props[i].u.buffer));
			for (int k = 0; k < l->num_systems && k < 32; k++)
				props[i].u.buffer.data[k] = (uint8_t)l->systems[k];
			props[i].u.buffer.len = (uint32_t)l->num_systems;
			continue;
		default:
			if (!have_parms) {
				r = get_parms(rf, &p);
				if (r == -ENODEV)
					return r;
				have_parms = r == 0 ? 1 : -1;
			}
			if (c < PENDING_MAX && rf->pending_set[c])
				v = rf->pending_val[c];
			else if (have_parms > 0) {
				for (int k = 0; k < p.n_props; k++) {
					if (p.props[k].cmd == c)
						v = p.props[k].data;
				}
			}
		}
		props[i].u.data = v;
	}
	return 0;
}

static uint16_t legacy_level(const struct dtv_stats *s, int have)
{
	if (!have)
		return 0;
	if (s->scale == FE_SCALE_RELATIVE)
		return (uint16_t)s->uvalue;
	/* decibel (0.001 dB) onto 0..65535 as a rough relative level: a CNR of 0..40 dB, a
	 * signal strength of -100..0 dBm */
	long long db = s->svalue < 0 ? s->svalue + 100000 : s->svalue * 100 / 40;
	return db <= 0 ? 0 : db >= 100000 ? 65535 : (uint16_t)(db * 65535 / 100000);
}

static int info_type(int sys)
{
	switch (sys) {
	case SYS_DVBS: case SYS_DVBS2: case SYS_TURBO: case SYS_ISDBS: case SYS_DSS:
		return FE_QPSK;
	case SYS_DVBC_ANNEX_A: case SYS_DVBC_ANNEX_C:
		return FE_QAM;
	case SYS_ATSC: case SYS_ATSCMH: case SYS_DVBC_ANNEX_B:
		return FE_ATSC;
	default:
		return FE_OFDM;
	}
}

static void get_info(struct remote_file *rf, struct dvb_frontend_info *info)
{
	const struct remote_fe_log *l = &remote_tuner_of(rf)->fe;

	memset(info, 0, sizeof(*info));
	snprintf(info->name, sizeof(info->name), "%.127s", l->name);
	info->type = info_type(l->current_sys);
	info->frequency_min = l->freq_min;
	info->frequency_max = l->freq_max;
	info->frequency_stepsize = l->stepsize;
	info->frequency_tolerance = l->tolerance;
	info->symbol_rate_min = l->sr_min;
	info->symbol_rate_max = l->sr_max;
	info->symbol_rate_tolerance = l->sr_tolerance;
	info->caps = l->caps;
}

static int legacy_set(struct remote_file *rf, const struct dvb_frontend_parameters *fp)
{
	struct dtv_property props[6];
	unsigned int n = 0;

	props[n].cmd = DTV_FREQUENCY, props[n++].u.data = fp->frequency;
	props[n].cmd = DTV_INVERSION, props[n++].u.data = fp->inversion;
	switch (info_type(remote_tuner_of(rf)->fe.current_sys)) {
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
	int r = get_props(rf, props, 5);

	if (r < 0)
		return r;
	memset(fp, 0, sizeof(*fp));
	fp->frequency = props[0].u.data;
	fp->inversion = props[1].u.data;
	fp->u.qam.symbol_rate = props[2].u.data; /* qpsk shares the layout of the first two */
	fp->u.qam.fec_inner = props[3].u.data;
	if (info_type(remote_tuner_of(rf)->fe.current_sys) == FE_QAM)
		fp->u.qam.modulation = props[4].u.data;
	return 0;
}

static int read_stat(struct remote_file *rf, unsigned int cmd, void *buf)
{
	struct dvbv5_wire_fe_stats s;
	struct dtv_stats st;
	int r = refresh(rf, &s), have;

	if (r < 0)
		return r;
	switch (cmd) {
	case FE_READ_STATUS:
		*(uint32_t *)buf = rf->status;
		break;
	case FE_READ_SIGNAL_STRENGTH:
		have = stat_of(&s, DTV_STAT_SIGNAL_STRENGTH, &st);
		*(uint16_t *)buf = legacy_level(&st, have);
		break;
	case FE_READ_SNR:
		have = stat_of(&s, DTV_STAT_CNR, &st);
		*(uint16_t *)buf = legacy_level(&st, have);
		break;
	case FE_READ_BER:
		/* libdvbv5's layer-0 counters: post-BER errors since the last call */
		*(uint32_t *)buf = (uint32_t)s.layers[0].counters[0];
		break;
	default: /* FE_READ_UNCORRECTED_BLOCKS */
		have = stat_of(&s, DTV_STAT_ERROR_BLOCK_COUNT, &st);
		*(uint32_t *)buf = have && st.scale == FE_SCALE_COUNTER ? (uint32_t)st.uvalue : 0;
	}
	return 0;
}

int remote_fe_ioctl(struct remote_file *rf, struct ffdvb_ioctl *io)
{
	unsigned int cmd = io->cmd;
	int r;

	/* dvb-core: a read-only file may only ask */
	if ((rf->base.flags & O_ACCMODE) == O_RDONLY &&
	    (_IOC_DIR(cmd) != _IOC_READ || cmd == FE_GET_EVENT || cmd == FE_DISEQC_RECV_SLAVE_REPLY))
		return -EPERM;
	if (_IOC_SIZE(cmd) && !io->buf)
		return -EFAULT;
	switch (cmd) {
	case FE_GET_INFO:
		get_info(rf, io->buf);
		return 0;
	case FE_READ_STATUS:
	case FE_READ_SIGNAL_STRENGTH:
	case FE_READ_SNR:
	case FE_READ_BER:
	case FE_READ_UNCORRECTED_BLOCKS:
		return read_stat(rf, cmd, io->buf);
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
	case FE_GET_EVENT: {
		struct dvbv5_wire_fe_stats s;

		if (rf->ev_overflow) {
			rf->ev_overflow = 0;
			return -EOVERFLOW;
		}
		if (!rf->ev_len) {
			r = refresh(rf, &s);
			if (r < 0)
				return r;
		}
		if (!rf->ev_len) {
			remote_fe_watch(rf);
			return -EAGAIN;
		}
		memcpy(io->buf, &rf->events[rf->ev_head], sizeof(struct dvb_frontend_event));
		rf->ev_head = (rf->ev_head + 1) % REMOTE_EVENTS;
		rf->ev_len--;
		return 0;
	}
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

/* The loop's poll: the events there are; without one the worker polls the daemon's status
 * and wakes the file when one comes (or the connection is lost). */
unsigned int remote_fe_poll(struct remote_file *rf)
{
	if (rf->ev_len)
		return POLLIN | POLLRDNORM | POLLPRI;
	if (rf->open_result == 0 && !rf->watch_wanted) {
		rf->watch_wanted = 1;
		remote_poke(remote_tuner_of(rf));
	}
	return 0;
}
