/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ffdvb-conform: command line, group selection, per-group watchdog. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "conform.h"

/* The same source built with -m32 must issue the i386 request numbers of spec §1/§10: the
 * plain structs have the 32-bit layouts there. */
#if defined(__i386__)
_Static_assert(FFDVB_VIDEO_GET_EVENT == 0x80146F1C, "i386 VIDEO_GET_EVENT");
_Static_assert(FFDVB_VIDEO_STILLPICTURE == 0x40086F1E, "i386 VIDEO_STILLPICTURE");
_Static_assert(FFDVB_VIDEO_SET_SPU_PALETTE == 0x40086F33, "i386 VIDEO_SET_SPU_PALETTE");
_Static_assert(FFDVB_OSD_SEND_CMD == 0x401C6FA0, "i386 OSD_SEND_CMD");
_Static_assert(FFDVB_OSD_GET_CAPABILITY == 0x80086FA1, "i386 OSD_GET_CAPABILITY");
#define CALLER_BITS 32
#elif defined(__x86_64__)
_Static_assert(FFDVB_VIDEO_GET_EVENT == 0x80206F1C, "x86_64 VIDEO_GET_EVENT");
_Static_assert(FFDVB_VIDEO_STILLPICTURE == 0x40106F1E, "x86_64 VIDEO_STILLPICTURE");
_Static_assert(FFDVB_VIDEO_SET_SPU_PALETTE == 0x40106F33, "x86_64 VIDEO_SET_SPU_PALETTE");
_Static_assert(FFDVB_OSD_SEND_CMD == 0x40206FA0, "x86_64 OSD_SEND_CMD");
_Static_assert(FFDVB_OSD_GET_CAPABILITY == 0x80106FA1, "x86_64 OSD_GET_CAPABILITY");
#define CALLER_BITS 64
#else
#define CALLER_BITS ((int)sizeof(long) * 8)
#endif
_Static_assert(FFDVB_VIDEO_GET_STATUS == 0x80146F1B, "VIDEO_GET_STATUS");
_Static_assert(FFDVB_AUDIO_GET_STATUS == 0x80206F0A, "AUDIO_GET_STATUS");
_Static_assert(FFDVB_DMX_GET_STC == 0xC0106F32, "DMX_GET_STC");

struct conform_opts opts = { .seed = 7110 };

static const struct group {
	const char *name;
	void (*run)(void);
	int on_request; /* runs only when asked (--robustness or --only) */
	const char *what;
} groups[] = {
	{ "open", group_open, 0,
	  "open counting (2.1), open/release side effects (2.2-2.4), read/write on the wrong fd "
	  "(2.5)" },
	{ "readonly", group_readonly, 0, "video RO fd: EPERM for everything but GET_STATUS/"
					 "GET_EVENT/GET_SIZE, EFAULT first (1, 10.3)" },
	{ "video", group_video, 0,
	  "every video0 ioctl: state change, errno, removed ioctls (4.4)" },
	{ "audio", group_audio, 0,
	  "every audio0 ioctl: state change, errno, removed ioctls (5.3)" },
	{ "osd", group_osd, 0, "osd0 commands and capability, errno per command (7)" },
	{ "write", group_write, 0, "write(): EPERM, TS/PES detection, thresholds, partial counts, "
				   "drain wake-up, signals (4.1, 5.1)" },
	{ "poll", group_poll, 0, "poll(): POLLOUT rules with and without playback, never POLLIN "
				 "(4.2, 5.2, 2.5)" },
	{ "events", group_events, 0, "VIDEO_GET_EVENT queue: EWOULDBLOCK, EINTR (4.4, 9.4)" },
	{ "demux", group_demux, 0, "demux0 decoder feeds and DMX_GET_STC (8, 9.2)" },
	{ "payload", group_payload, 0, "big ioctl payloads: 1 MB still picture, full-screen OSD "
				       "blocks (10.2, 11); with --control compares checksums" },
	{ "robustness", group_robustness, 1, "random requests, bad pointers, huge sizes, killed "
					     "clients, 50 concurrent openers" },
};

static int group_timeout_s = 180;

/* A process blocked in a device call that the daemon never answers cannot be interrupted,
 * not even by its own timer: the checks run in a child and this parent watches the clock. */
static int watch(pid_t pid)
{
	for (;;) {
		int status;
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r == pid && WIFEXITED(status))
			return WEXITSTATUS(status);
		if (r == pid) {
			int sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;

			report_abort(cname("signal %d", sig));
			return 1;
		}
		if (r < 0)
			return 1;
		if (report_overdue()) {
			report_abort("no answer: the device hangs");
			kill(pid, SIGKILL);
			return 1;
		}
		usleep(100000);
	}
}

static int run(char **only, int n_only, int robustness);

