/* Which runtimes and allocators a process runs, told from outside: by the
 * names of the files it maps, the name of its program and, for the JVM,
 * its command line.  One detector for the three places that ask: the
 * classifier (classify.c, whose shape rules apply only in a process of
 * their runtime), the evidence pass (evidence.c: whose allocator's headers
 * to look for) and the Windows census (win-census.c).
 *
 * A path may be a Linux one ("/usr/lib/jvm/.../libjvm.so", with the
 * kernel's " (deleted)" suffix once the file is replaced) or a Windows one
 * ("C:\...\jvm.dll"); its file name is compared without regard to case,
 * as Windows compares names, and no runtime's Linux names differ by case
 * alone.  Pure: names in, flags out. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

/* Who serves malloc. */
enum runtimes_allocator {
	RUNTIMES_MALLOC_GLIBC, /* the default: no other allocator is mapped */
	RUNTIMES_MALLOC_JEMALLOC,
	RUNTIMES_MALLOC_MIMALLOC,
	RUNTIMES_MALLOC_TCMALLOC,
};

struct runtimes {
	bool jvm;      /* libjvm.so, jvm.dll */
	bool clr;      /* .NET: libcoreclr.so, coreclr.dll, clr.dll */
	bool v8;       /* libnode.so*, libv8*, or a V8 program: node, chrome, electron, ... */
	bool python;   /* libpython2*, libpython3*, python2*, python3* (python311.dll), or a program python* */
	int python_minor; /* CPython 3's minor version, from the first name that tells it; -1 unknown */
	bool openblas; /* a file whose name holds "openblas" (libopenblas.so, scipy_openblas64_.dll) */
	bool nvidia;   /* a /dev/nvidia* device: the NVIDIA driver (CUDA) */
	/* the last of libjemalloc.so, libmimalloc*, libtcmalloc* mapped, else glibc */
	enum runtimes_allocator allocator;
	uint64_t jvm_max_heap; /* the JVM's heap limit (-Xmx), 0 when not given */
};

/* Nothing known yet: no runtime, glibc's malloc, no Python version. */
void runtimes_init(struct runtimes *rt);

/* Notes a file the process maps (a library, its own program, a device). */
void runtimes_note_file(struct runtimes *rt, const char *path);

/* Notes the process's program (/proc/PID/exe, a Windows image path): V8
 * programs and Python are known by it ("node", "chrome.exe",
 * "python3.11"). */
void runtimes_note_program(struct runtimes *rt, const char *path);

/* Notes the process's command line (arguments joined by spaces): the
 * JVM's heap limit, when it is a JVM (jvm noted before). */
void runtimes_note_cmdline(struct runtimes *rt, const char *cmdline);

/* The JVM's maximum heap size in a command line (arguments joined by
 * spaces or tabs), as the JVM reads it: the last of the arguments
 * "-Xmx<size>" and "-XX:MaxHeapSize=<size>" (the same flag), where a size
 * is bytes in decimal or in hexadecimal after "0x", optionally followed by
 * one of k, m, g, t (either case, powers of 1024) and nothing else.  An
 * argument the JVM would refuse (no number, another suffix, past 64 bits)
 * is not one it started with (it refuses to start): it is skipped, as an
 * argument of the program run.  Returns bytes, 0 when none is given. */
uint64_t runtimes_jvm_max_heap(const char *cmdline);
