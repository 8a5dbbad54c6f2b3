/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Spec §4.2, §5.2: poll() masks with and without playback and the wake-ups on drain and
 * flush; §4.4, §9.4: the VIDEO_GET_EVENT queue. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conform.h"

#define ALL_EVENTS (POLLIN | POLLRDNORM | POLLOUT | POLLWRNORM | POLLPRI)
#define OUT (POLLOUT | POLLWRNORM)
#define PES_WRITE (16 * 2048)

static int v = -1, a = -1;
static uint8_t *pes_v, *pes_a;

static void open_both(void)
{
	dev_close(&a);
	dev_close(&v);
	v = dev_open("video0", O_RDWR | O_NONBLOCK);
	a = dev_open("audio0", O_RDWR | O_NONBLOCK);
	dev_ioctl_val(v, FFDVB_VIDEO_SELECT_SOURCE, FFDVB_VIDEO_SOURCE_MEMORY);
	dev_ioctl_val(a, FFDVB_AUDIO_SELECT_SOURCE, FFDVB_AUDIO_SOURCE_MEMORY);
}

static void mask(const char *name, int fd, int want)
{
	int got = dev_poll(fd, ALL_EVENTS, 0);

	check(cname("poll.%s", name), got == want, cname("revents 0x%x", want), "%s",
	      got < 0 ? rcname(got) : cname("revents 0x%x", got));
}

static void fill(int fd, const uint8_t *buf)
{
	long part;
	int bad;

	fill_ring(fd, buf, PES_WRITE, 4096, &part, &bad);
}

struct poll_arg {
	int fd;
	short events;
	int timeout_ms;
};

static long do_poll(void *arg)
{
	struct poll_arg *p = arg;

	return dev_poll(p->fd, p->events, p->timeout_ms);
}

/* a child waits in poll(); the parent runs `req` on the video fd; POLLOUT must arrive */
static void wake(const char *name, int fd_wait, int fd_act, unsigned long req)
{
	struct poll_arg p = { .fd = fd_wait, .events = POLLOUT, .timeout_ms = 8000 };
	struct child c;
	long rc;

	if (child_start(&c, do_poll, &p) < 0)
		return;
	usleep(300000);
	dev_ioctl_val(fd_act, req, 0);
	if (child_wait(&c, 12000, &rc) < 0) {
		child_kill(&c);
		rc = -ETIMEDOUT;
	}
	check(cname("poll.%s", name), rc > 0 && (rc & POLLOUT), "POLLOUT within 8 s", "%s",
	      rc < 0 ? rcname(rc) : rc ? cname("revents 0x%lx", rc) : "timeout");
}

