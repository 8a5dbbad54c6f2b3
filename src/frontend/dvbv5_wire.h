/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A client of dvbv5-daemon's remote protocol (v4l-utils 1.22.1, Debian 12), written from the
 * wire format alone: it does not use libdvbv5's remote client, whose receive thread aborts on
 * answers whose length has a byte >= 0x80 (docs/tuner.md, "remote:").
 *
 * Wire: a frame is a u32 big-endian length L, then L bytes. Fields: %i int32 BE, %lu uint64
 * BE, %s int32 BE length + bytes (no NUL). Request: seq, cmd, arguments. Reply: seq, cmd,
 * retval, fields. Seq 0 frames come unasked: "log" (level, text), "dev_change", and
 * "data_read" (result, uid, then raw bytes to the end of the frame), which the daemon pushes
 * for every open demux/dvr to the connection that last sent daemon_get_version.
 *
 * Rules the 1.22.1 daemon imposes, followed here: daemon_get_version first (the others get
 * "daemon busy" until then); a request's length has no byte >= 0x80 and stays below 16364 (the
 * daemon sign-extends length bytes; requests are padded with zeros, which it ignores); all of
 * one tuner's files share one connection (closing any connection closes all devices).
 *
 * One thread at a time per connection (dvbv5_wire_on_wait lets it share its state while a
 * call sleeps). Calls are synchronous: they send and wait for the reply
 * with the same seq; frames that arrive meanwhile are dispatched (data to the uid's callback,
 * logs to the log callback), and so does dvbv5_wire_pump() when the caller's loop sees the fd
 * readable. Callbacks must not call into the same connection.
 *
 * Errors are -errno: -ETIMEDOUT (no reply in time; a late reply is dropped), -ENODEV (the
 * connection closed or failed; every later call answers it too), -EPROTO (a frame that does
 * not parse, e.g. a length below 12 or above DVBV5_WIRE_FRAME_MAX, breaks the connection the
 * same way; a reply whose fields do not parse fails only its call), the daemon's negative
 * retval otherwise. */
#ifndef FFDVB_DVBV5_WIRE_H
#define FFDVB_DVBV5_WIRE_H

#include <stddef.h>
#include <stdint.h>

#define DVBV5_WIRE_REQUEST_MAX 16363  /* the daemon's receive buffer is 16364 bytes */
#define DVBV5_WIRE_FRAME_MAX 32768    /* largest frame accepted; the daemon sends <= 16381 */
#define DVBV5_WIRE_MAX_SYSTEMS 20     /* libdvbv5's MAX_DELIVERY_SYSTEMS */
#define DVBV5_WIRE_MAX_PROPS 80       /* above the uapi's DTV_MAX_COMMAND */
#define DVBV5_WIRE_MAX_STATS_PROPS 32 /* the daemon sends 13 (DTV_NUM_STATS_PROPS) */
#define DVBV5_WIRE_STATS_LAYERS 4     /* libdvbv5's MAX_DTV_STATS */

struct dvbv5_wire;

/* uid: the daemon's id of the open file; result: read()'s result or -errno (len is then 0) */
typedef void (*dvbv5_wire_data_fn)(void *opaque, int uid, int result, const uint8_t *data,
				   size_t len);
typedef void (*dvbv5_wire_log_fn)(void *opaque, int level, const char *text);
/* waiting 1 just before a call sleeps in poll() for the daemon, 0 right after */
typedef void (*dvbv5_wire_wait_fn)(void *opaque, int waiting);

struct dvbv5_wire_prop {
	uint32_t cmd, data; /* only u.data travels: the dtv_stats of a statistics property do not */
};

/* What fe_get_parms answers (struct dvb_v5_fe_parms, field by field) and fe_set_parms sends. */
struct dvbv5_wire_fe_parms {
	char name[128];
	uint32_t freq_min, freq_max, stepsize, tolerance, sr_min, sr_max, sr_tolerance;
	int version, has_v5_stats, current_sys, num_systems, legacy_fe, abort, lna;
	char lnb[80];
	int sat_number, freq_bpf, diseqc_wait, verbose;
	char default_charset[64], output_charset[64];
	int systems[DVBV5_WIRE_MAX_SYSTEMS];
	int n_props, country, high_band, freq_offset;
	struct dvbv5_wire_prop props[DVBV5_WIRE_MAX_PROPS];
};

