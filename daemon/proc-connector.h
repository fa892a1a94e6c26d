/* The proc connector (netlink, CN_IDX_PROC): the kernel tells a listener
 * of every fork, exec, change of name or user and exit on the host, so
 * discovery learns which processes are new or changed without listing and
 * reading every process each DiscoverInterval.
 *
 * Listening needs CAP_NET_ADMIN in the initial user namespace and the
 * initial network namespace (drivers/connector/cn_proc.c); without it, or
 * on a kernel built without CONFIG_PROC_EVENTS, opening fails and
 * discovery lists the proc root as before.  Messages lost to a full
 * receive buffer are told (ENOBUFS), and the caller must then assume
 * anything changed.
 *
 * Parsing is separate from the socket: proc_connector_parse takes the
 * bytes of one datagram. */
#pragma once

#include <stddef.h>

enum proc_connector_kind {
	PROC_CONNECTOR_NEW,     /* a new process (a fork; threads are not told) */
	PROC_CONNECTOR_CHANGED, /* exec, a new name (comm) or a new uid */
	PROC_CONNECTOR_GONE,    /* the process (its thread group leader) exited */
};

/* Called for each event of a process; returns 0, or a negative errno that
 * stops the parse and is returned. */
typedef int (*proc_connector_event_t)(void *userdata, enum proc_connector_kind kind, int pid);

/* Opens a socket listening to the proc connector, non-blocking.  Returns
 * the descriptor, or -errno: -EPERM or -EACCES without CAP_NET_ADMIN,
 * -EPROTONOSUPPORT in another network namespace or without the
 * connector, -EAFNOSUPPORT without netlink (a seccomp filter or
 * RestrictAddressFamilies= that leaves it out). */
int proc_connector_open(void);

/* Reads every datagram waiting on fd and hands their events to fn.
 * Returns the number of datagrams read, -ENOBUFS when the kernel dropped
 * some (the events after the drop are still read on the next call),
 * fn's error, or another negative errno. */
int proc_connector_read(int fd, proc_connector_event_t fn, void *userdata);

/* The events of one datagram (netlink messages, each holding a cn_msg
 * holding a proc_event).  Messages of other connectors, thread events,
 * and kinds discovery has no use for are passed over.  Returns 0, fn's
 * error, or -EBADMSG for a datagram cut short or inconsistent. */
int proc_connector_parse(const void *buf, size_t len, proc_connector_event_t fn, void *userdata);
