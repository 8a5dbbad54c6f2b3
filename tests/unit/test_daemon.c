/* ffdvbd's option parsing and control socket (src/daemon), on the host: no CUSE needed. The
 * control socket is driven through the event loop with a real card behind it. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <event2/event.h>

#include "check.h"
#include "daemon/control.h"
#include "daemon/options.h"
#include "ffdvb/card.h"

static int parse(struct ffdvbd_options *o, ...)
{
	char *argv[32] = { "ffdvbd" };
	int argc = 1;
	va_list ap;

	va_start(ap, o);
	for (char *a; argc < 31 && (a = va_arg(ap, char *));)
		argv[argc++] = a;
	va_end(ap);
	argv[argc] = NULL;
	return ffdvbd_parse_options(argc, argv, o);
}

static void options(void)
{
	struct ffdvbd_options o;
	struct group *video = getgrnam("video");

	CHECK_LABELLED("defaults parse", parse(&o, NULL) == 0);
	CHECK_LABELLED("default adapter 0", o.adapter == 0);
	CHECK_LABELLED("default owner root", o.uid == 0);
	CHECK_LABELLED("default group video (root without it)", o.gid == (video ? video->gr_gid : 0));
	CHECK_LABELLED("default mode 0660", o.mode == 0660);
	CHECK_LABELLED("default control path", strcmp(o.control, "/run/ffdvb/adapter0.sock") == 0);
	CHECK_LABELLED("detaches by default", o.foreground == 0);

	CHECK_LABELLED("all options parse",
	       parse(&o, "--adapter", "3", "--user", "root", "--group", "0", "--mode", "0640", "-f",
		     "-v", "-v", "-q", "--drain-rate", "500000", "--osd-memsize", "92000", NULL) == 0);
	CHECK_LABELLED("adapter 3", o.adapter == 3);
	CHECK_LABELLED("control follows adapter", strcmp(o.control, "/run/ffdvb/adapter3.sock") == 0);
	CHECK_LABELLED("mode 0640", o.mode == 0640);
	CHECK_LABELLED("group 0", o.gid == 0);
	CHECK_LABELLED("foreground, verbose 2, quiet", o.foreground && o.verbose == 2 && o.quiet);
	CHECK_LABELLED("drain rate", o.drain_rate == 500000);
	CHECK_LABELLED("osd memsize", o.osd_memsize == 92000);
	CHECK_LABELLED("--control", parse(&o, "--control", "/tmp/x.sock", NULL) == 0 &&
				    strcmp(o.control, "/tmp/x.sock") == 0);

	/* usage errors print to stderr and ask for exit 2 */
	CHECK_LABELLED("bad mode", parse(&o, "--mode", "999", NULL) == -1);
	CHECK_LABELLED("bad adapter", parse(&o, "--adapter", "-1", NULL) == -1);
	CHECK_LABELLED("unknown user", parse(&o, "--user", "no-such-user-ffdvb", NULL) == -1);
	CHECK_LABELLED("drain rate 0", parse(&o, "--drain-rate", "0", NULL) == -1);
	CHECK_LABELLED("stray argument", parse(&o, "extra", NULL) == -1);
	CHECK_LABELLED("unknown option", parse(&o, "--bogus", NULL) == -1);
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

int main(void)
{
	options();
	control();
	printf("%d/%d checks passed\n", checks - failures, checks);
	return failures ? 1 : 0;
}
