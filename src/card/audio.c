/* SPDX-License-Identifier: GPL-2.0-or-later */
/* audio0 (§2.3, §5): exactly one opener, a writer. */
#include <errno.h>
#include <poll.h>
#include <string.h>

#include "card_internal.h"

static int audio_opened(struct card_file *f)
{
	struct ffdvb_card *card = f->node->card;

	card_flush_stream(card, FFDVB_STREAM_AUDIO);
	card->audio.stream_source = FFDVB_AUDIO_SOURCE_DEMUX;
	card_wake_av(card);
	return 0;
}

static void audio_released(struct card_file *f)
{
	card_av_stop(f->node->card, CARD_PLAY_AUDIO);
}

static ssize_t audio_read(struct card_file *f, void *buf, size_t len, int nonblock)
{
	(void)f, (void)buf, (void)len, (void)nonblock;
	return -EINVAL;
}

static ssize_t audio_write(struct card_file *f, const void *buf, size_t len, int nonblock)
{
	struct ffdvb_card *card = f->node->card;

	(void)nonblock;
	if (card->audio.stream_source != FFDVB_AUDIO_SOURCE_MEMORY)
		return -EPERM;
	return card_av_write(card, FFDVB_NODE_AUDIO, buf, len);
}

static int audio_ioctl(struct card_file *f, struct ffdvb_ioctl *io)
{
	struct ffdvb_card *card = f->node->card;
	int r = 0;

	/* Queries and setters of values that neither a waiting request, a poll mask, the STC nor
	 * the drain depend on return at once: card_play_state_changed() would wake for nothing. */
	switch (io->cmd) {
	case FFDVB_AUDIO_GET_STATUS:
		memcpy(io->buf, &card->audio, sizeof(card->audio)); /* mixer_state stays {0,0} */
		return 0;
	case FFDVB_AUDIO_GET_CAPABILITIES:
		*(unsigned int *)io->buf = FFDVB_AUDIO_CAP_DTS | FFDVB_AUDIO_CAP_LPCM |
					   FFDVB_AUDIO_CAP_MP1 | FFDVB_AUDIO_CAP_MP2 |
					   FFDVB_AUDIO_CAP_AC3;
		return 0;
	case FFDVB_AUDIO_STOP:
		if (card->audio.stream_source == FFDVB_AUDIO_SOURCE_MEMORY)
			card_av_stop(card, CARD_PLAY_AUDIO);
		else
			card->effective_mute = 1; /* firmware mute; mute_state unchanged */
		card->audio.play_state = FFDVB_AUDIO_STOPPED;
		break;
	case FFDVB_AUDIO_PLAY:
		if (card->audio.stream_source == FFDVB_AUDIO_SOURCE_MEMORY) {
			r = card_start_play(card, CARD_PLAY_AUDIO);
			if (r < 0)
				break;
		}
		card->effective_mute = 0; /* firmware unmute; mute_state unchanged */
		card->audio.play_state = FFDVB_AUDIO_PLAYING;
		break;
	case FFDVB_AUDIO_PAUSE: /* just a mute on av7110 */
		card->effective_mute = 1;
		card->audio.play_state = FFDVB_AUDIO_PAUSED;
		break;
	case FFDVB_AUDIO_CONTINUE:
		if (card->audio.play_state == FFDVB_AUDIO_PAUSED) {
			card->audio.play_state = FFDVB_AUDIO_PLAYING;
			card->effective_mute = 0;
		}
		break;
	case FFDVB_AUDIO_SELECT_SOURCE:
		card->audio.stream_source = (int32_t)io->arg;
		break;
	case FFDVB_AUDIO_SET_MUTE:
		card->audio.mute_state = (int32_t)io->arg;
		card->effective_mute = (int32_t)io->arg != 0;
		return 0;
	case FFDVB_AUDIO_SET_AV_SYNC:
		card->audio.AV_sync_state = (int32_t)io->arg;
		return 0;
	case FFDVB_AUDIO_SET_BYPASS_MODE:
		card->audio.bypass_mode = (int32_t)io->arg; /* used at the next live PID change */
		return 0;
	case FFDVB_AUDIO_CHANNEL_SELECT:
		card->audio.channel_select = (int32_t)io->arg; /* stored even when invalid */
		if ((int32_t)io->arg < FFDVB_AUDIO_STEREO || (int32_t)io->arg > FFDVB_AUDIO_MONO_RIGHT)
			return -EINVAL;
		return 0;
	case FFDVB_AUDIO_CLEAR_BUFFER:
		card_flush_stream(card, FFDVB_STREAM_AUDIO);
		ffdvb_repacker_reset(&card->st[FFDVB_STREAM_AUDIO].repack);
		if (card->playing) /* docs/av7110.md, clients §2.9: restarting decoding un-mutes */
			card->effective_mute = 0;
		break;
	case FFDVB_AUDIO_SET_ID:
	case FFDVB_AUDIO_SET_STREAMTYPE:
		return 0;
	case FFDVB_AUDIO_SET_MIXER:
		memcpy(&card->mixer, io->buf, sizeof(card->mixer)); /* not in AUDIO_GET_STATUS */
		return 0;
	default:
		return -ENOTTY;
	}
	card_play_state_changed(card);
	return r;
}

static unsigned int audio_poll(struct card_file *f)
{
	struct ffdvb_card *card = f->node->card;

	if (!card->playing ||
	    card_ring_space(&card->st[FFDVB_STREAM_AUDIO].ring) >= CARD_FREE_COND_PES)
		return POLLOUT | POLLWRNORM;
	return 0;
}

const struct card_node_impl card_audio_impl = {
	.opened = audio_opened,
	.released = audio_released,
	.read = audio_read,
	.write = audio_write,
	.ioctl = audio_ioctl,
	.poll = audio_poll,
};
