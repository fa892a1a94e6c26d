/* The state directory's lock: one writing daemon per database. */
#pragma once

/* Takes the lock of state_dir (a file in it), so that a second daemon
 * started on the same directory does not write into the same database,
 * and writes our pid into it for the message the second one gives.
 * Returns 0 with the descriptor that holds the lock in *ret_fd (closing it
 * lets the lock go), -EBUSY when another process holds it, or -errno,
 * after logging why. */
int state_lock_take(const char *state_dir, int *ret_fd);
