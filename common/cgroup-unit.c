/* The systemd unit of a cgroup path (cgroup-unit.h). */
#include "cgroup-unit.h"

#include <stdbool.h>
#include <string.h>

#include "macro.h"

/* The unit types whose units hold processes (systemd.unit(5)); a slice
 * only holds other units, so a process is never directly in one. */
static bool is_unit_name(const char *s, size_t n)
{
	static const char *const suffixes[] = { ".service", ".scope", ".socket", ".mount", ".swap" };

	for (size_t i = 0; i < ELEMENTSOF(suffixes); i++) {
		size_t k = strlen(suffixes[i]);
		if (n > k && memcmp(s + n - k, suffixes[i], k) == 0)
			return true;
	}
	return false;
}

size_t cgroup_unit_of_path(const char *path, const char **ret)
{
	const char *end;

	if (!path)
		return 0;
	/* from the last component back: a unit may have cgroups of its own
	 * below it (a delegated service's payload, a container's init.scope),
	 * and a unit of the user's manager lies below user@UID.service */
	end = path + strlen(path);
	while (end > path) {
		const char *start = end;
		while (start > path && start[-1] != '/')
			start--;
		if (is_unit_name(start, (size_t)(end - start))) {
			*ret = start;
			return (size_t)(end - start);
		}
		end = start > path ? start - 1 : path;
	}
	return 0;
}
