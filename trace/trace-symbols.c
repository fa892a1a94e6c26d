/* Symbol lookup with libdwfl: the binary is reported at its own link-time
 * addresses; DWARF scopes give inlined functions, the
 * line table the location, and the ELF symbol table a name when there is
 * no DWARF.
 *
 * libdw is loaded at run time, when --symbols is given: linked in, it and
 * the libraries it pulls (libelf, zlib, lzma, bzip2) would add a quarter of
 * a millisecond to the start of every ramwatch command. */
#include "trace-symbols.h"

#include <dlfcn.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LIBDW "libdw.so.1"

/* The functions used, by the names of libdw's own prototypes. */
static struct {
	void *handle;
	__typeof__(dwfl_begin) *begin;
	__typeof__(dwfl_errmsg) *errmsg;
	__typeof__(dwfl_report_elf) *report_elf;
	__typeof__(dwfl_report_end) *report_end;
	__typeof__(dwfl_end) *end;
	__typeof__(dwfl_module_addrdie) *module_addrdie;
	__typeof__(dwarf_getscopes) *getscopes;
	__typeof__(dwarf_tag) *tag;
	__typeof__(dwarf_diename) *diename;
	__typeof__(dwfl_addrmodule) *addrmodule;
	__typeof__(dwfl_module_addrname) *module_addrname;
	__typeof__(dwfl_module_getsrc) *module_getsrc;
	__typeof__(dwfl_lineinfo) *lineinfo;
	__typeof__(dwfl_module_info) *module_info;
} dw;

static char *debuginfo_path;
static Dwfl_Callbacks callbacks = { .debuginfo_path = &debuginfo_path };

