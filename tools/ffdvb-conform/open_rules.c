/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Spec §2: open counting, what opening and releasing a node changes, and the file operations
 * the nodes do not have (read, write on the wrong fd, lseek, mmap). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "conform.h"

static long ok_fd(int fd)
{
	return fd < 0 ? fd : 0;
}

static void video_counting(void)
{
	int w, w2, ro[6], extra;

	w = dev_open("video0", O_RDWR | O_NONBLOCK);
	check_rc("open.video.writer", 0, ok_fd(w));
	for (int i = 0; i < 5; i++) {
		ro[i] = dev_open("video0", i % 2 ? O_RDONLY : O_RDONLY | O_NONBLOCK);
		check_rc(cname("open.video.reader_%d_of_5", i + 1), 0, ok_fd(ro[i]));
	}
	w2 = dev_open("video0", O_WRONLY);
	check_rc("open.video.second_writer_wronly_ebusy", -EBUSY, ok_fd(w2));
	dev_close(&w2);
	w2 = dev_open("video0", O_RDWR | O_NONBLOCK);
	check_rc("open.video.second_writer_rdwr_ebusy", -EBUSY, ok_fd(w2));
	dev_close(&w2);
	extra = dev_open("video0", O_RDONLY);
	check_rc("open.video.seventh_opener_ebusy", -EBUSY, ok_fd(extra));
	dev_close(&extra);

	dev_close(&w);
	extra = dev_open("video0", O_RDONLY);
	check_rc("open.video.sixth_reader_ebusy_without_writer", -EBUSY, ok_fd(extra));
	dev_close(&extra);
	w = dev_open("video0", O_WRONLY);
	check_rc("open.video.writer_slot_given_back_on_release", 0, ok_fd(w));
	dev_close(&ro[2]);
	ro[2] = dev_open("video0", O_RDONLY);
	check_rc("open.video.reader_slot_given_back_on_release", 0, ok_fd(ro[2]));
	for (int i = 0; i < 5; i++)
		dev_close(&ro[i]);
	dev_close(&w);
}

static void single_opener(const char *node)
{
	int a, b;

	a = dev_open(node, O_RDWR | O_NONBLOCK);
	check_rc(cname("open.%s.rdwr", node), 0, ok_fd(a));
	b = dev_open(node, O_RDWR | O_NONBLOCK);
	check_rc(cname("open.%s.second_opener_ebusy", node), -EBUSY, ok_fd(b));
	dev_close(&b);
	b = dev_open(node, O_RDONLY);
	check_rc(cname("open.%s.rdonly_while_open_ebusy", node), -EBUSY, ok_fd(b));
	dev_close(&b);
	dev_close(&a);
	b = dev_open(node, O_RDONLY);
	check_rc(cname("open.%s.rdonly_ebusy_always", node), -EBUSY, ok_fd(b));
	dev_close(&b);
	b = dev_open(node, O_RDONLY | O_NONBLOCK);
	check_rc(cname("open.%s.rdonly_nonblock_ebusy_always", node), -EBUSY, ok_fd(b));
	dev_close(&b);
	a = dev_open(node, O_WRONLY);
	check_rc(cname("open.%s.wronly", node), 0, ok_fd(a));
	dev_close(&a);
}

/* §2.2: a writer open resets source, AV sync and the event queue, nothing else reported */
static void video_open_effects(void)
{
	struct ffdvb_video_status vs;
	struct ffdvb_audio_status as;
	int v, a, ro;

	v = dev_open("video0", O_RDWR | O_NONBLOCK);
	a = dev_open("audio0", O_RDWR | O_NONBLOCK);
	if (v < 0 || a < 0) {
		check("open.video.side_effect_setup", 0, "video0 and audio0 open", "%s",
		      rcname(v < 0 ? v : a));
		dev_close(&v);
		dev_close(&a);
		return;
	}
	dev_ioctl_val(a, FFDVB_AUDIO_SET_AV_SYNC, 0);
	dev_ioctl_val(v, FFDVB_VIDEO_SET_BLANK, 1);
	dev_ioctl_val(v, FFDVB_VIDEO_SET_DISPLAY_FORMAT, FFDVB_VIDEO_PAN_SCAN);
	dev_ioctl_val(v, FFDVB_VIDEO_SELECT_SOURCE, FFDVB_VIDEO_SOURCE_MEMORY);
	dev_ioctl_val(v, FFDVB_VIDEO_FREEZE, 0);
	dev_close(&v);

	ro = dev_open("video0", O_RDONLY);
	video_status(ro, &vs);
	check_int("open.video.reader_open_keeps_source", FFDVB_VIDEO_SOURCE_MEMORY,
		  vs.stream_source);
	audio_status(a, &as);
	check_int("open.video.reader_open_keeps_av_sync", 0, as.AV_sync_state);
	dev_close(&ro);

	v = dev_open("video0", O_RDWR | O_NONBLOCK);
	check_rc("open.video.writer_reopen", 0, ok_fd(v));
	video_status(v, &vs);
	audio_status(a, &as);
	check_int("open.video.writer_open_sets_source_demux", FFDVB_VIDEO_SOURCE_DEMUX,
		  vs.stream_source);
	check_int("open.video.writer_open_reports_av_sync_1", 1, as.AV_sync_state);
	check_int("open.video.writer_open_keeps_blank", 1, vs.video_blank);
	check_int("open.video.writer_open_keeps_play_state_freezed", FFDVB_VIDEO_FREEZED,
		  vs.play_state);
	check_int("open.video.writer_open_keeps_display_format", FFDVB_VIDEO_PAN_SCAN,
		  vs.display_format);

	/* §2.2 release: host playback stops, the reported state stays */
	dev_ioctl_val(v, FFDVB_VIDEO_SELECT_SOURCE, FFDVB_VIDEO_SOURCE_MEMORY);
	check_rc("open.video.memory_play_before_release", 0, dev_ioctl_val(v, FFDVB_VIDEO_PLAY, 0));
	dev_close(&v);
	video_status_ro(&vs);
	check_int("open.video.writer_release_keeps_play_state_playing", FFDVB_VIDEO_PLAYING,
		  vs.play_state);
	check_int("open.video.writer_release_keeps_source_memory", FFDVB_VIDEO_SOURCE_MEMORY,
		  vs.stream_source);
	v = dev_open("video0", O_RDWR | O_NONBLOCK);
	dev_ioctl_val(v, FFDVB_VIDEO_SELECT_SOURCE, FFDVB_VIDEO_SOURCE_MEMORY);
	check_rc("open.video.writer_release_stops_memory_playback_play_not_ebusy", 0,
		 dev_ioctl_val(v, FFDVB_VIDEO_PLAY, 0));
	dev_ioctl_val(v, FFDVB_VIDEO_STOP, 0);
	dev_close(&v);
	dev_close(&a);
}

