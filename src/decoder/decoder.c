/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The decoder's public face (include/ffdvb/decoder.h): threads, the card-facing queues, state
 * hand-over and read-back. Timing lives in presenter.c, decoding in stream_thread.c + es*.c. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "dec_internal.h"
#include "ffdvb/log.h"

/* Input queues are small on purpose: the card's rings are the buffer writers see, and the
 * decoded queues behind them bound how far decoding runs ahead of presentation. */
#define VIDEO_IN_MAX (64 * 1024)
#define AUDIO_IN_MAX (16 * 1024)
#define VIDEO_OUT_FRAMES 8
#define AUDIO_OUT_SAMPLES (FFDVB_AUDIO_RATE / 4) /* 250 ms */
#define VIDEO_MAX_JUMP (90000 * 3 / 2)
#define AUDIO_MAX_JUMP (90000 / 2)

uint64_t dec_real_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void dec_wake(struct ffdvb_decoder *dec)
{
	uint64_t one = 1;

	/* only the counter moves; the reader's loop does the work */
	if (write(dec->wake_fd, &one, sizeof(one)) < 0) {
		/* EAGAIN: the counter is already nonzero, the reader will look anyway */
	}
}

int ffdvb_decoder_wake_fd(const struct ffdvb_decoder *dec)
{
	return dec->wake_fd;
}

static int stream_init(struct ffdvb_decoder *dec, enum ffdvb_stream which)
{
	struct dec_stream *s = &dec->st[which];
	struct es_config ec = {
		.kind = which == FFDVB_STREAM_VIDEO ? ES_VIDEO : ES_AUDIO,
		.deinterlace = dec->cfg.deinterlace == FFDVB_DEINTERLACE_FIELD   ? ES_DEINTERLACE_FIELD
			       : dec->cfg.deinterlace == FFDVB_DEINTERLACE_FRAME ? ES_DEINTERLACE_FRAME
										  : ES_DEINTERLACE_OFF,
	};

	s->dec = dec;
	s->which = which;
	s->in_max = which == FFDVB_STREAM_VIDEO ? VIDEO_IN_MAX : AUDIO_IN_MAX;
	/* in half frames (dec_frame_weight): field pictures take no more time than frames */
	s->out_max = which == FFDVB_STREAM_VIDEO ? VIDEO_OUT_FRAMES * 2 : AUDIO_OUT_SAMPLES;
	timeline_init(&s->tl, which == FFDVB_STREAM_VIDEO ? VIDEO_MAX_JUMP : AUDIO_MAX_JUMP,
		      &dec->tl_shared);
	s->es = es_new(&ec);
	if (s->es && which == FFDVB_STREAM_AUDIO) {
		s->pass = (dec->cfg.passthrough & FFDVB_PASS_AC3 ? ES_PASS_AC3 : 0) |
			  (dec->cfg.passthrough & FFDVB_PASS_DTS ? ES_PASS_DTS : 0) |
			  (dec->cfg.passthrough & FFDVB_PASS_EAC3 ? ES_PASS_EAC3 : 0);
		es_set_passthrough(s->es, s->pass);
		s->pass_applied = s->pass;
	}
	return s->es ? 0 : -ENOMEM;
}

static void stop_threads(struct ffdvb_decoder *dec)
{
	pthread_mutex_lock(&dec->lock);
	dec->quit = 1;
	for (int i = 0; i < FFDVB_STREAM_COUNT; i++) {
		pthread_cond_broadcast(&dec->st[i].cond_in);
		pthread_cond_broadcast(&dec->st[i].cond_out);
	}
	pthread_cond_broadcast(&dec->cond_pres);
	pthread_mutex_unlock(&dec->lock);
	for (int i = 0; i < FFDVB_STREAM_COUNT; i++)
		if (dec->st[i].thread_started)
			pthread_join(dec->st[i].thread, NULL);
	if (dec->presenter_started)
		pthread_join(dec->presenter, NULL);
}

void ffdvb_decoder_free(struct ffdvb_decoder *dec)
{
	if (!dec)
		return;
	stop_threads(dec);
	for (int i = 0; i < FFDVB_STREAM_COUNT; i++) {
		struct dec_stream *s = &dec->st[i];

		dec_packet_list_free(s->in_head);
		dec_frame_list_free(s->out_head);
		es_free(s->es);
		pthread_cond_destroy(&s->cond_in);
		pthread_cond_destroy(&s->cond_out);
	}
	pthread_cond_destroy(&dec->cond_pres);
	pthread_mutex_destroy(&dec->lock);
	if (dec->wake_fd >= 0)
		close(dec->wake_fd);
	free(dec);
}

struct ffdvb_decoder *ffdvb_decoder_new(const struct ffdvb_decoder_config *cfg)
{
	struct ffdvb_decoder *dec = calloc(1, sizeof(*dec));
	int r = -ENOMEM;

