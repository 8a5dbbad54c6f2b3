/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Spec §4.1, §5.1, §6: write() on video0/audio0 — source check, TS/PES detection per call,
 * free-space thresholds of both rings, partial counts, waking a blocked writer by draining,
 * and signals during a blocking write. Nothing drains while no playback runs (or while
 * video is frozen), which makes the thresholds observable. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conform.h"

#define PES_WRITE (16 * 2048) /* 32768 bytes per write() */
#define TS_WRITE (100 * 188)  /* 18800 bytes per write() */

static uint8_t *pes_v, *pes_a, *ts_v, *ts_a;
static int v = -1, a = -1;

static void open_both(void)
{
	dev_close(&a);
	dev_close(&v);
	v = dev_open("video0", O_RDWR | O_NONBLOCK); /* first: it flushes both rings */
	a = dev_open("audio0", O_RDWR | O_NONBLOCK);
	dev_ioctl_val(v, FFDVB_VIDEO_SELECT_SOURCE, FFDVB_VIDEO_SOURCE_MEMORY);
	dev_ioctl_val(a, FFDVB_AUDIO_SELECT_SOURCE, FFDVB_AUDIO_SOURCE_MEMORY);
}

/* fills with fill_ring() and reports the count, the unit of partial counts and the range */
static long fill(const char *name, int fd, const uint8_t *buf, size_t len, size_t unit,
		 long lo, long hi)
{
	long part;
	int bad_unit;
	long n = fill_ring(fd, buf, len, unit, &part, &bad_unit);

	check(cname("write.%s_fill_until_eagain", name), n >= lo && n <= hi,
	      cname("%ld..%ld bytes then EAGAIN", lo, hi), "%ld bytes then %s", n < 0 ? 0 : n,
	      n < 0 ? rcname(n) : n >= (8L << 20) ? "no EAGAIN (drained?)" : "EAGAIN");
	if (part >= 0)
		check(cname("write.%s_partial_count_multiple_of_%zu", name, unit), !bad_unit,
		      cname("a multiple of %zu", unit), "%ld%s", part,
		      bad_unit ? " (or another non-multiple)" : "");
	else
		skip(cname("write.%s_partial_count_multiple_of_%zu", name, unit),
		     "no short write happened");
	return n;
}

static void source_rules(void)
{
	open_both();
	dev_ioctl_val(v, FFDVB_VIDEO_SELECT_SOURCE, FFDVB_VIDEO_SOURCE_DEMUX);
	dev_ioctl_val(a, FFDVB_AUDIO_SELECT_SOURCE, FFDVB_AUDIO_SOURCE_DEMUX);
	check_rc("write.video_pes_demux_source_eperm", -EPERM, dev_write(v, pes_v, 2048));
	check_rc("write.video_ts_demux_source_eperm", -EPERM, dev_write(v, ts_v, 188));
	check_rc("write.audio_pes_demux_source_eperm", -EPERM, dev_write(a, pes_a, 2048));
	check_rc("write.audio_ts_demux_source_eperm", -EPERM, dev_write(a, ts_a, 188));
	/* the source is checked before the buffer is read */
	if (node_is_cuse("video0"))
		skip("write.quirk_video_source_checked_before_buffer_eperm",
		     "not reachable through CUSE: the kernel reads the buffer before the daemon "
		     "sees the write, so it answers EFAULT");
	else
		check_rc("write.quirk_video_source_checked_before_buffer_eperm", -EPERM,
			 dev_write(v, bad_page(), 2048));
	dev_ioctl_val(v, FFDVB_VIDEO_SELECT_SOURCE, FFDVB_VIDEO_SOURCE_MEMORY);
	dev_ioctl_val(a, FFDVB_AUDIO_SELECT_SOURCE, FFDVB_AUDIO_SOURCE_MEMORY);
	check_rc("write.video_unreadable_buffer_efault", -EFAULT, dev_write(v, bad_page(), 2048));
	check_rc("write.video_memory_source_accepted", 2048, dev_write(v, pes_v, 2048));
	check_rc("write.audio_memory_source_accepted", 2048, dev_write(a, pes_a, 2048));
}

