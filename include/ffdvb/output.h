/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ffdvb output: where presented pictures and sound go. One output per card, driven by the
 * decoder's presenter thread (src/decoder), which decides *when* to show a picture and how much
 * sound to queue; the output only shows, plays, keeps time and captures.
 *
 * Backends: SDL2 (a window, fullscreen, or KMSDRM when no display server runs) with SDL audio,
 * KMS dumb buffers without GL (drm) with SDL audio, and a headless sink ("none") for tests and
 * servers that records every presented picture and every queued sound sample. The output is
 * also the clock: a real device's time is the monotonic clock; the headless sink can instead
 * run on a virtual clock that only moves when the presenter waits, which plays content as fast
 * as it can be decoded while every recorded time stays exactly what real-time playback would
 * have given.
 *
 * Threads: everything but the functions marked "any thread" must be called from the thread that
 * called ffdvb_output_new() (SDL wants its window used from one thread). */
#ifndef FFDVB_OUTPUT_H
#define FFDVB_OUTPUT_H

#include <stddef.h>
#include <stdint.h>

struct AVFrame;
struct ffdvb_output;

/* Sound handed to the output is always this: interleaved signed 16-bit stereo at 48 kHz. */
#define FFDVB_AUDIO_RATE 48000
#define FFDVB_AUDIO_CHANNELS 2
#define FFDVB_AUDIO_FRAME_BYTES 4 /* one sample of both channels */

/* The OSD plane: 720x576 (av7110 OSD coordinates), 32-bit ARGB words 0xAARRGGBB in host order,
 * not premultiplied; alpha 0 is transparent. It is scaled together with the picture. */
#define FFDVB_OSD_WIDTH 720
#define FFDVB_OSD_HEIGHT 576

enum ffdvb_output_kind {
	FFDVB_OUTPUT_NONE,       /* headless sink (the default for tests and servers) */
	FFDVB_OUTPUT_WINDOW,     /* SDL window on X11/Wayland */
	FFDVB_OUTPUT_FULLSCREEN, /* SDL fullscreen desktop window */
	FFDVB_OUTPUT_KMSDRM,     /* SDL's KMSDRM video driver: the console, no display server */
	FFDVB_OUTPUT_AUTO,       /* a window where a display exists, else the console (KMSDRM
				    where GL runs on a GPU, else drm), else none */
	FFDVB_OUTPUT_DRM,        /* the console through KMS dumb buffers: no GL at all */
};
#define FFDVB_OUTPUT_KIND_COUNT (FFDVB_OUTPUT_DRM + 1)

/* The kind's name as the command line and the config file spell it ("auto", "drm", ...), and
 * back: the kind, or -1 for a name that is none. */
const char *ffdvb_output_kind_name(enum ffdvb_output_kind kind);
int ffdvb_output_kind_parse(const char *name);

/* VIDEO_SET_FORMAT: the TV's shape */
enum ffdvb_tv_aspect { FFDVB_TV_4_3 = 0, FFDVB_TV_16_9 = 1 };
/* VIDEO_SET_DISPLAY_FORMAT: what to do with a 16:9 picture on a 4:3 TV (values as the ABI's
 * video_displayformat_t) */
enum ffdvb_display_format {
	FFDVB_DISPLAY_PAN_SCAN = 0,     /* crop the sides using the stream's pan&scan (centre) */
	FFDVB_DISPLAY_LETTER_BOX = 1,   /* black bars top and bottom */
	FFDVB_DISPLAY_CENTER_CUT_OUT = 2, /* crop the sides, centred */
};

