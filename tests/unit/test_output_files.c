// SPDX-License-Identifier: GPL-2.0-or-later
/* The files the output writes, as a daemon running as root must write them: screenshots and the
 * record go through a new private file beside the destination and a rename, so a symlink
 * planted at the old temporary name (PATH.tmp) or at the destination itself never redirects
 * the write to another file, a FIFO planted there never blocks the writer, and nothing is
 * readable by others while it is written. Screenshots for the control socket are encoded in
 * memory (ffdvb_output_screenshot_png): the same bytes as the file. */
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "test_output_util.h"

#define DIR_NAME "test_output_files.d"
#define VICTIM "I am a file nobody should overwrite\n"

static void on_alarm(int sig)
{
	(void)sig;
	static const char msg[] = "FAIL: the writer blocked on a planted FIFO\n";
	if (write(1, msg, sizeof(msg) - 1) < 0)
		_exit(1);
	_exit(1);
}

static size_t file_size(const char *path)
{
	struct stat st;
	return lstat(path, &st) ? 0 : (size_t)st.st_size;
}

static int victim_intact(const char *victim)
{
	char buf[128] = "";
	int fd = open(victim, O_RDONLY);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
	if (fd >= 0)
		close(fd);
	return n == (ssize_t)strlen(VICTIM) && !memcmp(buf, VICTIM, (size_t)n);
}

static int is_png(const char *path)
{
	unsigned char sig[8] = { 0 };
	int fd = open(path, O_RDONLY | O_NOFOLLOW);
	ssize_t n = fd >= 0 ? read(fd, sig, 8) : -1;
	if (fd >= 0)
		close(fd);
	return n == 8 && !memcmp(sig, "\x89PNG\r\n\x1a\n", 8);
}

int main(void)
{
	char victim[256], shot[256], tmp[300];
	struct stat st;

	signal(SIGALRM, on_alarm);
	if (system("rm -rf " DIR_NAME) != 0 || mkdir(DIR_NAME, 0755)) {
		printf("FAIL: cannot make " DIR_NAME "\n");
		return 1;
	}
	snprintf(victim, sizeof(victim), "%s/victim", DIR_NAME);
	snprintf(shot, sizeof(shot), "%s/shot.png", DIR_NAME);
	snprintf(tmp, sizeof(tmp), "%s.tmp", shot);
	int fd = open(victim, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	CHECK(fd >= 0 && write(fd, VICTIM, strlen(VICTIM)) == (ssize_t)strlen(VICTIM));
	close(fd);

	struct ffdvb_output *o = headless(0, 1, 720, 576);
	AVFrame *f = new_frame(AV_PIX_FMT_YUV420P, 720, 576);
	struct ffdvb_picture_info info = { .tv = FFDVB_TV_4_3 };
	CHECK_EQ(ffdvb_output_show(o, f, &info), 0);

	/* a symlink at the old temporary name */
	CHECK_EQ(symlink("victim", tmp), 0);
	alarm(20);
	CHECK_EQ(ffdvb_output_screenshot(o, shot), 0);
	CHECK_LABELLED("symlink at PATH.tmp: the victim is untouched", victim_intact(victim));
	CHECK_LABELLED("symlink at PATH.tmp: the screenshot is a PNG", is_png(shot));
	CHECK_LABELLED("the screenshot is 0644, owned by its writer",
		       !lstat(shot, &st) && S_ISREG(st.st_mode) && (st.st_mode & 07777) == 0644);
	unlink(tmp);

	/* a FIFO at the old temporary name: opening it for writing would block for good */
	CHECK_EQ(mkfifo(tmp, 0666), 0);
	CHECK_EQ(ffdvb_output_screenshot(o, shot), 0);
	CHECK_LABELLED("FIFO at PATH.tmp: not opened, the screenshot is written", is_png(shot));
	unlink(tmp);

	/* a symlink at the destination: replaced, not followed */
	unlink(shot);
	CHECK_EQ(symlink("victim", shot), 0);
	CHECK_EQ(ffdvb_output_screenshot(o, shot), 0);
	CHECK_LABELLED("symlink at PATH: the victim is untouched", victim_intact(victim));
	CHECK_LABELLED("symlink at PATH: replaced by the PNG",
		       !lstat(shot, &st) && S_ISREG(st.st_mode) && is_png(shot));

	/* the record's files, through the same writer */
	char log[256], log_tmp[300];
	snprintf(log, sizeof(log), "%s/pictures.log", DIR_NAME);
	snprintf(log_tmp, sizeof(log_tmp), "%s.tmp", log);
	CHECK_EQ(symlink("victim", log_tmp), 0);
	CHECK_EQ(ffdvb_output_write_record(o, log, NULL), 0);
	CHECK_LABELLED("record: the victim is untouched", victim_intact(victim));
	alarm(0);

	/* in memory: the bytes of the file */
	uint8_t *png = NULL;
	size_t len = 0;
	CHECK_EQ(ffdvb_output_screenshot_png(o, &png, &len), 0);
	CHECK_LABELLED("in memory: the same PNG as the file", png && len == file_size(shot));
	fd = open(shot, O_RDONLY);
	uint8_t *file = malloc(len ? len : 1);
	CHECK(fd >= 0 && file && read(fd, file, len) == (ssize_t)len && png && !memcmp(file, png, len));
	if (fd >= 0)
		close(fd);
	free(file);
	free(png);
	CHECK_EQ(ffdvb_output_screenshot_png(NULL, &png, &len), -EINVAL);

	/* nothing left behind: only the files named above */
	CHECK_EQ(system("test $(ls -A " DIR_NAME " | grep -vc '^victim$\\|^shot.png$\\|^pictures.log"
			"\\(.tmp\\)\\?$') = 0"), 0);
	av_frame_free(&f);
	ffdvb_output_free(o);
	return finish("test_output_files");
}
