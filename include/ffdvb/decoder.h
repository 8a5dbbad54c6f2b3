/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ffdvb decoder: the firmware's decoder side of one card. It takes the repacked PES packets the
 * card's rings hand out, decodes them (src/decoder/es.h) on one thread per stream, and presents
 * pictures and sound on the card's output (include/ffdvb/output.h) from a presenter thread that
 * owns the clock: audio is the master where there is audio and A/V sync is on, else a system
 * clock started from the video's own PTS. It implements the play states and trick modes of
 * docs/av7110.md §9 as VDR drives them (its clients §2.6) and reports the STC (the PTS of
 * the picture on screen) for DMX_GET_STC.
 *
 * Flow control: each stream's input queue is small; ffdvb_decoder_put() refuses (-EAGAIN) when
 * it is full, and the decoder's wake-up file (ffdvb_decoder_wake_fd) becomes readable once half
 * of a queue that refused a packet is free again, so the card's rings (and the writers behind
 * them) drain at presentation pace.
 *
 * Threads: the card calls everything from its event loop thread, which also watches the
 * wake-up file; the decoder's threads only write to that file. */
#ifndef FFDVB_DECODER_H
#define FFDVB_DECODER_H

#include <stddef.h>
#include <stdint.h>

#include "ffdvb/output.h"

struct ffdvb_decoder;

enum ffdvb_stream { FFDVB_STREAM_VIDEO, FFDVB_STREAM_AUDIO, FFDVB_STREAM_COUNT };

/* bwdif on pictures coded interlaced: one picture per field (50 per second for 25i, the
   default), one per coded picture, or none (the picture as decoded, fields woven) */
enum ffdvb_deinterlace { FFDVB_DEINTERLACE_OFF, FFDVB_DEINTERLACE_FRAME, FFDVB_DEINTERLACE_FIELD };

/* passthrough: 48 kHz AC-3, DTS (core) and E-AC-3 go out undecoded, as IEC 61937 bursts in
   16-bit stereo PCM (E-AC-3 at 192 kHz), for a sound device that is a digital output (S/PDIF,
   HDMI; docs/audio.md) */
#define FFDVB_PASS_AC3 1u
#define FFDVB_PASS_DTS 2u
#define FFDVB_PASS_EAC3 4u

struct ffdvb_decoder_config {
	struct ffdvb_output_config output; /* created on the presenter thread (its osd_set hook is
					      the decoder's own) */
	enum ffdvb_deinterlace deinterlace;
	unsigned int passthrough;          /* FFDVB_PASS_*: formats sent to the sound device as
					      IEC 61937 bursts (an AV receiver decodes them) */
	int audio_delay_ms;                /* lip-sync trim: > 0 the sound comes that much later
					      than the picture, < 0 earlier */
};

/* Starts the threads and the output. NULL with errno set (and a message) on failure. */
struct ffdvb_decoder *ffdvb_decoder_new(const struct ffdvb_decoder_config *cfg);
/* Joins the threads and frees the output. Accepts NULL. */
void ffdvb_decoder_free(struct ffdvb_decoder *dec);
/* The decoder's wake-up file, an eventfd it owns (closed by ffdvb_decoder_free): readable when
 * input room appeared, a picture size changed or the STC started or stopped moving. Whoever
 * feeds the decoder watches it from its loop, reads the 8-byte counter (non-blocking) and then
 * looks with the functions below. */
int ffdvb_decoder_wake_fd(const struct ffdvb_decoder *dec);
/* The output, created by the presenter thread before ffdvb_decoder_new() returned and freed by
 * ffdvb_decoder_free(): for its "any thread" calls (the OSD plane, screenshots, the record).
 * A plane set there is presented at once. */
struct ffdvb_output *ffdvb_decoder_output(struct ffdvb_decoder *dec);

/* ---- data -------------------------------------------------------------------------------- */

/* Hands one repacked PES packet of stream s to the decoder. 0, or -EAGAIN when the stream's
 * input queue is full (nothing taken; the wake hook fires when room appears). */
int ffdvb_decoder_put(struct ffdvb_decoder *dec, enum ffdvb_stream s, const uint8_t *pkt,
		      size_t len);
/* The same for a packet in two parts, a[0..alen) then b[0..blen) (a ring's end and start):
 * the queue's copy is the only one. */
int ffdvb_decoder_put2(struct ffdvb_decoder *dec, enum ffdvb_stream s, const uint8_t *a,
		       size_t alen, const uint8_t *b, size_t blen);
/* Bytes the stream's input queue accepts now (a packet of at most this size is taken). */
size_t ffdvb_decoder_room(struct ffdvb_decoder *dec, enum ffdvb_stream s);

/* VIDEO_STILLPICTURE: decode a raw video elementary stream (copied) and hold its picture on
 * screen; video data already queued is dropped. */
int ffdvb_decoder_still(struct ffdvb_decoder *dec, const uint8_t *es, size_t len);

