/* The file behind a mapping of a process, opened from outside: a JVM's
 * hsperfdata file, an allocator's library (to read its version).  The
 * census's region says which file (its path as the process sees it, its
 * inode); this opens that very file, never another one at the same path:
 *   - /proc/PID/map_files/START-END, the file mapped itself (it needs
 *     CAP_SYS_ADMIN: the daemon has it), even when deleted;
 *   - else the path inside /proc/PID/root, resolved with openat2's
 *     RESOLVE_IN_ROOT (Linux 5.6), so that the process's own symbolic
 *     links cannot lead outside its root (a container's), and checked to
 *     be a regular file with the mapping's inode.
 * For a saved census (no process), the path on this machine, with the
 * inode check: a capture of this machine's processes finds its
 * libraries; one from elsewhere does not, and says so. */
#pragma once

#include <stddef.h>

#include "region.h"

/* Opens the file of mapping r of process pid (pid <= 0: a saved census)
 * for reading, proc_root being "/proc" (a fixture tree in tests).
 * Returns an fd (close-on-exec), or -ESRCH when the process is gone, or
 * another -errno with a sentence in why: -ESTALE when the file found is
 * not the one mapped, -ENOENT for a deleted file without map_files. */
int mapping_file_open(const char *proc_root, int pid, const struct region *r, char *why, size_t why_size);
