/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libFuzzer target for our client of dvbv5-daemon's wire protocol (src/frontend/dvbv5_wire.c):
 * what comes from the network is untrusted. The input is what the "daemon" sends, through a
 * socketpair, while the client asks for the version, the frontend parameters and statistics,
 * opens a device and pumps pushed data. Any frame must give a result or an error, never a read
 * or write out of bounds (ASan/UBSan), a hang (every call has a timeout; the peer is closed)
 * or a string without its end. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "dvbv5_wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static size_t pushed;

static void on_data(void *opaque, int uid, int result, const uint8_t *buf, size_t len)
{
	(void)opaque;
	(void)uid;
	if (result < 0 && len)
		abort();
	for (size_t i = 0; i < len; i++) /* every byte readable */
		pushed += buf[i];
}

static void on_log(void *opaque, int level, const char *text)
{
	(void)opaque;
	(void)level;
	pushed += strlen(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dvbv5_wire *w;
	struct dvbv5_wire_fe_parms parms;
	struct dvbv5_wire_fe_stats stats;
	char version[64];
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
		return 0;
	/* the whole "reply stream" is there before the first request; then the peer is gone */
	if (size && write(sv[1], data, size) != (ssize_t)size) {
		close(sv[0]);
		close(sv[1]);
		return 0;
	}
	shutdown(sv[1], SHUT_WR);
	if (dvbv5_wire_attach(&w, sv[0]) != 0) {
		close(sv[1]);
		return 0;
	}
	dvbv5_wire_set_timeout(w, 50);
	dvbv5_wire_on_log(w, on_log, NULL);
	if (dvbv5_wire_get_version(w, version, sizeof(version)) >= 0 &&
	    !memchr(version, '\0', sizeof(version)))
		abort();
	dvbv5_wire_fe_get_parms(w, &parms);
	dvbv5_wire_fe_get_stats(w, &stats);
	int uid = dvbv5_wire_dev_open(w, "dvb0.frontend0", 0);

	if (uid > 0)
		dvbv5_wire_on_data(w, uid, on_data, NULL);
	dvbv5_wire_pump(w, 0);
	dvbv5_wire_close(w);
	close(sv[1]);
	return 0;
}
