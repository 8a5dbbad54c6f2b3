/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The presenter thread: owns the output and the clock. Each turn it tops up the sound device,
 * works out the master clock (the sound being heard when audio plays with A/V sync on, else a
 * system clock that runs from where the pictures are) and puts up the picture that is due.
 * Trick modes (slow motion, VDR's fast modes, VIDEO_FAST_FORWARD) ignore time stamps: each
 * picture is held n frame periods. After a clear the clock starts again from the first data
 * (preroll). With the headless sink's virtual clock, time only moves on when every playing
 * stream has what the next step needs (or has run dry), so content plays as fast as it decodes
 * and every recorded time is what real-time playback would have given. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <libavutil/frame.h>

#include "ffdvb/log.h"
#include "dec_internal.h"

#define TICKS_PER_S 90000
#define STEP_NS 10000000ull              /* longest sleep between turns */
#define AUDIO_TARGET (FFDVB_AUDIO_RATE * 60 / 1000) /* samples kept in the device: 60 ms */
#define AUDIO_TARGET_MAX (FFDVB_AUDIO_RATE / 2) /* ... at most, however slow the pictures are */
/* ... and at least this for IEC 61937 bursts: a starved device breaks the burst stream, and the
   receiver mutes for a frame or more to find it again, where decoded sound would only click;
   volume does not touch bursts, so the longer lead only delays mute (200 ms: all of it fits in
   the device's buffer, alsa_audio.c) */
#define AUDIO_TARGET_BURSTS (FFDVB_AUDIO_RATE / 5)
#define X16_PER_SAMPLE 30                /* audio positions in 1/16 ticks: 48 kHz = 1.875 ticks */
#define AUDIO_GAP_FILL (TICKS_PER_S * 2) /* gaps up to this are played as silence */
#define AUDIO_SLACK (TICKS_PER_S / 200)  /* 5 ms: closer than this counts as contiguous */
#define AUDIO_BEHIND (TICKS_PER_S / 5)   /* sound this far behind the picture is dropped */
#define AUDIO_RESYNC_MAX (TICKS_PER_S * 60) /* farther behind: a discontinuity, not lateness */
#define STARVED_NS 20000000ull           /* input dry this long (real time) = ran out of data */
#define STC_MASK ((1ull << 33) - 1)
#define DEFAULT_PERIOD 3600              /* 25 Hz */
#define DISPLAY_AHEAD_MAX 250000000ull   /* pictures go up at most 250 ms early */
#define SOUND_START_LEAD_MAX (TICKS_PER_S / 5) /* a start waits for 200 ms of sound at most ... */
#define SOUND_START_WAIT_NS 1000000000ull   /* ... and for a second at most */

struct pres {
	struct ffdvb_decoder *dec;
	struct ffdvb_output *out;
	int virtual_clock;
	struct ffdvb_decoder_state st;
	unsigned int vserial, aserial;

	/* clock: timeline position anchor_tl at output time anchor_ns, moving when running */
	int clock_valid, preroll;
	int64_t anchor_tl;
	uint64_t anchor_ns;
	int audio_master;

	/* sound */
	int audio_started;         /* samples queued since the anchor */
	uint64_t sound_wait_ns;    /* real time a start began to wait for its lead; 0 = none */
	int audio_resync;          /* drop sound older than the clock (after a trick mode) */
	int64_t audio_end_x16;     /* timeline (1/16 tick) just after the last queued sample */
	int audio_paused;
	int adaptive;              /* a real device: the sound's lead follows the picture's cost */
	uint64_t present_ns;       /* the slowest recent picture put up (decays) */
	int64_t ahead;             /* pictures go up this much before their time (90 kHz): the
				      display's latency and the lip-sync trim */
	int64_t display_ticks;     /* the display's part */
	unsigned int link;         /* the sound device's rate in 48 kHz units: 1, 4 for E-AC-3 */
	unsigned int link_refused; /* a link the device would not take */
	int16_t *mixbuf;
	size_t mixcap;             /* in bytes */

	/* picture */
	struct dec_frame *shown;   /* on screen (owned), NULL = none/black */
	uint64_t shown_at;
	int64_t played_tl;         /* time of the last picture shown in play since a clear ... */
	int played_valid;          /* ... when set */
	int shown_black;
	int announced;             /* a size event was sent for the current size */
	int ann_w, ann_h, ann_num, ann_den;
};

static int64_t clock_now(const struct pres *p, uint64_t now, int running)
{
	if (!running || now < p->anchor_ns)
		return p->anchor_tl;
	return p->anchor_tl + (int64_t)((now - p->anchor_ns) * 9 / 100000);
}

static uint64_t ns_of_ticks(int64_t ticks)
{
	return ticks <= 0 ? 0 : (uint64_t)ticks * 100000 / 9;
}

static int starved(const struct ffdvb_decoder *dec, const struct dec_stream *s)
{
	if (s->in_head || s->decoding)
		return 0;
	/* the video ended with an end code: nothing more comes of it, and sound that holds
	 * nothing is not waited for either */
	if (dec->st[FFDVB_STREAM_VIDEO].ended && !(s->held && s->holds))
		return 1;
	return !s->held && s->starved_since && dec_real_ns() - s->starved_since >= STARVED_NS;
}

static struct dec_frame *pop(struct dec_stream *s)
{
	struct dec_frame *f = s->out_head;

	if (!f)
		return NULL;
	s->out_head = f->next;
	if (!s->out_head)
		s->out_tail = NULL;
	f->next = NULL;
	s->out_count -= dec_frame_weight(s->which, f->frame, &f->info);
	pthread_cond_broadcast(&s->cond_out);
	return f;
}

/* ---- pictures ------------------------------------------------------------------------- */

static void picture_info(const struct pres *p, const struct dec_frame *f,
			 struct ffdvb_picture_info *pi)
{
	*pi = (struct ffdvb_picture_info){
		.pts = f ? f->pts33 : -1,
		.blank = !f,
		.dar_num = f ? f->info.dar_num : 0,
		.dar_den = f ? f->info.dar_den : 0,
		.tv = p->st.tv,
		.display_format = p->st.display_format,
	};
}

static void size_event(struct pres *p, const struct dec_frame *f)
{
	struct ffdvb_decoder *dec = p->dec;
	int w = f->frame->width, h = f->frame->height;
	unsigned int i;

	if (p->announced && w == p->ann_w && h == p->ann_h && f->info.dar_num == p->ann_num &&
	    f->info.dar_den == p->ann_den)
		return;
	p->announced = 1;
	p->ann_w = w, p->ann_h = h, p->ann_num = f->info.dar_num, p->ann_den = f->info.dar_den;
	if (dec->size_wr - dec->size_rd >= DEC_SIZE_EVENTS)
		dec->size_rd++; /* the card reads them at once; losing the oldest is harmless */
	i = dec->size_wr++ % DEC_SIZE_EVENTS;
	dec->size_ev[i].w = w;
	dec->size_ev[i].h = h;
	dec->size_ev[i].num = f->info.dar_num;
	dec->size_ev[i].den = f->info.dar_den;
}

/* the OSD plane of update `serial` reached the screen now (lock held) */
static void osd_presented(struct pres *p, unsigned int serial)
{
	struct ffdvb_decoder *dec = p->dec;

	if (serial == dec->stats.osd_presented)
		return;
	dec->stats.osd_presented = serial;
	dec->stats.osd_presented_ns = ffdvb_output_now(p->out);
}

/* called with the lock held; drops it around the output call */
static void show(struct pres *p, struct dec_frame *f, uint64_t now)
{
	struct ffdvb_decoder *dec = p->dec;
	struct ffdvb_picture_info pi;
	struct dec_frame *old = p->shown;
	unsigned int sizes = dec->size_wr;
	/* the card hears of a size event and of the STC starting or stopping (a picture after none
	   or a still, a still or black after a picture), not of every picture: it reads the STC
	   when asked, and a wake-up per picture cost its loop a turn 25 to 50 times a second */
	int wake = !f || f->still || !old || old->still;

	p->shown = f;
	p->shown_at = now;
	p->shown_black = !f;
	if (f && f->still) {
		dec->stats.video_frames_shown++;
		size_event(p, f);
	} else if (f) { /* a still picture leaves the STC where it was (VDR reads it as stopped) */
		dec->stc = f->pts33;
		dec->have_stc = 1;
		dec->stats.video_frames_shown++;
		size_event(p, f);
	}
	picture_info(p, f, &pi);
	dec->osd_pending = 0;
	unsigned int osd = dec->osd_serial;

	pthread_mutex_unlock(&dec->lock);
	uint64_t t0 = dec_real_ns();
	ffdvb_output_show(p->out, f ? f->frame : NULL, &pi);
	uint64_t took = dec_real_ns() - t0;
	p->present_ns = took > p->present_ns ? took : p->present_ns - p->present_ns / 16;
	dec_frame_free(old);
	if (wake || sizes != dec->size_wr)
		dec_wake(dec);
	pthread_mutex_lock(&dec->lock);
	osd_presented(p, osd);
}

static void drop(struct pres *p, struct dec_frame *f)
{
	p->dec->stats.video_frames_dropped++;
	dec_frame_free(f);
}

static int64_t period_of(const struct dec_frame *f)
{
	return f && f->info.duration > 0 ? f->info.duration : DEFAULT_PERIOD;
}

/* Trick modes: every picture held n periods, time stamps ignored. Returns when to look again. */
static uint64_t video_trick(struct pres *p, uint64_t now, unsigned int n)
{
	struct dec_stream *s = &p->dec->st[FFDVB_STREAM_VIDEO];
	struct dec_frame *head = s->out_head;
	uint64_t due;

	if (!head)
		return now + STEP_NS;
	due = p->shown ? p->shown_at + n * ns_of_ticks(period_of(p->shown)) : now;
	if (head->still || now >= due) {
		if (p->shown && !head->still && n > 1)
			p->dec->stats.video_repeats += n - 1;
		show(p, pop(s), now);
		/* the clock follows the pictures, so that play resumes from here */
		p->anchor_tl = p->shown->tl;
		p->anchor_ns = now;
		p->clock_valid = 1;
		return now + n * ns_of_ticks(period_of(p->shown));
	}
	return due;
}

/* Normal play: the picture whose time has come; late ones are dropped. */
static uint64_t video_play(struct pres *p, uint64_t now, int64_t clock)
{
	struct dec_stream *s = &p->dec->st[FFDVB_STREAM_VIDEO];

	for (;;) {
		struct dec_frame *head = s->out_head;

		if (!head)
			return now + STEP_NS;
		if (head->still) {
			show(p, pop(s), now);
			return now + STEP_NS;
		}
		if (head->info.preview) { /* live, the first picture before its turn (es_video.c) */
			if (p->clock_valid)
				drop(p, pop(s));
			else
				show(p, pop(s), now);
			continue;
		}
		if (!p->clock_valid)
			return now + STEP_NS;
		if (head->tl > clock + p->ahead)
			return now + ns_of_ticks(head->tl - clock - p->ahead);
		/* a later picture is due too (one of the same time is a copy: see below) */
		if (head->next && head->next->tl <= clock + p->ahead && head->next->tl != head->tl) {
			drop(p, pop(s));
			continue;
		}
		/* The time of a picture already shown: the client wrote that frame again (VDR does
		   with its last one at the end of a recording until the STC stops). Its time has
		   passed, and a P picture decoded twice would not even look the same. */
		if (p->played_valid && head->pts33 >= 0 && head->tl == p->played_tl) {
			drop(p, pop(s));
			continue;
		}
		if (p->audio_master) /* when it reaches the screen, against the sound heard then */
			p->dec->stats.av_offset_ms = (head->tl - clock - p->display_ticks) / 90;
		p->played_tl = head->tl;
		p->played_valid = 1;
		show(p, pop(s), now);
		return now + STEP_NS;
	}
}

/* ---- sound ---------------------------------------------------------------------------- */

/* bytes of nb samples on the device's link */
static size_t sound_bytes(const struct pres *p, size_t nb)
{
	return nb * FFDVB_AUDIO_FRAME_BYTES * p->link;
}

static int16_t *mix_space(struct pres *p, size_t nb)
{
	size_t bytes = sound_bytes(p, nb);

	if (bytes > p->mixcap) {
		int16_t *n = realloc(p->mixbuf, bytes);

		if (!n)
			return NULL;
		p->mixbuf = n;
		p->mixcap = bytes;
	}
	return p->mixbuf;
}

/* how queue_sound treats samples: channel select, volume and mute; the same at full volume
 * (decoded AC-3: VDR sets volume 0 for Dolby, expecting a digital output); IEC 61937 bursts,
 * which must reach the receiver bit for bit (mute alone applies: silence is valid there) */
enum mix { MIX_ALL, MIX_FULL_VOLUME, MIX_BITEXACT };

/* queues nb samples (src NULL = silence) with the lock dropped */
static void queue_sound(struct pres *p, const int16_t *src, size_t nb, int64_t pts, enum mix mix)
{
	struct ffdvb_decoder *dec = p->dec;
	int16_t *buf = mix_space(p, nb);
	struct ffdvb_decoder_state st = p->st;

	if (!buf || !nb)
		return;
	if (src && mix == MIX_BITEXACT && st.mute) {
		memset(buf, 0, sound_bytes(p, nb));
	} else if (src) {
		memcpy(buf, src, sound_bytes(p, nb));
		if (mix != MIX_BITEXACT)
			audio_mix(buf, nb, st.channel, mix == MIX_FULL_VOLUME ? 255 : st.volume_left,
				  mix == MIX_FULL_VOLUME ? 255 : st.volume_right, st.mute);
	} else {
		memset(buf, 0, sound_bytes(p, nb));
	}
	p->audio_end_x16 += (int64_t)nb * X16_PER_SAMPLE;
	dec->stats.audio_samples_played += nb;
	pthread_mutex_unlock(&dec->lock);
	ffdvb_output_audio_queue(p->out, buf, nb, pts);
	pthread_mutex_lock(&dec->lock);
}

static int is_ac3(const struct ffdvb_decoder *dec)
{
	const char *c = dec->st[FFDVB_STREAM_AUDIO].es_stats.codec;

	return !strcmp(c, "ac3") || !strcmp(c, "eac3");
}

/* The sound kept in the device: AUDIO_TARGET, and on a real device also twice what putting
 * up a picture costs now, since the sound is topped up only between pictures: a software GL
 * renderer or a slow CPU would otherwise starve the device (heard as dropouts). The sound is
 * the clock, so a longer lead moves nothing; mute and volume act that much later. Bursts get
 * AUDIO_TARGET_BURSTS at least: the first pictures' cost is not known yet when the sound starts
 * (a 64 ms lead starved the HDA once in vm_devices, at 0.1 s, while the first picture went up). */
static size_t audio_target(const struct pres *p, int bursts)
{
	size_t extra = p->adaptive ? (size_t)(p->present_ns * 2 * FFDVB_AUDIO_RATE / 1000000000u) : 0;
	size_t target = AUDIO_TARGET + extra < AUDIO_TARGET_MAX ? AUDIO_TARGET + extra
								   : AUDIO_TARGET_MAX;

	return bursts && target < AUDIO_TARGET_BURSTS ? AUDIO_TARGET_BURSTS : target;
}

/* The device to the link frame f needs (E-AC-3 bursts: 192 kHz; lock held): what it held is
 * dropped, the sound goes on from the clock. A device that refuses the rate gets E-AC-3
 * decoded from the next unit on (the stream thread applies s->pass), and its bursts already
 * decoded are dropped. 1 if the link changed, 0 if it was right, -1 if f cannot be played. */
static int set_link(struct pres *p, struct dec_stream *s, const struct dec_frame *f, int64_t clock)
{
	unsigned int link = f->info.link > 1 ? f->info.link : 1;
	int r;

	if (link == p->link)
		return 0;
	if (link == p->link_refused)
		return -1;
	pthread_mutex_unlock(&p->dec->lock);
	r = ffdvb_output_audio_link(p->out, link);
	pthread_mutex_lock(&p->dec->lock);
	if (r < 0) {
		if (s->pass & ES_PASS_EAC3)
			ffdvb_log(FFDVB_LOG_WARNING, "decoder: the sound device cannot take E-AC-3 "
				  "bursts (%u Hz): E-AC-3 is decoded", FFDVB_AUDIO_RATE * link);
		s->pass &= ~ES_PASS_EAC3;
		p->link_refused = link;
		return -1;
	}
	p->link = link;
	p->audio_end_x16 = clock * 16; /* nothing queued any more */
	p->dec->audio_out_queued = 0;
	return 1;
}

/* On a real device the sound starts with what the next pictures cost ready behind it: started
 * with less, the device runs dry while they go up, since sound is topped up only between
 * pictures (vm_devices: 96 ms ready, the next picture took 120 ms, and the AC-3 bursts broke).
 * Until then the start waits and what falls behind the clock is cut (feed_sound's gap rules):
 * the sound starts a little later, in sync, without a gap. It starts anyway when no more is
 * coming soon, when the decoder's queue is full, or after SOUND_START_WAIT_NS. */
static int sound_may_start(struct pres *p, const struct dec_stream *s, int64_t clock)
{
	uint64_t now = dec_real_ns();

	if (!p->adaptive || !s->out_tail)
		return 1;
	/* twice the slowest recent picture, and half of AUDIO_TARGET */
	int64_t need = (int64_t)(p->present_ns * 2 * TICKS_PER_S / 1000000000u) +
		       TICKS_PER_S * 3 / 100;
	const struct dec_frame *t = s->out_tail;
	int64_t ready = t->tl + (int64_t)t->frame->nb_samples * X16_PER_SAMPLE / 16 - clock;

	if (need > SOUND_START_LEAD_MAX)
		need = SOUND_START_LEAD_MAX;
	if (!p->sound_wait_ns)
		p->sound_wait_ns = now;
	if (ready >= need || starved(p->dec, s) || s->out_count >= s->out_max ||
	    now - p->sound_wait_ns >= SOUND_START_WAIT_NS) {
		p->sound_wait_ns = 0;
		return 1;
	}
	return 0;
}

/* the next sound starts from the clock, after its own wait for a lead (sound_may_start) */
static void sound_unstarted(struct pres *p)
{
	p->audio_started = 0;
	p->sound_wait_ns = 0;
}

/* Keeps audio_target() samples in the device (as the next unit needs: decoded or bursts);
 * silence fills gaps, overlaps are cut. */
static void feed_sound(struct pres *p, int64_t clock)
{
	struct dec_stream *s = &p->dec->st[FFDVB_STREAM_AUDIO];
	size_t queued = ffdvb_output_audio_queued(p->out);

	if (!p->audio_started) {
		if (!sound_may_start(p, s, clock))
			return;
		p->audio_end_x16 = clock * 16;
		p->audio_started = 1;
	}
	while (s->out_head && queued < audio_target(p, s->out_head->info.passthrough)) {
		struct dec_frame *f = s->out_head;
		size_t left = (size_t)f->frame->nb_samples - f->used;
		int64_t at_x16 = f->tl * 16 + (int64_t)f->used * X16_PER_SAMPLE;
		int64_t gap;
		unsigned int serial = s->serial;

		int link = set_link(p, s, f, clock);

		if (s->serial != serial)
			break; /* a clear while unlocked freed f; the next turn starts over */
		if (link < 0) {
			dec_frame_free(pop(s));
			continue;
		}
		if (link)
			queued = 0;
		gap = (at_x16 - p->audio_end_x16) / 16;

		if (p->audio_resync) {
			int64_t end = (at_x16 + (int64_t)left * X16_PER_SAMPLE) / 16;

			if (end < clock && clock - end <= AUDIO_RESYNC_MAX) {
				dec_frame_free(pop(s)); /* held back by the trick mode: late now */
				continue;
			}
			p->audio_resync = 0; /* the gap rules below cut the rest */
		}

		if (gap > AUDIO_SLACK && gap <= AUDIO_GAP_FILL) {
			size_t nb = (size_t)((at_x16 - p->audio_end_x16) / X16_PER_SAMPLE);

			queue_sound(p, NULL, nb, -1, MIX_ALL);
			queued += nb;
			continue;
		}
		if (gap < -AUDIO_SLACK && -gap <= AUDIO_GAP_FILL) {
			size_t cut = (size_t)((p->audio_end_x16 - at_x16) / X16_PER_SAMPLE);

			if (cut >= left || f->info.passthrough) { /* a cut burst is garbage */
				dec_frame_free(pop(s));
				continue;
			}
			f->used += cut;
			continue;
		}
		if (gap > AUDIO_GAP_FILL || gap < -AUDIO_GAP_FILL) {
			p->audio_end_x16 = at_x16; /* beyond repair: follow the stream */
			p->dec->stats.discontinuities++;
		}
		queue_sound(p, (const int16_t *)f->frame->data[0] + 2 * p->link * f->used, left,
			    f->used ? -1 : f->pts33,
			    f->info.passthrough ? MIX_BITEXACT
			    : is_ac3(p->dec)    ? MIX_FULL_VOLUME
						: MIX_ALL);
		queued += left;
		if (s->serial != serial)
			break; /* a clear while unlocked freed f; the next turn starts over */
		dec_frame_free(pop(s));
	}
	p->dec->audio_out_queued = queued;
}

static int64_t audio_clock(const struct pres *p)
{
	size_t queued = ffdvb_output_audio_queued(p->out);

	return (p->audio_end_x16 - (int64_t)queued * X16_PER_SAMPLE) / 16;
}

/* ---- one turn --------------------------------------------------------------------------- */

/* After a clear or at start: the clock starts from the earliest first timestamp of the streams
 * that play, once each has data or has run dry. */
static void preroll(struct pres *p, uint64_t now, int video_on, int audio_on)
{
	struct ffdvb_decoder *dec = p->dec;
	const struct dec_stream *v = &dec->st[FFDVB_STREAM_VIDEO], *a = &dec->st[FFDVB_STREAM_AUDIO];
	const struct dec_frame *vh = video_on ? v->out_head : NULL;
	const struct dec_frame *ah = audio_on ? a->out_head : NULL;
	int v_wait, a_wait = audio_on && !ah && !starved(dec, a);

	/* a preview is shown at once and held: the same picture in order starts the clock; a
	   still picture starts none (below), even when the sound has run dry before it */
	if (vh && (vh->info.preview || vh->still))
		vh = vh->next;
	v_wait = video_on && !vh && !starved(dec, v);

	/* Live, the first picture starts the clock and is shown at once, as the av7110 did: a
	 * zap costs the wait for an I-frame, not also the stream's buffering delay (its PTS runs
	 * up to a second ahead of the PCR) nor earlier sound's head start. Sound from before it
	 * is cut (feed_sound), later sound joins in sync. Without a picture to come, sound
	 * starts; a still picture (shown at once anyway, often without PTS) starts no clock
	 * itself. From memory (replay, where the writer has no such lead) the earlier of the two
	 * starts it: test_play_avsync's jump lost sync by 60 ms in 1 of 3 loaded runs otherwise
	 * (cause not found). A live preview of the first picture (es_video.c) is up before this:
	 * it starts no clock, the same picture out of the decoder in order does. */
	if (v_wait || (!vh && !ah))
		return;
	if (vh && !vh->still && p->st.live)
		p->anchor_tl = vh->tl;
	else if (a_wait)
		return;
	else
		p->anchor_tl = vh && (!ah || vh->tl <= ah->tl) ? vh->tl : ah->tl;
	p->anchor_ns = now;
	p->clock_valid = 1;
	p->preroll = 0;
	sound_unstarted(p);
}

/* drops the sound the device holds; the next samples start from the clock (lock held) */
static void restart_sound(struct pres *p)
{
	sound_unstarted(p);
	pthread_mutex_unlock(&p->dec->lock);
	ffdvb_output_audio_clear(p->out);
	pthread_mutex_lock(&p->dec->lock);
	p->dec->audio_out_queued = 0;
}

static void apply_serials(struct pres *p)
{
	struct ffdvb_decoder *dec = p->dec;
	unsigned int vs = dec->st[FFDVB_STREAM_VIDEO].serial;
	unsigned int as = dec->st[FFDVB_STREAM_AUDIO].serial;

	if (vs != p->vserial) {
		p->vserial = vs;
		p->played_valid = 0;
		p->preroll = 1;
		p->clock_valid = 0;
	}
	if (as != p->aserial) {
		p->aserial = as;
		p->preroll = 1;
		p->clock_valid = 0;
		p->audio_resync = 0;
		restart_sound(p);
	}
}

static void apply_state(struct pres *p, uint64_t now)
{
	struct ffdvb_decoder *dec = p->dec;
	struct ffdvb_decoder_state old = p->st;
	int pause;

	p->st = dec->state;
	if (old.video == FFDVB_DEC_VIDEO_STOPPED && p->st.video == FFDVB_DEC_VIDEO_PLAYING) {
		p->announced = 0; /* a (re)started decoder reports its size */
		p->played_valid = 0;
		p->preroll = 1;
		p->clock_valid = 0;
	}
	/* leaving a trick mode or a freeze: the clock goes on from the picture on screen */
	if ((old.slow || old.fast || old.video == FFDVB_DEC_VIDEO_FROZEN) &&
	    !(p->st.slow || p->st.fast || p->st.video == FFDVB_DEC_VIDEO_FROZEN)) {
		if (p->shown) {
			p->anchor_tl = p->shown->tl;
			p->anchor_ns = now;
		}
		/* Pause + slow motion moved the pictures on while the sound stood still: the sound
		   follows the picture (dropping what is late) rather than the picture waiting for it */
		if (p->shown && p->audio_started &&
		    p->shown->tl - audio_clock(p) > AUDIO_BEHIND) {
			p->audio_resync = 1;
			restart_sound(p);
		}
		/* a clear during the trick mode (VDR: Play after fast forward/rewind) left no
		   clock: start it on the next pictures */
		if (!p->clock_valid)
			p->preroll = 1;
	}
	pause = !p->st.audio_playing;
	if (pause != p->audio_paused) {
		p->audio_paused = pause;
		pthread_mutex_unlock(&dec->lock);
		ffdvb_output_audio_pause(p->out, pause);
		if (pause && !p->st.audio_paused)
			ffdvb_output_audio_clear(p->out); /* AUDIO_STOP drops what was queued */
		pthread_mutex_lock(&dec->lock);
		if (pause && !p->st.audio_paused)
			sound_unstarted(p);
	}
}

/* Virtual clock: may time move on to `next`? Every playing stream must have what that needs.
 * Leaves in dec->pres_need_* which new frames would change the answer (turn() waits for them). */
static int ready(struct pres *p, uint64_t now, uint64_t next, int video_on, int audio_on)
{
	struct ffdvb_decoder *dec = p->dec;
	const struct dec_stream *v = &dec->st[FFDVB_STREAM_VIDEO], *a = &dec->st[FFDVB_STREAM_AUDIO];
	int ok = 1;

	/* unless found otherwise below, any frame may change it */
	dec->pres_need_video = 1;
	dec->pres_need_audio = 0;
	if (!video_on && !audio_on)
		return 0;
	/* A frozen picture holds virtual time too: otherwise the sound of AUDIO_CONTINUE, which
	 * VDR sends just before VIDEO_CONTINUE, could play ahead by all it has queued in the
	 * instant between them, and the pictures would then be late. */
	if (p->st.video == FFDVB_DEC_VIDEO_FROZEN)
		return 0;
	if (video_on && !v->out_head && !starved(dec, v))
		ok = 0;
	else
		dec->pres_need_video = 0;
	dec->pres_need_audio = SIZE_MAX;
	if (audio_on && !starved(dec, a)) {
		/* the device holds still while virtual time does: only out_count can grow */
		size_t need = (size_t)((next - now) * FFDVB_AUDIO_RATE / 1000000000u) + 1 +
			      AUDIO_TARGET / 2;
		size_t queued = ffdvb_output_audio_queued(p->out);

		if (a->out_count + queued < need) {
			ok = 0;
			dec->pres_need_audio = need - queued;
		}
	}
	return ok;
}

/* Virtual clock: no playing stream has anything to show or hear, nor will have before more
 * data comes (the device's sound included) */
static int nothing_left(struct pres *p, int video_on, int audio_on)
{
	struct ffdvb_decoder *dec = p->dec;
	const struct dec_stream *v = &dec->st[FFDVB_STREAM_VIDEO], *a = &dec->st[FFDVB_STREAM_AUDIO];

	if (video_on && (v->out_head || !starved(dec, v)))
		return 0;
	return !audio_on ||
	       (!a->out_head && starved(dec, a) && !ffdvb_output_audio_queued(p->out));
}

static void update_stc_from_audio(struct pres *p, int64_t clock)
{
	struct ffdvb_decoder *dec = p->dec;

	if (p->shown)
		return;
	/* the sound heard, not the clock running on after it: at the end of a radio recording
	   (or in a gap) the STC stays at the end of the last sound, as on a picture */
	if (p->audio_started && clock > audio_clock(p))
		clock = audio_clock(p);
	dec->stc = (uint64_t)(clock - dec->audio_offset) & STC_MASK;
	dec->have_stc = 1;
}

static void timed_wait(struct ffdvb_decoder *dec, uint64_t ns)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_nsec += (long)ns;
	ts.tv_sec += ts.tv_nsec / 1000000000;
	ts.tv_nsec %= 1000000000;
	pthread_cond_timedwait(&dec->cond_pres, &dec->lock, &ts);
}

