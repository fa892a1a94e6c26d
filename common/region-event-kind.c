/* The names of region event kinds, in one table both ways. */
#include "region-event-kind.h"

#include <string.h>

static const char *const kind_names[_REGION_EVENT_KIND_MAX] = {
	[REGION_APPEARED] = "appeared",
	[REGION_DISAPPEARED] = "disappeared",
	[REGION_GREW] = "grew",
	[REGION_SHRANK] = "shrank",
};

const char *region_event_kind_name(enum region_event_kind k)
{
	return (unsigned)k < _REGION_EVENT_KIND_MAX ? kind_names[k] : "?";
}

int region_event_kind_from_name(const char *name)
{
	for (int i = 0; i < _REGION_EVENT_KIND_MAX; i++)
		if (strcmp(kind_names[i], name) == 0)
			return i;
	return -1;
}