	if (!dec) {
		errno = ENOMEM;
		return NULL;
	}
	dec->cfg = *cfg;
	dec->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	pthread_mutex_init(&dec->lock, NULL);
	for (int i = 0; i < FFDVB_STREAM_COUNT; i++) {
		pthread_cond_init(&dec->st[i].cond_in, NULL);
		pthread_cond_init(&dec->st[i].cond_out, NULL);
	}
	pthread_cond_init(&dec->cond_pres, NULL);
	dec->state.av_sync = 1;
	dec->state.volume_left = dec->state.volume_right = 255;
	if (dec->wake_fd < 0) {
		r = -errno;
		goto fail;
	}
	if (stream_init(dec, FFDVB_STREAM_VIDEO) || stream_init(dec, FFDVB_STREAM_AUDIO))
		goto fail;
	for (int i = 0; i < FFDVB_STREAM_COUNT; i++)
		if ((r = dec_stream_start(&dec->st[i])) < 0)
			goto fail;
	/* the presenter creates the output on its own thread (SDL wants one thread) */
	if ((r = -pthread_create(&dec->presenter, NULL, dec_presenter_main, dec)) < 0)
		goto fail;
	dec->presenter_started = 1;
	pthread_mutex_lock(&dec->lock);
	while (!dec->out_ready)
		pthread_cond_wait(&dec->cond_pres, &dec->lock);
	r = dec->out_ready < 0 ? -dec->out_errno : 0;
	pthread_mutex_unlock(&dec->lock);
	if (r < 0)
		goto fail;
	return dec;
fail:
	ffdvb_decoder_free(dec);
	errno = -r;
	return NULL;
}

struct ffdvb_output *ffdvb_decoder_output(struct ffdvb_decoder *dec)
{
	return dec->out;
}

int ffdvb_decoder_put(struct ffdvb_decoder *dec, enum ffdvb_stream which, const uint8_t *pkt,
		      size_t len)
{
	return ffdvb_decoder_put2(dec, which, pkt, len, NULL, 0);
}

int ffdvb_decoder_put2(struct ffdvb_decoder *dec, enum ffdvb_stream which, const uint8_t *a,
		       size_t alen, const uint8_t *b, size_t blen)
{
	struct dec_stream *s = &dec->st[which];
	struct dec_packet *p;
	size_t len = alen + blen;
	int r = 0;

	pthread_mutex_lock(&dec->lock);
	if (s->in_bytes && s->in_bytes + len > s->in_max) {
		s->refused = 1;
		r = -EAGAIN;
	} else if (!(p = malloc(sizeof(*p) + len))) {
		r = -ENOMEM;
	} else {
		p->next = NULL;
		p->len = len;
		p->raw_still = 0;
		memcpy(p->data, a, alen);
		if (blen)
			memcpy(p->data + alen, b, blen);
		if (s->in_tail)
			s->in_tail->next = p;
		else
			s->in_head = p;
		s->in_tail = p;
		s->in_bytes += len;
		s->starved_since = 0;
		s->ended = 0;
		pthread_cond_broadcast(&s->cond_in);
	}
	pthread_mutex_unlock(&dec->lock);
	return r;
}

size_t ffdvb_decoder_room(struct ffdvb_decoder *dec, enum ffdvb_stream which)
{
	struct dec_stream *s = &dec->st[which];
	size_t room;

	pthread_mutex_lock(&dec->lock);
	room = s->in_bytes >= s->in_max ? 0 : s->in_max - s->in_bytes;
	if (!s->in_bytes)
		room = SIZE_MAX; /* an empty queue takes any one packet */
	pthread_mutex_unlock(&dec->lock);
	return room;
}

/* with the lock held */
static void clear_locked(struct ffdvb_decoder *dec, struct dec_stream *s)
{
	s->serial++;
	dec_packet_list_free(s->in_head);
	s->in_head = s->in_tail = NULL;
	s->in_bytes = 0;
	dec_frame_list_free(s->out_head);
	s->out_head = s->out_tail = NULL;
	s->out_count = 0;
	s->need_restart = 1;
	s->reset_pending = 1;
	s->held = 0;
	s->holds = 0;
	s->ended = 0;
	s->await_key = 0;
	pthread_cond_broadcast(&s->cond_in);
	pthread_cond_broadcast(&s->cond_out);
	pthread_cond_broadcast(&dec->cond_pres);
}

void ffdvb_decoder_clear(struct ffdvb_decoder *dec, enum ffdvb_stream which)
{
	pthread_mutex_lock(&dec->lock);
	clear_locked(dec, &dec->st[which]);
	pthread_mutex_unlock(&dec->lock);
}

