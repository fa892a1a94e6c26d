/* Preloaded before libfaketime by test_clock.py: timerfd_settime and
 * timerfd_gettime straight to the kernel.  libfaketime 0.9.10 moves an
 * absolute timer by its wall-clock offset even on CLOCK_MONOTONIC and with
 * FAKETIME_DONT_FAKE_MONOTONIC=1, so a wall clock "set back an hour" would
 * push the daemon's monotonic timers an hour away, which no real clock
 * change does (timerfd_create(2): CLOCK_MONOTONIC is not affected by
 * discontinuous changes of the system time). */
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <unistd.h>

int timerfd_settime(int fd, int flags, const struct itimerspec *new_value, struct itimerspec *old_value)
{
	return (int)syscall(SYS_timerfd_settime, fd, flags, new_value, old_value);
}

int timerfd_gettime(int fd, struct itimerspec *curr_value)
{
	return (int)syscall(SYS_timerfd_gettime, fd, curr_value);
}
