/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Private state of the decoder (src/decoder): the input queues the card fills, one decoding
 * thread per stream (stream_thread.c), the decoded queues, and the presenter thread
 * (presenter.c) that owns the output and the clock. One mutex guards everything shared; the
 * condition variables say who waits for what. */
#ifndef FFDVB_DEC_INTERNAL_H
#define FFDVB_DEC_INTERNAL_H

#include <pthread.h>
#include <stdint.h>

#include "ffdvb/decoder.h"
#include "es.h"

struct AVFrame;

/* ---- timeline.c: 33-bit PTS -> one continuous 90 kHz timeline per stream ----------------- */

/* A stream's PTS are unwrapped (33-bit) and jumps of more than `max_jump` from where the stream
 * should be are absorbed into an offset, so the presenter sees a continuous timeline across
 * discontinuities while the STC still reports the original PTS. The streams of a programme share
 * the offset of a jump: the second stream to reach the splice takes the first one's offset, so
 * audio and video stay in their PTS relation after it even when they ended unevenly before. */
struct timeline_shared {
	int64_t offset;
	unsigned int gen;    /* bumped by every new offset */
};

struct timeline {
	struct timeline_shared *shared;
	unsigned int gen;    /* the shared offset this stream follows */
	int started;
	int64_t last_raw;    /* last unwrapped PTS */
	int64_t expect;      /* timeline value the next unit should have */
	int64_t offset;      /* timeline = unwrapped + offset */
	int64_t max_jump;
	uint64_t jumps;
};
void timeline_init(struct timeline *t, int64_t max_jump, struct timeline_shared *shared);
/* Maps a 33-bit pts (or -1 = none: continues from the last one) with the unit's duration to
 * the timeline; returns the timeline value. */
int64_t timeline_map(struct timeline *t, int64_t pts33, int64_t duration);
/* Starts over (clear): the next PTS maps with the programme's current shared offset. */
void timeline_restart(struct timeline *t);

/* ---- audio_mix.c ------------------------------------------------------------------------ */

/* Applies channel selection (AUDIO_CHANNEL_SELECT value), then volume (0..255 per side; 255 =
 * unchanged) or silence (mute) to nb interleaved stereo S16 samples in place. */
void audio_mix(int16_t *s, size_t nb, int channel, int vol_l, int vol_r, int mute);

/* ---- queues ----------------------------------------------------------------------------- */

struct dec_packet {
	struct dec_packet *next;
	size_t len;
	int raw_still;          /* a VIDEO_STILLPICTURE elementary stream, not a PES packet */
	uint8_t data[];
};

struct dec_frame {
	struct dec_frame *next;
	struct AVFrame *frame;
	struct es_frame_info info;
	int64_t pts33;          /* the original PTS (for the STC), -1 if none */
	int64_t tl;             /* timeline position (90 kHz) */
	int still;              /* show at once and hold (still picture) */
	size_t used;            /* audio: samples of this frame already queued to the output */
};

/* what a frame counts against out_max: its samples (audio), or its time in half frames (video:
 * 2, or 1 for a field picture), so the queue holds the same time whatever the stream is */
size_t dec_frame_weight(enum ffdvb_stream which, const struct AVFrame *frame,
			const struct es_frame_info *info);

struct dec_stream {
	struct ffdvb_decoder *dec;
	enum ffdvb_stream which;
	pthread_t thread;
	int thread_started;
	struct es *es;
	/* input (card -> decoding thread) */
	struct dec_packet *in_head, *in_tail;
	size_t in_bytes, in_max;
	int refused;            /* put2 turned a packet away: the card waits for room */
	/* the stream's own: a packet or a frame of the other stream wakes nothing here */
	pthread_cond_t cond_in;  /* input, clear, state, quit */
	pthread_cond_t cond_out; /* room in the decoded queue, clear, quit */
	int decoding;           /* the thread holds a packet outside the queue */
	int held;               /* es may hold data that only a drain brings out */
	int holds;              /* ... and a drain would bring something out (es_holds) */
	int ended;              /* video: the last packet ended the sequence (an end code) and
				   was drained; nothing came since */
	int await_key;          /* after a drain: pictures before the next key frame lack their
				   references and are dropped */
	uint64_t broken_dropped;
	uint64_t starved_since; /* real ns when input ran dry with the thread idle; 0 = not */
	unsigned int serial;    /* bumped by clear: older work is dropped */
	int key_only;           /* wanted (set_state); the thread applies it to es */
	int key_only_applied;
	int live_applied;       /* the decoder's state.live, as the thread gave it to es */
	unsigned int pass;      /* audio: ES_PASS_* wanted (the presenter may drop E-AC-3) ... */
	unsigned int pass_applied; /* ... and what the thread gave es */
	int reset_pending;      /* clear: the thread resets es before its next packet */
	/* output (decoding thread -> presenter) */
	struct dec_frame *out_head, *out_tail;
	size_t out_count, out_max; /* dec_frame_weight: half frames (video) or samples (audio) */
	struct timeline tl;
	int need_restart;       /* after a clear: the next frame starts a new timeline segment */
	struct es_stats es_stats; /* copied by the thread after each packet */
};

#define DEC_SIZE_EVENTS 8

struct ffdvb_decoder {
	struct ffdvb_decoder_config cfg;
	pthread_mutex_t lock;
	pthread_cond_t cond_pres;  /* presenter: frames, state, OSD, quit */
	int quit;
	struct dec_stream st[FFDVB_STREAM_COUNT];
	struct ffdvb_decoder_state state;
	unsigned int state_serial;  /* bumped by set_state */
	int wake_fd;                /* eventfd: written by any decoder thread (dec_wake) */

	/* presenter */
	pthread_t presenter;
	int presenter_started;
	struct ffdvb_output *out;
	int out_ready;              /* 1 created, -1 failed */
	int out_errno;
	int osd_pending;            /* a plane was set on the output; the presenter refreshes */
	int bypass_noted;           /* the bypass-without-passthrough notice was logged */
	unsigned int osd_serial;    /* counts planes set on the output (osd_set hook) */
	/* A presenter on a virtual clock that waits for the streams says for what, and a new
	 * frame wakes it only when it brings that: while the video decoder is the slower one, each
	 * sound frame woke it for nothing (two thread switches a frame). Off: every frame wakes. */
	int pres_narrow;
	int pres_need_video;        /* a picture wakes it */
	size_t pres_need_audio;     /* sound wakes it once out_count reaches this */

	/* what the card reads back (under lock) */
	int have_stc;
	uint64_t stc;
	struct { int w, h, num, den; } size_ev[DEC_SIZE_EVENTS];
	unsigned int size_rd, size_wr;
	struct ffdvb_decoder_stats stats; /* presenter's counters */
	size_t audio_out_queued;    /* samples in the output, as the presenter last saw */
	int64_t audio_offset;       /* timeline offset of the audio stream, for an audio STC */
	struct timeline_shared tl_shared;
};

/* CLOCK_MONOTONIC in ns (decoder.c): ffdvb_monotonic_ns (ffdvb/clock.h) copied, left for a
 * change of decoder.c to take it over */
uint64_t dec_real_ns(void);
/* Any decoder thread: makes the wake-up file readable (input room, a size event, the STC). */
void dec_wake(struct ffdvb_decoder *dec);

/* stream_thread.c */
int dec_stream_start(struct dec_stream *s);
void *dec_stream_main(void *arg);
void dec_packet_list_free(struct dec_packet *p);
void dec_frame_list_free(struct dec_frame *f);
void dec_frame_free(struct dec_frame *f);

/* presenter.c */
void *dec_presenter_main(void *arg);

#endif
