/* The state directory's lock: one writing daemon per database.  The lock
 * is a file in the directory, held for as long as the daemon runs and let
 * go by the system when the process ends however it ends, so that a crash
 * never leaves a stale lock behind.  linux/state-lock.c takes it with
 * flock(2); Windows has none yet (LockFileEx would take it). */
#pragma once

struct state_lock;

/* Takes the lock of state_dir, so that a second daemon started on the same
 * directory does not write into the same database, and writes our pid into
 * it for the message the second one gives.  Returns 0 with the held lock in
 * *ret, -EBUSY when another process holds it, or -errno, after logging
 * why. */
int state_lock_take(const char *state_dir, struct state_lock **ret);
/* Lets the lock go.  Accepts NULL, returns NULL. */
struct state_lock *state_lock_release(struct state_lock *l);
