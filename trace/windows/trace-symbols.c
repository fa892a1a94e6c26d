/* Names for allocation sites on Windows: not available.  The Linux build
 * reads DWARF with libdw; a trace summary on Windows shows addresses, and
 * the same trace summarised on Linux, with the binary, names them. */
#include "trace-symbols.h"

#include <errno.h>
#include <stdlib.h>

int trace_symbols_open(const char *path, struct trace_symbols **ret, struct error *err)
{
	*ret = NULL;
	return error_set(err, -EOPNOTSUPP, "%s: symbols are read by the Linux build (libdw); this build shows addresses",
			 path);
}

/* The objects a Linux trace recorded are Linux files: their sites stay
 * addresses here, as any object that cannot be read does on Linux. */
int trace_symbols_open_objects(const struct trace_object *objects, size_t n, struct trace_symbols **ret,
			       struct error *err)
{
	(void)objects, (void)n, (void)err;
	*ret = NULL;
	return 0;
}

struct trace_symbols *trace_symbols_free(struct trace_symbols *s)
{
	(void)s;
	return NULL;
}

bool trace_symbols_lookup(struct trace_symbols *s, uint64_t address, const char **ret_function,
			  const char **ret_location, const char **ret_object)
{
	(void)s, (void)address, (void)ret_function, (void)ret_location, (void)ret_object;
	return false;
}
