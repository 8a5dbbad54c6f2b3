/* ffdvbd: one emulated av7110 full-featured adapter. Builds the card, one CUSE device per
 * node, waits until every node exists with its owner and mode, opens the control socket,
 * says "ffdvbd: ready (adapter N)" and runs the event loop until SIGINT/SIGTERM; then frees
 * everything in mirror order (the nodes disappear) and exits 0. Under systemd (Type=notify) it
 * also sends READY=1 after the ready line, WATCHDOG=1 every half $WATCHDOG_USEC and
 * STOPPING=1 when a signal ends the loop. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <event2/event.h>
#include <libavutil/log.h>

#include "daemon/control.h"
#include "daemon/media.h"
#include "daemon/notify.h"
#include "daemon/options.h"
#include "ffdvb/card.h"
#include "ffdvb/cuse.h"
#include "ffdvb/decoder.h"

#define NODE_READY_TIMEOUT_MS 5000

struct daemon {
	struct ffdvbd_options opt;
	struct event_base *base;
	struct ffdvb_card *card;
	struct ffdvb_cuse_dev *dev[FFDVB_NODE_COUNT];
	struct ffdvbd_control *control;
	struct event *ev_int, *ev_term;
	struct event *ev_watchdog; /* systemd watchdog ping, NULL without $WATCHDOG_USEC */
	int ready_fd; /* write end of the pipe the detached parent waits on, or -1 */
};

static void on_signal(evutil_socket_t sig, short what, void *arg)
{
	struct daemon *d = arg;

	(void)what;
	if (!d->opt.quiet)
		fprintf(stderr, "ffdvbd: %s, stopping\n", strsignal((int)sig));
	ffdvbd_notify("STOPPING=1");
	event_base_loopexit(d->base, NULL);
}

/* Without --foreground: the parent stays until the child is ready so that its exit status
 * tells whether the daemon came up, then returns to the shell. Done before any event base
 * or CUSE fd exists (neither survives fork()). Returns the pipe's write end in the child. */
static int detach(void)
{
	int p[2];
	pid_t pid;
	char c;

	if (pipe2(p, O_CLOEXEC) != 0) {
		perror("ffdvbd: pipe");
		exit(1);
	}
	pid = fork();
	if (pid < 0) {
		perror("ffdvbd: fork");
		exit(1);
	}
	if (pid > 0) {
		int status = 0;

		close(p[1]);
		if (read(p[0], &c, 1) == 1)
			_exit(0);
		waitpid(pid, &status, 0);
		_exit(WIFEXITED(status) && WEXITSTATUS(status) ? WEXITSTATUS(status) : 1);
	}
	close(p[0]);
	setsid();
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);

	if (null >= 0) {
		dup2(null, STDIN_FILENO);
		dup2(null, STDOUT_FILENO);
		close(null);
	}
	return p[1];
}

static int create_nodes(struct daemon *d)
{
	for (int t = 0; t < FFDVB_NODE_COUNT; t++) {
		char devname[64];
		struct ffdvb_cuse_config cfg = {
			.devname = devname,
			.uid = d->opt.uid,
			.gid = d->opt.gid,
			.mode = d->opt.mode,
			.debug = d->opt.verbose >= 2,
		};

		snprintf(devname, sizeof(devname), "dvb/adapter%d/%s", d->opt.adapter,
			 ffdvb_node_name(t));
		d->dev[t] = ffdvb_cuse_dev_new(d->base, &cfg, ffdvb_card_node_ops(t),
					       ffdvb_card_node(d->card, t));
		if (!d->dev[t])
			return -1;
		ffdvb_card_set_wake(d->card, t, ffdvb_cuse_dev_wake, d->dev[t]);
	}
	/* CUSE answers INIT on the loop and fails silently on a busy number: check each node */
	for (int t = 0; t < FFDVB_NODE_COUNT; t++) {
		if (ffdvb_cuse_dev_wait_ready(d->dev[t], NODE_READY_TIMEOUT_MS) < 0)
			return -1;
		if (d->opt.verbose)
			fprintf(stderr, "ffdvbd: /dev/dvb/adapter%d/%s ready\n", d->opt.adapter,
				ffdvb_node_name(t));
	}
	return 0;
}