struct ffdvb_output_config {
	enum ffdvb_output_kind kind;
	int width, height;      /* window / headless picture size; 0 = 720x576 (window), mode (KMS) */
	int refresh;            /* drm, kmsdrm, fullscreen: the mode's refresh in Hz where the
				   display offers it at that size (50 for DVB's 25/50 pictures a
				   second); 0 = the preferred (drm) or the desktop's mode */
	int virtual_clock;      /* headless only: 1 = virtual clock (see above), 0 = real time */
	int record;             /* headless only: keep the presentation log and the sound (tests) */
	int audio;              /* 0: no sound device (sound is still timed and recorded) */
	char audio_device[128]; /* "" = the default; an ALSA PCM name, or "sdl:NAME" for SDL's
				   device NAME ("sdl:" = SDL's default) */
	/* set by whoever drives the output (the decoder's presenter): called by
	   ffdvb_output_set_osd() on its caller's thread after the plane was replaced, without the
	   output's lock, so that the driver refreshes the screen soon; NULL = none */
	void (*osd_set)(void *ctx);
	void *osd_set_ctx;
};

/* Creates the output on the calling thread. Returns NULL with errno set, and a message on
 * stderr, when the backend cannot start (no display, no KMS device...). AUTO never fails for
 * lack of a display: it falls back to the headless sink. */
struct ffdvb_output *ffdvb_output_new(const struct ffdvb_output_config *cfg);
void ffdvb_output_free(struct ffdvb_output *o);
/* "none", "window", "fullscreen", "kmsdrm", "drm" (the backend really in use) */
const char *ffdvb_output_name(const struct ffdvb_output *o);

/* ---- time -------------------------------------------------------------------------------- */

/* Now, in ns on the output's clock (CLOCK_MONOTONIC, or the virtual clock). */
uint64_t ffdvb_output_now(struct ffdvb_output *o);
/* Waits until the output's clock reaches t (returns at once if it has). A virtual clock jumps
 * to t. Also keeps the window alive (SDL event pump). */
void ffdvb_output_wait_until(struct ffdvb_output *o, uint64_t t);

/* What the devices add, smoothed over the last pictures, and as last seen while sound played:
 * the sound the audio device itself holds beyond what the output queued (ALSA: its delay; SDL:
 * one period, assumed), and the time from a picture handed to ffdvb_output_show() to its reaching the
 * screen (drm: the page flip's vblank time stamp from the kernel; SDL: until the present
 * returned). The sound's part is already in ffdvb_output_audio_queued(); the presenter puts
 * pictures up that much earlier. Both 0 for the headless sink. */
struct ffdvb_output_latency {
	uint64_t audio_ns;
	uint64_t video_ns;
};
void ffdvb_output_latency(struct ffdvb_output *o, struct ffdvb_output_latency *l);

/* ---- pictures ---------------------------------------------------------------------------- */

struct ffdvb_picture_info {
	int64_t pts;             /* 90 kHz PTS of the picture, for the record; -1 if none */
	int blank;               /* show black instead of a picture (VIDEO_SET_BLANK, no video) */
	int dar_num, dar_den;    /* display aspect of the picture (e.g. 16:9); 0 = from the frame */
	enum ffdvb_tv_aspect tv;
	enum ffdvb_display_format display_format;
};

/* Shows frame (any pixel format libswscale knows; NULL = black) now, with the current OSD over
 * it, scaled to the output with the aspect rules above. The frame is referenced, not copied:
 * the caller may unref its own reference afterwards. Returns 0 or -errno. */
int ffdvb_output_show(struct ffdvb_output *o, const struct AVFrame *frame,
		      const struct ffdvb_picture_info *info);

/* Any thread: replaces the OSD plane (FFDVB_OSD_WIDTH x FFDVB_OSD_HEIGHT ARGB words, copied).
 * NULL = no OSD. Takes effect at the next ffdvb_output_show() or ffdvb_output_refresh(); calls
 * the config's osd_set hook. */
void ffdvb_output_set_osd(struct ffdvb_output *o, const uint32_t *argb);
/* Returns nonzero if the OSD changed since the picture on screen was composed (the presenter
 * then calls ffdvb_output_refresh()). */
int ffdvb_output_osd_changed(struct ffdvb_output *o);
/* Shows the last picture again with the current OSD. */
int ffdvb_output_refresh(struct ffdvb_output *o);

/* Any thread: writes the composited picture now on screen (picture + OSD, at the output size;
 * 720x576 when headless) as PNG (libavcodec's PNG encoder). Returns 0 or -errno. */
