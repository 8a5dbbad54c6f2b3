/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ffdvb_card_status: the card as the control socket reports it. The JSON keys are an interface:
 * the conformance tool (tools/ffdvb-conform/control.c), the VM tests and the benchmarks read
 * them. */
#include <errno.h>
#include <inttypes.h>

#include "card_internal.h"

static const char *video_state_name(int s)
{
	return s == FFDVB_VIDEO_PLAYING ? "PLAYING" : s == FFDVB_VIDEO_FREEZED ? "FREEZED"
										  : "STOPPED";
}

static const char *audio_state_name(int s)
{
	return s == FFDVB_AUDIO_PLAYING ? "PLAYING" : s == FFDVB_AUDIO_PAUSED ? "PAUSED"
										 : "STOPPED";
}

/* the trick mode VIDEO_FAST_FORWARD/SLOWMOTION/FREEZE left in effect (VIDEO_PLAY/CONTINUE/STOP
 * end it): shows when a client such as VDR leaves a trick mode */
static const char *trick_name(enum card_trick t)
{
	return t == CARD_TRICK_FAST ? "FAST" : t == CARD_TRICK_SLOW ? "SLOW"
			: t == CARD_TRICK_FREEZE ? "FREEZE" : "NONE";
}

/* stored unvalidated: anything but 1 counts as "not memory" (§4.1) */
static const char *source_name(int s)
{
	return s == 1 ? "MEMORY" : "DEMUX";
}

static void status_json(struct ffdvb_card *card, FILE *out)
{
	const struct card_stream *v = &card->st[FFDVB_STREAM_VIDEO];
	const struct card_stream *a = &card->st[FFDVB_STREAM_AUDIO];

	fprintf(out, "{\"adapter\":%d,\"nodes\":{", card->cfg.adapter);
	for (int t = 0; t < FFDVB_NODE_COUNT; t++) {
		const struct card_node *n = &card->nodes[t];

		fprintf(out,
			"%s\"%s\":{\"openers\":%d,\"readers\":%d,\"writers\":%d,"
			"\"bytes_accepted\":%" PRIu64 ",\"bytes_refused\":%" PRIu64
			",\"errors\":%" PRIu64 "}",
			t ? "," : "", ffdvb_node_name(t), n->users, n->readers, n->writers,
			n->bytes_accepted, n->bytes_refused, n->errors);
	}
	fprintf(out,
		"},\"video\":{\"play_state\":\"%s\",\"stream_source\":\"%s\",\"ring_fill\":%zu,"
		"\"ring_size\":%zu,\"playing\":%s,\"video_blank\":%d,\"display_format\":%d,"
		"\"video_format\":%d,\"size\":[%d,%d,%d],\"trick\":\"%s\",\"slow_count\":%lu},",
		video_state_name(card->video.play_state), source_name(card->video.stream_source),
		card_ring_fill(&v->ring), v->ring.size,
		(card->playing & CARD_PLAY_VIDEO) ? "true" : "false", card->video.video_blank,
		card->video.display_format, card->video.video_format, card->video_size.w,
		card->video_size.h, card->video_size.aspect_ratio, trick_name(card->trick),
		card->slow_count);
	fprintf(out,
		"\"audio\":{\"play_state\":\"%s\",\"stream_source\":\"%s\",\"ring_fill\":%zu,"
		"\"ring_size\":%zu,\"playing\":%s,\"mute\":%d,\"effective_mute\":%d,"
		"\"av_sync\":%d,\"channel_select\":%d,\"bypass_mode\":%d},",
		audio_state_name(card->audio.play_state), source_name(card->audio.stream_source),
		card_ring_fill(&a->ring), a->ring.size,
		(card->playing & CARD_PLAY_AUDIO) ? "true" : "false", card->audio.mute_state,
		card->effective_mute, card->audio.AV_sync_state, card->audio.channel_select,
		card->audio.bypass_mode);
	fprintf(out, "\"stream\":{\"garbage_bytes\":%" PRIu64 ",\"bad_headers\":%" PRIu64
		",\"ts_error_packets\":%" PRIu64 ",\"packets_dropped\":%" PRIu64 "},",
		v->repack.stats.garbage_bytes + a->repack.stats.garbage_bytes,
		v->repack.stats.bad_headers + a->repack.stats.bad_headers,
		v->repack.stats.ts_tei + a->repack.stats.ts_tei, card->repack_dropped);
	card_decoder_status(card, out, 1);
	card_tuner_status(card, out, 1);
	card_live_status(card, out, 1);
	fprintf(out, "\"stc\":%" PRIu64 ",\"osd_window\":%d,", card_stc(card),
		ffdvb_osd_current_window(card->osd));
	fprintf(out, "\"last_still\":{\"size\":%" PRIu32 ",\"fnv1a\":%" PRIu32 "},",
		card->last_still.size, card->last_still.fnv1a);
	fprintf(out, "\"last_osd_data\":{\"cmd\":%" PRId32 ",\"size\":%" PRIu32 ",\"fnv1a\":%" PRIu32
		     "}}\n",
		card->last_osd_data.cmd, card->last_osd_data.size, card->last_osd_data.fnv1a);
}