/* VIDEO/AUDIO_CLEAR_BUFFER and stop: drop what the stream has queued, parsed and decoded. The
 * picture on screen stays; the clock restarts from the next data. */
void ffdvb_decoder_clear(struct ffdvb_decoder *dec, enum ffdvb_stream s);

/* ---- play state (what the card's ioctls set) --------------------------------------------- */

enum ffdvb_decoder_video_mode {
	FFDVB_DEC_VIDEO_STOPPED, /* nothing decoded; the last picture or black (blank) shown */
	FFDVB_DEC_VIDEO_PLAYING,
	FFDVB_DEC_VIDEO_FROZEN,  /* VIDEO_FREEZE: the picture on screen held, no data taken */
};

struct ffdvb_decoder_state {
	enum ffdvb_decoder_video_mode video;
	int audio_playing;   /* AUDIO_PLAY/CONTINUE: 1; AUDIO_PAUSE/STOP: 0 */
	int audio_paused;    /* AUDIO_PAUSE (keeps what is queued) vs AUDIO_STOP (drops it) */
	int blank;           /* VIDEO_SET_BLANK: show black while stopped */
	int av_sync;         /* AUDIO_SET_AV_SYNC */
	unsigned int slow;   /* VIDEO_SLOWMOTION n: each picture shown n frame periods; 0/1 = normal */
	int fast;            /* VIDEO_FAST_FORWARD: key frames only, shown as they come */
	int mute;            /* effective mute (the card's auto-unmute already applied) */
	int volume_left, volume_right; /* AUDIO_SET_MIXER 0..255 (ignored for AC-3, see bypass) */
	int channel;         /* AUDIO_CHANNEL_SELECT (audio_channel_select_t): 0 stereo, 1 left
			        on both, 2 right on both, 3 mono (sum), 4 swapped */
	int bypass;          /* AUDIO_SET_BYPASS_MODE: 1 = AC-3 to the digital output; what goes
			        out undecoded is the config's passthrough (a receiver is there or
			        not); without it the decoder says once that it decodes */
	enum ffdvb_tv_aspect tv;                 /* VIDEO_SET_FORMAT */
	enum ffdvb_display_format display_format; /* VIDEO_SET_DISPLAY_FORMAT */
	int live;            /* the pictures come from a live PID (DMX_OUT_DECODER), not memory */
};

/* Applies the whole state (the card keeps the copy; the decoder looks at what changed). */
void ffdvb_decoder_set_state(struct ffdvb_decoder *dec, const struct ffdvb_decoder_state *st);

/* ---- what the card reads back ------------------------------------------------------------ */

/* DMX_GET_STC: the 33-bit 90 kHz PTS of the picture on screen (of the sound being heard when
 * there is no picture). 0, or -ENODATA before anything was presented. */
int ffdvb_decoder_stc(struct ffdvb_decoder *dec, uint64_t *stc);

/* A new picture size/aspect reached the screen (VIDEO_EVENT_SIZE_CHANGED, VIDEO_GET_SIZE). Takes
 * the oldest pending change: 1 and *w, *h, *dar_num, *dar_den filled, or 0 if none. */
int ffdvb_decoder_size_event(struct ffdvb_decoder *dec, int *w, int *h, int *dar_num,
			     int *dar_den);

struct ffdvb_decoder_stats {
	char output[16];        /* the output in use (ffdvb_output_name) */
	char video_codec[24], audio_codec[24];
	int width, height;
	uint64_t video_frames_decoded, video_frames_shown, video_frames_dropped, video_repeats;
	uint64_t audio_frames_decoded, audio_samples_played, audio_underruns;
	uint64_t bad_pes, decode_errors, skipped_bytes, codec_changes, discontinuities;
	int64_t av_offset_ms;   /* last measured (video PTS on screen) - (audio clock), 0 if n/a:
				   at the devices (the picture when it reaches the screen, the
				   sound when it leaves the audio device), trim included */
	/* what the devices add (ffdvb_output_latency), last seen */
	uint64_t audio_device_ns, video_device_ns;
	size_t video_queued, audio_queued; /* input bytes waiting in the decoder */
	int idle;               /* nothing queued anywhere and everything presented */
	/* OSD planes set on the output (ffdvb_output_set_osd), the last one presented, and when
	   (output clock: CLOCK_MONOTONIC ns unless the headless virtual clock runs) */
	unsigned int osd_updates, osd_presented;
	uint64_t osd_presented_ns;
};
void ffdvb_decoder_get_stats(struct ffdvb_decoder *dec, struct ffdvb_decoder_stats *out);

/* Any thread: see ffdvb_output_screenshot() and ffdvb_output_screenshot_png(). */
int ffdvb_decoder_screenshot(struct ffdvb_decoder *dec, const char *path);
int ffdvb_decoder_screenshot_png(struct ffdvb_decoder *dec, uint8_t **png, size_t *len);

#endif