int ffdvb_output_screenshot(struct ffdvb_output *o, const char *path);
/* Any thread: the same PNG in memory (*png malloc'ed, *len bytes): nothing touches a file. */
int ffdvb_output_screenshot_png(struct ffdvb_output *o, uint8_t **png, size_t *len);

/* ---- sound ------------------------------------------------------------------------------- */

/* Queues nb samples (FFDVB_AUDIO_FRAME_BYTES each) for playback after what is queued; pts is the
 * 90 kHz PTS of the first one (-1 if unknown), for the record. Returns 0 or -errno. */
int ffdvb_output_audio_queue(struct ffdvb_output *o, const int16_t *samples, size_t nb,
			     int64_t pts);
/* The rate the sound device runs at, in multiples of FFDVB_AUDIO_RATE: 1, or 4 for E-AC-3's
 * IEC 61937 bursts (192 kHz). Samples queued afterwards carry FFDVB_AUDIO_FRAME_BYTES * link
 * bytes each (four stereo samples of the faster link per 48 kHz sample); every count stays in
 * 48 kHz samples. A change drops what is queued. Returns 0, or -errno when the device refuses
 * the rate (the link stays as it was). Sound on a link other than 1 is not recorded. */
#define FFDVB_AUDIO_LINK_MAX 4
int ffdvb_output_audio_link(struct ffdvb_output *o, unsigned int link);
/* Samples queued and not yet heard. The presenter's audio clock is built from this. */
size_t ffdvb_output_audio_queued(struct ffdvb_output *o);
/* Pause keeps what is queued (and stops the count going down); clear drops it. */
void ffdvb_output_audio_pause(struct ffdvb_output *o, int pause);
void ffdvb_output_audio_clear(struct ffdvb_output *o);

/* ---- the headless record (cfg.record) ---------------------------------------------------- */

/* What a record keeps at most (ffdvbd.conf(5), LIMITS): 256 MiB of sound (23 minutes of
 * 48 kHz stereo) and 4 Mi picture or sound lines. Beyond that nothing more is recorded (the
 * file says so on its last line, "truncated"); playback goes on. */
#define FFDVB_RECORD_SOUND_BYTES_MAX ((size_t)256 << 20)
#define FFDVB_RECORD_LINES_MAX ((size_t)4 << 20)

struct ffdvb_output_picture_record {
	uint64_t t;              /* output clock when shown */
	int64_t pts;             /* from ffdvb_picture_info */
	int width, height;       /* of the frame; 0 for black */
	int blank;
	uint8_t md5[16];         /* of the frame's pixels packed as ffmpeg's framemd5 packs
				    rawvideo (av_image_copy_to_buffer, align 1), zero for black */
};

struct ffdvb_output_sound_record {
	uint64_t t;              /* output clock when the first sample of the chunk is heard */
	int64_t pts;
	size_t first;            /* index of the chunk's first sample in the recorded sound */
	size_t nb;
};

/* Any thread: copies of the records so far (malloc'ed arrays the caller frees). The recorded
 * sound is every sample queued, in order, as queued. Return the count, or -errno. */
long ffdvb_output_pictures(struct ffdvb_output *o, struct ffdvb_output_picture_record **out);
long ffdvb_output_sounds(struct ffdvb_output *o, struct ffdvb_output_sound_record **out);
long ffdvb_output_sound_samples(struct ffdvb_output *o, int16_t **out); /* returns samples */
/* Any thread: writes the records as text lines for tools and VM tests:
 *   picture T_NS PTS WIDTH HEIGHT BLANK MD5HEX
 *   sound T_NS PTS FIRST NB
 *   truncated                (last, when a limit above was reached)
 * from a copy taken under the lock (presentation does not wait for the disk),
 * and, if pcm_path is not NULL, the recorded sound as raw s16le stereo. Returns 0 or -errno. */
int ffdvb_output_write_record(struct ffdvb_output *o, const char *log_path, const char *pcm_path);

#endif