#define LOAD(field, name)                                                         \
	do {                                                                      \
		*(void **)&dw.field = dlsym(dw.handle, #name);                    \
		if (!dw.field)                                                    \
			return error_set(err, -ENOSYS, "%s has no %s", LIBDW, #name); \
	} while (0)

/* Loads libdw once.  Returns 0, or -ENOENT/-ENOSYS with a reason. */
static int load_libdw(struct error *err)
{
	if (dw.handle)
		return 0;
	dw.handle = dlopen(LIBDW, RTLD_NOW | RTLD_LOCAL);
	if (!dw.handle)
		return error_set(err, -ENOENT, "--symbols needs %s (elfutils; Debian's libdw1): %s", LIBDW,
				 dlerror());
	LOAD(begin, dwfl_begin);
	LOAD(errmsg, dwfl_errmsg);
	LOAD(report_elf, dwfl_report_elf);
	LOAD(report_end, dwfl_report_end);
	LOAD(end, dwfl_end);
	LOAD(module_addrdie, dwfl_module_addrdie);
	LOAD(getscopes, dwarf_getscopes);
	LOAD(tag, dwarf_tag);
	LOAD(diename, dwarf_diename);
	LOAD(addrmodule, dwfl_addrmodule);
	LOAD(module_addrname, dwfl_module_addrname);
	LOAD(module_getsrc, dwfl_module_getsrc);
	LOAD(lineinfo, dwfl_lineinfo);
	LOAD(module_info, dwfl_module_info);
	*(void **)&callbacks.find_elf = dlsym(dw.handle, "dwfl_build_id_find_elf");
	*(void **)&callbacks.find_debuginfo = dlsym(dw.handle, "dwfl_standard_find_debuginfo");
	*(void **)&callbacks.section_address = dlsym(dw.handle, "dwfl_offline_section_address");
	if (!callbacks.find_elf || !callbacks.find_debuginfo || !callbacks.section_address) {
		return error_set(err, -ENOSYS, "%s lacks its standard callbacks", LIBDW);
	}
	return 0;
}

struct trace_symbols {
	Dwfl *dwfl;
	char **strings; /* what lookups handed out, freed with s */
	size_t n, alloc;
};

/* libdw loaded and an empty session to report objects into. */
static int symbols_new(struct trace_symbols **ret, struct error *err)
{
	int r = load_libdw(err);
	if (r < 0)
		return r;
	struct trace_symbols *s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->dwfl = dw.begin(&callbacks);
	if (!s->dwfl) {
		error_set(err, -ENOMEM, "%s", dw.errmsg(-1));
		free(s);
		return -ENOMEM;
	}
	*ret = s;
	return 0;
}

int trace_symbols_open(const char *path, struct trace_symbols **ret, struct error *err)
{
	struct trace_symbols *s;
	int r = symbols_new(&s, err);
	if (r < 0)
		return r;
	/* at the addresses it was linked for: base 0, not adding the first
	 * segment's address (dwfl_report_offline would move a PIE or a
	 * library to 0x10000) */
	if (!dw.report_elf(s->dwfl, path, path, -1, 0, false)) {
		int saved = errno;
		error_set(err, saved > 0 ? -saved : -ENOEXEC, "%s", dw.errmsg(-1));
		trace_symbols_free(s);
		return saved > 0 ? -saved : -ENOEXEC;
	}
	dw.report_end(s->dwfl, NULL, NULL);
	*ret = s;
	return 0;
}

int trace_symbols_open_objects(const struct trace_object *objects, size_t n, struct trace_symbols **ret,
			       struct error *err)
{
	struct trace_symbols *s;
	int r = symbols_new(&s, err);
	if (r < 0)
		return r;
	/* base: the load bias, which dwfl adds to an ET_DYN object's
	 * addresses (a fixed-address executable has bias 0) */
	for (size_t i = 0; i < n; i++)
		(void)dw.report_elf(s->dwfl, objects[i].path, objects[i].path, -1, objects[i].bias, false);
	dw.report_end(s->dwfl, NULL, NULL);
	*ret = s;
	return 0;
}

struct trace_symbols *trace_symbols_free(struct trace_symbols *s)
{
	if (!s)
		return NULL;
	for (size_t i = 0; i < s->n; i++)
		free(s->strings[i]);
	free(s->strings);
	if (s->dwfl)
		dw.end(s->dwfl);
	free(s);
	return NULL;
}

static const char *keep(struct trace_symbols *s, char *str)
{
	if (!str)
		return NULL;
	if (s->n == s->alloc) {
		size_t alloc = s->alloc ? s->alloc * 2 : 16;
		char **v = realloc(s->strings, alloc * sizeof(*v));
		if (!v) {
			free(str);
			return NULL;
		}
		s->strings = v;
		s->alloc = alloc;
	}
	return s->strings[s->n++] = str;
}

/* The innermost function holding pc: an inlined subroutine's name when
 * the address is in inlined code, else the subprogram's. */
static const char *dwarf_function(Dwfl_Module *m, Dwarf_Addr address)
{
	Dwarf_Addr bias;
	Dwarf_Die *cu = dw.module_addrdie(m, address, &bias);
	Dwarf_Die *scopes = NULL;
	const char *name = NULL;

	if (!cu)
		return NULL;
	int n = dw.getscopes(cu, address - bias, &scopes);
	for (int i = 0; i < n && !name; i++) {
		int tag = dw.tag(&scopes[i]);
		if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine)
			name = dw.diename(&scopes[i]);
	}
	free(scopes);
	return name;
}

bool trace_symbols_lookup(struct trace_symbols *s, uint64_t address, const char **ret_function,
			  const char **ret_location, const char **ret_object)
{
	Dwfl_Module *m = dw.addrmodule(s->dwfl, address);
	const char *function = NULL, *file = NULL, *loc;
	char *location = NULL;
	int line = 0;

	if (!m)
		return false;
	function = dwarf_function(m, address);
	if (!function)
		function = dw.module_addrname(m, address);
	Dwfl_Line *l = dw.module_getsrc(m, address);
	if (l)
		file = dw.lineinfo(l, NULL, &line, NULL, NULL, NULL);
	if (!function && !file)
		return false;
	if (file && asprintf(&location, "%s:%d", file, line) < 0)
		location = NULL;
	loc = location ? keep(s, location) : NULL;
	*ret_function = function ? function : "??";
	*ret_location = loc ? loc : "??";
	/* the name it was reported under: the object's path */
	*ret_object = dw.module_info(m, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
	if (!*ret_object)
		*ret_object = "??";
	return true;
}