static void thresholds(void)
{
	/* audio ring (65536): PES refused below 20480 free, TS below 4096 free */
	open_both();
	fill("audio_pes", a, pes_a, PES_WRITE, 4096, 32768, 65536);
	check_rc("write.audio_pes_full_eagain_at_entry", -EAGAIN, dev_write(a, pes_a, 2048));
	check_rc("write.video_pes_needs_20480_free_in_audio_ring_eagain", -EAGAIN,
		 dev_write(v, pes_v, 2048));
	check_rc("write.video_ts_ignores_audio_ring_accepted", 1880, dev_write(v, ts_v, 1880));
	check_rc("write.audio_ts_threshold_4096_still_accepted", 1880, dev_write(a, ts_a, 1880));
	fill("audio_ts", a, ts_a, TS_WRITE, 188, 1, 65536);
	check_rc("write.audio_ts_full_eagain_at_entry", -EAGAIN, dev_write(a, ts_a, 188));

	/* video ring (131072) */
	open_both();
	fill("video_pes", v, pes_v, PES_WRITE, 4096, 65536, 131072);
	check_rc("write.video_pes_full_eagain_at_entry", -EAGAIN, dev_write(v, pes_v, 2048));
	check_rc("write.audio_pes_ignores_video_ring_accepted", 2048, dev_write(a, pes_a, 2048));
	/* per call: TS only if the first byte is 0x47 and the count a multiple of 188 */
	uint8_t odd[189];

	memcpy(odd, ts_v, 188);
	odd[188] = 0;
	check_rc("write.detect_0x47_count_189_is_pes_eagain", -EAGAIN, dev_write(v, odd, 189));
	memcpy(odd, ts_v, 188);
	odd[0] = 0x00;
	check_rc("write.detect_first_byte_not_0x47_is_pes_eagain", -EAGAIN, dev_write(v, odd, 188));
	check_rc("write.detect_ts_accepted_above_4096_free", 1880, dev_write(v, ts_v, 1880));
	fill("video_ts", v, ts_v, TS_WRITE, 188, 1, 131072);
	check_rc("write.video_ts_full_eagain_at_entry", -EAGAIN, dev_write(v, ts_v, 188));

	/* the repacker discards raw elementary streams: they never fill the ring */
	open_both();
	uint8_t *es = malloc(PES_WRITE);
	long total = 0, r = 0;

	make_es(es, PES_WRITE, 42);
	es[0] = 0x12; /* no sequence-header start code either */
	for (int i = 0; i < 32 && (r = dev_write(v, es, PES_WRITE)) > 0; i++)
		total += r;
	check("write.raw_es_accepted_and_discarded", total == 32L * PES_WRITE,
	      "1048576 bytes accepted without EAGAIN", "%ld then %s", total, rcname(r));
	free(es);
}

/* a full ring (nothing plays) accepts data again after each documented flush point */
static void flushes(void)
{
	struct ffdvb_video_still_picture sp = { .iFrame = NULL, .size = 0 };
	long part;
	int bad;

	open_both();
	fill_ring(v, pes_v, PES_WRITE, 4096, &part, &bad);
	check_rc("write.setup_video_ring_full", -EAGAIN, dev_write(v, pes_v, 2048));
	dev_ioctl_val(v, FFDVB_VIDEO_CLEAR_BUFFER, 0);
	check_rc("write.video_clear_buffer_flushes_video_ring", 2048, dev_write(v, pes_v, 2048));
	fill_ring(v, pes_v, PES_WRITE, 4096, &part, &bad);
	dev_ioctl(v, FFDVB_VIDEO_STILLPICTURE, &sp); /* size 0: flush, source MEMORY, no data */
	check_rc("write.stillpicture_size0_flushes_video_ring", 2048, dev_write(v, pes_v, 2048));
	dev_ioctl_val(v, FFDVB_VIDEO_STOP, 0);

	fill_ring(a, pes_a, PES_WRITE, 4096, &part, &bad);
	check_rc("write.setup_audio_ring_full", -EAGAIN, dev_write(a, pes_a, 2048));
	dev_ioctl_val(v, FFDVB_VIDEO_CLEAR_BUFFER, 0);
	check_rc("write.video_clear_buffer_keeps_audio_ring", -EAGAIN, dev_write(a, pes_a, 2048));
	dev_ioctl_val(a, FFDVB_AUDIO_CLEAR_BUFFER, 0);
	check_rc("write.audio_clear_buffer_flushes_audio_ring", 2048, dev_write(a, pes_a, 2048));
}

static long write_once(void *arg)
{
	return dev_write(*(int *)arg, pes_v, 2048);
}

/* O_NONBLOCK of write() comes from the current file flags (fcntl), not the open flags */
static void current_flags(void)
{
	struct child c;
	long part, rc;
	int bad;

	dev_close(&a);
	dev_close(&v);
	v = dev_open("video0", O_RDWR); /* blocking open */
	dev_ioctl_val(v, FFDVB_VIDEO_SELECT_SOURCE, FFDVB_VIDEO_SOURCE_MEMORY);
	dev_set_nonblock(v, 1);
	fill_ring(v, pes_v, PES_WRITE, 4096, &part, &bad);
	if (child_start(&c, write_once, &v) < 0)
		return;
	if (child_wait(&c, 5000, &rc) < 0) {
		child_kill(&c);
		check("write.fcntl_nonblock_applies_to_write_eagain", 0, "EAGAIN", "blocked");
	} else {
		check_rc("write.fcntl_nonblock_applies_to_write_eagain", -EAGAIN, rc);
	}
	dev_close(&v);
}

struct blocking_write {
	int fd;
	const uint8_t *buf;
	size_t len;
	int alarm_s; /* > 0: SIGALRM after that many seconds, no SA_RESTART */
};

static long do_write(void *arg)
{
	struct blocking_write *w = arg;

	if (w->alarm_s) {
		signal_no_restart(SIGALRM);
		alarm((unsigned int)w->alarm_s);
	}
	return dev_write(w->fd, w->buf, w->len);
}

