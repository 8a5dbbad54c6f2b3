/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ffdvbd's option parsing and control socket (src/daemon), on the host: no CUSE needed. The
 * control socket is driven through the event loop with a real card behind it. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <event2/event.h>

#include "check.h"
#include "daemon/adapter.h"
#include "daemon/control.h"
#include "daemon/options.h"
#include "daemon/sysfs_view.h"
#include "test_daemon_util.h"
#include "ffdvb/card.h"
#include "ffdvb/osd.h"
#include "ffdvb/output.h"


static void options(void)
{
	struct ffdvbd_options o;
	struct ffdvbd_adapter_options *a = &o.adapters[0];
	struct group *video = getgrnam("video");

	CHECK_LABELLED("defaults parse", parse(&o, NULL) == 0);
	CHECK_LABELLED("one adapter by default", o.n_adapters == 1);
	CHECK_LABELLED("default adapter 0", a->adapter == 0);
	CHECK_LABELLED("default owner root", a->uid == 0);
	CHECK_LABELLED("default group video (root without it)", a->gid == (video ? video->gr_gid : 0));
	CHECK_LABELLED("default mode 0660", a->mode == 0660);
	CHECK_LABELLED("default control path", strcmp(a->control, "/run/ffdvb/adapter0.sock") == 0);
	CHECK_LABELLED("detaches by default", o.foreground == 0);
	CHECK_LABELLED("no config file read", o.config[0] == '\0');
	CHECK_LABELLED("no user to drop to", o.run_as[0] == '\0');

	CHECK_LABELLED("all options parse",
	       parse(&o, "--adapter", "3", "--user", "root", "--group", "0", "--mode", "0640", "-f",
		     "-v", "-v", "-q", "--drain-rate", "500000", "--osd-memsize", "92000", NULL) == 0);
	CHECK_LABELLED("adapter 3", a->adapter == 3 && o.n_adapters == 1);
	CHECK_LABELLED("control follows adapter", strcmp(a->control, "/run/ffdvb/adapter3.sock") == 0);
	CHECK_LABELLED("mode 0640", a->mode == 0640);
	CHECK_LABELLED("group 0", a->gid == 0);
	CHECK_LABELLED("foreground, verbose 2, quiet", o.foreground && o.verbose == 2 && o.quiet);
	CHECK_LABELLED("drain rate", a->drain_rate == 500000);
	CHECK_LABELLED("osd memsize", a->osd_memsize == 92000);
	CHECK_LABELLED("--control", parse(&o, "--control", "/tmp/x.sock", NULL) == 0 &&
				    strcmp(a->control, "/tmp/x.sock") == 0);
	CHECK_LABELLED("--control-dir", parse(&o, "-a", "2", "--control-dir", "/tmp/ctl", NULL) == 0 &&
					strcmp(a->control, "/tmp/ctl/adapter2.sock") == 0);
	CHECK_LABELLED("--no-decode --no-audio --no-deinterlace --size --output none",
		       parse(&o, "--no-decode", "--no-audio", "--no-deinterlace", "--size", "320x240",
			     "--output", "none", NULL) == 0 && a->no_decode && !a->audio &&
			       !a->deinterlace && a->width == 320 && a->height == 240 &&
			       a->output == FFDVB_OUTPUT_NONE);

	CHECK_LABELLED("default sound device and no trim",
		       parse(&o, NULL) == 0 && !a->audio_device[0] && a->audio_delay_ms == 0);
	CHECK_LABELLED("--audio-device --audio-delay",
		       parse(&o, "--audio-device", "plughw:CARD=PCH,DEV=3", "--audio-delay", "-40",
			     NULL) == 0 && !strcmp(a->audio_device, "plughw:CARD=PCH,DEV=3") &&
			       a->audio_delay_ms == -40);
	CHECK_LABELLED("--audio-delay 1000 (the limit)",
		       parse(&o, "--audio-delay", "1000", NULL) == 0 && a->audio_delay_ms == 1000);

	/* usage errors print to stderr and ask for exit 2 */
	CHECK_LABELLED("--audio-delay 1001", parse(&o, "--audio-delay", "1001", NULL) == -1);
	CHECK_LABELLED("--audio-delay 12ms", parse(&o, "--audio-delay", "12ms", NULL) == -1);
	CHECK_LABELLED("--audio-device empty", parse(&o, "--audio-device", "", NULL) == -1);
	CHECK_LABELLED("bad mode", parse(&o, "--mode", "999", NULL) == -1);
	CHECK_LABELLED("bad adapter", parse(&o, "--adapter", "-1", NULL) == -1);
	CHECK_LABELLED("adapter 256", parse(&o, "--adapter", "256", NULL) == -1);
	CHECK_LABELLED("unknown user", parse(&o, "--user", "no-such-user-ffdvb", NULL) == -1);
	CHECK_LABELLED("--run-as unknown user", parse(&o, "--run-as", "no-such-user-ffdvb", NULL) == -1);
	CHECK_LABELLED("--run-as root refused", parse(&o, "--run-as", "root", NULL) == -1);
	CHECK_LABELLED("--control-dir relative", parse(&o, "--control-dir", "run", NULL) == -1);
	CHECK_LABELLED("drain rate 0", parse(&o, "--drain-rate", "0", NULL) == -1);
	CHECK_LABELLED("stray argument", parse(&o, "extra", NULL) == -1);
	CHECK_LABELLED("unknown option", parse(&o, "--bogus", NULL) == -1);
	CHECK_LABELLED("missing explicit config", parse(&o, "--config", "/nonexistent/ffdvbd.conf",
							NULL) == -1);
	/* a missing default config is fine */
	char *argv[] = { "ffdvbd", NULL };

	CHECK_LABELLED("missing default config is fine",
		       ffdvbd_parse_options_with(1, argv, "/nonexistent/ffdvbd.conf", &o) == 0 &&
			       o.n_adapters == 1 && o.config[0] == '\0');
}