struct dvbv5_wire_fe_stats {
	uint32_t status; /* fe_status_t: FE_HAS_LOCK ... */
	int n_props;     /* DTV_STATUS, DTV_STAT_* ... with their first 4 bytes only */
	struct dvbv5_wire_prop props[DVBV5_WIRE_MAX_STATS_PROPS];
	struct {
		int has_post_ber, has_pre_ber, has_per;
		uint64_t counters[12]; /* libdvbv5's bit/block counters, in the daemon's order */
	} layers[DVBV5_WIRE_STATS_LAYERS];
};

/* connection */
int dvbv5_wire_connect(struct dvbv5_wire **out, const char *host, int port, int timeout_ms);
int dvbv5_wire_attach(struct dvbv5_wire **out, int fd); /* takes fd (a connected stream) */
void dvbv5_wire_close(struct dvbv5_wire *w);
int dvbv5_wire_fd(const struct dvbv5_wire *w);
void dvbv5_wire_set_timeout(struct dvbv5_wire *w, int timeout_ms); /* per call; default 5000 */
void dvbv5_wire_on_log(struct dvbv5_wire *w, dvbv5_wire_log_fn fn, void *opaque);
/* A thread that shares state with others releases its lock while the call sleeps: callbacks
 * (data, logs) always run outside the sleep, between waiting 0 and the next waiting 1. */
void dvbv5_wire_on_wait(struct dvbv5_wire *w, dvbv5_wire_wait_fn fn, void *opaque);
/* fn NULL removes; data for a uid without a callback is dropped (and counted) */
int dvbv5_wire_on_data(struct dvbv5_wire *w, int uid, dvbv5_wire_data_fn fn, void *opaque);
unsigned long dvbv5_wire_dropped(const struct dvbv5_wire *w);
/* dispatches the frames that arrive within timeout_ms (0: only what is there): count or -errno */
int dvbv5_wire_pump(struct dvbv5_wire *w, int timeout_ms);

/* commands */
int dvbv5_wire_get_version(struct dvbv5_wire *w, char *buf, size_t size);
int dvbv5_wire_dev_open(struct dvbv5_wire *w, const char *sysname, int flags); /* uid > 0 */
int dvbv5_wire_dev_close(struct dvbv5_wire *w, int uid);
int dvbv5_wire_dev_set_sys(struct dvbv5_wire *w, int sys);
/* before the filter starts (EBUSY after). dmxdev's default 8192 bytes overflow at once on a
 * whole transponder: in the VM (vidtv, PID 0x2000) 1.22.1's daemon forwarded two -EOVERFLOW
 * reads and then nothing more; with 188 * 1024 bytes the data flowed. */
int dvbv5_wire_dev_set_bufsize(struct dvbv5_wire *w, int uid, int size);
/* 1.22.1's daemon answers -EINVAL while the frontend was never tuned (its DTV_FREQUENCY is 0:
 * libdvbv5 takes the 0 from dvb_sat_real_freq for an error); tune once with
 * dvbv5_wire_fe_parms_init()'s parameters, then it answers. */
int dvbv5_wire_fe_get_parms(struct dvbv5_wire *w, struct dvbv5_wire_fe_parms *p);
/* sends p->props[0..n_props): n_props must be the daemon's (what fe_get_parms said, or
 * libdvbv5's property list of the delivery system + DTV_DELIVERY_SYSTEM) */
int dvbv5_wire_fe_set_parms(struct dvbv5_wire *w, const struct dvbv5_wire_fe_parms *p);
int dvbv5_wire_fe_get_stats(struct dvbv5_wire *w, struct dvbv5_wire_fe_stats *s);
int dvbv5_wire_dmx_set_pesfilter(struct dvbv5_wire *w, int uid, int pid, int type, int output,
				 int bufsize);
int dvbv5_wire_dmx_set_section_filter(struct dvbv5_wire *w, int uid, int pid, int filtsize,
				      const uint8_t filter[16], const uint8_t mask[16],
				      const uint8_t mode[16], int flags);
int dvbv5_wire_dmx_stop(struct dvbv5_wire *w, int uid);

/* libdvbv5's defaults for fe_set_parms without a prior fe_get_parms: props = cmds (values 0)
 * then DTV_DELIVERY_SYSTEM = sys, as libdvbv5 lays out its list; -EINVAL if too many */
int dvbv5_wire_fe_parms_init(struct dvbv5_wire_fe_parms *p, int sys, const uint32_t *cmds,
			     int n_cmds);
/* the payload length a request of n bytes is padded to (no byte >= 0x80) */
size_t dvbv5_wire_padded_len(size_t n);

#endif
