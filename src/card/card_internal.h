/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Private state of the emulated card (src/card only). All state is per card, never per file, as
 * on av7110 (docs/av7110.md §3); a file only remembers its node, access mode and,
 * on demux0, its own filter. */
#ifndef FFDVB_CARD_INTERNAL_H
#define FFDVB_CARD_INTERNAL_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <sys/types.h>

#include "ffdvb/abi.h"
#include "ffdvb/card.h"
#include "ffdvb/decoder.h"
#include "ffdvb/pes.h"
#include "ffdvb/osd.h"

/* ---- byte ring (ring.c): usable capacity is size - 1, like dvb_ringbuffer ---------------- */

struct card_ring {
	uint8_t *buf;
	size_t size;
	size_t rd, wr;
};

int card_ring_init(struct card_ring *r, size_t size);
void card_ring_release(struct card_ring *r);
/* inline: asked several times for every request (each call a branch more per request) */
static inline size_t card_ring_fill(const struct card_ring *r)
{
	return (r->wr + r->size - r->rd) % r->size;
}

static inline size_t card_ring_space(const struct card_ring *r)
{
	return r->size - 1 - card_ring_fill(r);
}
/* Copies min(len, space) bytes in; returns the count copied. */
size_t card_ring_put(struct card_ring *r, const void *data, size_t len);
/* Removes up to len bytes from the read side (the decoder's consumption); returns the count. */
size_t card_ring_skip(struct card_ring *r, size_t len);
void card_ring_flush(struct card_ring *r);
/* Copies up to len bytes from the read side without removing them; returns the count. */
size_t card_ring_peek(const struct card_ring *r, void *out, size_t len);
/* The byte at offset off from the read side (off < fill). */
uint8_t card_ring_at(const struct card_ring *r, size_t off);
/* Where the first len bytes of the read side are, without copying: *a (*alen bytes) then, when
 * they wrap around the end of the buffer, *b (*blen bytes, else 0). len <= fill. */
void card_ring_span(const struct card_ring *r, size_t len, const uint8_t **a, size_t *alen,
		    const uint8_t **b, size_t *blen);

#define CARD_VIDEO_RING_SIZE 131072
#define CARD_AUDIO_RING_SIZE 65536
#define CARD_FREE_COND_PES 20480 /* §4.1 FREE_COND: free bytes needed before a PES chunk */
#define CARD_FREE_COND_TS 4096   /* §4.1 FREE_COND_TS: free bytes needed before a TS packet */
#define CARD_PES_CHUNK 4096      /* PES writes are consumed in chunks of this size */
#define CARD_TS_SIZE 188

/* the stream that video0 or audio0 feeds (its repacker, its free-space rule) */
static inline enum ffdvb_stream card_node_stream(enum ffdvb_node_type type)
{
	return type == FFDVB_NODE_VIDEO ? FFDVB_STREAM_VIDEO : FFDVB_STREAM_AUDIO;
}

/* ---- nodes and files -------------------------------------------------------------------- */

struct ffdvb_card;

struct card_node {
	struct ffdvb_card *card;
	enum ffdvb_node_type type;
	int users, readers, writers; /* current openers */
	uint64_t bytes_accepted, bytes_refused, errors;
	ffdvb_wake_fn wake;
	void *wake_ctx;
};

/* demux0 filter of one file (dvb-core dmxdev: one filter per open) */
enum card_dmx_state { CARD_DMX_ALLOCATED, CARD_DMX_SET, CARD_DMX_GO };
enum card_dmx_type { CARD_DMX_NONE, CARD_DMX_SECTION, CARD_DMX_PES };

