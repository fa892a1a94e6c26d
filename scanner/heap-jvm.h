/* The JVM's heap walk (heap-jvm.c): the Java heap's used and committed
 * bytes from the JVM's hsperfdata file, as jstat reads it. */
#pragma once

#include "heap-walk.h"

/* The walk of heap_walk_jvm with the proc root at proc_root ("/proc"
 * live; a fixture tree in tests): the file is opened as
 * proc_root/PID/map_files/START-END, else proc_root/PID/root/PATH.
 * Returns as every walker (heap-walk.h). */
int heap_jvm_walk(const struct heap_walk_input *in, const char *proc_root, struct heap_walk *w);