static void destroy(struct daemon *d)
{
	if (d->ev_watchdog)
		event_free(d->ev_watchdog);
	if (d->ev_term)
		event_free(d->ev_term);
	if (d->ev_int)
		event_free(d->ev_int);
	ffdvbd_control_free(d->control);
	for (int t = FFDVB_NODE_COUNT - 1; t >= 0; t--) {
		ffdvb_cuse_dev_free(d->dev[t]);
		if (d->card)
			ffdvb_card_set_wake(d->card, t, NULL, NULL);
	}
	ffdvb_card_free(d->card);
	if (d->base)
		event_base_free(d->base);
}

int main(int argc, char **argv)
{
	struct daemon d = { .ready_fd = -1 };
	int rc = 1;

	switch (ffdvbd_parse_options(argc, argv, &d.opt)) {
	case 1:
		return 0;
	case -1:
		return 2;
	}
	signal(SIGPIPE, SIG_IGN); /* a control client that hangs up must not kill us */
	/* libavcodec reports every damaged picture; those are counted (ffdvbctl status), so its
	   own messages only come with -v (errors) and -vv (warnings) */
	av_log_set_level(d.opt.verbose >= 2 ? AV_LOG_WARNING
			 : d.opt.verbose	 ? AV_LOG_ERROR
					 : AV_LOG_FATAL);
	if (!d.opt.foreground)
		d.ready_fd = detach();

	d.base = event_base_new();
	if (!d.base) {
		fprintf(stderr, "ffdvbd: cannot create the event loop\n");
		goto out;
	}
	struct ffdvb_decoder_config dec_cfg = {
		.output = {
			.kind = d.opt.output,
			.width = d.opt.width,
			.height = d.opt.height,
			.record = d.opt.record[0] != '\0',
			.audio = d.opt.audio,
		},
		.deinterlace = d.opt.deinterlace,
	};
	struct ffdvb_card_config card_cfg = {
		.adapter = d.opt.adapter,
		.drain_rate = d.opt.drain_rate,
		.osd_memsize = d.opt.osd_memsize,
		.decoder = d.opt.no_decode ? NULL : &dec_cfg,
	};
	d.card = ffdvb_card_new(d.base, &card_cfg);
	if (!d.card) {
		fprintf(stderr, "ffdvbd: cannot create the card: %s\n", strerror(errno));
		goto out;
	}
	if (create_nodes(&d) != 0)
		goto out;
	d.control = ffdvbd_control_new(d.base, d.opt.control, d.opt.gid, d.card);
	if (!d.control)
		goto out;
	if (d.opt.record[0])
		ffdvbd_control_set_record_dir(d.control, d.opt.record);
	d.ev_int = evsignal_new(d.base, SIGINT, on_signal, &d);
	d.ev_term = evsignal_new(d.base, SIGTERM, on_signal, &d);
	if (!d.ev_int || !d.ev_term || evsignal_add(d.ev_int, NULL) || evsignal_add(d.ev_term, NULL)) {
		fprintf(stderr, "ffdvbd: cannot watch signals\n");
		goto out;
	}
	/* systemd kills a service whose pings stop for $WATCHDOG_USEC */
	long long ping = ffdvbd_watchdog_start(d.base, &d.ev_watchdog);

	if (ping < 0) {
		fprintf(stderr, "ffdvbd: cannot start the systemd watchdog timer\n");
		goto out;
	}
	if (ping > 0 && d.opt.verbose)
		fprintf(stderr, "ffdvbd: systemd watchdog ping every %lld us\n", ping);

	fprintf(stderr, "ffdvbd: ready (adapter %d)\n", d.opt.adapter);
	if (ffdvbd_notify("READY=1") < 0)
		fprintf(stderr, "ffdvbd: cannot notify systemd ($NOTIFY_SOCKET)\n");
	if (d.ready_fd >= 0) {
		if (write(d.ready_fd, "r", 1) != 1)
			perror("ffdvbd: telling the parent");
		close(d.ready_fd);
		d.ready_fd = -1;
	}
	if (event_base_dispatch(d.base) < 0)
		fprintf(stderr, "ffdvbd: event loop failed\n");
	else
		rc = 0;
	if (d.opt.record[0] && d.card && ffdvbd_write_record(d.card, d.opt.record) < 0)
		fprintf(stderr, "ffdvbd: cannot write the record to %s\n", d.opt.record);
out:
	destroy(&d);
	if (rc == 0 && !d.opt.quiet)
		fprintf(stderr, "ffdvbd: stopped\n");
	return rc;
}