/* what the devices add: the sound's part is in the audio clock already (the output counts
 * what the device holds as queued); the display's is made up by putting pictures up early */
static void device_latency(struct pres *p)
{
	struct ffdvb_output_latency lat;

	ffdvb_output_latency(p->out, &lat);
	p->dec->stats.audio_device_ns = lat.audio_ns;
	p->dec->stats.video_device_ns = lat.video_ns;
	/* a display slower than this is beyond making up for (software GL in a VM takes 700 ms) */
	uint64_t video_ns = lat.video_ns < DISPLAY_AHEAD_MAX ? lat.video_ns : DISPLAY_AHEAD_MAX;

	p->display_ticks = (int64_t)(video_ns * 9 / 100000);
	p->ahead = p->display_ticks + (int64_t)p->dec->cfg.audio_delay_ms * 90;
}

static void turn(struct pres *p)
{
	struct ffdvb_decoder *dec = p->dec;
	uint64_t now = ffdvb_output_now(p->out), next = now + STEP_NS;
	int video_on, video_moving, audio_on, trick;
	int64_t clock = 0;

	device_latency(p);

	apply_serials(p);
	apply_state(p, now);
	video_on = p->st.video == FFDVB_DEC_VIDEO_PLAYING;
	video_moving = video_on; /* FROZEN and STOPPED take nothing */
	audio_on = p->st.audio_playing;
	trick = video_on && (p->st.slow >= 1 || p->st.fast);

	if (p->preroll && !trick)
		preroll(p, now, video_moving, audio_on);
	else if (p->preroll)
		p->preroll = 0; /* trick modes need no clock */

	if (p->clock_valid && !p->preroll) {
		int running = (video_moving && !trick) || audio_on;

		clock = clock_now(p, now, running);
		/* the sound being heard is the master: from what the device already holds */
		p->audio_master = audio_on && p->st.av_sync && !trick && p->audio_started &&
				  ffdvb_output_audio_queued(p->out);
		if (p->audio_master) {
			clock = audio_clock(p);
			p->anchor_tl = clock;
			p->anchor_ns = now;
		}
		if (!running) { /* keep the anchor at now so that the clock resumes from here */
			p->anchor_tl = clock;
			p->anchor_ns = now;
		}
		if (!video_moving || !p->shown)
			update_stc_from_audio(p, clock);
	}
	/* the picture first: topping up the sound may take a while, the picture is due now */
	if (video_moving) {
		uint64_t t = trick ? video_trick(p, now, p->st.fast ? 1 : p->st.slow)
				   : video_play(p, now, clock);

		if (t < next)
			next = t;
	}
	if (audio_on && p->clock_valid && !p->preroll)
		feed_sound(p, clock);
	if (!video_moving && p->st.video == FFDVB_DEC_VIDEO_STOPPED && p->st.blank &&
	    !p->shown_black)
		show(p, NULL, now);
	if (dec->osd_pending || ffdvb_output_osd_changed(p->out)) {
		unsigned int osd = dec->osd_serial;

		dec->osd_pending = 0;
		pthread_mutex_unlock(&dec->lock);
		ffdvb_output_refresh(p->out);
		pthread_mutex_lock(&dec->lock);
		osd_presented(p, osd);
	}
	if (dec->quit)
		return;
	if (!video_moving && !audio_on && !p->virtual_clock) {
		/* nothing plays: keep the window alive and look again on news or in 20 ms */
		pthread_mutex_unlock(&dec->lock);
		ffdvb_output_wait_until(p->out, now);
		pthread_mutex_lock(&dec->lock);
		timed_wait(dec, 20000000);
		return;
	}
	if (p->virtual_clock) {
		/* time moves only when the playing streams can follow; when everything ran dry it
		 * moves at 10x real time so that sound already queued gets heard */
		if (!ready(p, now, next, video_moving, audio_on)) {
			int dry = (!video_moving || starved(dec, &dec->st[0])) &&
				  (!audio_on || starved(dec, &dec->st[1]));

			dec->pres_narrow = 1;
			timed_wait(dec, 1000000);
			dec->pres_narrow = 0;
			if (!dry || (!video_moving && !audio_on))
				return;
		} else if (nothing_left(p, video_moving, audio_on)) {
			/* the same 10x once nothing is left to play (the video ended): time moving
			   on at once made 190 000-380 000 empty turns in a 0.3 s bench run, a whole
			   CPU until more data came */
			timed_wait(dec, 1000000);
			if (dec->quit)
				return;
		}
		pthread_mutex_unlock(&dec->lock);
		ffdvb_output_wait_until(p->out, next);
		pthread_mutex_lock(&dec->lock);
		return;
	}
	pthread_mutex_unlock(&dec->lock);
	ffdvb_output_wait_until(p->out, next);
	pthread_mutex_lock(&dec->lock);
}

