/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ffdvb tuner: what stands behind the emulated card's frontend0, demux0 and dvr0 (src/frontend).
 * A tuner is opened from a spec string and then looks like the three kernel devices of a budget
 * adapter: the card opens them once per client open and forwards the client's calls, so that a
 * client gets the semantics and the errno of the real device.
 *
 *   none           no hardware: a frontend that never locks, a demux that never has data
 *   file:CHANNELS  a libdvbv5 channel file whose entries name a TS file; a tune to an entry's
 *                  frequency locks when the file exists, and the demux then serves that file
 *                  paced by its PCR, looping (software demux: src/swdemux/swdemux*.c)
 *   dvb:A[.F]      the real budget adapter /dev/dvb/adapterA (frontend F, demux F, dvr F),
 *                  located and opened through libdvbv5; ioctls go to the real file descriptors
 *   remote:HOST:PORT  a budget adapter behind dvbv5-daemon, through our own client of its wire
 *                     protocol (src/frontend/dvbv5_wire.c)
 *
 * Threading: every call is made on the daemon's event-loop thread (the base given to
 * ffdvb_tuner_new), and the wake hooks run there. Results: 0 or a byte count, or -errno. A
 * backend never blocks: where the kernel device would sleep it returns -EAGAIN and later calls
 * the file's wake hook. A backend whose device is a network peer (remote:) never waits for it
 * either: its open and ioctl return -FFDVB_EBLOCK (whatever O_NONBLOCK says: the call is under
 * way, not refused) and the wake hook runs when the caller may call again for the result.
 * While the hardware is gone (module removed, dvbv5-daemon stopped) opens fail with -ENODEV and
 * open files answer -ENODEV; the tuner recovers by itself when the hardware is back (the next
 * open finds it again). */
#ifndef FFDVB_TUNER_H
#define FFDVB_TUNER_H

#include <stddef.h>
#include <sys/types.h>

#include "ffdvb/node.h"

struct event_base;
struct ffdvb_tuner;
struct ffdvb_tuner_file;

enum ffdvb_tuner_dev { FFDVB_TUNER_FRONTEND, FFDVB_TUNER_DEMUX, FFDVB_TUNER_DVR };

/* Parses spec (above) and prepares the backend; hardware is not required to be present yet
 * except where a spec cannot be understood without it. NULL on error, with a one-line reason
 * ("file:/x.conf: no such file", "remote:host:port: port is not a number") in err. */
struct ffdvb_tuner *ffdvb_tuner_new(struct event_base *base, const char *spec, char *err,
				    size_t errlen);
void ffdvb_tuner_free(struct ffdvb_tuner *t); /* every file must be closed; accepts NULL */

/* The spec as given, for status output. */
const char *ffdvb_tuner_spec(const struct ffdvb_tuner *t);

/* Nonzero when the backend checks demux ioctl arguments itself (a real dmxdev: dvb:, remote:),
 * so that the card forwards first and returns the device's errno; zero for the software demux,
 * which trusts the card's own dmxdev emulation to have checked them. */
int ffdvb_tuner_validates_demux(const struct ffdvb_tuner *t);

/* Opens the backend's device as open(2) would with these flags (O_RDONLY/O_RDWR/O_NONBLOCK):
 * the frontend's one-writer rule, -EBUSY, -ENODEV and so on come from the backend.
 * -FFDVB_EBLOCK: *out is set, the open is under way; ffdvb_tuner_open_wait gives its result
 * once the wake hook ran (set it at once). Calls made meanwhile run after the open, in order. */
int ffdvb_tuner_open(struct ffdvb_tuner *t, enum ffdvb_tuner_dev dev, int flags,
		     struct ffdvb_tuner_file **out);
/* 0 when the open completed, -errno when it failed (close the file then), -FFDVB_EBLOCK while
 * under way; interrupted set: the caller gives up, never -FFDVB_EBLOCK (-EINTR). */
int ffdvb_tuner_open_wait(struct ffdvb_tuner_file *f, int interrupted);
void ffdvb_tuner_close(struct ffdvb_tuner_file *f);

/* One ioctl in the layout of struct ffdvb_ioctl (native numbers, buf/data already fetched;
 * FE_GET_PROPERTY writes the props array in io->data). A call that would sleep (FE_GET_EVENT
 * with no event) returns -EAGAIN and the file's wake hook runs when it may succeed.
 * -FFDVB_EBLOCK (remote:): under way; call again with the same io (io->progress is the
 * backend's) after the wake hook for the result, or with io->interrupted set to give up
 * (-EINTR; the call still reaches the device in its turn). Data copied at the first call.
 * Demux: DMX_GET_STC and DMX_GET_PES_PIDS are the card's, never sent here. */
int ffdvb_tuner_ioctl(struct ffdvb_tuner_file *f, struct ffdvb_ioctl *io);

/* read(2) of demux/dvr data: bytes, 0 (EOF: no filter started yet), -EAGAIN (nothing yet; the
 * wake hook runs when there is), -EOVERFLOW (buffer overflowed, as dvb-core reports it once),
 * -ETIMEDOUT (section filter timeout), -ENODEV. */
ssize_t ffdvb_tuner_read(struct ffdvb_tuner_file *f, void *buf, size_t len);

/* write(2) to dvr0 (TS into the demux, DMX_IN_DVR): bytes taken or -errno (-EINVAL where the
 * device has no write). */
ssize_t ffdvb_tuner_write(struct ffdvb_tuner_file *f, const void *buf, size_t len);

/* The current poll mask of the file (POLLIN|POLLRDNORM for data or a frontend event, POLLPRI
 * with a frontend event, POLLERR on overflow or a vanished device). When the mask lacks
 * POLLIN, the backend watches and calls the wake hook once it may have changed. */
unsigned int ffdvb_tuner_poll(struct ffdvb_tuner_file *f);

/* The hook called (on the loop thread) whenever the file's poll mask or a waiting read/ioctl
 * may have changed. */
void ffdvb_tuner_set_wake(struct ffdvb_tuner_file *f, ffdvb_wake_fn fn, void *ctx);

/* The tuner's own view for `ffdvbctl status`: one JSON object ({"spec":...,"present":bool,
 * "locked":bool, ...}); returns the length written (snprintf rules). */
int ffdvb_tuner_status_json(struct ffdvb_tuner *t, char *buf, size_t len);

#endif