void group_poll(void)
{
	pes_v = malloc(PES_WRITE);
	pes_a = malloc(PES_WRITE);
	make_pes(pes_v, PES_WRITE, 0xE0);
	make_pes(pes_a, PES_WRITE, 0xC0);

	/* nothing plays: POLLOUT always ("may play if asked"), even where writes fail */
	open_both();
	mask("video_writer_idle_pollout_only", v, OUT);
	mask("audio_idle_pollout_only", a, OUT);
	dev_ioctl_val(v, FFDVB_VIDEO_SELECT_SOURCE, FFDVB_VIDEO_SOURCE_DEMUX);
	mask("video_writer_demux_source_pollout_although_write_eperm", v, OUT);
	dev_ioctl_val(v, FFDVB_VIDEO_SELECT_SOURCE, FFDVB_VIDEO_SOURCE_MEMORY);
	int ro = dev_open("video0", O_RDONLY | O_NONBLOCK);

	mask("video_reader_nothing", ro, 0);
	dev_close(&ro);
	fill(a, pes_a);
	mask("audio_full_nothing_playing_still_pollout", a, OUT);
	mask("video_audio_ring_full_nothing_playing_still_pollout", v, OUT);
	fill(v, pes_v);
	mask("video_full_nothing_playing_still_pollout", v, OUT);

	/* playback runs: POLLOUT iff both rings have >= 20480 free (audio0: its own ring) */
	open_both();
	check_rc("poll.setup_video_memory_play", 0, dev_ioctl_val(v, FFDVB_VIDEO_PLAY, 0));
	mask("video_playing_rings_empty_pollout", v, OUT);
	mask("audio_video_playing_ring_empty_pollout", a, OUT);
	fill(a, pes_a); /* audio is not playing: nothing takes it */
	mask("video_playing_audio_ring_full_no_pollout", v, 0);
	mask("audio_full_while_video_plays_no_pollout", a, 0);
	wake("video_pollout_wakes_when_audio_play_drains", v, a, FFDVB_AUDIO_PLAY);
	dev_ioctl_val(a, FFDVB_AUDIO_STOP, 0);
	dev_ioctl_val(v, FFDVB_VIDEO_STOP, 0);

	open_both();
	dev_ioctl_val(v, FFDVB_VIDEO_PLAY, 0);
	dev_ioctl_val(v, FFDVB_VIDEO_FREEZE, 0); /* video withheld: the ring stays full */
	fill(v, pes_v);
	mask("video_freezed_ring_full_no_pollout", v, 0);
	wake("video_pollout_wakes_after_continue_drains", v, v, FFDVB_VIDEO_CONTINUE);
	dev_ioctl_val(v, FFDVB_VIDEO_FREEZE, 0);
	fill(v, pes_v);
	wake("video_pollout_wakes_on_clear_buffer_flush", v, v, FFDVB_VIDEO_CLEAR_BUFFER);
	fill(v, pes_v);
	wake("video_pollout_again_after_stop_ends_playback", v, v, FFDVB_VIDEO_STOP);

	/* A+V playback with video frozen: audio is still fed to the decoder and drains */
	open_both();
	dev_ioctl_val(a, FFDVB_AUDIO_PLAY, 0);
	dev_ioctl_val(v, FFDVB_VIDEO_PLAY, 0);
	dev_ioctl_val(v, FFDVB_VIDEO_FREEZE, 0);
	fill(a, pes_a);
	wake("audio_pollout_returns_while_video_freezed_audio_drains", a, a, FFDVB_AUDIO_SET_ID);
	dev_ioctl_val(v, FFDVB_VIDEO_STOP, 0);
	dev_ioctl_val(a, FFDVB_AUDIO_STOP, 0);

	dev_close(&a);
	dev_close(&v);
	free(pes_v);
	free(pes_a);
}

static long get_event(void *arg)
{
	int fd = *(int *)arg;
	struct ffdvb_video_event ev;

	signal_no_restart(SIGALRM);
	alarm(1);
	return dev_ioctl(fd, FFDVB_VIDEO_GET_EVENT, &ev);
}

static void blocking_get_event(const char *name, int fd, long want)
{
	struct child c;
	long rc;

	if (child_start(&c, get_event, &fd) < 0)
		return;
	if (child_wait(&c, 10000, &rc) < 0) {
		child_kill(&c);
		check(cname("events.%s", name), 0, rcname(want),
		      "still blocked 9 s after the signal");
	} else {
		check_rc(cname("events.%s", name), want, rc);
	}
}

static long still(void *arg)
{
	return dev_ioctl(v, FFDVB_VIDEO_STILLPICTURE, arg);
}

/* shows a flat intra picture of w x h as a still picture (blocks until queued) */
static void show_still(int w, int h)
{
	static uint8_t es[65536];
	struct ffdvb_video_still_picture sp = { .iFrame = (char *)es };
	struct child c;
	long rc = -ETIMEDOUT;

	sp.size = (int32_t)make_iframe(es, sizeof es, w, h, 8);
	if (child_start(&c, still, &sp) == 0 && child_wait(&c, 30000, &rc) < 0)
		child_kill(&c);
}

/* §9.4: 8 slots, 7 pending; the 8th size change drops the oldest and sets the overflow flag */
static void size_event_overflow(void)
{
	struct ffdvb_video_event ev;
	long rc;
	int n = 0, w_first = 0;

	for (int i = 0; i < 8; i++) {
		int w = i % 2 ? 720 : 352, h = i % 2 ? 576 : 288;
		struct ffdvb_video_size sz = { 0 };

		show_still(w, h);
		/* shown (VIDEO_GET_SIZE follows the size event) before the next one replaces it;
		   a loaded machine may take longer than any fixed pause */
		for (int t = 0; t < 100 && (sz.w != w || sz.h != h); t++) {
			usleep(50000);
			dev_ioctl(v, FFDVB_VIDEO_GET_SIZE, &sz);
		}
	}
	rc = dev_ioctl(v, FFDVB_VIDEO_GET_EVENT, &ev);
	check_rc("events.overflow_eoverflow_once_after_8_events", -EOVERFLOW, rc);
	while ((rc = dev_ioctl(v, FFDVB_VIDEO_GET_EVENT, &ev)) == 0) {
		if (!n++)
			w_first = ev.u.size.w;
	}
	check_int("events.overflow_keeps_the_7_newest", 7, n);
	check_int("events.overflow_dropped_the_oldest", 720, w_first);
}

