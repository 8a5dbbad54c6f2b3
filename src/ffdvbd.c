/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ffdvbd: emulated av7110 full-featured adapters, one per [adapterN] section of the config
 * file (or adapter 0, or --adapter N). Builds for each its card, one CUSE device per node and
 * its control socket, waiting until every node exists with its owner and mode; then drops to
 * the configured user (--run-as / user=) keeping no capability, says
 * "ffdvbd: ready (adapter N)" for each adapter and runs the one event loop until
 * SIGINT/SIGTERM (SIGHUP re-reads the config file: daemon/reload.h); then frees everything
 * in mirror order (the nodes disappear) and exits 0.
 * Under systemd (Type=notify) it also sends READY=1 after the ready lines, WATCHDOG=1 every
 * half $WATCHDOG_USEC and STOPPING=1 when a signal ends the loop. */
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <event2/event.h>
#include <libavutil/log.h>

#include "ffdvb/cuse.h"
#include "daemon/log.h"
#include "daemon/adapter.h"
#include "daemon/notify.h"
#include "daemon/options.h"
#include "daemon/periodic.h"
#include "daemon/privileges.h"
#include "daemon/reload.h"

struct daemon {
	struct ffdvbd_options opt;
	struct event_base *base;
	struct ffdvbd_adapter *adapter[FFDVBD_MAX_ADAPTERS];
	struct event *ev_int, *ev_term;
	/* timerfds, not libevent timers (daemon/periodic.h): no timeout for every epoll_wait */
	struct ffdvbd_periodic *ev_watchdog; /* systemd watchdog ping, NULL without $WATCHDOG_USEC */
	struct ffdvbd_periodic *ev_log;      /* prints the counts of repeated messages when due */
	struct ffdvbd_reload *reload; /* SIGHUP: the config file read again */
	int ready_fd; /* write end of the pipe the detached parent waits on, or -1 */
};

