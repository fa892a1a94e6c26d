/* Readers of /proc: open /proc/PID once, then read the files inside it with
 * openat.  The proc root is a directory fd, so tests use fixture trees.
 *
 * ENOENT and ESRCH mean the process is gone: callers treat that as a normal
 * outcome, not an error to shout about. */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "proc-parse.h"

/* Opens the proc root ("/proc" when path is NULL).  Returns an fd or -errno. */
int procfs_open_root(const char *path);

/* Opens root/PID as a directory (O_NOFOLLOW).  Returns an fd or -errno
 * (-ENOENT: no such process). */
int procfs_open_pid(int root_fd, int pid);

int procfs_read_stat(int pid_fd, struct proc_stat *ret);
int procfs_read_status(int pid_fd, struct proc_status *ret);

/* Opens pid_fd's statm to be read again and again with procfs_pread_statm
 * (a file of /proc/PID answers each read afresh from offset 0).  Returns
 * an fd or -errno (-EMFILE, -ENFILE: out of descriptors). */
int procfs_open_statm(int pid_fd);

/* Reads the statm behind fd from offset 0.  Returns 0, -ESRCH when the
 * process has exited (the kernel answers ESRCH, or nothing at all), or
 * another negative errno. */
int procfs_pread_statm(int fd, struct proc_statm *ret);

/* Reads the text of the statm behind fd from offset 0 into buf (size
 * bytes, RW_STATM_TEXT_MAX is enough), its length in *ret_len, for a
 * caller that compares the text before it parses it (statm_parse).
 * Returns 0, -ESRCH as procfs_pread_statm, -EBADMSG when it fills buf, or
 * another negative errno. */
int procfs_pread_statm_text(int fd, char *buf, size_t size, size_t *ret_len);

/* The arguments joined by spaces (at most RW_CMDLINE_MAX bytes), newly
 * allocated; "" for a process without arguments. */
int procfs_read_cmdline(int pid_fd, char **ret);

/* The target of the exe link, newly allocated.  -EACCES without the right
 * to follow it, -ENOENT for kernel threads. */
int procfs_read_exe(int pid_fd, char **ret);

/* The cgroup v2 path of the process ("/system.slice/x.service"), newly
 * allocated; -ENODATA without cgroup v2. */
int procfs_read_cgroup(int pid_fd, char **ret);

/* root/sys/kernel/random/boot_id without its newline, newly allocated. */
int procfs_read_boot_id(int root_fd, char **ret);

/* The stack pointers of the process's threads (task/TID/syscall), sorted,
 * newly allocated in *ret (may be NULL when there are none), their count in
 * *ret_n and the threads listed in *ret_threads.  Threads that are running
 * or that vanish are skipped.  Returns 0, or -EACCES when no syscall file
 * could be read (it needs ptrace access to the target). */
int procfs_read_stack_pointers(int pid_fd, uint64_t **ret, size_t *ret_n, size_t *ret_threads);

/* Whether the process behind pid_fd is still the instance that started at
 * start_time: its stat answers, it is not a zombie, and its start time is
 * unchanged.  Returns 1 (alive), 0 (exited) or -errno. */
int procfs_still_alive(int pid_fd, uint64_t start_time);

/* Calls fn for every numeric entry of the proc root (every process).
 * Stops and returns fn's value when it is negative; returns 0 or -errno. */
int procfs_for_each_pid(int root_fd, int (*fn)(int pid, void *userdata), void *userdata);