struct card_dmx_filter {
	enum card_dmx_state state;
	enum card_dmx_type type;
	struct ffdvb_dmx_pes_filter_params pes;
	struct ffdvb_dmx_sct_filter_params sct;
	uint16_t pids[32]; /* DMX_ADD_PID list (pes.pid is pids[0]) */
	int npids;
	int decoder_feed;  /* holds card->dmx_decoder[pes.pes_type] */
	unsigned int rec_bit; /* CARD_PLAY_* bit this feed holds in card->rec_mode */
	size_t buffer_size;
};

struct card_file {
	struct card_node *node;
	int flags;
	int writer; /* opened O_WRONLY or O_RDWR */
	struct card_dmx_filter dmx;
	/* frontend0, demux0, dvr0: the tuner's file this one forwards to (tuner_link.c) */
	struct ffdvb_tuner_file *tf;
};

/* ---- card state ------------------------------------------------------------------------- */

#define CARD_PLAY_VIDEO 1u /* bits of card->playing (§3) */
#define CARD_PLAY_AUDIO 2u
/* the bit of card->playing for stream s (enum ffdvb_stream: video 0, audio 1) */
#define CARD_PLAY_BIT(s) (1u << (s))

/* What the card holds per stream, video and audio, indexed by enum ffdvb_stream: the ring the
 * decoder takes whole packets from, the repacker in front of it (§6.1: video0 and still
 * pictures feed the video one, audio0 the audio one) and the live tap (live.c): the card's own
 * demux file on the PID of the decoder feed that a client started. */
struct card_stream {
	struct card_ring ring;
	struct ffdvb_repacker repack;
	struct ffdvb_tuner_file *tap;
	uint16_t pid;
	uint64_t packets, overflows; /* live TS packets taken, tap overflows */
	int refeed; /* its decoder feed stopped since the last update: the tap is reopened */
	size_t last_pes_write; /* bytes of the last write to the node, 0 when it was TS */
};

/* What card_update (update.c) has to bring up to date, in card->dirty. Requests and wake-ups
 * only change the card's state and mark these; the update runs after each of them. */
#define CARD_DIRTY_ROUTE 1u /* a decoder feed or `playing` changed: which PIDs are decoded live */
#define CARD_DIRTY_SYNC 2u  /* the play state changed: to the decoder (the drain: timer, STC) */
#define CARD_DIRTY_FEED 4u  /* data or room may have come: taps -> rings -> decoder */
#define CARD_DIRTY_WAKE 8u  /* the rings' fill changed: video0/audio0 wake-ups and poll masks */
#define CARD_DIRTY_KICK 16u /* the taps may have more: pump again from the loop's next turn */

enum card_trick { CARD_TRICK_NONE, CARD_TRICK_FAST, CARD_TRICK_SLOW, CARD_TRICK_FREEZE };

#define CARD_EVENT_SLOTS 8 /* §9.4: ring of 8 slots, at most 7 pending */


struct card_decoder_ops;

struct ffdvb_card {
	struct event_base *base;
	struct ffdvb_card_config cfg;
	/* what plays the rings: the decoder handed in (decode.c) or the drain (drain.c) */
	const struct card_decoder_ops *decoder;
	struct card_node nodes[FFDVB_NODE_COUNT];
	unsigned int dirty; /* CARD_DIRTY_* */
	int updating;       /* card_update runs */

	/* host -> decoder playback (§3) */
	unsigned int playing;
	unsigned int rec_mode; /* firmware PES recording (§8.1): audio/video feeds with TS output */
	struct ffdvb_video_status video;
	struct ffdvb_audio_status audio;
	int video_blank_internal; /* av7110 sets an unused flag on writer open; never reported */
	enum card_trick trick;
	unsigned long slow_count;
	int display_ar; /* VIDEO_SET_FORMAT: TV aspect 0 = 4:3, 1 = 16:9 */
	struct ffdvb_video_size video_size;
	struct ffdvb_audio_mixer mixer; /* AUDIO_SET_MIXER, never reported */
	/* docs/av7110.md, clients §2.9: AUDIO_SET_MUTE(1) mutes "until audio is (re)started";
	 * mute_state stays as reported, effective_mute is what the decoder will apply */
	int effective_mute;
	struct card_stream st[FFDVB_STREAM_COUNT];
	uint64_t repack_dropped; /* packets routed to a ring without room */

