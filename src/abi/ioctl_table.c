/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The ioctl table (ioctl_table.h): per node, in request order as docs/av7110.md §1 lists them.
 * Change a row here when the card's behaviour changes: test_ioctl_card holds the card to it,
 * test_ioctl_matrix holds README.md to it. */
#include "abi/ioctl_table.h"

#include <errno.h>
#include <linux/dvb/frontend.h>
#include <string.h>
#include <sys/ioctl.h>

#include "ffdvb/abi.h"

/* dmxdev's old DMX_SET_SOURCE: compiled out of current dvb-core (docs/av7110.md §1, demux0) */
#define OLD_DMX_SET_SOURCE _IOW('o', 49, int)

#define V FFDVB_NODE_VIDEO
#define A FFDVB_NODE_AUDIO
#define O FFDVB_NODE_OSD
#define D FFDVB_NODE_DEMUX
#define F FFDVB_NODE_FRONTEND
#define R FFDVB_NODE_DVR
#define ROW(node, req, sup, note) { node, #req, FFDVB_##req, 0, FFDVB_IOCTL_##sup, note }
#define FE(req, note) { F, #req, req, 0, FFDVB_IOCTL_TUNER, note }
#define COMPAT(node, req, nat) \
	{ node, #req, FFDVB_##req, FFDVB_##nat, FFDVB_IOCTL_COMPAT, "32-bit layout of " #nat }
#define ANY(node, sup, note) { node, "(any other)", FFDVB_IOCTL_ANY, 0, FFDVB_IOCTL_##sup, note }

const struct ffdvb_ioctl_info ffdvb_ioctls[] = {
	ROW(V, VIDEO_STOP, EMULATED, NULL),
	ROW(V, VIDEO_PLAY, EMULATED, NULL),
	ROW(V, VIDEO_FREEZE, EMULATED, NULL),
	ROW(V, VIDEO_CONTINUE, EMULATED, NULL),
	ROW(V, VIDEO_SELECT_SOURCE, EMULATED, "stored, not checked"),
	ROW(V, VIDEO_SET_BLANK, EMULATED, "stored"),
	ROW(V, VIDEO_GET_STATUS, EMULATED, "also read-only"),
	ROW(V, VIDEO_GET_EVENT, EMULATED, "also read-only; size changes"),
	ROW(V, VIDEO_SET_DISPLAY_FORMAT, EMULATED, NULL),
	ROW(V, VIDEO_STILLPICTURE, EMULATED, "decoded and shown"),
	ROW(V, VIDEO_FAST_FORWARD, EMULATED, "I-frames only"),
	ROW(V, VIDEO_SLOWMOTION, EMULATED, NULL),
	ROW(V, VIDEO_GET_CAPABILITIES, EMULATED, "MPEG1, MPEG2, SYS, PROG"),
	ROW(V, VIDEO_CLEAR_BUFFER, EMULATED, NULL),
	ROW(V, VIDEO_SET_ID, ENOTTY, "removed"),
	ROW(V, VIDEO_SET_STREAMTYPE, IGNORED, NULL),
	ROW(V, VIDEO_SET_FORMAT, EMULATED, "4:3 or 16:9"),
	ROW(V, VIDEO_SET_SYSTEM, ENOTTY, "removed"),
	ROW(V, VIDEO_SET_HIGHLIGHT, ENOTTY, "removed"),
	ROW(V, VIDEO_SET_SPU, ENOTTY, "removed"),
	ROW(V, VIDEO_SET_SPU_PALETTE, ENOTTY, "removed"),
	ROW(V, VIDEO_GET_NAVI, ENOTTY, "removed"),
	ROW(V, VIDEO_SET_ATTRIBUTES, ENOTTY, "removed"),
	ROW(V, VIDEO_GET_SIZE, EMULATED, "also read-only"),
	ROW(V, VIDEO_GET_FRAME_RATE, ENOTTY, "removed"),
	ROW(V, VIDEO_GET_PTS, ENOTTY, "the time is DMX_GET_STC's"),
	ROW(V, VIDEO_GET_FRAME_COUNT, ENOTTY, NULL),
	ROW(V, VIDEO_COMMAND, ENOTTY, NULL),
	ROW(V, VIDEO_TRY_COMMAND, ENOTTY, NULL),
	COMPAT(V, VIDEO_GET_EVENT32, VIDEO_GET_EVENT),
	COMPAT(V, VIDEO_STILLPICTURE32, VIDEO_STILLPICTURE),
	ROW(V, VIDEO_SET_SPU_PALETTE32, ENOTTY, "removed"),
	ANY(V, ENOTTY, "EPERM first on a read-only file, as on av7110"),

	ROW(A, AUDIO_STOP, EMULATED, NULL),
	ROW(A, AUDIO_PLAY, EMULATED, NULL),
	ROW(A, AUDIO_PAUSE, EMULATED, "a mute, as on av7110"),
	ROW(A, AUDIO_CONTINUE, EMULATED, NULL),
	ROW(A, AUDIO_SELECT_SOURCE, EMULATED, "stored"),
	ROW(A, AUDIO_SET_MUTE, EMULATED, NULL),
	ROW(A, AUDIO_SET_AV_SYNC, EMULATED, NULL),
	ROW(A, AUDIO_SET_BYPASS_MODE, EMULATED, "stored; audio-passthrough decides what goes out undecoded"),
	ROW(A, AUDIO_CHANNEL_SELECT, EMULATED, "stereo, left, right"),
	ROW(A, AUDIO_GET_STATUS, EMULATED, NULL),
	ROW(A, AUDIO_GET_CAPABILITIES, EMULATED, "LPCM, DTS, AC3, MP1, MP2"),
	ROW(A, AUDIO_CLEAR_BUFFER, EMULATED, NULL),
	ROW(A, AUDIO_SET_ID, IGNORED, NULL),
	ROW(A, AUDIO_SET_MIXER, EMULATED, "volume"),
	ROW(A, AUDIO_SET_STREAMTYPE, IGNORED, NULL),
	ROW(A, AUDIO_SET_EXT_ID, ENOTTY, "removed"),
	ROW(A, AUDIO_SET_ATTRIBUTES, ENOTTY, "removed"),
	ROW(A, AUDIO_SET_KARAOKE, ENOTTY, "removed"),
	ROW(A, AUDIO_GET_PTS, ENOTTY, "the time is DMX_GET_STC's"),
	ROW(A, AUDIO_BILINGUAL_CHANNEL_SELECT, ENOTTY, NULL),
	ANY(A, ENOTTY, NULL),

	ROW(O, OSD_SEND_CMD, EMULATED, "all 22 commands"),
	ROW(O, OSD_GET_CAPABILITY, EMULATED, "OSD_CAP_MEMSIZE"),
	COMPAT(O, OSD_SEND_CMD32, OSD_SEND_CMD),
	COMPAT(O, OSD_GET_CAPABILITY32, OSD_GET_CAPABILITY),
	ANY(O, EINVAL, NULL),

	ROW(D, DMX_START, DMXDEV, NULL),
	ROW(D, DMX_STOP, DMXDEV, NULL),
	ROW(D, DMX_SET_FILTER, DMXDEV, "sections"),
	ROW(D, DMX_SET_PES_FILTER, DMXDEV, "DMX_OUT_DECODER feeds the decoder"),
	ROW(D, DMX_SET_BUFFER_SIZE, DMXDEV, NULL),
	ROW(D, DMX_GET_PES_PIDS, EMULATED, "the decoder's PIDs"),
	{ D, "DMX_SET_SOURCE", OLD_DMX_SET_SOURCE, 0, FFDVB_IOCTL_ENOTTY,
	  "compiled out of dvb-core" },
	ROW(D, DMX_GET_STC, EMULATED, "the decoder's clock"),
	ROW(D, DMX_ADD_PID, DMXDEV, NULL),
	ROW(D, DMX_REMOVE_PID, DMXDEV, NULL),
	ANY(D, ENOTTY, NULL),

	FE(FE_GET_INFO, NULL),
	FE(FE_DISEQC_RESET_OVERLOAD, NULL),
	FE(FE_DISEQC_SEND_MASTER_CMD, NULL),
	FE(FE_DISEQC_RECV_SLAVE_REPLY, "EOPNOTSUPP from a driver without the op (none, file:)"),
	FE(FE_DISEQC_SEND_BURST, NULL),
	FE(FE_SET_TONE, NULL),
	FE(FE_SET_VOLTAGE, NULL),
	FE(FE_ENABLE_HIGH_LNB_VOLTAGE, NULL),
	FE(FE_READ_STATUS, NULL),
	FE(FE_READ_BER, NULL),
	FE(FE_READ_SIGNAL_STRENGTH, NULL),
	FE(FE_READ_SNR, NULL),
	FE(FE_READ_UNCORRECTED_BLOCKS, NULL),
	FE(FE_SET_FRONTEND, NULL),
	FE(FE_GET_FRONTEND, NULL),
	FE(FE_SET_FRONTEND_TUNE_MODE, NULL),
	FE(FE_GET_EVENT, NULL),
	FE(FE_DISHNETWORK_SEND_LEGACY_CMD, NULL),
	FE(FE_SET_PROPERTY, NULL),
	FE(FE_GET_PROPERTY, NULL),
	{ F, "FE_SET_PROPERTY32", FFDVB_FE_SET_PROPERTY32, FE_SET_PROPERTY, FFDVB_IOCTL_COMPAT,
	  "32-bit layout of FE_SET_PROPERTY" },
	{ F, "FE_GET_PROPERTY32", FFDVB_FE_GET_PROPERTY32, FE_GET_PROPERTY, FFDVB_IOCTL_COMPAT,
	  "32-bit layout of FE_GET_PROPERTY" },
	ANY(F, ENOTTY, "the tuner's answer: dvb-core's ENOTTY"),

	{ R, "DMX_SET_BUFFER_SIZE", FFDVB_DMX_SET_BUFFER_SIZE, 0, FFDVB_IOCTL_TUNER, NULL },
	ANY(R, ENOTTY, "dmxdev's dvr has no other"),
};

const size_t ffdvb_n_ioctls = sizeof(ffdvb_ioctls) / sizeof(ffdvb_ioctls[0]);

const struct ffdvb_ioctl_info *ffdvb_ioctl_find(int node, unsigned int cmd)
{
	const struct ffdvb_ioctl_info *any = NULL;

	for (size_t i = 0; i < ffdvb_n_ioctls; i++) {
		const struct ffdvb_ioctl_info *r = &ffdvb_ioctls[i];

		if (r->cmd != cmd || cmd == FFDVB_IOCTL_ANY)
			continue;
		if ((int)r->node == node)
			return r;
		if (!any)
			any = r;
	}
	return node >= 0 && node < FFDVB_NODE_COUNT ? NULL : any;
}

const char *ffdvb_ioctl_name(unsigned int cmd)
{
	const struct ffdvb_ioctl_info *r = ffdvb_ioctl_find(-1, cmd);

	return r ? r->name : NULL;
}

const char *ffdvb_ioctl_support_text(enum ffdvb_ioctl_support s)
{
	switch (s) {
	case FFDVB_IOCTL_EMULATED: return "emulated as av7110";
	case FFDVB_IOCTL_IGNORED: return "accepted and ignored, as on av7110";
	case FFDVB_IOCTL_DMXDEV: return "dmxdev emulated, forwarded to the tuner";
	case FFDVB_IOCTL_TUNER: return "forwarded to the tuner";
	case FFDVB_IOCTL_TUNER_HW: return "forwarded to the tuner (none, file: ENOTTY)";
	case FFDVB_IOCTL_COMPAT: return "converted for 32-bit callers";
	case FFDVB_IOCTL_ENOTTY: return "ENOTTY as on av7110";
	case FFDVB_IOCTL_EINVAL: return "EINVAL as on av7110";
	}
	return "?";
}

int ffdvb_ioctl_expected_errno(const struct ffdvb_ioctl_info *info)
{
	if (info->support == FFDVB_IOCTL_COMPAT) {
		info = ffdvb_ioctl_find((int)info->node, info->native);
		if (!info)
			return 0;
	}
	switch (info->support) {
	case FFDVB_IOCTL_ENOTTY:
	case FFDVB_IOCTL_TUNER_HW:
		return ENOTTY;
	case FFDVB_IOCTL_EINVAL:
		return EINVAL;
	default:
		return 0;
	}
}

const char *ffdvb_ioctl_node_name(enum ffdvb_node_type node)
{
	/* ffdvb_node_name()'s names without linking the card (ffdvbctl); test_ioctl_card
	   checks that they agree */
	static const char *const names[FFDVB_NODE_COUNT] = {
		[FFDVB_NODE_VIDEO] = "video0", [FFDVB_NODE_AUDIO] = "audio0",
		[FFDVB_NODE_OSD] = "osd0", [FFDVB_NODE_DEMUX] = "demux0",
		[FFDVB_NODE_FRONTEND] = "frontend0", [FFDVB_NODE_DVR] = "dvr0",
	};

	return (unsigned int)node < FFDVB_NODE_COUNT && names[node] ? names[node] : "?";
}

void ffdvb_ioctl_matrix(FILE *out, int markdown)
{
	if (markdown)
		fprintf(out, "| node | ioctl | request | ffdvb | notes |\n"
			     "|---|---|---|---|---|\n");
	else
		fprintf(out, "%-10s %-31s %-10s %-40s %s\n", "NODE", "IOCTL", "REQUEST", "FFDVB",
			"NOTES");
	for (size_t i = 0; i < ffdvb_n_ioctls; i++) {
		const struct ffdvb_ioctl_info *r = &ffdvb_ioctls[i];
		char req[16] = "";

		if (r->cmd != FFDVB_IOCTL_ANY)
			snprintf(req, sizeof(req), "0x%08X", r->cmd);
		if (markdown)
			fprintf(out, "| %s | %s | %s | %s | %s |\n", ffdvb_ioctl_node_name(r->node), r->name,
				req, ffdvb_ioctl_support_text(r->support), r->note ? r->note : "");
		else
			fprintf(out, "%-10s %-31s %-10s %-40s %s\n", ffdvb_ioctl_node_name(r->node), r->name,
				req, ffdvb_ioctl_support_text(r->support), r->note ? r->note : "");
	}
}
