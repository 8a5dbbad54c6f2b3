/* frontend0, minimal (clients.md §1.3): enough for VDR to open, query and poll it. There is no
 * tuner yet (issue 5): DTV_TUNE is accepted and the status stays "no signal". Follows the
 * dvb_frontend core: one writer, any number of read-only openers, property calls. */
#include <errno.h>
#include <string.h>

#include <linux/dvb/frontend.h>
#include <linux/dvb/version.h>

#include "card_internal.h"

/* We announce cable, terrestrial and satellite so that any channel list can be "tuned"; the
 * tuner issue will narrow this to what the backing device offers. */
static const uint8_t fe_delsys_list[] = { SYS_DVBC_ANNEX_A, SYS_DVBT, SYS_DVBS, SYS_DVBS2 };

static int delsys_supported(uint32_t s)
{
	for (size_t i = 0; i < sizeof(fe_delsys_list); i++)
		if (fe_delsys_list[i] == s)
			return 1;
	return 0;
}

static int is_satellite(uint32_t s)
{
	return s == SYS_DVBS || s == SYS_DVBS2;
}

static void get_info(struct ffdvb_card *card, struct dvb_frontend_info *info)
{
	memset(info, 0, sizeof(*info));
	snprintf(info->name, sizeof(info->name), "ffdvb virtual frontend");
	if (is_satellite(card->fe_delsys)) { /* kHz, as dvb-core reports for satellite */
		info->type = FE_QPSK;
		info->frequency_min = 950000;
		info->frequency_max = 2150000;
		info->frequency_stepsize = 1000;
	} else {
		info->type = card->fe_delsys == SYS_DVBT ? FE_OFDM : FE_QAM;
		info->frequency_min = 47000000;
		info->frequency_max = 862000000;
		info->frequency_stepsize = 62500;
	}
	info->symbol_rate_min = 1000000;
	info->symbol_rate_max = 45000000;
	info->caps = FE_CAN_INVERSION_AUTO | FE_CAN_FEC_AUTO | FE_CAN_QPSK | FE_CAN_QAM_16 |
		     FE_CAN_QAM_32 | FE_CAN_QAM_64 | FE_CAN_QAM_128 | FE_CAN_QAM_256 |
		     FE_CAN_QAM_AUTO | FE_CAN_TRANSMISSION_MODE_AUTO | FE_CAN_BANDWIDTH_AUTO |
		     FE_CAN_GUARD_INTERVAL_AUTO | FE_CAN_HIERARCHY_AUTO | FE_CAN_2G_MODULATION;
}

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
static int get_prop(struct ffdvb_card *card, struct dtv_property *p)
{
	switch (p->cmd) {
	case DTV_ENUM_DELSYS:
		memcpy(p->u.buffer.data, fe_delsys_list, sizeof(fe_delsys_list));
		p->u.buffer.len = sizeof(fe_delsys_list);
		break;
	case DTV_API_VERSION:
		p->u.data = (DVB_API_VERSION << 8) | DVB_API_VERSION_MINOR;
		break;
	case DTV_DELIVERY_SYSTEM:
		p->u.data = card->fe_delsys;
		break;
	case DTV_TUNE:
	case DTV_CLEAR:
		return -EINVAL;
	default:
		if (p->cmd >= DTV_STAT_SIGNAL_STRENGTH && p->cmd <= DTV_STAT_TOTAL_BLOCK_COUNT) {
			memset(&p->u.st, 0, sizeof(p->u.st)); /* no statistics available */
			break;
		}
		if (!settable(p->cmd))
			return -EINVAL;
		p->u.data = card->fe_props[p->cmd];
		break;
	}
	p->result = 0;
	return 0;
}

static int set_prop(struct ffdvb_card *card, const struct dtv_property *p)
{
	switch (p->cmd) {
	case DTV_CLEAR: /* the delivery system survives a clear */
		memset(card->fe_props, 0, sizeof(card->fe_props));
		return 0;
	case DTV_TUNE:
		return 0; /* no tuner yet: stays unlocked */
	case DTV_DELIVERY_SYSTEM:
		if (!delsys_supported(p->u.data))
			return -EINVAL;
		card->fe_delsys = p->u.data;
		return 0;
	default:
		if (!settable(p->cmd))
			return -EINVAL;
		card->fe_props[p->cmd] = p->u.data;
		return 0;
	}
}

static int properties(struct ffdvb_card *card, struct ffdvb_ioctl *io, int get)
{
	const struct dtv_properties *tvps = io->buf;
	struct dtv_property *props = io->data;

	if (!tvps->num || tvps->num > DTV_IOCTL_MAX_MSGS)
		return -EINVAL;
	if (io->data_fault || !props || io->data_len < tvps->num * sizeof(*props))
		return -EFAULT;
	for (uint32_t i = 0; i < tvps->num; i++) {
		int r = get ? get_prop(card, &props[i]) : set_prop(card, &props[i]);

		if (r < 0) {
			props[i].result = r;
			return r;
		}
	}
	return 0;
}

static int frontend_ioctl(struct card_file *f, struct ffdvb_ioctl *io)
{
	struct ffdvb_card *card = f->node->card;

	if (!f->writer && (_IOC_DIR(io->cmd) != _IOC_READ || io->cmd == FE_GET_EVENT ||
			   io->cmd == FE_DISEQC_RECV_SLAVE_REPLY))
		return -EPERM;
	switch (io->cmd) {
	case FE_GET_INFO:
		get_info(card, io->buf);
		return 0;
	case FE_READ_STATUS:
		*(fe_status_t *)io->buf = 0;
		return 0;
	case FE_READ_BER:
	case FE_READ_UNCORRECTED_BLOCKS:
		*(uint32_t *)io->buf = 0;
		return 0;
	case FE_READ_SIGNAL_STRENGTH:
	case FE_READ_SNR:
		*(uint16_t *)io->buf = 0;
		return 0;
	case FE_GET_PROPERTY:
		return properties(card, io, 1);
	case FE_SET_PROPERTY:
		return properties(card, io, 0);
	case FE_GET_EVENT: /* no tuning, so no event ever */
		if (io->nonblock)
			return -EWOULDBLOCK;
		return io->interrupted ? -EINTR : -FFDVB_EBLOCK;
	case FE_SET_TONE:
	case FE_SET_VOLTAGE:
	case FE_ENABLE_HIGH_LNB_VOLTAGE:
	case FE_DISEQC_SEND_MASTER_CMD:
	case FE_DISEQC_SEND_BURST:
	case FE_DISEQC_RESET_OVERLOAD:
	case FE_SET_FRONTEND_TUNE_MODE:
		return 0; /* accepted, nothing to drive yet */
	default: /* incl. the legacy FE_SET/GET_FRONTEND: the tuner issue */
		return -ENOTTY;
	}
}

static unsigned int frontend_poll(struct card_file *f)
{
	(void)f;
	return 0; /* POLLIN|POLLPRI only with a queued event */
}

const struct card_node_impl card_frontend_impl = {
	.ioctl = frontend_ioctl,
	.poll = frontend_poll,
};
