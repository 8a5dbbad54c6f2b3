/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The synthetic /sys/class/dvb (sysfs_view.h): for VDR's dvbsddevice probe (dev, device/ with
 * an av7110 subsystem id) and for libdvbv5's tools, which find devices through libudev: uevent
 * with the DVB_* keys dvb-core sends, a subsystem link in each entry, and a parent with a
 * subsystem (libudev drops a device whose parent has none; the view folder itself is that
 * parent, as /sys/class/dvb's entries have theirs in /sys/devices). */
#include "sysfs_view.h"
#include "log.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "ffdvb/card.h"

#define REAL_CLASS_DIR "/sys/class/dvb"
#define PARENT_SUBSYSTEM "/sys/bus/platform" /* any real bus: libudev only needs one */

/* av7110 "full-featured" cards: an SAA7146 bridge with a TechnoTrend subsystem id. 13c2:0003 is
   one of the ids dvbsddevice accepts (TT-budget/WinTV-NOVA-S... FF, Rev 2.1). */
static const struct { const char *name, *value; } device_files[] = {
	{ "vendor", "0x1131\n" },
	{ "device", "0x7146\n" },
	{ "subsystem_vendor", "0x13c2\n" },
	{ "subsystem_device", "0x0003\n" },
};

/* "<dir of control_path>/sys-class-dvb" */
static int view_dir(const char *control_path, char *out, size_t size)
{
	const char *slash = strrchr(control_path, '/');
	int dirlen = slash ? (int)(slash - control_path) : 1;
	const char *dir = slash ? control_path : ".";
	int n = snprintf(out, size, "%.*s/%s", dirlen, dir, FFDVBD_SYSFS_VIEW_NAME);

	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

/* A new file: never through a link someone planted, never into a FIFO or a file that is there
   (the callers remove ours first), so that root writes nothing outside the view. */
static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0444);
	size_t len = strlen(text);

	if (fd < 0)
		return -errno;
	if (write(fd, text, len) != (ssize_t)len) {
		int e = errno ? errno : EIO;

		close(fd);
		return -e;
	}
	return close(fd) == 0 ? 0 : -errno;
}

/* Removes one entry we made (only the files we write: never a recursive delete of whatever
   someone put there). */
static void remove_entry(const char *entry)
{
	char path[PATH_MAX];

	for (size_t i = 0; i < sizeof(device_files) / sizeof(device_files[0]); i++) {
		snprintf(path, sizeof(path), "%s/device/%s", entry, device_files[i].name);
		unlink(path);
	}
	snprintf(path, sizeof(path), "%s/device", entry);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/dev", entry);
	unlink(path);
	snprintf(path, sizeof(path), "%s/subsystem", entry);
	unlink(path);
	snprintf(path, sizeof(path), "%s/uevent", entry);
	unlink(path);
	rmdir(entry);
}

static int write_entry(const char *view, int adapter, const char *node, dev_t rdev)
{
	char entry[PATH_MAX], path[PATH_MAX + 32], text[256];
	unsigned int maj = major(rdev), min = minor(rdev);
	int type_len = (int)strcspn(node, "0123456789"); /* "frontend0" -> "frontend" */
	int rc;

	snprintf(entry, sizeof(entry), "%s/dvb%d.%s", view, adapter, node);
	remove_entry(entry); /* a stale one from a daemon that could not clean up */
	snprintf(path, sizeof(path), "%s/device", entry);
	if (mkdir(entry, 0755) != 0 || mkdir(path, 0755) != 0)
		return -errno;
	snprintf(path, sizeof(path), "%s/dev", entry);
	snprintf(text, sizeof(text), "%u:%u\n", maj, min);
	if ((rc = write_file(path, text)) < 0)
		return rc;
	snprintf(path, sizeof(path), "%s/uevent", entry);
	snprintf(text, sizeof(text),
		 "MAJOR=%u\nMINOR=%u\nDEVNAME=dvb/adapter%d/%s\nDVB_ADAPTER_NUM=%d\n"
		 "DVB_DEVICE_TYPE=%.*s\nDVB_DEVICE_NUM=%s\n",
		 maj, min, adapter, node, adapter, type_len, node, node + type_len);
	if ((rc = write_file(path, text)) < 0)
		return rc;
	snprintf(path, sizeof(path), "%s/subsystem", entry);
	if (symlink(REAL_CLASS_DIR, path) != 0)
		return -errno;
	for (size_t i = 0; i < sizeof(device_files) / sizeof(device_files[0]); i++) {
		snprintf(path, sizeof(path), "%s/device/%s", entry, device_files[i].name);
		if ((rc = write_file(path, device_files[i].value)) < 0)
			return rc;
	}
	return 0;
}

