/* SPDX-License-Identifier: GPL-2.0-or-later */
/* One decoding thread per stream: takes packets from the input queue the card fills, decodes
 * them through es.h and queues the frames for the presenter, waiting while that queue is full
 * (this is what paces the writers). A clear bumps the stream's serial: work begun before it is
 * dropped, and the elementary-stream state is reset before the next packet. */
#include <errno.h>
#include <stdlib.h>
#include <time.h>

#include <libavutil/frame.h>

#include "dec_internal.h"

#define STC_MASK ((1ll << 33) - 1)

void dec_packet_list_free(struct dec_packet *p)
{
	while (p) {
		struct dec_packet *next = p->next;

		free(p);
		p = next;
	}
}

void dec_frame_free(struct dec_frame *f)
{
	if (!f)
		return;
	av_frame_free(&f->frame);
	free(f);
}

void dec_frame_list_free(struct dec_frame *f)
{
	while (f) {
		struct dec_frame *next = f->next;

		dec_frame_free(f);
		f = next;
	}
}

struct frame_ctx {
	struct dec_stream *s;
	unsigned int serial;
	int still;
};

size_t dec_frame_weight(enum ffdvb_stream which, const AVFrame *frame, const struct es_frame_info *info)
{
	if (which == FFDVB_STREAM_AUDIO)
		return (size_t)frame->nb_samples;
	return info->field ? 1 : 2;
}

/* es_frame_fn: runs on the stream's thread with the lock NOT held */
static void on_frame(void *ctx, AVFrame *frame, const struct es_frame_info *info)
{
	struct frame_ctx *fc = ctx;
	struct dec_stream *s = fc->s;
	struct ffdvb_decoder *dec = s->dec;
	struct dec_frame *df;
	int64_t pts33 = frame->pts == AV_NOPTS_VALUE ? -1 : frame->pts & STC_MASK;

	pthread_mutex_lock(&dec->lock);
	if (s->await_key && s->which == FFDVB_STREAM_VIDEO && !fc->still) {
		if (!info->key) {
			s->broken_dropped++;
			pthread_mutex_unlock(&dec->lock);
			av_frame_free(&frame);
			return;
		}
		s->await_key = 0;
	}
	while (!dec->quit && s->serial == fc->serial && s->out_count >= s->out_max)
		pthread_cond_wait(&s->cond_out, &dec->lock);
	if (dec->quit || s->serial != fc->serial || !(df = calloc(1, sizeof(*df)))) {
		pthread_mutex_unlock(&dec->lock);
		av_frame_free(&frame);
		return;
	}
	df->frame = frame;
	df->info = *info;
	df->still = fc->still;
	if (s->need_restart) {
		timeline_restart(&s->tl);
		s->need_restart = 0;
	}
	df->tl = timeline_map(&s->tl, fc->still ? -1 : pts33, info->duration);
	/* the original PTS (extrapolated where the stream had none), for the STC */
	df->pts33 = (df->tl - s->tl.offset) & STC_MASK;
	if (s->out_tail)
		s->out_tail->next = df;
	else
		s->out_head = df;
	s->out_tail = df;
	s->out_count += dec_frame_weight(s->which, frame, info);
	if (s->which == FFDVB_STREAM_AUDIO)
		dec->audio_offset = s->tl.offset;
	if (!dec->pres_narrow || (s->which == FFDVB_STREAM_VIDEO ? dec->pres_need_video
								   : s->out_count >= dec->pres_need_audio))
		pthread_cond_broadcast(&dec->cond_pres);
	pthread_mutex_unlock(&dec->lock);
}

/* input dry this long: what the decoder holds comes out. Long enough that a writer stalled by
 * a busy machine is not taken for the end of the stream (a drain costs the references: the
 * pictures up to the next key frame are lost) */
#define DRAIN_AFTER_NS 1000000000

static struct dec_packet drain_marker;

static void deadline_in(struct timespec *ts, long ns)
{
	clock_gettime(CLOCK_REALTIME, ts);
	ts->tv_nsec += ns;
	ts->tv_sec += ts->tv_nsec / 1000000000;
	ts->tv_nsec %= 1000000000;
}

/* Takes the next packet; called and returns with the lock held. NULL when quitting;
 * &drain_marker when the input stayed dry while the decoder holds data (end of a stream, a
 * still picture written as PES: show the last pictures rather than keep them). */
static struct dec_packet *next_packet(struct dec_stream *s)
{
	struct ffdvb_decoder *dec = s->dec;

