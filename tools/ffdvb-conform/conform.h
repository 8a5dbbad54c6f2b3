/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ffdvb-conform: checks an adapter's video0/audio0/osd0/demux0 against the av7110 behaviour of
 * docs/av7110.md (the parts visible from user space). Works on any adapter:
 * ours or a real full-featured card. Uses only libc and include/ffdvb (the FFDVB_* request
 * macros with the plain structs, so a -m32 build issues the i386 request numbers).
 *
 * Every check prints one line "PASS|FAIL <name> (expected X, got Y)" or "SKIP <name> (why)".
 * Functions returning a result use 0 / a count on success and -errno on failure. */
#ifndef FFDVB_CONFORM_H
#define FFDVB_CONFORM_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "ffdvb/abi.h"

/* ---- run options (main.c) ---------------------------------------------------------------- */

struct conform_opts {
	const char *dir;     /* /dev/dvb/adapterN */
	const char *control; /* ffdvbd control socket or NULL */
	unsigned int seed;   /* robustness: random request numbers */
	int by_retry;        /* --payloads-by-retry: the device cannot read the caller's memory
				(ffdvbd after its privilege drop): the kernel answers EFAULT for
				unreadable payloads where av7110 says EINVAL */
};
extern struct conform_opts opts;

/* ---- report.c ---------------------------------------------------------------------------- */