static void usage(FILE *f)
{
	fprintf(f,
		"usage: ffdvb-conform [options] /dev/dvb/adapterN\n"
		"Checks what a DVB adapter's video0/audio0/osd0/demux0 do against the av7110\n"
		"full-featured card behaviour. One line per check (PASS/FAIL/SKIP), then a count;\n"
		"exit status 0 iff nothing failed. The checks change the card's state and reset\n"
		"it at the end: do not run them while another program uses the adapter. On a\n"
		"CUSE device (ffdvbd) the few av7110 details that the kernel answers before any\n"
		"daemon could are reported as SKIP.\n"
		"\n"
		"  --list             list the check groups\n"
		"  --only GROUP       run only GROUP (repeatable, or GROUP,GROUP)\n"
		"  --robustness       also run the robustness group (random requests, killed\n"
		"                     clients, concurrent openers)\n"
		"  --seed N           seed of the random requests (default 7110)\n"
		"  --payloads-by-retry  the device fetches payloads through CUSE retries\n"
		"                     (ffdvbd without CAP_SYS_PTRACE): unreadable OSD data is the\n"
		"                     kernel's EFAULT, not av7110's EINVAL\n"
		"  --control PATH     ffdvbd control socket: compare big payloads with the\n"
		"                     daemon's checksums (payload group)\n"
		"  --timeout S        give up on a group after S seconds (default 180)\n"
		"  --help             this text\n");
}

static int selected(const struct group *g, char **only, int n_only, int robustness)
{
	if (!n_only)
		return !g->on_request || robustness;
	for (int i = 0; i < n_only; i++) {
		char *list = strdup(only[i]), *save = NULL;

		for (char *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save))
			if (!strcmp(t, g->name)) {
				free(list);
				return 1;
			}
		free(list);
	}
	return 0;
}

int main(int argc, char **argv)
{
	char *only[32];
	int n_only = 0, robustness = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(a, "--list")) {
			for (size_t k = 0; k < ARRAY_SIZE(groups); k++)
				printf("%-11s %s%s\n", groups[k].name, groups[k].what,
				       groups[k].on_request ? " [only on request]" : "");
			return 0;
		} else if (!strcmp(a, "--only") && i + 1 < argc && n_only < 32) {
			only[n_only++] = argv[++i];
		} else if (!strcmp(a, "--robustness")) {
			robustness = 1;
		} else if (!strcmp(a, "--seed") && i + 1 < argc) {
			opts.seed = (unsigned int)strtoul(argv[++i], NULL, 0);
		} else if (!strcmp(a, "--payloads-by-retry")) {
			opts.by_retry = 1;
		} else if (!strcmp(a, "--control") && i + 1 < argc) {
			opts.control = argv[++i];
		} else if (!strcmp(a, "--timeout") && i + 1 < argc) {
			group_timeout_s = atoi(argv[++i]);
		} else if (a[0] == '-' || opts.dir) {
			fprintf(stderr, "ffdvb-conform: bad argument '%s'\n", a);
			usage(stderr);
			return 2;
		} else {
			opts.dir = a;
		}
	}
	if (!opts.dir) {
		usage(stderr);
		return 2;
	}
	for (int i = 0; i < n_only; i++) {
		char *list = strdup(only[i]), *save = NULL;

		for (char *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
			size_t k = 0;

			while (k < ARRAY_SIZE(groups) && strcmp(t, groups[k].name))
				k++;
			if (k == ARRAY_SIZE(groups)) {
				fprintf(stderr, "ffdvb-conform: no group '%s' (see --list)\n", t);
				return 2;
			}
		}
		free(list);
	}
	signal(SIGPIPE, SIG_IGN);
	report_init();
	fflush(stdout);
	pid_t pid = fork();

	if (pid < 0) {
		perror("ffdvb-conform: fork");
		return 2;
	}
	if (pid > 0)
		return watch(pid);
	return run(only, n_only, robustness);
}

static int run(char **only, int n_only, int robustness)
{
	char stage[128];
	struct stat st;

	note("ffdvb-conform %s: %s, %d-bit caller", FFDVB_VERSION, opts.dir, CALLER_BITS);

	if (stat(node_path("video0"), &st) < 0) {
		check("preflight.video0_exists", 0, "a device node", "%s", errname(errno));
		return report_summary();
	}
	char drv[200];

	if (node_driver("video0", drv, sizeof drv) == 0)
		note("video0 is served by \"%s\"%s", drv,
		     node_is_cuse("video0")
			     ? " (not dvb-core: CUSE; checks no CUSE device can pass are skipped)"
			     : "");
	report_stage("preflight.reset_completes", group_timeout_s);
	long r = card_reset();

	check_rc("preflight.reset_sequence", 0, r);
	if (r < 0) {
		note("the known reset sequence failed; later checks would only repeat that");
		return report_summary();
	}
	for (size_t k = 0; k < ARRAY_SIZE(groups); k++) {
		if (!selected(&groups[k], only, n_only, robustness))
			continue;
		note("group %s: %s", groups[k].name, groups[k].what);
		snprintf(stage, sizeof stage, "%s.completes_within_%ds", groups[k].name,
			 group_timeout_s);
		report_stage(stage, group_timeout_s);
		card_reset();
		groups[k].run();
	}
	report_stage("final.reset_completes", group_timeout_s);
	check_rc("final.reset_sequence", 0, card_reset());
	report_stage("", 0);
	return report_summary();
}
