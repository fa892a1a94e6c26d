/* The proc connector (proc-connector.h): a netlink socket, a filter that
 * keeps threads' events out of it, and the parse of its datagrams.
 *
 * Workload: every fork, exec and exit on the host reaches the daemon, a
 * few hundred a second on a busy build machine.  Thread creation and exit
 * are told as fork and exit too, and are the most numerous on hosts of
 * JVMs and thread pools: the socket filter drops them in the kernel, so
 * they neither wake the daemon nor fill its receive buffer. */
#include "proc-connector.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/filter.h>
#include <linux/netlink.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "limits.h"
#include "macro.h"

/* Offsets in a datagram of the proc connector: one netlink header, one
 * cn_msg, one proc_event (include/uapi/linux/cn_proc.h). */
#define EVENT_AT (NLMSG_HDRLEN + sizeof(struct cn_msg))
#define WHAT_AT (EVENT_AT + offsetof(struct proc_event, what))
#define DATA_AT (EVENT_AT + offsetof(struct proc_event, event_data))
#define FORK_CHILD_PID_AT (DATA_AT + offsetof(struct fork_proc_event, child_pid))
#define FORK_CHILD_TGID_AT (DATA_AT + offsetof(struct fork_proc_event, child_tgid))
/* exec, exit, comm and id events all begin with process_pid, process_tgid */
#define PROCESS_PID_AT (DATA_AT + offsetof(struct exit_proc_event, process_pid))
#define PROCESS_TGID_AT (DATA_AT + offsetof(struct exit_proc_event, process_tgid))

/* Keeps the events of processes (a fork whose child is a thread group
 * leader; exec; exit, comm and uid of a leader) and drops the rest.  A
 * word loaded by BPF_ABS is in network order, so the kinds are compared
 * in network order too; pid against tgid compares like with like. */
static const struct sock_filter filter[] = {
	/* 0 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, WHAT_AT),
	/* 1 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 5, 0), /* fork: 7 */
	/* 2 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 13, 0), /* exec: keep */
	/* 3 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 7, 0), /* exit: 11 */
	/* 4 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 6, 0), /* comm: 11 */
	/* 5 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 5, 0), /* uid: 11 */
	/* 6 */ BPF_STMT(BPF_RET | BPF_K, 0),
	/* 7 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, FORK_CHILD_TGID_AT),
	/* 8 */ BPF_STMT(BPF_ST, 0),
	/* 9 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, FORK_CHILD_PID_AT),
	/* 10 */ BPF_STMT(BPF_JMP | BPF_JA, 3),
	/* 11 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, PROCESS_TGID_AT),
	/* 12 */ BPF_STMT(BPF_ST, 0),
	/* 13 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, PROCESS_PID_AT),
	/* 14 */ BPF_STMT(BPF_LDX | BPF_MEM, 0),
	/* 15 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_X, 0, 0, 1),
	/* 16 */ BPF_STMT(BPF_RET | BPF_K, 0xffffffffu),
	/* 17 */ BPF_STMT(BPF_RET | BPF_K, 0),
};

static int attach_filter(int fd)
{
	struct sock_filter code[ELEMENTSOF(filter)];
	memcpy(code, filter, sizeof(code));
	code[1].k = htonl(PROC_EVENT_FORK);
	code[2].k = htonl(PROC_EVENT_EXEC);
	code[3].k = htonl(PROC_EVENT_EXIT);
	code[4].k = htonl(PROC_EVENT_COMM);
	code[5].k = htonl(PROC_EVENT_UID);
	struct sock_fprog prog = { .len = ELEMENTSOF(code), .filter = code };
	return setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog)) < 0 ? -errno : 0;
}

