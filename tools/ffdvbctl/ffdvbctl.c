/* ffdvbctl: talks to a running ffdvbd over its control socket.
 *   ffdvbctl [--adapter N | --control PATH] status [--json]
 *   ffdvbctl [...] screenshot FILE.png   the composited picture on screen, as PNG
 *   ffdvbctl [...] record                writes the headless record (ffdvbd --record DIR)
 *   ffdvbctl [...] decoder               one line of decoder statistics
 * Writes the command line, prints the daemon's answer (screenshot: writes it to FILE). Exit 0 on success, 1 with a one-line
 * error when the daemon is not there or refuses the command, 2 on usage errors. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static void usage(FILE *out)
{
	fprintf(out, "usage: ffdvbctl [--adapter N | --control PATH] COMMAND\n"
		     "commands:\n"
		     "  status [--json]     nodes, play state, rings, counters\n"
		     "  screenshot FILE.png the picture on screen with the OSD over it\n"
		     "  record              write the headless record (ffdvbd --record DIR)\n"
		     "  decoder             decoder statistics\n"
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

/* with the caller's rights, whole or not at all */
static int write_file(const char *path, const char *data, size_t len)
{
	char tmp[4096];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "wb");
	if (!f || fwrite(data, 1, len, f) != len || fclose(f) != 0 || rename(tmp, path) != 0) {
		fprintf(stderr, "ffdvbctl: writing %s: %s\n", path, strerror(errno));
		unlink(tmp);
		return 1;
	}
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
	const char *shot = NULL;
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

	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		fprintf(stderr, "ffdvbctl: ffdvbd is not running at %s: %s\n", sa.sun_path,
			strerror(errno));
		return 1;
	}
	if (write_all(fd, command, strlen(command)) != 0) {
		fprintf(stderr, "ffdvbctl: sending to %s: %s\n", sa.sun_path, strerror(errno));
		return 1;
	}
	shutdown(fd, SHUT_WR);

	/* the whole answer first: an error answer goes to stderr instead */
	char *answer = NULL;
	size_t len = 0, cap = 0;

	for (;;) {
		if (len + 4096 > cap) {
			char *more = realloc(answer, cap = cap ? cap * 2 : 8192);

			if (!more) {
				fprintf(stderr, "ffdvbctl: out of memory\n");
				return 1;
			}
			answer = more;
		}
		ssize_t n = read(fd, answer + len, cap - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			fprintf(stderr, "ffdvbctl: reading from %s: %s\n", sa.sun_path, strerror(errno));
			return 1;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	if (len == 0) {
		fprintf(stderr, "ffdvbctl: ffdvbd at %s closed without answering\n", sa.sun_path);
		return 1;
	}
	if (len >= 7 && memcmp(answer, "error: ", 7) == 0) {
		fprintf(stderr, "ffdvbctl: %.*s", (int)len, answer);
		return 1;
	}
	if (shot)
		return write_file(shot, answer, len);
	fwrite(answer, 1, len, stdout);
	free(answer);
	return fflush(stdout) == 0 ? 0 : 1;
}
