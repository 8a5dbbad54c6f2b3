/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ffdvb ABI marshalling: pure functions, no FUSE, no I/O (the CUSE transport uses them).
 * For a request number they decide how the argument travels (a value, or _IOC_SIZE bytes in
 * and maybe out, as dvb-core's copy does), convert the 32-bit layouts of i386 callers to the
 * native ones and back, and describe the memory an embedded pointer names (still picture,
 * OSD data, DVBv5 property array) so that the transport can fetch it. Sources of the rules:
 * docs/av7110.md §10.1-§10.3, §7.2, §7.4. */
#ifndef FFDVB_ABI_MARSHAL_H
#define FFDVB_ABI_MARSHAL_H

#include <stddef.h>
#include <stdint.h>

#include <linux/dvb/frontend.h>

#include "ffdvb/abi.h"

/* which 32-bit layout a compat request uses (FFDVB_LAYOUT_NATIVE: the same as 64-bit) */
enum ffdvb_layout_conv {
	FFDVB_CONV_NONE,
	FFDVB_CONV_VIDEO_EVENT,
	FFDVB_CONV_STILL_PICTURE,
	FFDVB_CONV_OSD_CMD,
	FFDVB_CONV_OSD_CAP,
	FFDVB_CONV_DTV_PROPERTIES,
};

/* How one request's argument travels between caller and node. */
struct ffdvb_ioctl_layout {
	unsigned int native_cmd;   /* request number the node sees */
	size_t user_size;          /* bytes of the argument in the caller's layout (0: a value) */
	size_t native_size;        /* bytes of the argument in the native layout */
	int copy_out;              /* _IOC_READ: copy the argument back out on success */
	int compat;                /* caller is a 32-bit process (pointers and long are 4 bytes) */
	enum ffdvb_layout_conv conv;
};

/* Fills *lo for request cmd of a 64-bit (compat = 0) or 32-bit caller. Never fails: unknown
 * numbers travel as their _IOC bits say and the node decides (ENOTTY after the copy-in). */
void ffdvb_marshal_layout(unsigned int cmd, int compat, struct ffdvb_ioctl_layout *lo);

/* Caller layout -> native (user has lo->user_size bytes, native lo->native_size). */
void ffdvb_marshal_arg_in(const struct ffdvb_ioctl_layout *lo, const void *user, void *native);
/* Native -> caller layout, for the copy-out of _IOC_READ requests. */
void ffdvb_marshal_arg_out(const struct ffdvb_ioctl_layout *lo, const void *native, void *user);

/* The pointed-to memory a request carries. */
enum ffdvb_payload_kind {
	FFDVB_PAYLOAD_NONE,    /* nothing to fetch (also: Open/OpenRaw data is never dereferenced) */
	FFDVB_PAYLOAD_BLOCK,   /* len bytes at addr */
	FFDVB_PAYLOAD_ROWS,    /* rows of width bytes, row r at addr + r * stride */
	FFDVB_PAYLOAD_STRING,  /* NUL-terminated, at most len bytes read */
	FFDVB_PAYLOAD_PROPS,   /* count dtv_property entries, in and (FE_GET_PROPERTY) out */
};

struct ffdvb_payload {
	enum ffdvb_payload_kind kind;
	uint64_t addr;         /* in the caller's address space */
	size_t len;            /* bytes the node receives (ROWS: width * rows, no stride gaps) */
	size_t width, rows, stride;  /* ROWS */
	size_t count;          /* PROPS: entries */
	size_t user_elem;      /* PROPS: entry size in the caller (76, or 72 for i386) */
	int copy_out;          /* PROPS: write the array back on success (FE_GET_PROPERTY) */
};

/* largest still picture the transport copies (av7110 streamed it from the caller; we hold it
 * whole for the node): real ones are below 1 MB */
#define FFDVB_STILL_MAX (64u << 20)

#define FFDVB_OSD_MAX_W 720 /* SetBlock/SetRow limits of the driver (§7.4) */
#define FFDVB_OSD_MAX_H 576

/* Describes the payload named by the native argument of lo->native_cmd. Returns 0, or an
 * error when the request is refused before anything is fetched: -EINVAL for a props count
 * above DTV_IOCTL_MAX_MSGS (as dvb-core), -EFBIG for a still picture above FFDVB_STILL_MAX
 * (the caller passes it to the node as unreadable memory: such sizes come from bad
 * arguments, and av7110 answered those with EFAULT). A size the node will refuse (SetBlock
 * w == 0 ...) gives FFDVB_PAYLOAD_NONE so that the node sees its own error. */
int ffdvb_marshal_payload(const struct ffdvb_ioctl_layout *lo, const void *native,
			  struct ffdvb_payload *p);

/* DVBv5 property arrays: caller layout (lo->compat: 72-byte entries) <-> native 76-byte
 * struct dtv_property. */
void ffdvb_marshal_props_in(int compat, const void *user, struct dtv_property *native,
			    size_t count);
void ffdvb_marshal_props_out(int compat, const struct dtv_property *native, void *user,
			     size_t count);

/* Payloads too large for one CUSE ioctl retry travel in chunks: the next chunk of a BLOCK
 * or ROWS payload p after `have` bytes (ROWS: whole rows, a multiple of p->width), at most
 * room bytes and max_iov iovecs. Fills iov with addresses in the caller's space, returns the
 * iovec count and the chunk's bytes in *len (0 when nothing is left or room is below one
 * row). */
struct iovec;
size_t ffdvb_marshal_chunk(const struct ffdvb_payload *p, size_t have, size_t room,
			   struct iovec *iov, size_t max_iov, size_t *len);

/* OSD_Text: how many bytes to read next at addr + have so that the read ends at a page
 * boundary of the caller (never touching a page the string does not reach) and the total
 * stays within max. 0 when have >= max. */
size_t ffdvb_marshal_string_piece(uint64_t addr, size_t have, size_t max, size_t page_size);
/* Length of the string in buf[0..have): up to and including the NUL, or 0 if none yet. */
size_t ffdvb_marshal_string_len(const void *buf, size_t have);

/* The errno a reply may carry. FUSE carries only errnos below 512: a kernel-internal code that
 * a real driver lets through (vidtv's ENOTSUPP, 524, for FE_READ_SNR) would make the kernel
 * refuse the reply and leave the caller waiting for ever; ENOTSUPP becomes EOPNOTSUPP (what
 * the caller's libc can name), anything else above 511 EIO. */
int ffdvb_marshal_reply_errno(int err);

#endif
