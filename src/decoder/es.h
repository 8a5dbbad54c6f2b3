/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Elementary-stream decoding (src/decoder private): one object per stream (video or audio) that
 * takes the repacked PES packets the card hands out (≤ 2048 bytes, full PES header, as in the
 * card's rings) or a raw elementary stream (VIDEO_STILLPICTURE), finds the codec from the data,
 * splits it into access units with libavcodec's parsers (av_parser_parse2), decodes with
 * libavcodec and returns frames through a callback:
 *
 *  - video: MPEG-1/2 video, H.264 and HEVC (stream ids 0xE0-0xEF), optionally deinterlaced
 *    with libavfilter (bwdif, at frame or field rate); frames in the decoder's pixel format;
 *  - audio: MPEG audio layers I/II/III (0xC0-0xDF); private stream 1 (0xBD) holding AC-3 or
 *    E-AC-3 (raw DVB style, or behind a DVD substream header 0x80-0x8F), DVD LPCM (substream
 *    0xA0-0xAF, 16-bit big-endian as MPlayer sends it) and IEC 61937 bursts inside LPCM
 *    (MPlayer -ac hwac3); converted with libswresample to FFDVB_AUDIO_RATE interleaved S16
 *    stereo (include/ffdvb/output.h).
 *
 * Frames carry pts in 90 kHz units (33-bit values as in the stream, AV_NOPTS_VALUE if none;
 * unwrapping is the clock's job). Bad data never stops the stream: what cannot be parsed or
 * decoded is skipped and counted, and decoding resumes at the next good access unit; a change of
 * codec or resolution mid-stream reopens the decoder.
 *
 * Not thread-safe: each object is used by one thread at a time (the decoder's stream thread). */
#ifndef FFDVB_DECODER_ES_H
#define FFDVB_DECODER_ES_H

#include <stddef.h>
#include <stdint.h>

struct AVFrame;

enum es_kind { ES_VIDEO, ES_AUDIO };

/* bwdif on interlaced-flagged pictures only: FRAME gives one picture per coded picture (25 per
 * second for 25i), FIELD one per field (50 per second), as a TV shows the motion */
enum es_deinterlace { ES_DEINTERLACE_OFF, ES_DEINTERLACE_FRAME, ES_DEINTERLACE_FIELD };

struct es_config {
	enum es_kind kind;
	enum es_deinterlace deinterlace; /* video only */
	int threads;                      /* libavcodec threads; 0 = 1 for SD, automatic for HD */
};

/* Called for every decoded frame, in presentation order for video (as libavcodec returns them).
 * The callee takes ownership of frame (av_frame_free when done).
 *  - video: frame->pts (90 kHz or AV_NOPTS_VALUE), frame->pict_type, width/height,
 *    sample_aspect_ratio, format; es_frame_info gives the rest;
 *  - audio: AV_SAMPLE_FMT_S16, FFDVB_AUDIO_CHANNELS interleaved, FFDVB_AUDIO_RATE,
 *    frame->nb_samples, frame->pts (90 kHz of the first sample or AV_NOPTS_VALUE); except
 *    E-AC-3 bursts (info.passthrough), which need a link four times as fast: each of their
 *    48 kHz samples is four stereo samples of 192 kHz, so the frame says 8 channels
 *    and info.link 4. */
struct es_frame_info {
	int key;                 /* an I-frame / IDR (for VIDEO_FAST_FORWARD) */
	int interlaced;          /* as decoded, before deinterlacing */
	int field;               /* one of the two pictures made of a frame at field rate */
	int dar_num, dar_den;    /* display aspect ratio of the picture, reduced (4:3, 16:9, 221:100) */
	int64_t duration;        /* 90 kHz: frame period (video) or nb_samples length (audio) */
	int passthrough;         /* audio: IEC 61937 bursts, to be played bit for bit (no volume,
				    no mixing, no conversion) */
	unsigned int link;       /* audio: the rate the sound device must run at, in multiples of
				    48 kHz: 4 for E-AC-3 bursts, else 1 (or 0) */
	int preview;             /* video, live: the first key picture after a start or a clear,
				    decoded alone as soon as it is whole (es_set_live); the
				    decoder brings the same picture out again later, in order */
};
typedef void (*es_frame_fn)(void *ctx, struct AVFrame *frame, const struct es_frame_info *info);

struct es_stats {
	uint64_t pes_packets;    /* packets fed */
	uint64_t bytes;          /* elementary-stream bytes fed */
	uint64_t bad_pes;        /* packets whose PES header could not be parsed (skipped) */
	uint64_t units;          /* access units the parser produced */
	uint64_t frames;         /* frames handed to the callback */
	uint64_t decode_errors;  /* units libavcodec refused (skipped) */
	uint64_t skipped_bytes;  /* bytes before the codec was recognised or of unknown formats */
	uint64_t codec_changes;  /* decoder (re)opened for another codec or format */
	uint64_t key_skipped;    /* non-key pictures dropped in key-frames-only mode */
	uint64_t passthrough_bursts; /* IEC 61937 bursts handed out instead of decoded sound */
	char codec[24];          /* libavcodec name of the current codec ("" before detection) */
	int width, height;       /* last decoded picture size (video) */
};

struct es;

/* Returns NULL on allocation failure. */
struct es *es_new(const struct es_config *cfg);
void es_free(struct es *es);

/* Feeds one repacked PES packet (00 00 01 <id> ...); frames decoded from it go to cb before the
 * call returns, but for the pictures of the deinterlacer's last one, which its own thread
 * filters while this one goes on: they go to cb at the next call, es_settle or es_drain
 * (es_deint.c). Returns 0 (also when the packet was skipped as bad; see stats), or 1 when the
 * video payload ended with the codec's end of sequence or of stream (es_video.c): then what
 * the parser and decoder held came out as by es_drain, and the pictures after it up to a key
 * frame may lack their references. */
int es_feed_pes(struct es *es, const uint8_t *pkt, size_t len, es_frame_fn cb, void *ctx);

/* Feeds a raw video elementary stream (VIDEO_STILLPICTURE: sequence header + I-picture) with
 * the given pts (AV_NOPTS_VALUE if none), then drains so that its picture comes out now. */
int es_feed_raw(struct es *es, const uint8_t *data, size_t len, int64_t pts, es_frame_fn cb,
		void *ctx);

/* The pictures the deinterlacer's thread is filtering go to the last feed's cb now: before
 * waiting for more data. */
void es_settle(struct es *es);

/* Drains: what the parser and decoder hold comes out (end of data, still pictures). The
 * stream continues normally afterwards. */
void es_drain(struct es *es, es_frame_fn cb, void *ctx);

/* 0 when es_drain would bring nothing out: sound whose parser holds no partial unit, from a
 * decoder without delay and no resampler filter state; 1 otherwise (video with a codec, private
 * stream 1, passthrough). */
int es_holds(struct es *es);

/* Forgets everything buffered (VIDEO/AUDIO_CLEAR_BUFFER, stop): parser, decoder and filter state;
 * nothing comes out. The codec is detected again from the next data. Stats are kept. */
void es_reset(struct es *es);

/* Video: 1 = decode key frames only (VIDEO_FAST_FORWARD); takes effect at the next unit. */
void es_set_key_frames_only(struct es *es, int on);

/* Video: 1 = live (pictures from a tuner's PID): after a start, a clear or a drain, the first
 * MPEG-1/2 I-picture (H.264, HEVC: a clean random-access picture) also comes out alone at
 * once, flagged preview (es_video.c), since the decoder holds it back until the next
 * reference picture is whole (H.264, HEVC: its reorder delay) and bwdif until the next
 * picture (a zap would wait for 3-4 pictures more). */
void es_set_live(struct es *es, int on);

/* Audio: the formats (ES_PASS_*) that go out as IEC 61937 bursts instead of decoded sound
 * (es_spdif.c), when at 48 kHz; takes effect at the next unit. 0 = decode everything. */
#define ES_PASS_AC3 1u
#define ES_PASS_DTS 2u
#define ES_PASS_EAC3 4u
void es_set_passthrough(struct es *es, unsigned int formats);

void es_get_stats(const struct es *es, struct es_stats *out);

#endif