static void on_signal(evutil_socket_t sig, short what, void *arg)
{
	struct daemon *d = arg;

	(void)what;
	ffdvbd_log(FFDVBD_LOG_NOTICE, "%s, stopping", strsignal((int)sig));
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

static void on_log_timer(void *arg)
{
	(void)arg;
	ffdvbd_log_flush_due();
}

static void destroy(struct daemon *d)
{
	ffdvbd_reload_free(d->reload);
	ffdvbd_periodic_free(d->ev_log);
	ffdvbd_periodic_free(d->ev_watchdog);
	if (d->ev_term)
		event_free(d->ev_term);
	if (d->ev_int)
		event_free(d->ev_int);
	for (int i = d->opt.n_adapters - 1; i >= 0; i--)
		ffdvbd_adapter_free(d->adapter[i]);
	if (d->base)
		event_base_free(d->base);
}

int main(int argc, char **argv)
{
	struct daemon d = { .ready_fd = -1 };
	int rc = 1;

	/* every message, the options' and the modules' too, with its priority for the journal */
	ffdvbd_log_set_priority_prefix(-1);
	ffdvbd_log_install_sink();
	switch (ffdvbd_parse_options(argc, argv, &d.opt)) {
	case 1:
		return 0;
	case -1:
		return 2;
	}
	if (d.opt.check_only) {
		ffdvbd_print_settings(stdout, &d.opt);
		return 0;
	}
	signal(SIGPIPE, SIG_IGN); /* a control client that hangs up must not kill us */
	/* buffers of 4 MiB and more (still pictures a client parked, demux rings) come from mmap
	   and go back to the system when freed: glibc's sliding threshold would keep up to 32 MiB
	   of them in the heap for good. HD pictures (3 MB) stay below it, in the heap's reuse. */
	mallopt(M_MMAP_THRESHOLD, 4 << 20);
	/* libfuse allocates (calloc) and frees a request of 128 bytes for every request served:
	   glibc's calloc never takes from tcache and, above the default fast-bin size of 128
	   bytes of chunk, it carved each one out of a free chunk and merged it back, about 450
	   instructions a request more than a fast bin's (calloc and free; callgrind,
	   bench/README.md) */
	mallopt(M_MXFAST, 160);
	/* libavcodec reports every damaged picture; those are counted (ffdvbctl status), so its
	   own messages only come with -v (errors) and -vv (warnings) */
	av_log_set_level(d.opt.verbose >= 2 ? AV_LOG_WARNING
			 : d.opt.verbose	 ? AV_LOG_ERROR
					 : AV_LOG_FATAL);
	/* ... through our repeat counting: a damaged stream repeats the same complaint */
	av_log_set_callback(ffdvbd_log_av_callback);
	ffdvbd_log_set_level(d.opt.verbose, d.opt.quiet);
	if (!d.opt.foreground)
		d.ready_fd = detach();

	d.base = ffdvb_cuse_base_new(); /* notes the epoll fd for the fast path */
	if (!d.base) {
		ffdvbd_log(FFDVBD_LOG_ERROR, "cannot create the event loop");
		goto out;
	}
	/* a taken number or a user we cannot switch to fails before anything exists */
	if (ffdvbd_check_can_drop(&d.opt) < 0 || ffdvbd_limit_privileges(&d.opt) < 0)
		goto out;
	for (int i = 0; i < d.opt.n_adapters; i++)
		if (ffdvbd_adapter_check_free("/dev", d.opt.adapters[i].adapter) < 0)
			goto out;
	for (int i = 0; i < d.opt.n_adapters; i++) {
		d.adapter[i] = ffdvbd_adapter_new(d.base, &d.opt.adapters[i], d.opt.verbose);
		if (!d.adapter[i])
			goto out;
	}
	if (ffdvbd_drop_privileges(&d.opt) < 0)
		goto out;
	if (d.opt.run_as[0])
		ffdvbd_log(FFDVBD_LOG_INFO, "running as %s (uid %u, gid %u) with %s", d.opt.run_as,
			(unsigned)d.opt.run_uid, (unsigned)d.opt.run_gid,
			ffdvbd_kept_capabilities());
	d.ev_int = evsignal_new(d.base, SIGINT, on_signal, &d);
	d.ev_term = evsignal_new(d.base, SIGTERM, on_signal, &d);
	if (!d.ev_int || !d.ev_term || evsignal_add(d.ev_int, NULL) || evsignal_add(d.ev_term, NULL)) {
		ffdvbd_log(FFDVBD_LOG_ERROR, "cannot watch signals");
		goto out;
	}
	d.reload = ffdvbd_reload_new(d.base, argc, argv, FFDVBD_DEFAULT_CONFIG, &d.opt);
	if (!d.reload) {
		ffdvbd_log(FFDVBD_LOG_ERROR, "cannot watch SIGHUP");
		goto out;
	}
	d.ev_log = ffdvbd_periodic_new(d.base, (uint64_t)FFDVBD_LOG_WINDOW_MS * 1000, on_log_timer,
				       NULL);
	if (!d.ev_log) {
		ffdvbd_log(FFDVBD_LOG_ERROR, "cannot start the log timer");
		goto out;
	}
	/* systemd kills a service whose pings stop for $WATCHDOG_USEC */
	long long ping = ffdvbd_watchdog_start(d.base, &d.ev_watchdog);

	if (ping < 0) {
		ffdvbd_log(FFDVBD_LOG_ERROR, "cannot start the systemd watchdog timer");
		goto out;
	}
	if (ping > 0)
		ffdvbd_log(FFDVBD_LOG_INFO, "systemd watchdog ping every %lld us", ping);

	for (int i = 0; i < d.opt.n_adapters; i++)
		ffdvbd_log(FFDVBD_LOG_ALWAYS, "ready (adapter %d)", d.opt.adapters[i].adapter);
	if (ffdvbd_notify("READY=1") < 0)
		ffdvbd_log(FFDVBD_LOG_ERROR, "cannot notify systemd ($NOTIFY_SOCKET)");
	if (d.ready_fd >= 0) {
		if (write(d.ready_fd, "r", 1) != 1)
			perror("ffdvbd: telling the parent");
		close(d.ready_fd);
		d.ready_fd = -1;
	}
	if (ffdvb_cuse_loop_run(d.base) < 0)
		ffdvbd_log(FFDVBD_LOG_ERROR, "event loop failed");
	else
		rc = 0;
	for (int i = 0; i < d.opt.n_adapters; i++)
		ffdvbd_adapter_write_record(d.adapter[i]);
out:
	destroy(&d);
	if (rc == 0)
		ffdvbd_log(FFDVBD_LOG_NOTICE, "stopped");
	ffdvbd_log_flush(); /* the counts of repeated messages still held */
	return rc;
}