	struct ffdvb_video_event events[CARD_EVENT_SLOTS];
	unsigned int ev_rd, ev_wr;
	int ev_overflow;

	/* the drain of a card without a decoder (--no-decode, tests; drain.c) */
	struct event *drain_ev;
	int drain_running;
	uint64_t drain_last_ns;
	uint64_t drain_frac; /* sub-byte remainder, in bytes * 1e9 */

	/* the STC of a card without a decoder (drain.c) */
	uint64_t stc_base;   /* 90 kHz ticks at stc_anchor_ns */
	uint64_t stc_anchor_ns;
	int stc_running;

	/* monotonic clock in ns; tests replace it */
	uint64_t (*now_ns)(void *ctx);
	void *now_ctx;

	struct {
		uint32_t size;
		uint32_t fnv1a;
	} last_still;
	struct {
		int32_t cmd;
		uint32_t size;
		uint32_t fnv1a;
	} last_osd_data;

	/* osd0: windows and pixels (src/osd); they outlive the close of osd0 */
	struct ffdvb_osd *osd;

	/* demux0: one decoder feed per pes_type (dvb_demux pesfilter[]), and the PIDs it set */
	struct card_file *dmx_decoder[FFDVB_DMX_PES_OTHER];
	uint16_t dmx_pids[FFDVB_DMX_PES_OTHER];

	/* what stands behind frontend0, demux0 and dvr0 (include/ffdvb/tuner.h) */
	struct ffdvb_tuner *tuner;
	int own_tuner; /* created by the card ("none"): freed with it */

	struct event *live_ev; /* pumps the taps into the rings from the loop */

	/* the decoder (cfg.decoder, the caller's) and its glue (decode.c) */
	struct ffdvb_decoder *dec;
	struct event *dec_ev;     /* on the decoder's eventfd (ffdvb_decoder_wake_fd) */
	size_t still_ring_bytes;  /* still-picture copies in the video ring: not for the decoder */

	/* the OSD plane for cfg.output (osd_plane.c) */
	uint64_t osd_generation;  /* last OSD generation set on the output */
	struct event *osd_ev;     /* renders the plane shortly after a burst of OSD commands */
	uint32_t *osd_plane;
};

/* ---- per node implementations ---------------------------------------------------------- */

struct card_node_impl {
	/* side effects after the counters allowed the open; < 0 refuses it (-errno) */
	int (*opened)(struct card_file *f);
	void (*released)(struct card_file *f);
	ssize_t (*read)(struct card_file *f, void *buf, size_t len, int nonblock);
	ssize_t (*write)(struct card_file *f, const void *buf, size_t len, int nonblock);
	int (*ioctl)(struct card_file *f, struct ffdvb_ioctl *io);
	unsigned int (*poll)(struct card_file *f);
};

extern const struct card_node_impl card_video_impl;
extern const struct card_node_impl card_audio_impl;
extern const struct card_node_impl card_osd_impl;
extern const struct card_node_impl card_demux_impl;
extern const struct card_node_impl card_frontend_impl;
extern const struct card_node_impl card_dvr_impl;

/* ---- shared helpers --------------------------------------------------------------------- */

/* the node's transport re-evaluates its waiting requests and pollers (inline, as the ring
 * helpers: twice for every write) */
static inline void card_wake(struct ffdvb_card *card, enum ffdvb_node_type type)
{
	struct card_node *n = &card->nodes[type];

	if (n->wake)
		n->wake(n->wake_ctx);
}