/* Sends one command line and runs the loop until the daemon side closed; returns the answer. */
static char *ask(struct event_base *base, const char *path, const char *line)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	static char answer[16384];
	size_t len = 0;
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	if (write(fd, line, strlen(line)) != (ssize_t)strlen(line))
		return NULL;
	shutdown(fd, SHUT_WR);
	fcntl(fd, F_SETFL, O_NONBLOCK);
	for (int spins = 0; spins < 100000; spins++) {
		event_base_loop(base, EVLOOP_NONBLOCK);
		ssize_t n = read(fd, answer + len, sizeof(answer) - 1 - len);

		if (n == 0)
			break;
		if (n > 0)
			len += (size_t)n;
		else if (errno != EAGAIN)
			break;
		else
			usleep(100);
	}
	close(fd);
	answer[len] = '\0';
	return answer;
}

static void control(void)
{
	char dir[] = "/tmp/ffdvb-test-XXXXXX", path[100];
	struct event_base *base = event_base_new();
	struct ffdvb_card_config cfg = { .adapter = 7 };
	struct ffdvb_card *card;
	struct ffdvbd_control *ctl, *second;
	struct stat st;
	char *a;

	if (!mkdtemp(dir) || !base) {
		printf("FAIL setup\n");
		failures++;
		return;
	}
	card = ffdvb_card_new(base, &cfg);
	CHECK_LABELLED("card", card != NULL);
	/* a stale socket file from a dead daemon is replaced; the folder is created */
	snprintf(path, sizeof(path), "%s/run/adapter7.sock", dir);
	ctl = ffdvbd_control_new(base, path, getgid(), card);
	CHECK_LABELLED("control socket created with its folder", ctl != NULL);
	CHECK_LABELLED("socket mode 0660", stat(path, &st) == 0 && S_ISSOCK(st.st_mode) &&
					   (st.st_mode & 07777) == 0660);
	second = ffdvbd_control_new(base, path, getgid(), card);
	CHECK_LABELLED("a second daemon on the same path is refused", !second && errno == EADDRINUSE);

	a = ask(base, path, "status --json\n");
	CHECK_LABELLED("status --json answers JSON", a && a[0] == '{' && strstr(a, "\"adapter\":7"));
	CHECK_LABELLED("status --json has the node keys", a && strstr(a, "\"frontend0\":{"));
	a = ask(base, path, "status\n");
	CHECK_LABELLED("status answers a table", a && a[0] != '{' && strlen(a) > 20 &&
					 strncmp(a, "error: ", 7) != 0);
	a = ask(base, path, "status --json");
	CHECK_LABELLED("a last line without newline counts", a && a[0] == '{');
	a = ask(base, path, "reboot\n");
	CHECK_LABELLED("unknown command -> error:", a && strncmp(a, "error: ", 7) == 0);
	/* a line over the limit is refused even when its end came in the same read */
	char longline[400];

	memset(longline, 'x', 300);
	strcpy(longline + 300, "\n");
	a = ask(base, path, longline);
	CHECK_LABELLED("a line over 256 bytes is too long",
		       a && strstr(a, "unknown command '(command too long)'"));
	/* a window number past int does not wrap to a valid one (4294967299 = 2^32 + 3) */
	a = ask(base, path, "osd-window 4294967299\n");
	CHECK_LABELLED("osd-window out of range", a && !strncmp(a, "error: OSD window -1:", 21));
	/* the slow commands run on a worker thread; their answer comes back through the loop */
	a = ask(base, path, "screenshot\n");
	printf("screenshot: %.40s\n", a && a[0] == '\x89' ? "(PNG)" : a ? a : "(none)");
	CHECK_LABELLED("screenshot answers (a PNG, or why not)",
		       a && (!strncmp(a, "\x89PNG", 4) || !strncmp(a, "error: ", 7)));
	a = ask(base, path, "record\n");
	CHECK_LABELLED("record answers through the worker too", a && !strncmp(a, "error: ", 7));

	ffdvbd_control_free(ctl);
	CHECK_LABELLED("socket removed on free", access(path, F_OK) != 0);
	/* a leftover socket nobody listens on is taken over */
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);
	struct sockaddr_un sa = { .sun_family = AF_UNIX };

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	bind(fd, (struct sockaddr *)&sa, sizeof(sa));
	close(fd);
	ctl = ffdvbd_control_new(base, path, getgid(), card);
	CHECK_LABELLED("stale socket replaced", ctl != NULL);
	ffdvbd_control_free(ctl);

	ffdvb_card_free(card);
	event_base_free(base);
	snprintf(path, sizeof(path), "%s/run", dir);
	rmdir(path);
	rmdir(dir);
}

