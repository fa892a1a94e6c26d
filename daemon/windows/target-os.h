/* Following a Windows process (windows/target.c): the instance is its pid
 * and creation time, as a snapshot lists it; nothing is held open. */
#pragma once

#include <stdint.h>

#include "target.h"
#include "win-procs.h"

/* The image's full path of p (QueryFullProcessImageNameW), malloc'd
 * UTF-8, when p's pid still names the instance of p's creation time.
 * Returns 0 with *ret (NULL when it cannot be read: access denied),
 * -ESRCH when the process is gone or its pid is another's, -ENOMEM. */
int target_image_path(const struct win_proc *p, char **ret);

/* Starts following p, of the snapshot a pass just took: its owner (an
 * account name, or its SID where none names it), its image's path (exe,
 * as a pass may have read it already; NULL: read here).  Returns 0 with
 * *ret, -ESRCH when it exited meanwhile (or its pid is another's), or
 * -ENOMEM. */
int target_new_windows(const struct win_proc *p, const char *boot_id, const char *exe, int64_t now_ms,
		       struct target **ret);