int ffdvb_decoder_still(struct ffdvb_decoder *dec, const uint8_t *es, size_t len)
{
	struct dec_stream *s = &dec->st[FFDVB_STREAM_VIDEO];
	struct dec_packet *p = malloc(sizeof(*p) + len);

	if (!p)
		return -ENOMEM;
	p->next = NULL;
	p->len = len;
	p->raw_still = 1;
	memcpy(p->data, es, len);
	pthread_mutex_lock(&dec->lock);
	clear_locked(dec, s);
	s->in_head = s->in_tail = p;
	s->in_bytes = len;
	pthread_mutex_unlock(&dec->lock);
	return 0;
}

void ffdvb_decoder_set_state(struct ffdvb_decoder *dec, const struct ffdvb_decoder_state *st)
{
	pthread_mutex_lock(&dec->lock);
	if (st->bypass && !dec->state.bypass && !dec->cfg.passthrough && !dec->bypass_noted) {
		dec->bypass_noted = 1; /* once: VDR sets it at every Dolby channel */
		ffdvb_log(FFDVB_LOG_NOTICE, "decoder: AUDIO_SET_BYPASS_MODE: AC-3 is decoded here: the "
			  "sound device is not a digital output (audio-passthrough is not set)");
	}
	if (memcmp(&dec->state, st, sizeof(*st))) {
		dec->state = *st;
		dec->state_serial++;
		dec->st[FFDVB_STREAM_VIDEO].key_only = st->fast;
		pthread_cond_broadcast(&dec->cond_pres);
		/* a thread waiting out a freeze may drain */
		for (int i = 0; i < FFDVB_STREAM_COUNT; i++)
			pthread_cond_broadcast(&dec->st[i].cond_in);
	}
	pthread_mutex_unlock(&dec->lock);
}

int ffdvb_decoder_stc(struct ffdvb_decoder *dec, uint64_t *stc)
{
	int r = -ENODATA;

	pthread_mutex_lock(&dec->lock);
	if (dec->have_stc) {
		*stc = dec->stc;
		r = 0;
	}
	pthread_mutex_unlock(&dec->lock);
	return r;
}

int ffdvb_decoder_size_event(struct ffdvb_decoder *dec, int *w, int *h, int *num, int *den)
{
	int r = 0;

	pthread_mutex_lock(&dec->lock);
	if (dec->size_rd != dec->size_wr) {
		unsigned int i = dec->size_rd++ % DEC_SIZE_EVENTS;

		*w = dec->size_ev[i].w;
		*h = dec->size_ev[i].h;
		*num = dec->size_ev[i].num;
		*den = dec->size_ev[i].den;
		r = 1;
	}
	pthread_mutex_unlock(&dec->lock);
	return r;
}

void ffdvb_decoder_get_stats(struct ffdvb_decoder *dec, struct ffdvb_decoder_stats *out)
{
	const struct es_stats *v = &dec->st[FFDVB_STREAM_VIDEO].es_stats;
	const struct es_stats *a = &dec->st[FFDVB_STREAM_AUDIO].es_stats;

	pthread_mutex_lock(&dec->lock);
	*out = dec->stats;
	snprintf(out->output, sizeof(out->output), "%s", ffdvb_output_name(dec->out));
	snprintf(out->video_codec, sizeof(out->video_codec), "%s", v->codec);
	snprintf(out->audio_codec, sizeof(out->audio_codec), "%s", a->codec);
	out->width = v->width;
	out->height = v->height;
	out->video_frames_decoded = v->frames;
	out->audio_frames_decoded = a->frames;
	out->bad_pes = v->bad_pes + a->bad_pes;
	out->decode_errors = v->decode_errors + a->decode_errors;
	out->skipped_bytes = v->skipped_bytes + a->skipped_bytes;
	out->codec_changes = v->codec_changes + a->codec_changes;
	out->discontinuities = dec->st[0].tl.jumps + dec->st[1].tl.jumps;
	out->decode_errors += dec->st[FFDVB_STREAM_VIDEO].broken_dropped;
	out->video_queued = dec->st[FFDVB_STREAM_VIDEO].in_bytes;
	out->audio_queued = dec->st[FFDVB_STREAM_AUDIO].in_bytes;
	out->osd_updates = dec->osd_serial;
	out->idle = 1;
	for (int i = 0; i < FFDVB_STREAM_COUNT; i++) {
		const struct dec_stream *s = &dec->st[i];

		/* held sound that a drain would bring nothing of does not count */
		if (s->in_head || s->decoding || s->out_head || (s->held && s->holds))
			out->idle = 0;
	}
	if (dec->audio_out_queued)
		out->idle = 0;
	pthread_mutex_unlock(&dec->lock);
}

int ffdvb_decoder_screenshot(struct ffdvb_decoder *dec, const char *path)
{
	return dec->out ? ffdvb_output_screenshot(dec->out, path) : -ENODEV;
}

int ffdvb_decoder_screenshot_png(struct ffdvb_decoder *dec, uint8_t **png, size_t *len)
{
	return dec->out ? ffdvb_output_screenshot_png(dec->out, png, len) : -ENODEV;
}
