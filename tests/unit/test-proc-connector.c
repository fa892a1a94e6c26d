/* The proc connector's datagrams parsed: the events of processes kept,
 * those of threads and of kinds discovery has no use for passed over, a
 * datagram cut short refused; and, where the kernel lets this test listen,
 * a real child's fork, exec and exit heard. */
#include "testlib.h"

#include <errno.h>
#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>
#include <poll.h>
#include <sys/wait.h>

#include "proc-connector.h"

struct heard {
	unsigned n;
	enum proc_connector_kind kind[4096];
	int pid[4096];
	int stop_at; /* fail with -EINTR at this event (1-based), or 0 */
};

static int on_event(void *userdata, enum proc_connector_kind kind, int pid)
{
	struct heard *h = userdata;
	if (h->stop_at && (int)h->n + 1 == h->stop_at)
		return -EINTR;
	if (h->n < ELEMENTSOF(h->kind)) {
		h->kind[h->n] = kind;
		h->pid[h->n] = pid;
	}
	h->n++;
	return 0;
}

/* One datagram as the kernel sends it: netlink header, cn_msg, proc_event. */
static size_t message(unsigned char *buf, uint32_t idx, const struct proc_event *ev, size_t ev_len)
{
	struct nlmsghdr nl = { .nlmsg_len = (uint32_t)(NLMSG_HDRLEN + sizeof(struct cn_msg) + ev_len),
			       .nlmsg_type = NLMSG_DONE };
	struct cn_msg cn = { .id = { .idx = idx, .val = CN_VAL_PROC }, .len = (uint16_t)ev_len };
	memset(buf, 0, NLMSG_ALIGN(nl.nlmsg_len));
	memcpy(buf, &nl, sizeof(nl));
	memcpy(buf + NLMSG_HDRLEN, &cn, sizeof(cn));
	memcpy(buf + NLMSG_HDRLEN + sizeof(cn), ev, ev_len);
	return NLMSG_ALIGN(nl.nlmsg_len);
}

static size_t fork_of(unsigned char *buf, int pid, int tgid)
{
	struct proc_event ev = { .what = PROC_EVENT_FORK };
	ev.event_data.fork.parent_pid = ev.event_data.fork.parent_tgid = 1;
	ev.event_data.fork.child_pid = pid;
	ev.event_data.fork.child_tgid = tgid;
	return message(buf, CN_IDX_PROC, &ev, sizeof(ev));
}

static size_t event_of(unsigned char *buf, enum what what, int pid, int tgid)
{
	struct proc_event ev = { .what = what };
	/* exec, exit, comm and id events begin alike */
	ev.event_data.exit.process_pid = pid;
	ev.event_data.exit.process_tgid = tgid;
	return message(buf, CN_IDX_PROC, &ev, sizeof(ev));
}

static void test_kinds(void **state)
{
	(void)state;
	unsigned char buf[4096];
	size_t len = 0;
	struct heard h = { 0 };

	len += fork_of(buf + len, 100, 100);                     /* a process: new */
	len += fork_of(buf + len, 101, 100);                     /* a thread: nothing */
	len += event_of(buf + len, PROC_EVENT_EXEC, 100, 100);   /* changed */
	len += event_of(buf + len, PROC_EVENT_COMM, 101, 100);   /* a thread's name: nothing */
	len += event_of(buf + len, PROC_EVENT_COMM, 100, 100);   /* changed */
	len += event_of(buf + len, PROC_EVENT_UID, 100, 100);    /* changed */
	len += event_of(buf + len, PROC_EVENT_GID, 100, 100);    /* no selector reads it */
	len += event_of(buf + len, PROC_EVENT_SID, 100, 100);
	len += event_of(buf + len, PROC_EVENT_EXIT, 101, 100);   /* a thread: nothing */
	len += event_of(buf + len, PROC_EVENT_EXIT, 100, 100);   /* gone */
	assert_true(len <= sizeof(buf));
	assert_int_equal(proc_connector_parse(buf, len, on_event, &h), 0);
	assert_int_equal(h.n, 5);
	const enum proc_connector_kind kinds[] = { PROC_CONNECTOR_NEW, PROC_CONNECTOR_CHANGED, PROC_CONNECTOR_CHANGED,
						   PROC_CONNECTOR_CHANGED, PROC_CONNECTOR_GONE };
	for (unsigned i = 0; i < 5; i++) {
		assert_int_equal(h.kind[i], kinds[i]);
		assert_int_equal(h.pid[i], 100);
	}

	/* the callback's error stops the parse and comes back */
	struct heard stop = { .stop_at = 2 };
	assert_int_equal(proc_connector_parse(buf, len, on_event, &stop), -EINTR);
	assert_int_equal(stop.n, 1);
}