/* The view folder as the entries' parent device for libudev: a uevent and a subsystem. */
static int write_parent(const char *view)
{
	char path[PATH_MAX + 16];
	int rc;

	struct stat st;

	snprintf(path, sizeof(path), "%s/uevent", view);
	if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
		unlink(path); /* a link or anything else in its place: ours is a plain empty file */
		if ((rc = write_file(path, "")) < 0 && rc != -EEXIST)
			return rc; /* EEXIST: another adapter's daemon was quicker */
	}
	snprintf(path, sizeof(path), "%s/subsystem", view);
	if (symlink(PARENT_SUBSYSTEM, path) != 0 && errno != EEXIST)
		return -errno;
	return 0;
}

/* A symlink to each real entry (absolute target: the real ones are relative links into
   /sys/devices), so budget cards stay visible. Existing names are left alone. */
static void link_real_entries(const char *view)
{
	DIR *d = opendir(REAL_CLASS_DIR);
	struct dirent *e;

	if (!d)
		return; /* no dvb_core loaded: no real cards */
	while ((e = readdir(d))) {
		char real[PATH_MAX], src[PATH_MAX], link[PATH_MAX];

		if (e->d_name[0] == '.')
			continue;
		snprintf(src, sizeof(src), "%s/%s", REAL_CLASS_DIR, e->d_name);
		snprintf(link, sizeof(link), "%s/%s", view, e->d_name);
		if (!realpath(src, real))
			continue;
		if (symlink(real, link) != 0 && errno != EEXIST)
			ffdvbd_log(FFDVBD_LOG_INFO, "sysfs view: cannot link %s: %s", link,
				   strerror(errno));
	}
	closedir(d);
}

int ffdvbd_sysfs_view_add(const char *control_path, int adapter)
{
	char view[PATH_MAX] = "";
	int rc = view_dir(control_path, view, sizeof(view)), written = 0;

	if (rc < 0)
		goto fail;
	if (mkdir(view, 0755) != 0 && errno != EEXIST) {
		rc = -errno;
		goto fail;
	}
	/* one that was there must be our own folder, not a link to somewhere else */
	struct stat vst;

	if (lstat(view, &vst) != 0 || !S_ISDIR(vst.st_mode) || vst.st_uid != geteuid()) {
		rc = lstat(view, &vst) != 0 ? -errno : S_ISDIR(vst.st_mode) ? -EPERM : -ENOTDIR;
		goto fail;
	}
	if ((rc = write_parent(view)) < 0)
		goto fail;
	for (int t = 0; t < FFDVB_NODE_COUNT; t++) {
		const char *node = ffdvb_node_name(t);
		char dev[96];
		struct stat st;

		snprintf(dev, sizeof(dev), "/dev/dvb/adapter%d/%s", adapter, node);
		if (stat(dev, &st) != 0 || !S_ISCHR(st.st_mode))
			continue;
		/* VDR compares (MAJ << 8 | MIN) with st_rdev: only equal to makedev() below these */
		if (t == FFDVB_NODE_FRONTEND && (major(st.st_rdev) >= 4096 || minor(st.st_rdev) >= 256))
			ffdvbd_log(FFDVBD_LOG_WARNING, "sysfs view: %s is %u:%u, which VDR cannot match "
				   "(needs major < 4096, minor < 256)", dev, major(st.st_rdev),
				   minor(st.st_rdev));
		if ((rc = write_entry(view, adapter, node, st.st_rdev)) < 0)
			goto fail;
		written++;
	}
	link_real_entries(view);
	ffdvbd_log(FFDVBD_LOG_INFO, "sysfs view: %d entries for adapter %d in %s", written,
		   adapter, view);
	return 0;
fail:
	ffdvbd_log(FFDVBD_LOG_ERROR, "adapter %d: cannot write the sysfs view for VDR in %s: %s",
		   adapter, view, strerror(-rc));
	return rc;
}

void ffdvbd_sysfs_view_remove(const char *control_path, int adapter)
{
	char view[PATH_MAX], entry[PATH_MAX + 64];

	if (view_dir(control_path, view, sizeof(view)) < 0)
		return;
	for (int t = 0; t < FFDVB_NODE_COUNT; t++) {
		snprintf(entry, sizeof(entry), "%s/dvb%d.%s", view, adapter, ffdvb_node_name(t));
		remove_entry(entry);
	}
}