/* The output's osd_set hook: whoever owns the OSD (the card, on its loop thread) set a new
 * plane on the output; the next turn refreshes the screen with it. */
static void osd_set(void *ctx)
{
	struct ffdvb_decoder *dec = ctx;

	pthread_mutex_lock(&dec->lock);
	dec->osd_serial++;
	dec->osd_pending = 1;
	pthread_cond_broadcast(&dec->cond_pres);
	pthread_mutex_unlock(&dec->lock);
}

void *dec_presenter_main(void *arg)
{
	struct ffdvb_decoder *dec = arg;
	struct pres p = { .dec = dec, .link = 1, .virtual_clock = dec->cfg.output.virtual_clock &&
				       dec->cfg.output.kind == FFDVB_OUTPUT_NONE };
	struct ffdvb_output_config oc = dec->cfg.output;
	struct ffdvb_output *out;

	oc.osd_set = osd_set;
	oc.osd_set_ctx = dec;
	out = ffdvb_output_new(&oc);

	pthread_mutex_lock(&dec->lock);
	dec->out = out;
	dec->out_ready = out ? 1 : -1;
	dec->out_errno = out ? 0 : (errno ? errno : ENODEV);
	pthread_cond_broadcast(&dec->cond_pres);
	if (!out) {
		pthread_mutex_unlock(&dec->lock);
		return NULL;
	}
	p.out = out;
	p.adaptive = strcmp(ffdvb_output_name(out), "none") != 0;
	p.st = dec->state;
	p.preroll = 1;
	p.audio_paused = -1;
	while (!dec->quit)
		turn(&p);
	pthread_mutex_unlock(&dec->lock);
	dec_frame_free(p.shown);
	free(p.mixbuf);
	ffdvb_output_free(out);
	return NULL;
}