/* a blocked writer must wake when the ring drains (here: VIDEO_CONTINUE / AUDIO_PLAY) */
static void wakeups(void)
{
	struct child c;
	long rc;

	open_both();
	check_rc("write.setup_video_memory_play", 0, dev_ioctl_val(v, FFDVB_VIDEO_PLAY, 0));
	check_rc("write.setup_video_freeze", 0, dev_ioctl_val(v, FFDVB_VIDEO_FREEZE, 0));
	fill("video_pes_while_freezed", v, pes_v, PES_WRITE, 4096, 65536, 131072);
	dev_set_nonblock(v, 0);
	struct blocking_write w = { .fd = v, .buf = pes_v, .len = PES_WRITE };

	if (child_start(&c, do_write, &w) == 0) {
		check("write.video_blocking_write_waits_while_freezed",
		      child_wait(&c, 700, &rc) == -ETIMEDOUT, "still blocked after 0.7 s",
		      "%s", c.pid ? "still blocked" : rcname(rc));
		if (c.pid) {
			dev_ioctl_val(v, FFDVB_VIDEO_CONTINUE, 0);
			if (child_wait(&c, 10000, &rc) < 0) {
				child_kill(&c);
				check("write.video_blocking_write_completes_after_continue", 0,
				      "32768 within 10 s", "still blocked");
			} else {
				check_rc("write.video_blocking_write_completes_after_continue",
					 PES_WRITE, rc);
			}
		}
	}
	dev_set_nonblock(v, 1);
	dev_ioctl_val(v, FFDVB_VIDEO_STOP, 0);

	open_both();
	fill("audio_pes_before_play", a, pes_a, PES_WRITE, 4096, 32768, 65536);
	dev_set_nonblock(a, 0);
	w = (struct blocking_write){ .fd = a, .buf = pes_a, .len = PES_WRITE };
	if (child_start(&c, do_write, &w) == 0) {
		check("write.audio_blocking_write_waits_without_playback",
		      child_wait(&c, 700, &rc) == -ETIMEDOUT, "still blocked after 0.7 s",
		      "%s", c.pid ? "still blocked" : rcname(rc));
		if (c.pid) {
			dev_ioctl_val(a, FFDVB_AUDIO_PLAY, 0);
			if (child_wait(&c, 10000, &rc) < 0) {
				child_kill(&c);
				check("write.audio_blocking_write_completes_after_play_drains", 0,
				      "32768 within 10 s", "still blocked");
			} else {
				check_rc("write.audio_blocking_write_completes_after_play_drains",
					 PES_WRITE, rc);
			}
		}
	}
	dev_set_nonblock(a, 1);
	dev_ioctl_val(a, FFDVB_AUDIO_STOP, 0);
}

/* a signal during a blocking write returns the count so far (possibly 0), never EINTR */
static void interrupted(const char *name, int fd, const uint8_t *fillbuf, size_t filllen,
			size_t unit, const uint8_t *buf, size_t len)
{
	struct child c;
	long part, rc;
	int bad;

	fill_ring(fd, fillbuf, filllen, unit, &part, &bad);
	dev_set_nonblock(fd, 0);
	struct blocking_write w = { .fd = fd, .buf = buf, .len = len, .alarm_s = 1 };

	if (child_start(&c, do_write, &w) < 0)
		return;
	if (child_wait(&c, 10000, &rc) < 0) {
		child_kill(&c);
		check(cname("write.%s_blocking_write_interrupted_returns_short_count", name), 0,
		      "a count within 10 s", "still blocked after the signal");
	} else {
		check(cname("write.%s_blocking_write_interrupted_returns_short_count", name),
		      rc >= 0 && (size_t)rc < len && rc % (long)unit == 0,
		      cname("0..%zu, a multiple of %zu, not EINTR", len - unit, unit), "%s",
		      rcname(rc));
	}
	dev_set_nonblock(fd, 1);
}

static void signals(void)
{
	open_both();
	interrupted("video_pes", v, pes_v, PES_WRITE, 4096, pes_v, PES_WRITE);
	open_both();
	/* PES fill leaves < 20480 free: a TS write is partly taken, then blocks */
	interrupted("video_ts", v, pes_v, PES_WRITE, 188, ts_v, TS_WRITE * 2);
	open_both();
	interrupted("audio_pes", a, pes_a, PES_WRITE, 4096, pes_a, PES_WRITE);
}

void group_write(void)
{
	pes_v = malloc(PES_WRITE);
	pes_a = malloc(PES_WRITE);
	ts_v = malloc(TS_WRITE * 2);
	ts_a = malloc(TS_WRITE);
	make_pes(pes_v, PES_WRITE, 0xE0);
	make_pes(pes_a, PES_WRITE, 0xC0);
	make_ts(ts_v, 200, 0xE0);
	make_ts(ts_a, 100, 0xC0);

	source_rules();
	thresholds();
	flushes();
	current_flags();
	wakeups();
	signals();

	dev_close(&a);
	dev_close(&v);
	free(pes_v);
	free(pes_a);
	free(ts_v);
	free(ts_a);
}
