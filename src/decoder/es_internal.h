/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Private state of the elementary-stream layer (es.h), shared by the es*.c files:
 *   es.c         the object, PES unwrap, routing by stream id, drain/reset
 *   es_detect.c  codec detection from the first payload bytes
 *   es_codec.c   libavcodec parser + decoder: open, split into units, decode, drain
 *   es_video.c   video units and frames: threads, key-frames-only, pts, frame info
 *   es_audio.c   audio frames -> S16 stereo 48 kHz (libswresample), pts continuation
 *   es_lpcm.c    private stream 1: DVD substreams (AC-3, LPCM) and IEC 61937 inside LPCM
 *   es_deint.c   bwdif deinterlacer (libavfilter) */
#ifndef FFDVB_DECODER_ES_INTERNAL_H
#define FFDVB_DECODER_ES_INTERNAL_H

#include <libavcodec/avcodec.h>
#include <libavutil/channel_layout.h>

#include "es.h"

/* libavcodec's part of one stream: a parser (none for LPCM) and a decoder. The parser writes
 * into its own codec context so that what it learns (codec id of an MPEG audio layer, E-AC-3,
 * picture size) never touches the opened decoder. */
struct es_codec {
	enum AVCodecID id;          /* AV_CODEC_ID_NONE: nothing detected yet */
	AVCodecContext *dec;        /* allocated at detection, opened at the first unit */
	int opened;
	int threads;                /* thread_count the decoder was opened with */
	AVCodecContext *pctx;       /* the parser's context */
	AVCodecParserContext *parser;
	size_t pending;             /* bytes the parser took and has not given out as units yet */
	AVPacket *pkt;
};

/* what private stream 1 carries (es_lpcm.c) */
enum es_bd_mode {
	ES_BD_NONE,
	ES_BD_RAW_AC3,   /* DVB: AC-3/E-AC-3 frames directly in the payload */
	ES_BD_DVD_AC3,   /* DVD substream 0x80-0x87: 4-byte header, then AC-3 */
	ES_BD_RAW_DTS,   /* DVB: DTS frames directly (core sync 7F FE 80 01) */
	ES_BD_DVD_DTS,   /* DVD substream 0x88-0x8F: 4-byte header, then DTS */
	ES_BD_LPCM,      /* DVD substream 0xA0-0xAF: 7-byte header, then PCM */
	ES_BD_IEC,       /* IEC 61937 bursts carried as LPCM samples (MPlayer -ac hwac3) */
	ES_BD_S302M,     /* SMPTE 302M: AES3 header (size, channels, bits), then packed PCM */
};

struct es_deint;
struct es_spdif;
struct SwrContext;

/* IEC 61937 burst extraction (es_lpcm.c): LPCM payload bytes gathered until a whole burst */
#define ES_IEC_MARKS 32
struct es_iec {
	uint8_t *buf;
	size_t len, cap;
	size_t since_sync;          /* bytes scanned without a preamble (back to LPCM when large) */
	struct { size_t off; int64_t pts; } marks[ES_IEC_MARKS]; /* pts of the packets in buf */
	int nmarks;
};

struct es {
	struct es_config cfg;
	struct es_stats st;
	struct es_codec c;
	enum AVCodecID last_id;     /* codec of the previous open, for codec_changes */
	int unknown_noted;          /* "no known codec" logged for this stream (since the reset) */
	size_t unknown_bytes;       /* bytes skipped without a known codec since the reset */
	int key_only;
	int live;                   /* es_set_live */
	int preview_due;            /* no picture since the start, a clear or a drain */

	uint8_t *pad;               /* padded copy of the parser's input (es_codec.c) */
	size_t pad_cap;

	/* the callback of the call in progress */
	es_frame_fn cb;
	void *cb_ctx;

	/* PES unwrap: continuation fragments of a split PES (see es.c) */
	uint8_t last_sid;
	size_t last_len;
	uint8_t family;             /* stream id family of the open codec: 0xE0, 0xC0, 0xBD */

	/* video */
	int last_w, last_h;         /* picture size the parser last reported */
	int64_t next_pts;           /* expected pts of the next frame (video) */
	int64_t last_vpts;
	struct es_deint *deint;

	/* audio */
	unsigned int passthrough;   /* ES_PASS_* formats sent out as bursts */
	struct es_spdif *spdif;     /* the IEC 61937 packer (es_spdif.c), NULL while decoding */
	struct SwrContext *swr;
	AVChannelLayout swr_layout;
	int swr_rate, swr_fmt;
	int64_t anchor_pts;         /* 90 kHz pts of the first output sample counted below */
	int64_t anchor_samples;     /* output samples since anchor_pts */

	/* private stream 1 */
	enum es_bd_mode bd;
	enum es_bd_mode bd_cont;    /* what continuation fragments of the last PES are (NONE:
				       that PES was skipped, e.g. a subpicture) */
	uint8_t lpcm_hdr[3];        /* the last DVD LPCM header (emphasis.., quant/freq/ch, drc) */
	struct es_iec iec;
	struct {                    /* one SMPTE 302M PES gathered across fragments */
		uint8_t *buf;
		size_t len, need;
		int64_t pts;
	} s302m;
};

/* es_detect.c ----------------------------------------------------------------------------- */
/* Video: finds an MPEG-1/2 sequence header or an H.264 SPS in p[0..n); returns the codec
 * (AV_CODEC_ID_MPEG1VIDEO, _MPEG2VIDEO, _H264) and the offset of its start code, or NONE. */