/* video0 and audio0 (their masks share both rings): woken at the end of card_update */
static inline void card_wake_av(struct ffdvb_card *card)
{
	card->dirty |= CARD_DIRTY_WAKE;
}
/* update.c: after every request (card.c's node_ops) and every wake-up (decoder, live taps, the
 * drain), in this order: live routing (which PIDs feed the decoder), play state -> decoder,
 * taps -> rings, rings -> decoder, then the wake-ups; each only if marked in card->dirty */
void card_update(struct ffdvb_card *card);
uint64_t card_now(struct ffdvb_card *card);

/* ---- what plays the rings ---------------------------------------------------------------- */

/* The decoder as the card drives it: the one the caller handed in (decode.c,
 * card_decoder_ops) or, without one, the drain (drain.c, card_drain_ops), which discards
 * drain_rate bytes a second from the playing rings and counts a 90 kHz STC. The card picks one
 * in ffdvb_card_new and calls nothing else of either. */
struct card_decoder_ops {
	int live; /* takes the demux's decoder feeds (live.c) */
	int (*start)(struct ffdvb_card *card); /* 0 or -errno; stop undoes a half start */
	void (*stop)(struct ffdvb_card *card);
	/* the play state (after every video0/audio0 ioctl, `playing`, the live PIDs): the decoder
	   gets it; the drain (re)arms its timer and its STC */
	void (*sync)(struct ffdvb_card *card);
	/* rings -> decoder, size events back; marks CARD_DIRTY_WAKE | CARD_DIRTY_KICK when packets
	   moved */
	void (*feed)(struct ffdvb_card *card);
	void (*clear)(struct ffdvb_card *card, enum ffdvb_stream s); /* after the ring's flush */
	void (*still)(struct ffdvb_card *card, const uint8_t *es, size_t len);
	uint64_t (*stc)(struct ffdvb_card *card); /* DMX_GET_STC: 33 bits, 90 kHz */
	void (*status)(struct ffdvb_card *card, FILE *out, int json); /* "decoder":{...}, or a line */
};
extern const struct card_decoder_ops card_decoder_ops; /* decode.c */
extern const struct card_decoder_ops card_drain_ops;   /* drain.c */

/* playback.c: §4.4 start_play / av_stop */
int card_start_play(struct ffdvb_card *card, unsigned int what);
void card_av_stop(struct ffdvb_card *card, unsigned int what);
/* `playing` or a play state changed: marks the live routing, the decoder's state, the feed and
 * the wake-ups for card_update */
void card_play_state_changed(struct ffdvb_card *card);
/* drain.c: one period of the drain and the update after it (its timer; tests call it with
 * their own clock) */
void card_drain_tick(struct ffdvb_card *card);

static inline uint64_t card_stc(struct ffdvb_card *card)
{
	return card->decoder->stc(card);
}
/* The decoder calls this when it (re)starts decoding audio (new live PID, start of playback):
 * the firmware un-mutes then, which VDR relies on after its AUDIO_SET_MUTE(1) (docs/av7110.md,
 * clients §2.9). */
void card_audio_decoding_started(struct ffdvb_card *card);
int card_free_cond(const struct ffdvb_card *card); /* both rings >= 20480 free */

/* write.c: the memory data path of video0/audio0 */
/* The free part of the node's ring where a write's data would go (node_ops write_room), for
 * video0 and audio0 between packets; NULL otherwise. */
void *card_write_room(struct ffdvb_card *card, enum ffdvb_node_type type, size_t *len);
ssize_t card_av_write(struct ffdvb_card *card, enum ffdvb_node_type type, const void *buf,
		      size_t len);
/* The repackers and where their packets go (write.c). */
void card_repackers_init(struct ffdvb_card *card);
/* Feeds PES bytes written to node `type` through its repacker into the rings. Takes them all:
 * the caller checked the room first; a packet that finds none is dropped whole and counted
 * (repack_dropped). */
void card_feed_pes(struct ffdvb_card *card, enum ffdvb_node_type type, const uint8_t *data,
		   size_t len);

