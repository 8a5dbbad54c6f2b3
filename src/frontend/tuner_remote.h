/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The remote: tuner's internals, shared by tuner_remote.c (the connection, files, demux, data)
 * and tuner_remote_fe.c (frontend calls mapped onto dvbv5-daemon's frontend commands). Both
 * speak the daemon's wire protocol through dvbv5_wire.c, not through libdvbv5's remote client
 * (broken in Debian's 1.22.1: docs/tuner.md). */
#ifndef FFDVB_TUNER_REMOTE_H
#define FFDVB_TUNER_REMOTE_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/dvb/dmx.h>
#include <linux/dvb/frontend.h>

#include "swdemux.h"

#include "dvbv5_wire.h"
#include "tuner_internal.h"

#define REMOTE_RING_SIZE (188 * 1024 * 2) /* about dmxdev's default dvr buffer */
#define REMOTE_DEV_BUFSIZE (188 * 1024)    /* the daemon's demux/dvr buffer: dmxdev's 8 kB
					      overflow at once on a whole transponder */
#define REMOTE_TIMEOUT_MS 5000             /* a command's round trip, at most */
#define REMOTE_IDLE_CLOSE_MS 1000          /* the connection outlives the last file by this:
					      the daemon cannot exit while it is open */
#define REMOTE_EVENTS 8                    /* dvb-core's frontend event queue */
#define REMOTE_STATUS_POLL_MS 100          /* status polling while FE_GET_EVENT/poll waits */
#define PENDING_MAX 80                     /* above the uapi's DTV_MAX_COMMAND */
#define REMOTE_FRAMES 256                  /* sections waiting in a demux file's ring */

struct remote_file;
struct remote_call;

/* What the daemon logged about the frontend when it opened it (it logs libdvbv5's
 * "capabilities" block on every dev_open of a frontend): the only source of the frontend's
 * name and delivery systems before it was tuned once, as fe_get_parms answers -EINVAL then. */
struct remote_fe_log {
	char name[128];
	uint32_t caps, freq_min, freq_max, stepsize, tolerance;
	uint32_t sr_min, sr_max, sr_tolerance; /* from fe_get_parms, once it answers */
	int systems[DVBV5_WIRE_MAX_SYSTEMS], num_systems, current_sys;
	int state; /* which block the next lines belong to */
};

/* Threads: the connection belongs to a worker thread of the tuner (tuner_remote_calls.c) with an
 * event loop of its own, so that the daemon's loop never waits for dvbv5-daemon. The daemon's
 * loop queues calls (open, ioctl, close) and collects their results when the worker wakes it;
 * it reads data and poll masks from the files directly. Everything below is guarded by lock,
 * which the worker holds while it runs and lets go only while it sleeps on the daemon. */
struct remote_tuner {
	struct ffdvb_tuner base;
	char *host;
	int port;
	unsigned int adapter, frontend;
	pthread_mutex_t lock;
	pthread_t thread;
	int thread_running;
	struct event_base *wbase;     /* the worker's loop */
	int submit_fd;                /* eventfd: calls queued (loop -> worker) */
	int wake_fd;                  /* eventfd: files to wake (worker -> loop) */
	struct event *submit_ev;      /* on wbase */
	struct event *wake_ev;        /* on the daemon's loop: wakes files whose call or data came */
	struct remote_call *queue, **queue_tail; /* FIFO: the daemon's order is the clients' */
	int stopping;
	/* one connection for all files: the daemon keeps one global state, and closing any
	 * connection closes every device it has open (worker only) */
	struct dvbv5_wire *w;
	struct event *wire_ev; /* on wbase: the connection readable, dvbv5_wire_pump */
	struct event *idle_ev; /* on wbase: closes the connection a while after the last file */
	struct remote_file *files;
	struct remote_fe_log fe;
	int present, locked;
	unsigned long opens, disconnects, dropped;
	unsigned long stale_frames; /* data of a replaced or stopped filter, not handed out */
};

struct remote_file {
	struct ffdvb_tuner_file base;
	struct remote_file *next;
	int uid;  /* the daemon's id of this file */
	int gone; /* the connection it was opened on is lost, or the open failed */
	int open_result; /* REMOTE_OPENING until the daemon answered dev_open, then 0 or -errno */
	int closing;      /* closed by the card: the worker frees it, nobody wakes it */
	int watch_wanted; /* frontend: poll saw no event; the worker starts the status timer */
	int filter_set, wake_pending;
	struct remote_call *close_call; /* made with the open: a close cannot fail */
	/* demux/dvr: the data the daemon pushed for uid, as dmxdev buffers it */
	struct ffdvb_dmxbuf buf;
	/* section filter: one read gives at most one of the daemon's reads (a section), as the
	 * client's read of the real demux would; libdvbv5 parses one section per read */
	int sections;
	/* The daemon's reader thread may push what it read for the filter just replaced or
	 * stopped, after the reply; dmxdev hands none of it out (its buffer is flushed when a
	 * filter starts or stops). demux: data kept only while a filter runs (accepting), and
	 * sections only when they match the filter. */
	int accepting;
	struct ffdvb_section_match match;
	uint32_t frames[REMOTE_FRAMES];
	unsigned int fr_head, fr_len;
	int err; /* the daemon's read error, reported once */
	struct event *ev; /* frontend: the status timer */
	/* frontend: events synthesized from status changes */
	struct dvb_frontend_event events[REMOTE_EVENTS];
	unsigned int ev_head, ev_len;
	int ev_overflow;
	fe_status_t status;
	uint32_t freq; /* of the last tune, for events */
	/* FE_SET_PROPERTY values waiting for DTV_TUNE */
	uint32_t pending_val[PENDING_MAX];
	unsigned char pending_set[PENDING_MAX];
};

#define REMOTE_OPENING 1

static inline struct remote_tuner *remote_tuner_of(struct remote_file *rf)
{
	return (struct remote_tuner *)rf->base.tuner;
}

/* tuner_remote_calls.c: the worker and the calls the loop queues for it */
int remote_calls_start(struct remote_tuner *rt, struct event_base *loop, char *err,
		       size_t errlen);
void remote_calls_stop(struct remote_tuner *rt); /* joins the worker; every file closed */
/* queue work for the worker (lock held) */
void remote_poke(struct remote_tuner *rt);
/* the file's waiting client may go on (worker, lock held): its wake hook runs on the loop */
void remote_mark_wake(struct remote_file *rf);
int remote_queue_open(struct remote_file *rf);
int remote_queue_ioctl(struct remote_file *rf, struct ffdvb_ioctl *io);
void remote_queue_close(struct remote_file *rf);

/* tuner_remote.c, run by the worker for the queued calls (lock held) */
int remote_do_open(struct remote_file *rf);
int remote_do_ioctl(struct remote_file *rf, struct ffdvb_ioctl *io);
void remote_do_close(struct remote_file *rf); /* frees rf */
void remote_do_watch(struct remote_tuner *rt);
void remote_do_stop(struct remote_tuner *rt); /* the connection closed: the worker ends */

/* -ENODEV for the errors of a lost connection (the connection dropped, every file of it
 * marked gone and woken); other results unchanged. */
int remote_gone(struct remote_file *rf, int r);

/* the daemon's log lines (tuner_remote_fe.c parses the frontend's) */
void remote_fe_log_line(struct remote_tuner *rt, const char *text);
void remote_fe_watch(struct remote_file *rf); /* worker: status polled until an event */
void remote_fe_opened(struct remote_file *rf);
void remote_fe_closed(struct remote_file *rf);
int remote_fe_ioctl(struct remote_file *rf, struct ffdvb_ioctl *io);
unsigned int remote_fe_poll(struct remote_file *rf);

#endif