/* a decoder reports the picture size of a still picture; a device without one skips */
static void size_event(void)
{
	long rc;

	show_still(720, 576);
	int got = dev_poll(v, POLLPRI, 2000);

	if (got <= 0 || !(got & POLLPRI)) {
		skip("events.size_changed_after_still_picture",
		     "no event within 2 s: the device has no decoder reporting sizes");
		skip("events.get_size_matches_size_event", "no size event");
		skip("events.overflow_eoverflow_once_after_8_events",
		     "no decoder size events on this device");
		return;
	}
	struct ffdvb_video_event ev;

	memset(&ev, 0, sizeof ev);
	rc = dev_ioctl(v, FFDVB_VIDEO_GET_EVENT, &ev);
	check("events.size_changed_after_still_picture",
	      rc == 0 && ev.type == FFDVB_VIDEO_EVENT_SIZE_CHANGED && ev.u.size.w == 720 &&
		      ev.u.size.h == 576 && ev.u.size.aspect_ratio == FFDVB_VIDEO_FORMAT_4_3,
	      "SIZE_CHANGED {720,576,4:3}", "%s type %d {%d,%d,%d}", rcname(rc), ev.type,
	      ev.u.size.w, ev.u.size.h, ev.u.size.aspect_ratio);
	struct ffdvb_video_size sz = { 0 };

	dev_ioctl(v, FFDVB_VIDEO_GET_SIZE, &sz);
	check("events.get_size_matches_size_event", sz.w == 720 && sz.h == 576,
	      "{720,576,0}", "{%d,%d,%d}", sz.w, sz.h, sz.aspect_ratio);
	/* drain what else came */
	for (int i = 0; i < 16 && (rc == 0 || rc == -EOVERFLOW); i++)
		rc = dev_ioctl(v, FFDVB_VIDEO_GET_EVENT, &ev);
	size_event_overflow();
}

void group_events(void)
{
	struct ffdvb_video_event ev;

	v = dev_open("video0", O_RDWR | O_NONBLOCK); /* a writer open empties the queue */
	check_rc("events.get_event_empty_nonblock_ewouldblock", -EWOULDBLOCK,
		 dev_ioctl(v, FFDVB_VIDEO_GET_EVENT, &ev));
	check_int("events.no_pollpri_while_queue_empty", 0, dev_poll(v, POLLPRI, 0) & POLLPRI);
	int ro = dev_open("video0", O_RDONLY | O_NONBLOCK);

	check_rc("events.reader_get_event_empty_nonblock_ewouldblock", -EWOULDBLOCK,
		 dev_ioctl(ro, FFDVB_VIDEO_GET_EVENT, &ev));
	dev_close(&ro);
	dev_close(&v);

	v = dev_open("video0", O_RDWR);
	blocking_get_event("blocking_get_event_interrupted_eintr", v, -EINTR);
	ro = dev_open("video0", O_RDONLY);
	blocking_get_event("reader_blocking_get_event_interrupted_eintr", ro, -EINTR);
	/* av7110 reads O_NONBLOCK from the current flags, not the open flags */
	dev_set_nonblock(ro, 1);
	if (node_is_cuse("video0"))
		skip("events.quirk_fcntl_nonblock_applies_to_get_event_ewouldblock",
		     "not reachable through CUSE: ioctls carry the open flags only, "
		     "spec section 11");
	else
		blocking_get_event("quirk_fcntl_nonblock_applies_to_get_event_ewouldblock", ro,
				   -EWOULDBLOCK);
	dev_close(&ro);
	dev_close(&v);

	v = dev_open("video0", O_RDWR | O_NONBLOCK);
	size_event();
	dev_ioctl_val(v, FFDVB_VIDEO_STOP, 0);
	dev_close(&v);
}