/* events.c (§9.4) */
void card_events_reset(struct ffdvb_card *card);
int card_events_pending(const struct ffdvb_card *card);
void card_queue_event(struct ffdvb_card *card, const struct ffdvb_video_event *ev);
/* The decoder reports a (new) picture size: updates VIDEO_GET_SIZE and video_format and queues
 * VIDEO_EVENT_SIZE_CHANGED. mpeg_aspect is the MPEG aspect_ratio_information code. */
void card_video_size_changed(struct ffdvb_card *card, int w, int h, int mpeg_aspect);
int card_get_event(struct ffdvb_card *card, struct ffdvb_ioctl *io);

/* The decoder's part of the status: a "decoder":{...}, member (json) or a line. */
static inline void card_decoder_status(struct ffdvb_card *card, FILE *out, int json)
{
	card->decoder->status(card, out, json);
}

/* decode.c: the feed again from the event loop's next turn, for callers inside a request that
 * may still block, whose wake-ups must come after they returned (nothing without a decoder) */
void card_decoder_kick(struct ffdvb_card *card);
/* playback.c: empties the ring of stream s (with the decoder's queues): writer open,
 * CLEAR_BUFFER, still picture, live PID change. */
void card_flush_stream(struct ffdvb_card *card, enum ffdvb_stream s);

/* tuner_link.c: frontend0, demux0 and dvr0 forward to a tuner file per client file */
/* 0, -errno, or -FFDVB_EBLOCK: the tuner's open is under way (f->tf set, wake hook set) */
int card_tuner_attach(struct card_file *f, int dev); /* enum ffdvb_tuner_dev */
/* the open's result: 0, -errno, -FFDVB_EBLOCK while under way (ffdvb_tuner_open_wait) */
int card_tuner_open_wait(struct card_file *f, int interrupted);
void card_tuner_detach(struct card_file *f);
/* A tuner result as the client sees it: -EAGAIN becomes a wait (-FFDVB_EBLOCK) for a blocking
 * caller, -EWOULDBLOCK for a non-blocking one, -EINTR after a signal; the tuner's own
 * -FFDVB_EBLOCK (a call under way) stays one. */
long card_tuner_result(long r, int nonblock, int interrupted);
void card_tuner_status(struct ffdvb_card *card, FILE *out, int json); /* "tuner":{...}, */

/* live.c: live decoding of the demux PIDs (the card's decoder feeds with DMX_OUT_DECODER) */
int card_live_init(struct ffdvb_card *card);
void card_live_free(struct ffdvb_card *card);
/* demux.c: a decoder feed of pes_type started (stopped = 0) or stopped; card_update routes */
void card_live_feed_changed(struct ffdvb_card *card, int pes_type, int stopped);
/* card_update: opens and closes the taps for the decoder feeds; 1 if a route changed */
int card_live_route(struct ffdvb_card *card);
/* Whether the decoder takes stream s from its ring now (memory playback or live). */
int card_stream_active(const struct ffdvb_card *card, enum ffdvb_stream s);
/* Schedules a pump of the taps (after the decoder made room). */
void card_live_kick(struct ffdvb_card *card);
/* frontend0 was tuned: the live streams drop what they hold of the old transponder */
void card_live_retuned(struct ffdvb_card *card);
void card_live_pump(struct ffdvb_card *card); /* taps -> rings (card_update) */
void card_live_status(struct ffdvb_card *card, FILE *out, int json);

/* osd_plane.c: the rendered OSD for the output (none without cfg.output) */
int card_osd_plane_start(struct ffdvb_card *card);
void card_osd_plane_stop(struct ffdvb_card *card);
/* osd0 changed the model: sets the plane on the output soon if its generation moved */
void card_osd_changed(struct ffdvb_card *card);

/* still.c */
int card_still_picture(struct ffdvb_card *card, struct ffdvb_ioctl *io);

#endif
