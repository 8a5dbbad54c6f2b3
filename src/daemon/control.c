/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Control socket: accept, read one command line, answer with the card's status, close; with
 * the limits of control.h on clients, waiting answers and trace listeners. */
#include "log.h"
#include "control.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>

#include "control_cmd.h"
#include "ffdvb/card.h"
#include "media.h"
#include "trace.h"

#define CLIENT_TIMEOUT_S 5 /* a client that never sends its line (or reads no answer) is dropped */
#define TRACE_STALL_S 30   /* a trace listener that reads nothing for this long loses its slot */
#define ACCEPT_RETRY_S 1   /* out of descriptors: accepting pauses this long instead of spinning */

struct job;

struct client {
	struct ffdvbd_control *ctl;
	struct bufferevent *bev;
	struct job *job;   /* its slow command, running */
	int tracing; /* streams the call trace until it goes away */
	size_t answer_bytes; /* charged to the answer budget until the client is freed */
	struct client *prev, *next;
};

struct ffdvbd_control {
	struct event_base *base;
	struct ffdvb_card *card;
	struct ffdvb_decoder *dec; /* the adapter's, NULL with --no-decode */
	struct event *ev_accept;
	int fd;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	struct client *clients;
	struct ffdvbd_control_usage usage;
	struct event *ev_retry; /* re-arms accepting after EMFILE */
	int accepting, closing;
	const char *record_dir; /* --record, or NULL */
	struct ffdvbd_trace *trace;
	struct job *job;      /* the slow command running now (one at a time) */
	int job_pipe[2];      /* the worker says "done" here */
	struct event *ev_job;
};

/* A slow command (screenshot: PNG encoding; record: file writing) runs on its own thread, so
 * that the loop goes on serving every node meanwhile; the answer comes back through a pipe. */
struct job {
	struct ffdvbd_control *ctl;
	struct client *client; /* NULL once the client went away */
	struct ffdvb_decoder *dec;
	const char *record_dir;
	enum ffdvbd_cmd cmd; /* screenshot or record */
	char *text;
	size_t len;
	pthread_t thread;
};

void ffdvbd_control_set_decoder(struct ffdvbd_control *ctl, struct ffdvb_decoder *dec)
{
	ctl->dec = dec;
}

void ffdvbd_control_set_trace(struct ffdvbd_control *ctl, struct ffdvbd_trace *trace)
{
	ctl->trace = trace;
}

void ffdvbd_control_set_record_dir(struct ffdvbd_control *ctl, const char *dir)
{
	ctl->record_dir = dir;
}

/* Accepting stops while FFDVBD_CONTROL_CLIENTS_MAX are served: further clients wait in the
 * listen backlog (their connect succeeds, their answer comes when a slot frees) and the loop
 * does not spin on them. */
static void set_accepting(struct ffdvbd_control *ctl, int on)
{
	if (on == ctl->accepting)
		return;
	if (on)
		event_add(ctl->ev_accept, NULL);
	else
		event_del(ctl->ev_accept);
	ctl->accepting = on;
}

static void client_free(struct client *c)
{
	struct ffdvbd_control *ctl = c->ctl;

	if (c->prev)
		c->prev->next = c->next;
	else
		c->ctl->clients = c->next;
	if (c->next)
		c->next->prev = c->prev;
	if (c->tracing)
		ffdvbd_trace_unlisten(c->ctl->trace, c->bev);
	if (c->job)
		c->job->client = NULL; /* its answer is dropped when it comes */
	bufferevent_free(c->bev);
	ctl->usage.answer_bytes -= c->answer_bytes;
	ctl->usage.clients--;
	free(c);
	if (!ctl->closing && !evtimer_pending(ctl->ev_retry, NULL))
		set_accepting(ctl, 1);
}

/* The answer to one command, malloc'ed. */
static char *answer(struct ffdvbd_control *ctl, const struct ffdvbd_command *cmd, size_t *len)
{
	char *text = NULL;
	FILE *f = open_memstream(&text, len);

	if (!f)
		return NULL;
	if (cmd->cmd == FFDVBD_CMD_STATUS || cmd->cmd == FFDVBD_CMD_STATUS_JSON) {
		int json = cmd->cmd == FFDVBD_CMD_STATUS_JSON;
		int err = ffdvb_card_status(ctl->card, f, json);

		if (err < 0)
			fprintf(f, "error: status failed: %s\n", strerror(-err));
		else if (json)
			fputc('\n', f);
	} else if (!ffdvbd_media_command(ctl->card, ctl->dec, cmd, f)) {
		fprintf(f, "error: unknown command '%.64s' (try: status, status --json, screenshot, "
			"record, decoder, trace, osd-window N, osd-plane)\n", cmd->line);
	}
	if (fclose(f) != 0) {
		free(text);
		return NULL;
	}
	return text;
}