/* §2.2/§2.3: which opens flush which host ring (nothing drains while nothing plays) */
static void ring_flushes(void)
{
	size_t len = 16 * 2048;
	uint8_t *audio = malloc(len), *video = malloc(len);
	long part;
	int bad, v, a, ro;

	make_pes(audio, len, 0xC0);
	make_pes(video, len, 0xE0);
	v = dev_open("video0", O_RDWR | O_NONBLOCK);
	a = dev_open("audio0", O_RDWR | O_NONBLOCK);
	dev_ioctl_val(a, FFDVB_AUDIO_SELECT_SOURCE, FFDVB_AUDIO_SOURCE_MEMORY);
	dev_ioctl_val(v, FFDVB_VIDEO_SELECT_SOURCE, FFDVB_VIDEO_SOURCE_MEMORY);

	long filled = fill_ring(a, audio, len, 4096, &part, &bad);

	check("open.setup_audio_ring_fills_without_playback", filled > 0 && filled < (8L << 20),
	      "EAGAIN after some bytes", "%ld bytes then %s", filled,
	      filled < 0 ? rcname(filled) : "EAGAIN");
	ro = dev_open("video0", O_RDONLY);
	check_rc("open.video.reader_open_keeps_audio_ring_write_eagain", -EAGAIN,
		 dev_write(a, audio, 2048));
	dev_close(&ro);
	dev_close(&v);
	v = dev_open("video0", O_RDWR | O_NONBLOCK);
	check_rc("open.video.writer_open_flushes_audio_ring_write_accepted", 2048,
		 dev_write(a, audio, 2048));

	/* fill the video ring, then a new writer open must empty it */
	dev_close(&a); /* audio open flushes the audio ring: room for the video PES rule */
	a = dev_open("audio0", O_RDWR | O_NONBLOCK);
	dev_ioctl_val(v, FFDVB_VIDEO_SELECT_SOURCE, FFDVB_VIDEO_SOURCE_MEMORY);
	filled = fill_ring(v, video, len, 4096, &part, &bad);
	check("open.setup_video_ring_fills_without_playback", filled > 0 && filled < (8L << 20),
	      "EAGAIN after some bytes", "%ld bytes then %s", filled,
	      filled < 0 ? rcname(filled) : "EAGAIN");
	dev_close(&v);
	v = dev_open("video0", O_RDWR | O_NONBLOCK);
	dev_ioctl_val(v, FFDVB_VIDEO_SELECT_SOURCE, FFDVB_VIDEO_SOURCE_MEMORY);
	check_rc("open.video.writer_open_flushes_video_ring_write_accepted", 2048,
		 dev_write(v, video, 2048));

	/* §2.3: audio open flushes the audio ring, sets source DEMUX, keeps the rest */
	dev_ioctl_val(a, FFDVB_AUDIO_SELECT_SOURCE, FFDVB_AUDIO_SOURCE_MEMORY);
	fill_ring(a, audio, len, 4096, &part, &bad);
	dev_ioctl_val(a, FFDVB_AUDIO_SET_MUTE, 1);
	dev_ioctl_val(a, FFDVB_AUDIO_CHANNEL_SELECT, FFDVB_AUDIO_MONO_LEFT);
	dev_ioctl_val(a, FFDVB_AUDIO_SET_AV_SYNC, 0);
	dev_ioctl_val(a, FFDVB_AUDIO_SET_BYPASS_MODE, 1);
	dev_ioctl_val(a, FFDVB_AUDIO_PAUSE, 0);
	dev_close(&a);
	a = dev_open("audio0", O_RDWR | O_NONBLOCK);

	struct ffdvb_audio_status as;

	audio_status(a, &as);
	check_int("open.audio.open_sets_source_demux", FFDVB_AUDIO_SOURCE_DEMUX, as.stream_source);
	check_int("open.audio.open_keeps_mute", 1, as.mute_state);
	check_int("open.audio.open_keeps_channel", FFDVB_AUDIO_MONO_LEFT, as.channel_select);
	check_int("open.audio.open_keeps_av_sync", 0, as.AV_sync_state);
	check_int("open.audio.open_keeps_bypass", 1, as.bypass_mode);
	check_int("open.audio.open_keeps_play_state_paused", FFDVB_AUDIO_PAUSED, as.play_state);
	dev_ioctl_val(a, FFDVB_AUDIO_SELECT_SOURCE, FFDVB_AUDIO_SOURCE_MEMORY);
	check_rc("open.audio.open_flushes_audio_ring_write_accepted", 2048,
		 dev_write(a, audio, 2048));
	/* §2.3 release: host audio playback stops, the reported state stays */
	dev_ioctl_val(a, FFDVB_AUDIO_SELECT_SOURCE, FFDVB_AUDIO_SOURCE_MEMORY);
	check_rc("open.audio.memory_play_before_release", 0, dev_ioctl_val(a, FFDVB_AUDIO_PLAY, 0));
	dev_close(&a);
	a = dev_open("audio0", O_RDWR | O_NONBLOCK);
	audio_status(a, &as);
	check_int("open.audio.release_keeps_play_state_playing", FFDVB_AUDIO_PLAYING,
		  as.play_state);
	dev_ioctl_val(a, FFDVB_AUDIO_SELECT_SOURCE, FFDVB_AUDIO_SOURCE_MEMORY);
	check_rc("open.audio.release_stops_memory_playback_play_not_ebusy", 0,
		 dev_ioctl_val(a, FFDVB_AUDIO_PLAY, 0));
	dev_ioctl_val(a, FFDVB_AUDIO_STOP, 0);
	dev_close(&a);
	dev_close(&v);
	free(audio);
	free(video);
}

