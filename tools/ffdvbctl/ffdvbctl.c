/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ffdvbctl: talks to a running ffdvbd over its control socket.
 *   ffdvbctl [--adapter N | --control PATH] status [--json]
 *   ffdvbctl [...] screenshot FILE.png   the composited picture on screen, as PNG
 *   ffdvbctl [...] record                writes the headless record (ffdvbd --record DIR)
 *   ffdvbctl [...] decoder               one line of decoder statistics
 *   ffdvbctl [...] osd-dump DIR          each open OSD window as DIR/window-N.png
 *   ffdvbctl [...] trace                 the live call trace of the nodes, until interrupted
 *   ffdvbctl ioctls [--markdown]         the ioctl support matrix (no daemon needed)
 * Writes the command line, prints the daemon's answer (screenshot: writes it to FILE). Exit 0
 * on success, 1 with a one-line error when the daemon is not there or refuses the command, 2 on
 * usage errors. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "abi/ioctl_table.h"
#include "png_rgba.h"

static void usage(FILE *out)
{
	fprintf(out, "usage: ffdvbctl [--adapter N | --control PATH] COMMAND\n"
		     "commands:\n"
		     "  status [--json]     nodes, play state, rings, counters\n"
		     "  screenshot FILE.png the picture on screen with the OSD over it\n"
		     "  record              write the headless record (ffdvbd --record DIR)\n"
		     "  decoder             decoder statistics\n"
		     "  osd-dump DIR        each open OSD window as DIR/window-N.png\n"
		     "  trace               every open/close/read/write/ioctl on the nodes, live,\n"
		     "                      until interrupted\n"
		     "  ioctls [--markdown] every ioctl of every node and what ffdvb does with it\n"
		     "                      (no daemon needed)\n"
		     "options:\n"
		     "  -a, --adapter N     talk to the daemon of /dev/dvb/adapterN (default 0)\n"
		     "  -c, --control PATH  control socket (default /run/ffdvb/adapterN.sock)\n"
		     "  -h, --help          this text\n");
}

static int write_all(int fd, const char *s, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, s, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		s += n;
		len -= (size_t)n;
	}
	return 0;
}

/* A new file beside path, for commit_file(): created by mkstemp (never a link or FIFO someone
 * planted, 0600 while written); tmp receives its name. NULL (errno set) on failure. */
static FILE *new_file(const char *path, char *tmp, size_t size)
{
	if ((size_t)snprintf(tmp, size, "%s.XXXXXX", path) >= size) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	int fd = mkstemp(tmp);
	FILE *f = fd >= 0 ? fdopen(fd, "wb") : NULL;
	if (fd >= 0 && !f) {
		close(fd);
		unlink(tmp);
	}
	return f;
}

/* closes f and renames tmp to path (a link at path is replaced, not followed); 0 or 1 after
 * a message */
static int commit_file(FILE *f, int write_failed, const char *tmp, const char *path)
{
	int bad = write_failed || fflush(f) || fchmod(fileno(f), 0644);
	if (fclose(f) || bad || rename(tmp, path)) {
		fprintf(stderr, "ffdvbctl: writing %s: %s\n", path, strerror(errno ? errno : EIO));
		unlink(tmp);
		return 1;
	}
	return 0;
}

/* with the caller's rights, whole or not at all */
static int write_file(const char *path, const char *data, size_t len)
{
	char tmp[4096];
	FILE *f = new_file(path, tmp, sizeof(tmp));

	if (!f) {
		fprintf(stderr, "ffdvbctl: writing %s: %s\n", path, strerror(errno));
		return 1;
	}
	return commit_file(f, fwrite(data, 1, len, f) != len, tmp, path);
}

/* One command, the whole answer (malloc'ed) and its length; NULL after a message on stderr
 * when the daemon is not there or answers with an error. */
static int quiet_errors;