static void status_table(struct ffdvb_card *card, FILE *out)
{
	const struct card_stream *v = &card->st[FFDVB_STREAM_VIDEO];
	const struct card_stream *a = &card->st[FFDVB_STREAM_AUDIO];

	fprintf(out, "ffdvb adapter %d\n", card->cfg.adapter);
	fprintf(out, "%-10s %7s %7s %7s %14s %14s %8s\n", "node", "openers", "readers", "writers",
		"bytes_accepted", "bytes_refused", "errors");
	for (int t = 0; t < FFDVB_NODE_COUNT; t++) {
		const struct card_node *n = &card->nodes[t];

		fprintf(out, "%-10s %7d %7d %7d %14" PRIu64 " %14" PRIu64 " %8" PRIu64 "\n",
			ffdvb_node_name(t), n->users, n->readers, n->writers, n->bytes_accepted,
			n->bytes_refused, n->errors);
	}
	fprintf(out, "video: %s, source %s, ring %zu/%zu, %s, size %dx%d aspect %d, trick %s\n",
		video_state_name(card->video.play_state), source_name(card->video.stream_source),
		card_ring_fill(&v->ring), v->ring.size,
		(card->playing & CARD_PLAY_VIDEO) ? "playing from memory" : "not playing",
		card->video_size.w, card->video_size.h, card->video_size.aspect_ratio,
		trick_name(card->trick));
	fprintf(out, "audio: %s, source %s, ring %zu/%zu, %s, mute %d (effective %d)\n",
		audio_state_name(card->audio.play_state), source_name(card->audio.stream_source),
		card_ring_fill(&a->ring), a->ring.size,
		(card->playing & CARD_PLAY_AUDIO) ? "playing from memory" : "not playing",
		card->audio.mute_state, card->effective_mute);
	fprintf(out, "stream: %" PRIu64 " garbage bytes skipped, %" PRIu64 " bad PES headers, %" PRIu64
		" TS error packets, %" PRIu64 " packets dropped\n",
		v->repack.stats.garbage_bytes + a->repack.stats.garbage_bytes,
		v->repack.stats.bad_headers + a->repack.stats.bad_headers,
		v->repack.stats.ts_tei + a->repack.stats.ts_tei, card->repack_dropped);
	card_decoder_status(card, out, 0);
	card_tuner_status(card, out, 0);
	card_live_status(card, out, 0);
	fprintf(out, "stc: %" PRIu64 "\n", card_stc(card));
	fprintf(out, "last still picture: %" PRIu32 " bytes, fnv1a %" PRIu32 "\n",
		card->last_still.size, card->last_still.fnv1a);
	fprintf(out, "last osd data: cmd %" PRId32 ", %" PRIu32 " bytes, fnv1a %" PRIu32 "\n",
		card->last_osd_data.cmd, card->last_osd_data.size, card->last_osd_data.fnv1a);
}

int ffdvb_card_status(struct ffdvb_card *card, FILE *out, int json)
{
	if (!card || !out)
		return -EINVAL;
	if (json)
		status_json(card, out);
	else
		status_table(card, out);
	return ferror(out) ? -EIO : 0;
}
