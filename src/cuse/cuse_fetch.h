/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Reading a caller's memory for ioctl payloads with process_vm_readv(2): large still pictures
 * and OSD blocks exceed what one CUSE ioctl retry can carry (32 pages, 256 iovecs), and a bad
 * pointer must reach the node as data_fault (OSD answers EINVAL, not EFAULT). Needs ptrace
 * permission on the caller (a root daemon has it); without it the transport falls back to the
 * retry protocol for payloads that fit one retry (cuse_ioctl.c). */
#ifndef FFDVB_CUSE_FETCH_H
#define FFDVB_CUSE_FETCH_H

#include <stddef.h>
#include <sys/types.h>

#include "abi/marshal.h"

/* Reads payload p (BLOCK, ROWS or STRING) of process pid into dst (p->len bytes; ROWS rows
 * are stored without stride gaps). Returns the bytes stored (STRING: up to and including the
 * NUL, or p->len without one), -EFAULT when the caller's memory is not readable, or another
 * -errno (-EPERM, -ESRCH, -ENOSYS) when the caller cannot be read at all. */
ssize_t ffdvb_fetch_payload(pid_t pid, const struct ffdvb_payload *p, void *dst);

#endif