/* A check name built like printf; valid until a few more calls (rotating buffers). */
const char *cname(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "EPERM" etc. for an errno value, "E<n>" when unknown. */
const char *errname(int err);
/* A result as text: "0", "123" or the errno name of a negative value. */
const char *rcname(long rc);

void check(const char *name, int ok, const char *want, const char *got_fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* want and got are results (value >= 0 or -errno) */
void check_rc(const char *name, long want, long got);
/* got must be one of the n results in allowed */
void check_rc_in(const char *name, const long *allowed, size_t n, long got);
void check_int(const char *name, long long want, long long got);
void check_hex(const char *name, unsigned long long want, unsigned long long got);
void skip(const char *name, const char *why_fmt, ...) __attribute__((format(printf, 2, 3)));
/* An informational line ("# ..."), not a check. */
void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints "N passed, M failed[, K skipped]"; returns the exit status. */
int report_summary(void);
/* The watchdog: counters live in memory shared with the parent process (report_init before
 * fork). report_stage names the running stage and gives it `seconds` (0 = no limit); the
 * parent prints a FAIL for it and the summary (report_abort) once report_overdue says so or
 * the checking process dies. */
void report_init(void);
void report_stage(const char *stage, int seconds);
int report_overdue(void);
void report_abort(const char *got);
int report_failed(void);

/* ---- dev.c: device access ----------------------------------------------------------------- */

/* Node path inside opts.dir: "video0" etc. */
const char *node_path(const char *node);
/* open(2) of a node: fd or -errno */
int dev_open(const char *node, int flags);
void dev_close(int *fd);
/* ioctl(2): result or -errno */
long dev_ioctl(int fd, unsigned long req, void *arg);
long dev_ioctl_val(int fd, unsigned long req, unsigned long val);
ssize_t dev_write(int fd, const void *buf, size_t len);
ssize_t dev_read(int fd, void *buf, size_t len);
int dev_set_nonblock(int fd, int on);
/* poll(2) of one fd: revents or -errno */
int dev_poll(int fd, short events, int timeout_ms);

/* The driver name /proc/devices gives for the node's major ("DVB" for dvb-core). 0 or -errno. */
int node_driver(const char *node, char *name, size_t len);
/* The node is not served by dvb-core (a CUSE daemon such as ffdvbd): a few av7110 details are
 * then out of reach of any implementation, because the kernel answers before the daemon. */
int node_is_cuse(const char *node);

long video_status(int fd, struct ffdvb_video_status *st);
long audio_status(int fd, struct ffdvb_audio_status *st);
/* Reads the video/audio status through a short-lived RO video fd / the given audio fd. */
long video_status_ro(struct ffdvb_video_status *st);

/* Brings the card into a known state (playback stopped, rings empty, sources DEMUX,
 * blank 0, letterbox, 4:3 TV, unmuted, stereo, sync on, OSD windows closed) and closes
 * everything it opened. Returns 0 or the first -errno. */
long card_reset(void);

/* A page nobody may read (PROT_NONE) and a buffer of n bytes that ends where such a page
 * begins (reading one byte more faults). Both live until exit. */
void *bad_page(void);
void *page_end_buf(size_t n);

/* ---- stream.c: test data ------------------------------------------------------------------ */

/* Fills buf with bounded MPEG-2 PES packets of stream_id, each 2048 bytes (len rounded down
 * to a multiple of 2048). Returns the length used. */
size_t make_pes(uint8_t *buf, size_t len, uint8_t stream_id);
/* Fills n TS packets (188 bytes each) carrying bounded PES packets of stream_id. */
void make_ts(uint8_t *buf, size_t n, uint8_t stream_id);
/* Pseudo-random bytes without 00 00 01 start codes, after a sequence header (for stills). */
void make_es(uint8_t *buf, size_t len, uint32_t seed);
/* iframe.c: one flat grey MPEG-1 intra picture (width, height multiples of 16) as a video
 * elementary stream, for VIDEO_STILLPICTURE; aspect_code is the sequence header's 4-bit
 * aspect field. Returns its size, 0 if cap is too small. */
size_t make_iframe(uint8_t *buf, size_t cap, int width, int height, int aspect_code);

/* Writes buf again and again without blocking (fd must be O_NONBLOCK) until the device says
 * EAGAIN. Returns bytes accepted, or -errno of another error. *first_partial receives the
 * count of the first short write (-1 if none) and *bad_unit is set when a partial count is not
 * a multiple of unit. */
long fill_ring(int fd, const uint8_t *buf, size_t len, size_t unit, long *first_partial,
	       int *bad_unit);

/* ---- child.c: operations that may block, in a child process -------------------------------- */

struct child {
	pid_t pid;
	int rfd; /* result pipe */
};
/* Runs fn(arg) in a child; its return value (a result) travels back through a pipe. */
int child_start(struct child *c, long (*fn)(void *arg), void *arg);
/* Waits up to timeout_ms for the result: 0 and *rc, or -ETIMEDOUT (child still running). */
int child_wait(struct child *c, int timeout_ms, long *rc);
/* SIGKILLs and reaps the child. */
void child_kill(struct child *c);
/* Installs handler for sig without SA_RESTART (so blocking calls see the signal). */
void signal_no_restart(int sig);

/* ---- control.c: ffdvbd control socket ----------------------------------------------------- */

/* Reads "status --json" into a malloc'd string. Returns it or NULL (errno set). */
char *control_status_json(const char *path);
/* Sends one command line (with its newline) and returns the whole answer (malloc'ed, NUL
 * after the end) and its length; NULL with errno set if the daemon is not there. */
char *control_command(const char *path, const char *cmd, size_t *len);
/* Finds "obj":{ ... "field":<number> ... } in json. Returns 0 or -ENOENT. */
int json_u64(const char *json, const char *obj, const char *field, unsigned long long *v);

/* ---- groups --------------------------------------------------------------------------------- */

void group_open(void);
void group_readonly(void);
void group_video(void);
void group_audio(void);
void group_osd(void);
void group_write(void);
void group_poll(void);
void group_events(void);
void group_demux(void);
void group_payload(void);
void group_robustness(void);

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

struct named_request {
	const char *name;
	unsigned long req;
};

/* video0 requests av7110 does not implement (removed from the headers, or never there) and
 * unknown ones: ENOTTY on a writer fd, EPERM on a read-only one (video_ioctls.c) */
extern const struct named_request video_unimplemented[];
extern const size_t video_unimplemented_count;

#endif