	for (;;) {
		struct dec_packet *p = s->in_head;

		if (dec->quit)
			return NULL;
		if (p) {
			s->in_head = p->next;
			if (!s->in_head)
				s->in_tail = NULL;
			s->in_bytes -= p->len;
			s->starved_since = 0;
			return p;
		}
		/* a frozen picture takes no data: that is not the end of the stream */
		if (s->held && !(s->which == FFDVB_STREAM_VIDEO &&
				 dec->state.video != FFDVB_DEC_VIDEO_PLAYING)) {
			struct timespec ts;

			deadline_in(&ts, DRAIN_AFTER_NS);
			if (pthread_cond_timedwait(&s->cond_in, &dec->lock, &ts) == ETIMEDOUT &&
			    !s->in_head && !dec->quit)
				return &drain_marker;
			continue;
		}
		if (!s->starved_since)
			s->starved_since = dec_real_ns();
		pthread_cond_broadcast(&dec->cond_pres); /* the presenter may wait for starvation */
		pthread_cond_wait(&s->cond_in, &dec->lock);
	}
}

void *dec_stream_main(void *arg)
{
	struct dec_stream *s = arg;
	struct ffdvb_decoder *dec = s->dec;

	pthread_mutex_lock(&dec->lock);
	for (;;) {
		struct dec_packet *p = next_packet(s);
		struct frame_ctx fc = { s, s->serial, 0 };
		int reset = s->reset_pending;
		int key_only = s->key_only;
		int live = dec->state.live;
		unsigned int pass = s->pass;
		int ended = 0, wake;

		if (!p)
			break;
		if (p == &drain_marker) {
			s->held = 0;
			s->decoding = 1;
			pthread_mutex_unlock(&dec->lock);
			es_drain(s->es, on_frame, &fc);
			pthread_mutex_lock(&dec->lock);
			/* the decoder lost its references: what follows up to a key frame is broken */
			s->await_key = s->serial == fc.serial;
			es_get_stats(s->es, &s->es_stats);
			s->holds = 0;
			s->decoding = 0;
			continue;
		}
		s->reset_pending = 0;
		s->held = !p->raw_still; /* es_feed_raw drains by itself, so does an end code */
		s->decoding = 1;
		/* Room goes to the card only once it was refused, and when half the queue is free:
		   one wake-up (eventfd write, loop wake, update) per packet cost more CPU than the
		   packet's parse; the card then hands over many packets at once */
		wake = s->refused && s->in_bytes <= s->in_max / 2;
		if (wake)
			s->refused = 0;
		pthread_mutex_unlock(&dec->lock);
		if (wake)
			dec_wake(dec);
		if (reset)
			es_reset(s->es);
		if (key_only != s->key_only_applied) {
			es_set_key_frames_only(s->es, key_only);
			s->key_only_applied = key_only;
		}
		if (live != s->live_applied) {
			es_set_live(s->es, live);
			s->live_applied = live;
		}
		if (pass != s->pass_applied) {
			es_set_passthrough(s->es, pass);
			s->pass_applied = pass;
		}
		if (p->raw_still) {
			fc.still = 1;
			es_feed_raw(s->es, p->data, p->len, AV_NOPTS_VALUE, on_frame, &fc);
		} else {
			ended = es_feed_pes(s->es, p->data, p->len, on_frame, &fc) > 0;
		}
		free(p);
		pthread_mutex_lock(&dec->lock);
		if (!s->in_head && !ended) {
			/* nothing to decode meanwhile: the pictures the deinterlacer's thread is
			   filtering go out before the wait, as soon as without that thread */
			pthread_mutex_unlock(&dec->lock);
			es_settle(s->es);
			pthread_mutex_lock(&dec->lock);
		}
		es_get_stats(s->es, &s->es_stats);
		if (ended && s->serial == fc.serial) {
			/* the sequence ended: shown now, not after DRAIN_AFTER_NS; what follows
			   starts from a key frame as after any drain */
			s->held = 0;
			s->await_key = 1;
			s->ended = !s->in_head;
		}
		s->holds = s->held && es_holds(s->es);
		s->decoding = 0;
	}
	pthread_mutex_unlock(&dec->lock);
	return NULL;
}

int dec_stream_start(struct dec_stream *s)
{
	int r = pthread_create(&s->thread, NULL, dec_stream_main, s);

	if (r)
		return -r;
	s->thread_started = 1;
	return 0;
}