int proc_connector_open(void)
{
	struct {
		struct nlmsghdr nl;
		struct cn_msg cn;
		uint32_t op;
	} __attribute__((packed)) listen = {
		.nl = { .nlmsg_len = sizeof(listen), .nlmsg_type = NLMSG_DONE, .nlmsg_pid = 0 },
		.cn = { .id = { .idx = CN_IDX_PROC, .val = CN_VAL_PROC }, .len = sizeof(uint32_t) },
		.op = PROC_CN_MCAST_LISTEN,
	};
	struct sockaddr_nl addr = { .nl_family = AF_NETLINK, .nl_groups = CN_IDX_PROC };
	int size = (int)RW_PROC_CONNECTOR_BUFFER;
	int fd, r;

	fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, NETLINK_CONNECTOR);
	if (fd < 0)
		return -errno;
	/* before bind: no event reaches the socket unfiltered */
	if ((r = attach_filter(fd)) < 0)
		goto fail;
	/* a burst of forks between two turns of the loop must fit: past the
	 * buffer the kernel drops events and discovery lists everything
	 * again.  FORCE passes over net.core.rmem_max, with CAP_NET_ADMIN,
	 * which listening needs anyway. */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)) < 0)
		(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	if (bind(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
		r = -errno;
		goto fail;
	}
	/* the kernel checks the capability here (EPERM), not at bind */
	if (send(fd, &listen, sizeof(listen), 0) < 0) {
		r = -errno;
		goto fail;
	}
	return fd;
fail:
	close(fd);
	return r;
}

int proc_connector_parse(const void *buf, size_t len, proc_connector_event_t fn, void *userdata)
{
	const unsigned char *p = buf;

	while (len > 0) {
		struct nlmsghdr nl;
		struct cn_msg cn;
		struct proc_event ev;

		if (len < sizeof(nl))
			return -EBADMSG;
		memcpy(&nl, p, sizeof(nl));
		if (nl.nlmsg_len < sizeof(nl) || nl.nlmsg_len > len)
			return -EBADMSG;
		size_t step = NLMSG_ALIGN(nl.nlmsg_len) < len ? NLMSG_ALIGN(nl.nlmsg_len) : len;
		const unsigned char *body = p + NLMSG_HDRLEN;
		size_t body_len = nl.nlmsg_len >= NLMSG_HDRLEN ? nl.nlmsg_len - NLMSG_HDRLEN : 0;
		p += step;
		len -= step;
		if (nl.nlmsg_type == NLMSG_NOOP)
			continue;
		if (nl.nlmsg_type == NLMSG_ERROR || nl.nlmsg_type == NLMSG_OVERRUN)
			return -EBADMSG;
		if (body_len < sizeof(cn))
			return -EBADMSG;
		memcpy(&cn, body, sizeof(cn));
		if (cn.id.idx != CN_IDX_PROC || cn.id.val != CN_VAL_PROC)
			continue;
		if (cn.len > body_len - sizeof(cn))
			return -EBADMSG;
		/* the kernel's proc_event may grow: a shorter one is cut short,
		 * a longer one keeps the members we know at their place */
		if (cn.len < offsetof(struct proc_event, event_data) + sizeof(ev.event_data.fork))
			return -EBADMSG;
		memset(&ev, 0, sizeof(ev));
		memcpy(&ev, body + sizeof(cn), cn.len < sizeof(ev) ? cn.len : sizeof(ev));

		enum proc_connector_kind kind;
		int pid;
		switch (ev.what) {
		case PROC_EVENT_FORK:
			if (ev.event_data.fork.child_pid != ev.event_data.fork.child_tgid)
				continue; /* a new thread */
			kind = PROC_CONNECTOR_NEW;
			pid = ev.event_data.fork.child_tgid;
			break;
		case PROC_EVENT_EXEC:
			kind = PROC_CONNECTOR_CHANGED;
			pid = ev.event_data.exec.process_tgid;
			break;
		case PROC_EVENT_COMM:
		case PROC_EVENT_UID:
			/* a thread's own name or credentials: the selectors read
			 * the leader's */
			if (ev.event_data.comm.process_pid != ev.event_data.comm.process_tgid)
				continue;
			kind = PROC_CONNECTOR_CHANGED;
			pid = ev.event_data.comm.process_tgid;
			break;
		case PROC_EVENT_EXIT:
			if (ev.event_data.exit.process_pid != ev.event_data.exit.process_tgid)
				continue;
			kind = PROC_CONNECTOR_GONE;
			pid = ev.event_data.exit.process_tgid;
			break;
		default:
			continue;
		}
		if (pid <= 0)
			continue;
		int r = fn(userdata, kind, pid);
		if (r < 0)
			return r;
	}
	return 0;
}

int proc_connector_read(int fd, proc_connector_event_t fn, void *userdata)
{
	/* one proc_event is about 70 bytes; the kernel sends one a datagram */
	unsigned char buf[4096] __attribute__((aligned(NLMSG_ALIGNTO)));
	int n = 0;

	for (;;) {
		struct sockaddr_nl from;
		socklen_t from_len = sizeof(from);
		ssize_t got = recvfrom(fd, buf, sizeof(buf), 0, (struct sockaddr *)&from, &from_len);
		if (got < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				return n;
			return -errno;
		}
		/* only the kernel (port 0) speaks for the connector */
		if (from_len < sizeof(from) || from.nl_pid != 0)
			continue;
		n++;
		int r = proc_connector_parse(buf, (size_t)got, fn, userdata);
		if (r < 0 && r != -EBADMSG)
			return r;
	}
}