static char *ask(const struct sockaddr_un *sa, const char *command, size_t *out_len)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	char *answer = NULL;
	size_t len = 0, cap = 0;

	if (fd < 0 || connect(fd, (const struct sockaddr *)sa, sizeof(*sa)) != 0) {
		fprintf(stderr, "ffdvbctl: ffdvbd is not running at %s: %s\n", sa->sun_path,
			strerror(errno));
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	if (write_all(fd, command, strlen(command)) != 0) {
		fprintf(stderr, "ffdvbctl: sending to %s: %s\n", sa->sun_path, strerror(errno));
		close(fd);
		return NULL;
	}
	shutdown(fd, SHUT_WR);
	for (;;) {
		if (len + 4096 > cap) {
			char *more = realloc(answer, cap = cap ? cap * 2 : 8192);

			if (!more) {
				fprintf(stderr, "ffdvbctl: out of memory\n");
				goto fail;
			}
			answer = more;
		}
		ssize_t n = read(fd, answer + len, cap - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			fprintf(stderr, "ffdvbctl: reading from %s: %s\n", sa->sun_path, strerror(errno));
			goto fail;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	if (len == 0) {
		fprintf(stderr, "ffdvbctl: ffdvbd at %s closed without answering\n", sa->sun_path);
		free(answer);
		return NULL;
	}
	if (len >= 7 && memcmp(answer, "error: ", 7) == 0) {
		if (!quiet_errors)
			fprintf(stderr, "ffdvbctl: %.*s", (int)len, answer);
		free(answer);
		return NULL;
	}
	*out_len = len;
	return answer;
fail:
	close(fd);
	free(answer);
	return NULL;
}

/* "trace": the daemon keeps the connection and writes a line per call; copy to stdout, line
 * by line, until it closes or we are interrupted */
static int stream_trace(const struct sockaddr_un *sa)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	char buf[8192];
	ssize_t n;

	if (fd < 0 || connect(fd, (const struct sockaddr *)sa, sizeof(*sa)) != 0) {
		fprintf(stderr, "ffdvbctl: ffdvbd is not running at %s: %s\n", sa->sun_path,
			strerror(errno));
		return 1;
	}
	if (write_all(fd, "trace\n", 6) != 0) {
		fprintf(stderr, "ffdvbctl: sending to %s: %s\n", sa->sun_path, strerror(errno));
		return 1;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((n = read(fd, buf, sizeof(buf))) > 0 || (n < 0 && errno == EINTR)) {
		if (n > 0 && fwrite(buf, 1, (size_t)n, stdout) != (size_t)n)
			break;
		if (n > 0 && !memcmp(buf, "error: ", 7)) {
			close(fd);
			return 1;
		}
	}
	close(fd);
	return 0;
}

static char *ask_quiet(const struct sockaddr_un *sa, const char *command, size_t *len)
{
	char *a;

	quiet_errors = 1;
	a = ask(sa, command, len);
	quiet_errors = 0;
	return a;
}

/* each open OSD window as DIR/window-N.png (RGBA), with a line per window on stdout */
static int osd_dump(const struct sockaddr_un *sa, const char *dir)
{
	int written = 0;

	for (int win = 1; win <= 7; win++) {
		char cmd[32], path[4096], tmp[4096 + 8];
		size_t len;
		int w, h, x, y, visible, bpp, hdr = 0;
		char *a;
		FILE *f;

		snprintf(cmd, sizeof(cmd), "osd-window %d\n", win);
		/* a closed window is not an error of the dump: ask quietly first */
		a = ask_quiet(sa, cmd, &len);
		if (!a)
			continue;
		if (sscanf(a, "%d %d %d %d %d %d%n", &w, &h, &x, &y, &visible, &bpp, &hdr) != 6 ||
		    a[hdr] != '\n' || len != (size_t)hdr + 1 + 4 * (size_t)w * (size_t)h) {
			fprintf(stderr, "ffdvbctl: window %d: malformed answer\n", win);
			free(a);
			return 1;
		}
		snprintf(path, sizeof(path), "%s/window-%d.png", dir, win);
		f = new_file(path, tmp, sizeof(tmp));
		if (!f || commit_file(f, png_write_argb(f, a + hdr + 1, w, h),
				      tmp, path)) {
			if (!f)
				fprintf(stderr, "ffdvbctl: writing %s: %s\n", path, strerror(errno));
			free(a);
			return 1;
		}
		printf("window %d: %dx%d at (%d,%d), %d bit, %s -> %s\n", win, w, h, x, y, bpp,
		       visible ? "shown" : "hidden", path);
		written++;
		free(a);
	}
	if (!written)
		printf("no OSD window is open\n");
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "adapter", required_argument, NULL, 'a' },
		{ "control", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	const char *control = NULL;
	char command[64];
	const char *shot = NULL, *dump = NULL;
	int trace = 0;
	int adapter = 0, json = 0, c;

	while ((c = getopt_long(argc, argv, "+a:c:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'a': {
			char *end;
			long v = strtol(optarg, &end, 10);

			if (*optarg == '\0' || *end || v < 0 || v > 255) {
				fprintf(stderr, "ffdvbctl: --adapter '%s': expected 0..255\n", optarg);
				return 2;
			}
			adapter = (int)v;
			break;
		}
		case 'c':
			control = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[optind], "ioctls")) {
		int markdown = argc - optind == 2 && !strcmp(argv[optind + 1], "--markdown");

		if (argc - optind > 2 || (argc - optind == 2 && !markdown)) {
			fprintf(stderr, "ffdvbctl: ioctls: expected nothing or --markdown\n");
			return 2;
		}
		ffdvb_ioctl_matrix(stdout, markdown);
		return fflush(stdout) == 0 ? 0 : 1;
	}
	if (!strcmp(argv[optind], "status")) {
		for (int i = optind + 1; i < argc; i++) {
			if (strcmp(argv[i], "--json") == 0) {
				json = 1;
			} else {
				fprintf(stderr, "ffdvbctl: status: unknown argument '%s'\n", argv[i]);
				return 2;
			}
		}
		snprintf(command, sizeof(command), "status%s\n", json ? " --json" : "");
	} else if (!strcmp(argv[optind], "screenshot")) {
		if (argc - optind != 2) {
			fprintf(stderr, "ffdvbctl: screenshot: expected one FILE.png\n");
			return 2;
		}
		shot = argv[optind + 1];
		snprintf(command, sizeof(command), "screenshot\n");
	} else if (!strcmp(argv[optind], "trace") && argc - optind == 1) {
		trace = 1;
	} else if (!strcmp(argv[optind], "osd-dump")) {
		if (argc - optind != 2) {
			fprintf(stderr, "ffdvbctl: osd-dump: expected one DIR\n");
			return 2;
		}
		dump = argv[optind + 1];
	} else if ((!strcmp(argv[optind], "record") || !strcmp(argv[optind], "decoder")) &&
		   argc - optind == 1) {
		snprintf(command, sizeof(command), "%s\n", argv[optind]);
	} else {
		usage(stderr);
		return 2;
	}
	if (control) {
		if (strlen(control) >= sizeof(sa.sun_path)) {
			fprintf(stderr, "ffdvbctl: --control path too long\n");
			return 2;
		}
		snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", control);
	} else {
		snprintf(sa.sun_path, sizeof(sa.sun_path), "/run/ffdvb/adapter%d.sock", adapter);
	}

	if (dump)
		return osd_dump(&sa, dump);
	if (trace)
		return stream_trace(&sa);
	size_t len;
	char *answer = ask(&sa, command, &len);

	if (!answer)
		return 1;
	if (shot) {
		int r = write_file(shot, answer, len);

		free(answer);
		return r;
	}
	fwrite(answer, 1, len, stdout);
	free(answer);
	return fflush(stdout) == 0 ? 0 : 1;
}
