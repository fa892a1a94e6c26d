/* The systemd unit a cgroup's path names.  systemd puts each service,
 * scope (a login session, a container started by a container manager
 * through systemd) and socket in a cgroup of its own named after the unit,
 * below the slices that order them: "/system.slice/foo.service",
 * "/user.slice/user-1000.slice/session-2.scope",
 * "/machine.slice/libpod-ID.scope".  The metrics group processes by it
 * and the store names each memory cgroup by it; both ask here.  Pure. */
#pragma once

#include <stddef.h>

/* The unit of a cgroup path: its last component that names a unit that
 * holds processes (.service, .scope, .socket, .mount, .swap), as
 * "/user.slice/user-1000.slice/session-2.scope" gives "session-2.scope".
 * Returns its length with its start (inside path) in *ret, or 0 when
 * there is none (or path is NULL). */
size_t cgroup_unit_of_path(const char *path, const char **ret);