static void test_bad_datagrams(void **state)
{
	(void)state;
	unsigned char buf[512];
	struct heard h = { 0 };
	size_t len = fork_of(buf, 7, 7);

	/* every length short of the whole message is refused or empty */
	for (size_t cut = 1; cut < len; cut++) {
		int r = proc_connector_parse(buf, cut, on_event, &h);
		assert_int_equal(r, -EBADMSG);
	}
	assert_int_equal(h.n, 0);
	/* a netlink length past the datagram */
	struct nlmsghdr *nl = (struct nlmsghdr *)buf;
	nl->nlmsg_len = (uint32_t)len + 8;
	assert_int_equal(proc_connector_parse(buf, len, on_event, &h), -EBADMSG);
	/* a cn_msg whose payload runs past its netlink message */
	len = fork_of(buf, 7, 7);
	((struct cn_msg *)(buf + NLMSG_HDRLEN))->len = 4000;
	assert_int_equal(proc_connector_parse(buf, len, on_event, &h), -EBADMSG);
	/* another connector's message: passed over */
	struct proc_event ev = { .what = PROC_EVENT_FORK };
	ev.event_data.fork.child_pid = ev.event_data.fork.child_tgid = 9;
	len = message(buf, CN_IDX_PROC + 1, &ev, sizeof(ev));
	assert_int_equal(proc_connector_parse(buf, len, on_event, &h), 0);
	assert_int_equal(h.n, 0);
	/* an error message (the kernel refusing the listen request) */
	len = fork_of(buf, 7, 7);
	nl->nlmsg_type = NLMSG_ERROR;
	assert_int_equal(proc_connector_parse(buf, len, on_event, &h), -EBADMSG);
	/* a pid of 0 is no process */
	len = fork_of(buf, 0, 0);
	assert_int_equal(proc_connector_parse(buf, len, on_event, &h), 0);
	assert_int_equal(h.n, 0);
	assert_int_equal(proc_connector_parse(buf, 0, on_event, &h), 0);
}

/* A real child: fork, exec of /bin/true, exit, heard through the real
 * socket with the filter attached. */
static void test_live(void **state)
{
	(void)state;
	int fd = proc_connector_open();
	if (fd == -EPERM || fd == -EACCES || fd == -EPROTONOSUPPORT || fd == -EAFNOSUPPORT) {
		skip(); /* no proc connector to listen to here */
	}
	assert_true(fd >= 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		execl("/bin/true", "true", (char *)NULL);
		_exit(127);
	}
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);

	static struct heard h; /* busy hosts fork a lot meanwhile */
	bool forked = false, execed = false, gone = false;
	for (int tries = 0; tries < 50 && !gone; tries++) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		(void)poll(&p, 1, 100);
		h.n = 0;
		int r = proc_connector_read(fd, on_event, &h);
		assert_true(r >= 0 || r == -ENOBUFS);
		for (unsigned i = 0; i < h.n && i < ELEMENTSOF(h.kind); i++) {
			if (h.pid[i] != pid)
				continue;
			forked |= h.kind[i] == PROC_CONNECTOR_NEW;
			execed |= h.kind[i] == PROC_CONNECTOR_CHANGED;
			gone |= h.kind[i] == PROC_CONNECTOR_GONE;
		}
	}
	assert_true(forked);
	assert_true(execed);
	assert_true(gone);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kinds),
		cmocka_unit_test(test_bad_datagrams),
		cmocka_unit_test(test_live),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