/* §2.5: read is not implemented, write needs write access, osd0 has no write/poll op */
static void file_ops(void)
{
	char buf[64];
	int fd;

	fd = dev_open("video0", O_RDONLY | O_NONBLOCK);
	check_rc("open.video.read_on_reader_einval", -EINVAL, dev_read(fd, buf, sizeof buf));
	check_rc("open.video.write_on_reader_ebadf", -EBADF, dev_write(fd, buf, sizeof buf));
	check_rc("open.video.lseek_is_noop", 0, lseek(fd, 100, SEEK_SET) < 0 ? -errno : 0);
	void *m = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);

	check_rc("open.video.mmap_unsupported_enodev", -ENODEV, m == MAP_FAILED ? -errno : 0);
	if (m != MAP_FAILED)
		munmap(m, 4096);
	dev_close(&fd);
	fd = dev_open("video0", O_RDWR | O_NONBLOCK);
	check_rc("open.video.read_on_rdwr_writer_einval", -EINVAL, dev_read(fd, buf, sizeof buf));
	dev_close(&fd);
	fd = dev_open("video0", O_WRONLY | O_NONBLOCK);
	check_rc("open.video.read_on_wronly_writer_ebadf", -EBADF, dev_read(fd, buf, sizeof buf));
	dev_close(&fd);

	fd = dev_open("audio0", O_RDWR | O_NONBLOCK);
	check_rc("open.audio.read_on_rdwr_einval", -EINVAL, dev_read(fd, buf, sizeof buf));
	dev_close(&fd);
	fd = dev_open("audio0", O_WRONLY | O_NONBLOCK);
	check_rc("open.audio.read_on_wronly_ebadf", -EBADF, dev_read(fd, buf, sizeof buf));
	dev_close(&fd);

	fd = dev_open("osd0", O_RDWR);
	check_rc("open.osd.read_einval", -EINVAL, dev_read(fd, buf, sizeof buf));
	check_rc("open.osd.write_einval", -EINVAL, dev_write(fd, buf, sizeof buf));
	check_hex("open.osd.poll_default_mask", POLLIN | POLLOUT | POLLRDNORM | POLLWRNORM,
		  (unsigned int)dev_poll(fd, POLLIN | POLLOUT | POLLRDNORM | POLLWRNORM | POLLPRI,
					 0));
	dev_close(&fd);
	fd = dev_open("osd0", O_WRONLY);
	check_rc("open.osd.read_on_wronly_ebadf", -EBADF, dev_read(fd, buf, sizeof buf));
	dev_close(&fd);
}

void group_open(void)
{
	video_counting();
	single_opener("audio0");
	single_opener("osd0");
	video_open_effects();
	card_reset();
	ring_flushes();
	card_reset();
	file_ops();
}