static void on_client_written(struct bufferevent *bev, void *arg)
{
	(void)bev;
	client_free(arg);
}

/* the client went away (or timed out) while the answer was still going out */
static void on_client_gone(struct bufferevent *bev, short what, void *arg)
{
	(void)bev;
	(void)what;
	client_free(arg);
}

/* a trace listener: its half-close is fine, a failed write or a hang-up ends it */
static void on_trace_event(struct bufferevent *bev, short what, void *arg)
{
	(void)bev;
	if (what & (BEV_EVENT_ERROR | BEV_EVENT_TIMEOUT) ||
	    ((what & BEV_EVENT_EOF) && (what & BEV_EVENT_WRITING)))
		client_free(arg);
}

static void start_trace(struct client *c)
{
	static const char head[] = "# ffdvbd call trace: node#file request = result\n";

	bufferevent_disable(c->bev, EV_READ);
	bufferevent_set_timeouts(c->bev, NULL, NULL);
	if (!c->ctl->trace || ffdvbd_trace_listen(c->ctl->trace, c->bev) < 0 ||
	    bufferevent_write(c->bev, head, sizeof(head) - 1) != 0) {
		static const char busy[] = "error: no more trace listeners\n";

		bufferevent_write(c->bev, busy, sizeof(busy) - 1);
		bufferevent_setcb(c->bev, NULL, on_client_written, on_client_gone, c);
		return;
	}
	c->tracing = 1;
	/* a write timeout only runs while lines wait: an idle listener keeps its slot, one that
	 * stops reading gives it back */
	struct timeval stall = { TRACE_STALL_S, 0 };

	bufferevent_set_timeouts(c->bev, NULL, &stall);
	bufferevent_setcb(c->bev, NULL, NULL, on_trace_event, c);
	bufferevent_enable(c->bev, EV_WRITE);
}

/* Sends text (malloc'ed, taken; NULL: out of memory) and closes once it is out. */
static void send_answer(struct client *c, char *text, size_t len)
{
	struct ffdvbd_control *ctl = c->ctl;

	if (text && ctl->usage.answer_bytes + len > FFDVBD_CONTROL_ANSWER_BYTES_MAX) {
		ffdvbd_log(FFDVBD_LOG_WARNING, "control socket: answer of %zu bytes refused, %zu "
			   "bytes wait for slow clients already", len, ctl->usage.answer_bytes);
		free(text);
		text = strdup("error: busy: too many answers wait for their clients, try again\n");
		len = text ? strlen(text) : 0;
	}
	bufferevent_disable(c->bev, EV_READ);
	if (!text || bufferevent_write(c->bev, text, len) != 0) {
		free(text);
		client_free(c);
		return;
	}
	free(text);
	c->answer_bytes = len;
	ctl->usage.answer_bytes += len;
	/* closes once the answer is out */
	bufferevent_setcb(c->bev, NULL, on_client_written, on_client_gone, c);
}

static void send_text(struct client *c, const char *msg)
{
	char *text = strdup(msg);

	send_answer(c, text, text ? strlen(text) : 0);
}

static void *job_run(void *arg)
{
	struct job *j = arg;
	FILE *f = open_memstream(&j->text, &j->len);
	char done = 1;

	if (f) {
		ffdvbd_media_slow(j->dec, j->record_dir, j->cmd, f);
		if (fclose(f) != 0) {
			free(j->text);
			j->text = NULL;
		}
	}
	if (write(j->ctl->job_pipe[1], &done, 1) != 1)
		abort(); /* a pipe of our own with room for one byte: cannot fail */
	return NULL;
}

static void job_finish(struct ffdvbd_control *ctl)
{
	struct job *j = ctl->job;

	pthread_join(j->thread, NULL);
	ctl->job = NULL;
	if (j->client) {
		j->client->job = NULL;
		send_answer(j->client, j->text, j->len);
	} else {
		free(j->text);
	}
	free(j);
}

static void on_job_done(evutil_socket_t fd, short what, void *arg)
{
	char done;

	(void)what;
	if (read(fd, &done, 1) == 1)
		job_finish(arg);
}

