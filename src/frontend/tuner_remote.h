/* The remote: tuner's internals, shared by tuner_remote.c (connections, demux, data) and
 * tuner_remote_fe.c (frontend calls mapped onto libdvbv5's frontend parameters). */
#ifndef FFDVB_TUNER_REMOTE_H
#define FFDVB_TUNER_REMOTE_H

/* libdvbv5's header declares dvb_dev_remote_init only with this set (a stub returning -1
 * otherwise); Debian's library exports it. */
#define HAVE_DVBV5_REMOTE 1

#include <pthread.h>
#include <stddef.h>

#include <libdvbv5/dvb-dev.h>
#include <libdvbv5/dvb-fe.h>
#include <linux/dvb/dmx.h>
#include <linux/dvb/frontend.h>

#include "tuner_internal.h"

#define REMOTE_RING_SIZE (188 * 1024 * 2) /* about dmxdev's default dvr buffer */
#define REMOTE_READ_CHUNK (188 * 21)       /* dvbv5-daemon answers at most 4100 bytes a read */
#define REMOTE_IDLE_US 5000                /* between reads that found nothing */
#define REMOTE_EVENTS 8                    /* dvb-core's frontend event queue */
#define REMOTE_STATUS_POLL_MS 100          /* status polling while FE_GET_EVENT/poll waits */
#define PENDING_MAX 80                     /* above the uapi's DTV_MAX_COMMAND */

struct remote_file;

struct remote_tuner {
	struct ffdvb_tuner base;
	char *host;
	int port;
	unsigned int adapter, frontend;
	struct remote_file *files;
	int present, locked;
	unsigned long opens, disconnects;
};

/* A data file's reader thread and its ring; shared with the file (refs), freed by the last. */
struct remote_reader {
	pthread_mutex_t mu;
	int refs, stop, gone, err;
	struct dvb_device *dvb;
	struct dvb_open_descriptor *od;
	int efd; /* eventfd: the thread -> the loop */
	char *ring;
	size_t size, head, len;
};

struct remote_file {
	struct ffdvb_tuner_file base;
	struct remote_file *next;
	struct dvb_device *dvb; /* NULL once a reader owns it */
	struct dvb_open_descriptor *od;
	struct remote_reader *reader;
	struct event *ev;       /* reader's eventfd, or the frontend's status timer */
	int gone, filter_set;
	/* frontend: events synthesized from status changes */
	struct dvb_frontend_event events[REMOTE_EVENTS];
	unsigned int ev_head, ev_len;
	int ev_overflow;
	fe_status_t status;
	int have_parms;
	/* FE_SET_PROPERTY values waiting for DTV_TUNE */
	uint32_t pending_val[PENDING_MAX];
	unsigned char pending_set[PENDING_MAX];
};

/* -ENODEV (and the file marked gone, its client woken) for the errors of a dead connection;
 * other results unchanged. */
int remote_gone(struct remote_file *rf, int r);

void remote_fe_opened(struct remote_file *rf);
void remote_fe_closed(struct remote_file *rf);
int remote_fe_ioctl(struct remote_file *rf, struct ffdvb_ioctl *io);
unsigned int remote_fe_poll(struct remote_file *rf);

#endif