enum AVCodecID es_detect_video(const uint8_t *p, size_t n, size_t *off);
/* MPEG audio: the first plausible frame header in p[0..n): MP1/MP2/MP3 by layer, or NONE. */
enum AVCodecID es_detect_mpa(const uint8_t *p, size_t n, size_t *off);
/* IEC 61937 preamble Pa Pb at any offset of p[0..n): returns the offset or -1, and
 * *swapped = 1 when the 16-bit words are little-endian (72 F8 1F 4E). */
long es_detect_iec(const uint8_t *p, size_t n, int *swapped);
/* Same codec for "did the stream change?": MPEG-1/MPEG-2 video and AC-3/E-AC-3 are one
 * family each (one decoder takes both). */
int es_same_codec_family(enum AVCodecID a, enum AVCodecID b);

/* es_codec.c ------------------------------------------------------------------------------ */
/* Sets up parser and decoder context for id (decoder opened later, es_codec_open). Drains and
 * closes what was open before. Returns 0 or -errno. */
int es_codec_start(struct es *es, enum AVCodecID id);
/* Starts the codec `id` detected at byte off of an n-byte payload, counting what is skipped:
 * off bytes before it, everything if id is NONE or the decoder does not open. Returns 0 when
 * the payload from off on is to be parsed, -1 when it was skipped. */
int es_codec_start_at(struct es *es, enum AVCodecID id, size_t off, size_t n);
int es_codec_open(struct es *es, int threads);
/* Replaces the decoder by a fresh one for id, opened with threads (the parser stays): what the
 * old one holds comes out first. */
int es_codec_replace(struct es *es, enum AVCodecID id, int threads);
/* Frees everything (nothing comes out). */
void es_codec_close(struct es *es);
/* Splits data into units (or passes it whole when there is no parser) and decodes them. */
void es_codec_parse(struct es *es, const uint8_t *data, size_t len, int64_t pts, int64_t dts);
/* Sends one unit (pkt data/pts set) and hands the frames out. */
void es_codec_decode(struct es *es, const uint8_t *data, size_t len, int64_t pts, int64_t dts,
		     int key);
/* Flushes parser and decoder (frames come out); decoding can go on afterwards. */
void es_codec_drain(struct es *es);
/* Decodes one unit with a decoder of its own, drained at once: its picture, or NULL. */
AVFrame *es_codec_decode_alone(struct es *es, const uint8_t *data, size_t len, int64_t pts,
			       int64_t dts);

/* es_video.c ------------------------------------------------------------------------------ */
void es_video_payload(struct es *es, const uint8_t *p, size_t n, int64_t pts, int64_t dts);
/* a unit from the parser: returns 1 to decode it, 0 to drop it (key-frames-only) */
int es_video_unit(struct es *es, int key, int pict_type);
/* 1 when the payload ends with the open codec's end of sequence or of stream */
int es_video_ends(const struct es *es, const uint8_t *p, size_t n);
void es_video_frame(struct es *es, AVFrame *f);
/* a unit about to be decoded: when live and no picture came out yet, an MPEG-1/2 I-picture
 * or an H.264/HEVC clean random-access picture goes out alone first (es_frame_info.preview) */
void es_video_preview(struct es *es, const uint8_t *data, size_t len, int64_t pts, int64_t dts,
		      int pict_type);
/* 1 when the H.264 or HEVC access unit in d is a picture that nothing before it is needed for
 * and that no later-decoded picture precedes on screen (an H.264 IDR; an HEVC IDR_N_LP or
 * CRA, and no IDR_W_RADL) */
int es_clean_random_access(enum AVCodecID id, const uint8_t *d, size_t len);
int es_video_threads(const struct es *es, int width);
/* hands a frame (after deinterlacing) to the callback */
void es_video_emit(struct es *es, AVFrame *f, const struct es_frame_info *info);

/* es_audio.c ------------------------------------------------------------------------------ */
void es_mpa_payload(struct es *es, const uint8_t *p, size_t n, int64_t pts);
void es_audio_frame(struct es *es, AVFrame *f);
/* Output pts: a packet's pts (90 kHz) re-anchors the count of samples handed out when it is the
 * first or disagrees with it by more than 40 ms; es_audio_next_pts is where the next sample
 * out stands (AV_NOPTS_VALUE before any anchor). Decoded sound and passthrough bursts alike. */
void es_audio_anchor(struct es *es, int64_t pts);
int64_t es_audio_next_pts(const struct es *es);
void es_audio_drain(struct es *es);
void es_audio_reset(struct es *es);

/* es_lpcm.c ------------------------------------------------------------------------------- */
void es_bd_payload(struct es *es, const uint8_t *p, size_t n, int64_t pts, int continuation);
void es_iec_reset(struct es *es);

/* es_spdif.c ------------------------------------------------------------------------------ */
/* One audio unit: 1 when it went out as an IEC 61937 burst (passthrough on for its format at
 * 48 kHz), 0 when it is to be decoded. */
int es_spdif_unit(struct es *es, const uint8_t *data, size_t len, int64_t pts);
void es_spdif_free(struct es *es);

/* es_deint.c ------------------------------------------------------------------------------ */
/* Takes f (ownership) with its info; what the filter returns goes to es_video_emit. */
void es_deint_frame(struct es *es, AVFrame *f, const struct es_frame_info *info);
/* One picture deinterlaced on its own (bwdif at frame rate, this picture as its own
 * neighbours): a new frame, or NULL. */
AVFrame *es_deint_alone(AVFrame *f);
/* The pictures the filter's thread has finished go out, if it is done (the stream's thread,
 * at each packet). */
void es_deint_poll(struct es *es);
/* ... and those it is still filtering, once it is done (es_settle) */
void es_deint_settle(struct es *es);
/* End of data: the frames the filter holds come out, then the filter is freed. */
void es_deint_drain(struct es *es);
void es_deint_free(struct es *es);

#endif