static void spin(struct event_base *base, int n)
{
	for (int i = 0; i < n; i++) {
		event_base_loop(base, EVLOOP_NONBLOCK);
		usleep(200);
	}
}

/* a client that connects without waiting (EAGAIN when the backlog is full: -1) */
static int dial(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* reads what has come so far (the loop runs in between), up to len - 1 bytes */
static size_t gather(struct event_base *base, int fd, char *buf, size_t len)
{
	size_t got = 0;

	for (int spins = 0; spins < 20000 && got < len - 1; spins++) {
		event_base_loop(base, EVLOOP_NONBLOCK);
		ssize_t n = read(fd, buf + got, len - 1 - got);

		if (n == 0)
			break;
		if (n > 0)
			got += (size_t)n;
		else
			usleep(100);
	}
	buf[got] = '\0';
	return got;
}

/* control.h's limits: clients served at once, answer bytes waiting, accepting without fds */
static void control_limits(void)
{
	char dir[] = "/tmp/ffdvb-test-XXXXXX", path[100], buf[256];
	struct event_base *base = event_base_new();
	struct ffdvb_card_config cfg = { .adapter = 7 };
	struct ffdvb_card *card = ffdvb_card_new(base, &cfg);
	struct ffdvbd_control_usage u;
	int fds[FFDVBD_CONTROL_CLIENTS_MAX + 8], n = 0;

	CHECK_LABELLED("limits: setup", mkdtemp(dir) && card);
	snprintf(path, sizeof(path), "%s/adapter7.sock", dir);
	struct ffdvbd_control *ctl = ffdvbd_control_new(base, path, getgid(), card);

	CHECK_LABELLED("limits: control socket", ctl != NULL);
	if (!ctl)
		return;
	/* idle clients: the first FFDVBD_CONTROL_CLIENTS_MAX are taken, the rest wait */
	for (int i = 0; i < FFDVBD_CONTROL_CLIENTS_MAX + 8; i++) {
		fds[n] = dial(path);
		if (fds[n] >= 0)
			n++;
		spin(base, 3);
	}
	ffdvbd_control_get_usage(ctl, &u);
	EXPECT_EQ("idle clients served at once", u.clients, FFDVBD_CONTROL_CLIENTS_MAX);
	CHECK_LABELLED("the others wait in the backlog", n == FFDVBD_CONTROL_CLIENTS_MAX + 8);
	close(fds[0]); /* one goes: a waiting one is taken and answered */
	spin(base, 20);
	ffdvbd_control_get_usage(ctl, &u);
	EXPECT_EQ("a freed slot is taken again", u.clients, FFDVBD_CONTROL_CLIENTS_MAX);
	int last = fds[n - 1];

	/* the last one is served once every client before it has had a slot */
	CHECK_LABELLED("a waiting client sends its line", write(last, "status --json\n", 14) == 14);
	for (int i = 1; i < n - FFDVBD_CONTROL_CLIENTS_MAX; i++)
		close(fds[i]);
	CHECK_LABELLED("a waiting client is answered in its turn",
		       gather(base, last, buf, sizeof(buf)) > 0 && buf[0] == '{');
	for (int i = n - FFDVBD_CONTROL_CLIENTS_MAX; i < n; i++)
		close(fds[i]);
	spin(base, 50);
	ffdvbd_control_get_usage(ctl, &u);
	EXPECT_EQ("all clients gone", u.clients, 0);

	/* readers that never read: the answers waiting for them are bounded in bytes */
	size_t plane = (size_t)FFDVB_OSD_WIDTH * FFDVB_OSD_HEIGHT * 4;
	int slow = (int)(FFDVBD_CONTROL_ANSWER_BYTES_MAX / plane) + 2;

	n = 0;
	for (int i = 0; i < slow && i < FFDVBD_CONTROL_CLIENTS_MAX; i++) {
		fds[n] = dial(path);
		if (fds[n] >= 0 && write(fds[n], "osd-plane\n", 10) == 10)
			n++;
		spin(base, 5);
	}
	ffdvbd_control_get_usage(ctl, &u);
	CHECK_LABELLED("waiting answers within the budget",
		       u.answer_bytes > 0 && u.answer_bytes <= FFDVBD_CONTROL_ANSWER_BYTES_MAX);
	CHECK_LABELLED("the one over the budget is told busy",
		       n == slow && gather(base, fds[n - 1], buf, sizeof(buf)) > 0 &&
			       strncmp(buf, "error: busy", 11) == 0);
	for (int i = 0; i < n; i++)
		close(fds[i]);
	spin(base, 50);
	ffdvbd_control_get_usage(ctl, &u);
	EXPECT_EQ("budget given back", u.answer_bytes, 0);

	/* out of descriptors: accepting pauses instead of spinning, then resumes */
	struct rlimit old, low;
	int client = dial(path), filler[64], nf = 0;

	getrlimit(RLIMIT_NOFILE, &old);
	low = old;
	low.rlim_cur = (rlim_t)client + 1;
	setrlimit(RLIMIT_NOFILE, &low);
	while (nf < 64 && (filler[nf] = dup(0)) >= 0)
		nf++;
	spin(base, 200);
	ffdvbd_control_get_usage(ctl, &u);
	EXPECT_EQ("EMFILE: one pause, no spinning", u.accept_pauses, 1);
	EXPECT_EQ("EMFILE: nobody taken", u.clients, 0);
	for (int i = 0; i < nf; i++)
		close(filler[i]);
	setrlimit(RLIMIT_NOFILE, &old);
	usleep(1100 * 1000);
	CHECK_LABELLED("EMFILE: accepting resumes",
		       write(client, "status --json\n", 14) == 14 &&
			       gather(base, client, buf, sizeof(buf)) > 0 && buf[0] == '{');
	close(client);

	ffdvbd_control_free(ctl);
	ffdvb_card_free(card);
	event_base_free(base);
	rmdir(dir);
}

/* the sysfs view is written by root: links planted in its place lead nowhere */
static void sysfs_view_links(void)
{
	char dir[] = "/tmp/ffdvb-view-XXXXXX", sock[200], view[200], path[300], victim[200];
	struct stat st;

	if (!mkdtemp(dir)) {
		CHECK_LABELLED("view: setup", 0);
		return;
	}
	snprintf(sock, sizeof(sock), "%s/adapter9.sock", dir);
	snprintf(view, sizeof(view), "%s/" FFDVBD_SYSFS_VIEW_NAME, dir);
	snprintf(victim, sizeof(victim), "%s/victim", dir);
	/* a dangling link as the view's uevent: the daemon made the file it named */
	mkdir(view, 0755);
	snprintf(path, sizeof(path), "%s/uevent", view);
	CHECK_LABELLED("view: link planted", symlink(victim, path) == 0);
	CHECK_LABELLED("view: written", ffdvbd_sysfs_view_add(sock, 9) == 0);
	CHECK_LABELLED("view: nothing made where the link pointed", access(victim, F_OK) != 0);
	CHECK_LABELLED("view: uevent is a plain file", lstat(path, &st) == 0 && S_ISREG(st.st_mode));
	unlink(path);
	snprintf(path, sizeof(path), "%s/subsystem", view);
	unlink(path);
	rmdir(view);
	/* the view folder itself a link to another folder: refused, nothing written there */
	CHECK_LABELLED("view: folder link planted", mkdir(victim, 0755) == 0 && symlink(victim, view) == 0);
	CHECK_LABELLED("view: refused", ffdvbd_sysfs_view_add(sock, 9) < 0);
	snprintf(path, sizeof(path), "%s/uevent", victim);
	CHECK_LABELLED("view: nothing in the linked folder", access(path, F_OK) != 0);
	unlink(view);
	rmdir(victim);
	rmdir(dir);
}

/* a number whose /dev/dvb/adapterN holds anything is taken; checked on a fake /dev */
static void taken_adapters(void)
{
	char dev[] = "/tmp/ffdvb-dev-XXXXXX", path[200];

	if (!mkdtemp(dev)) {
		printf("FAIL setup\n");
		failures++;
		return;
	}
	const char *const made[] = { "dvb", "dvb/adapter3", "dvb/adapter4", "dvb/adapter5" };

	for (size_t i = 0; i < 4; i++) {
		snprintf(path, sizeof(path), "%s/%s", dev, made[i]);
		mkdir(path, 0755);
	}
	snprintf(path, sizeof(path), "%s/dvb/adapter3/video0", dev);
	close(open(path, O_CREAT | O_WRONLY, 0600));
	snprintf(path, sizeof(path), "%s/dvb/adapter4/dvr0", dev);
	close(open(path, O_CREAT | O_WRONLY, 0600));
	CHECK_LABELLED("our node there: taken", ffdvbd_adapter_check_free(dev, 3) == -EBUSY);
	CHECK_LABELLED("a real card's dvr0 there: taken", ffdvbd_adapter_check_free(dev, 4) == -EBUSY);
	CHECK_LABELLED("an empty folder: free", ffdvbd_adapter_check_free(dev, 5) == 0);
	CHECK_LABELLED("no folder: free", ffdvbd_adapter_check_free(dev, 6) == 0);
	unlink(path);
	snprintf(path, sizeof(path), "%s/dvb/adapter3/video0", dev);
	unlink(path);
	for (int i = 3; i >= 0; i--) {
		snprintf(path, sizeof(path), "%s/%s", dev, made[i]);
		rmdir(path);
	}
	rmdir(dev);
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN); /* as ffdvbd: a client that hangs up is an error, not a signal */
	options();
	taken_adapters();
	control();
	control_limits();
	sysfs_view_links();
	printf("%d/%d checks passed\n", checks - failures, checks);
	return failures ? 1 : 0;
}