static void start_job(struct client *c, enum ffdvbd_cmd cmd)
{
	struct ffdvbd_control *ctl = c->ctl;
	struct job *j;

	bufferevent_disable(c->bev, EV_READ);
	if (ctl->job) {
		send_text(c, "error: busy: another screenshot or record is being made, try again\n");
		return;
	}
	j = calloc(1, sizeof(*j));
	if (!j) {
		send_answer(c, NULL, 0);
		return;
	}
	j->ctl = ctl;
	j->client = c;
	j->dec = ctl->dec;
	j->record_dir = ctl->record_dir;
	j->cmd = cmd;
	if (pthread_create(&j->thread, NULL, job_run, j) != 0) {
		free(j);
		send_text(c, "error: cannot start a thread for it\n");
		return;
	}
	ctl->job = j;
	c->job = j;
}

static void respond(struct client *c, const struct ffdvbd_command *cmd)
{
	if (cmd->cmd == FFDVBD_CMD_TRACE) {
		start_trace(c);
		return;
	}
	if (ffdvbd_cmd_is_slow(cmd->cmd)) {
		start_job(c, cmd->cmd);
		return;
	}
	size_t len = 0;
	char *text = answer(c->ctl, cmd, &len);

	send_answer(c, text, len);
}

/* The command in what the client sent so far (control_cmd.c), if there is one: 1 when
 * answered. Only the first FFDVBD_CONTROL_MAX_COMMAND + 1 bytes matter. */
static int take_command(struct client *c, int eof)
{
	struct evbuffer *in = bufferevent_get_input(c->bev);
	size_t len = evbuffer_get_length(in);
	struct ffdvbd_command cmd;

	if (len > FFDVBD_CONTROL_MAX_COMMAND + 1)
		len = FFDVBD_CONTROL_MAX_COMMAND + 1;
	const char *buf = len ? (const char *)evbuffer_pullup(in, (ev_ssize_t)len) : NULL;

	if ((len && !buf) || ffdvbd_control_take(buf, len, eof, &cmd) != 1)
		return 0;
	respond(c, &cmd);
	return 1;
}

static void on_client_read(struct bufferevent *bev, void *arg)
{
	(void)bev;
	take_command(arg, 0);
}

static void on_client_event(struct bufferevent *bev, short what, void *arg)
{
	(void)bev;
	/* a last line without newline still counts */
	if ((what & BEV_EVENT_EOF) && take_command(arg, 1))
		return;
	client_free(arg);
}

static void on_accept(evutil_socket_t fd, short what, void *arg)
{
	struct ffdvbd_control *ctl = arg;
	struct timeval timeout = { CLIENT_TIMEOUT_S, 0 };
	int cfd = accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	struct client *c;

	(void)what;
	if (cfd < 0) {
		if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
			/* the waiting client stays readable: without a pause this would spin */
			struct timeval retry = { ACCEPT_RETRY_S, 0 };

			ctl->usage.accept_pauses++;
			ffdvbd_log(FFDVBD_LOG_WARNING, "control socket: accepting paused for %d s: %s",
				   ACCEPT_RETRY_S, strerror(errno));
			set_accepting(ctl, 0);
			evtimer_add(ctl->ev_retry, &retry);
		}
		return; /* EAGAIN, ECONNABORTED: the next client may fare better */
	}
	c = calloc(1, sizeof(*c));
	if (!c || !(c->bev = bufferevent_socket_new(ctl->base, cfd, BEV_OPT_CLOSE_ON_FREE))) {
		free(c);
		close(cfd);
		return;
	}
	c->ctl = ctl;
	c->next = ctl->clients;
	if (c->next)
		c->next->prev = c;
	ctl->clients = c;
	if (++ctl->usage.clients >= FFDVBD_CONTROL_CLIENTS_MAX)
		set_accepting(ctl, 0);
	bufferevent_setcb(c->bev, on_client_read, NULL, on_client_event, c);
	bufferevent_set_timeouts(c->bev, &timeout, &timeout);
	bufferevent_enable(c->bev, EV_READ);
}

static void on_accept_retry(evutil_socket_t fd, short what, void *arg)
{
	struct ffdvbd_control *ctl = arg;

	(void)fd;
	(void)what;
	if (ctl->usage.clients < FFDVBD_CONTROL_CLIENTS_MAX)
		set_accepting(ctl, 1);
}

void ffdvbd_control_get_usage(const struct ffdvbd_control *ctl, struct ffdvbd_control_usage *u)
{
	*u = ctl->usage;
}

