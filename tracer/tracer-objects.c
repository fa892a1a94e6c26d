/* The objects loaded in the program when the trace stops, one "object"
 * line each: "path" the file, "address" its load bias (what the loader
 * added to the object's own addresses: 0 for a fixed-address executable),
 * "len" the bytes from there to the end of its last segment.  With them
 * `ramwatch trace summary --sites` names the sites in the program and in
 * every shared library.  An object unloaded before the end (dlclose) is
 * not listed: its sites stay addresses. */
#include <link.h>
#include <string.h>
#include <unistd.h>

#include "tracer.h"

static int one(struct dl_phdr_info *info, size_t size, void *data)
{
	char exe[512];
	const char *path = info->dlpi_name;
	uint64_t end = 0;

	(void)size;
	if (*(int *)data == 0) {
		/* the first object is the program; its name is empty */
		ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
		exe[n > 0 ? n : 0] = 0;
		path = exe;
	}
	(*(int *)data)++;
	if (path[0] != '/')
		return 0; /* the vDSO has no file */
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *p = &info->dlpi_phdr[i];
		if (p->p_type == PT_LOAD && p->p_vaddr + p->p_memsz > end)
			end = p->p_vaddr + p->p_memsz;
	}
	tracer_out_str("{\"seq\":");
	tracer_out_u64(tracer_writer_next_seq());
	tracer_out_str(",\"kind\":\"object\",\"address\":");
	tracer_out_u64(info->dlpi_addr);
	tracer_out_str(",\"len\":");
	tracer_out_u64(end);
	tracer_out_str(",\"path\":");
	tracer_out_json_string(path);
	tracer_out_str("}\n");
	return 0;
}

void tracer_objects_write(void)
{
	int n = 0;
	dl_iterate_phdr(one, &n);
}
