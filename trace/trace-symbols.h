/* Names for allocation sites: a return address resolved to its function
 * and source location in a binary's symbols and DWARF (elfutils libdw).
 * Addresses are taken as the binary's own (link-time) addresses, as
 * addr2line -e takes them: for a position-independent executable or a
 * library, subtract its load address first. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "trace-analyzer.h"
#include "trace-event.h"

#include "error.h"

struct trace_symbols;

/* Opens the binary at path.  Returns 0 and *ret, or a negative errno with
 * a reason in err. */
int trace_symbols_open(const char *path, struct trace_symbols **ret, struct error *err);
/* Opens the objects a trace recorded, each at its load bias, so that
 * addresses are the traced process's own.  An object that cannot be read
 * (gone, or not ELF) is left out: its sites stay addresses.  Returns 0 and
 * *ret, or a negative errno with a reason in err (libdw missing). */
int trace_symbols_open_objects(const struct trace_object *objects, size_t n, struct trace_symbols **ret,
			       struct error *err);
/* Accepts NULL; returns NULL. */
struct trace_symbols *trace_symbols_free(struct trace_symbols *s);

/* Resolves address: true with *ret_function (the innermost function,
 * inlined ones included; "??" when only the line is known),
 * *ret_location ("file:line", "??" when unknown) and *ret_object (the
 * path of the binary or library holding it), owned by s until it is
 * freed; false when the address is in no function and no line of it. */
bool trace_symbols_lookup(struct trace_symbols *s, uint64_t address, const char **ret_function,
			  const char **ret_location, const char **ret_object);
/* The same for the call a return address follows: a return address is the
 * instruction after the call, which may be on the next line or in the next
 * function (a call to a function that does not return, last in its
 * caller), so the byte before it is looked up.  0 is never found. */
static inline bool trace_symbols_lookup_return(struct trace_symbols *s, uint64_t return_address,
					       const char **ret_function, const char **ret_location,
					       const char **ret_object)
{
	return return_address != 0 &&
	       trace_symbols_lookup(s, return_address - 1, ret_function, ret_location, ret_object);
}