/* mkdir -p of the folder holding path */
static int make_parent(const char *path)
{
	char dir[sizeof(((struct sockaddr_un *)0)->sun_path)];

	snprintf(dir, sizeof(dir), "%s", path);
	for (char *p = dir + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(dir, 0755) != 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	return 0;
}

/* A socket file nobody answers on is left over from a daemon that died: remove it. */
static int remove_stale(const struct sockaddr_un *sa)
{
	struct stat st;

	if (lstat(sa->sun_path, &st) != 0)
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISSOCK(st.st_mode))
		return -EEXIST;
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -errno;
	int live = connect(fd, (const struct sockaddr *)sa, sizeof(*sa)) == 0;

	close(fd);
	if (live)
		return -EADDRINUSE;
	return unlink(sa->sun_path) == 0 || errno == ENOENT ? 0 : -errno;
}

struct ffdvbd_control *ffdvbd_control_new(struct event_base *base, const char *path, gid_t gid,
					  struct ffdvb_card *card)
{
	struct ffdvbd_control *ctl = calloc(1, sizeof(*ctl));
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	const char *step;
	int err;

	if (!ctl)
		return NULL;
	ctl->base = base;
	ctl->card = card;
	ctl->fd = -1;
	ctl->job_pipe[0] = ctl->job_pipe[1] = -1;
	if (strlen(path) >= sizeof(sa.sun_path)) {
		err = -ENAMETOOLONG;
		step = "path";
		goto free_ctl;
	}
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	snprintf(ctl->path, sizeof(ctl->path), "%s", path);
	step = "creating its folder";
	if ((err = make_parent(path)) < 0)
		goto free_ctl;
	step = "replacing the old socket";
	if ((err = remove_stale(&sa)) < 0)
		goto free_ctl;
	step = "socket";
	ctl->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (ctl->fd < 0) {
		err = -errno;
		goto free_ctl;
	}
	step = "bind";
	/* the socket file is born 0660 (no chmod by name afterwards) and its group is set without
	   following a link: nothing planted in the folder can redirect either */
	mode_t old_mask = umask(0117);
	int bound = bind(ctl->fd, (struct sockaddr *)&sa, sizeof(sa));

	err = -errno;
	umask(old_mask);
	if (bound != 0)
		goto close_fd;
	step = "setting its group";
	if (fchownat(AT_FDCWD, path, (uid_t)-1, gid, AT_SYMLINK_NOFOLLOW) != 0) {
		err = -errno;
		goto unlink_path;
	}
	step = "listen";
	if (listen(ctl->fd, 16) != 0) {
		err = -errno;
		goto unlink_path;
	}
	step = "event";
	ctl->ev_accept = event_new(base, ctl->fd, EV_READ | EV_PERSIST, on_accept, ctl);
	ctl->ev_retry = evtimer_new(base, on_accept_retry, ctl);
	if (pipe2(ctl->job_pipe, O_CLOEXEC | O_NONBLOCK) == 0)
		ctl->ev_job = event_new(base, ctl->job_pipe[0], EV_READ | EV_PERSIST, on_job_done,
					ctl);
	if (!ctl->ev_accept || !ctl->ev_retry || !ctl->ev_job ||
	    event_add(ctl->ev_accept, NULL) != 0 || event_add(ctl->ev_job, NULL) != 0) {
		err = -ENOMEM;
		goto free_event;
	}
	ctl->accepting = 1;
	return ctl;

free_event:
	if (ctl->ev_accept)
		event_free(ctl->ev_accept);
	if (ctl->ev_retry)
		event_free(ctl->ev_retry);
	if (ctl->ev_job)
		event_free(ctl->ev_job);
	if (ctl->job_pipe[0] >= 0) {
		close(ctl->job_pipe[0]);
		close(ctl->job_pipe[1]);
	}
unlink_path:
	unlink(path);
close_fd:
	close(ctl->fd);
free_ctl:
	ffdvbd_log(FFDVBD_LOG_ERROR, "control socket %s: %s: %s", path, step,
		err == -EADDRINUSE ? "another ffdvbd answers there" : strerror(-err));
	free(ctl);
	errno = -err;
	return NULL;
}

void ffdvbd_control_free(struct ffdvbd_control *ctl)
{
	if (!ctl)
		return;
	ctl->closing = 1; /* client_free must not re-arm accepting now */
	while (ctl->clients)
		client_free(ctl->clients);
	if (ctl->job) /* its client is gone: wait for the thread, drop the answer */
		job_finish(ctl);
	event_free(ctl->ev_job);
	close(ctl->job_pipe[0]);
	close(ctl->job_pipe[1]);
	event_free(ctl->ev_retry);
	event_free(ctl->ev_accept);
	close(ctl->fd);
	unlink(ctl->path);
	free(ctl);
}
