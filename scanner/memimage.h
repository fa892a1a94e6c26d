/* Memory images: what evidence read of a process, saved beside its smaps
 * capture, so a census can be taken again from the two files and the
 * evidence rules are tested and fuzzed without a live process.
 *
 * The format is text, one record a line (ramwatch(1), "Memory images"):
 *
 *   ramwatch-memory-image 1
 *   # a comment
 *   resident 7f3a00000000 7f3a00200000     pages [start, end) in a state:
 *   swapped  7f3a00200000 7f3a00201000     resident, zero, file or swapped
 *   data 7f3a00000000 0000000000000000 0210000000000000
 *                                          bytes at an address, in hex
 *
 * Pages named by no line are absent, except in a region smaps shows wholly
 * resident, which the census reads without asking the page tables (so an
 * image records nothing of it).  Bytes lie within one page, never one the
 * image says is swapped or zero, and are read back only where given: a
 * probe of bytes the image does not hold reads nothing, as a page that
 * could not be read.  (A file's page holds bytes where a heap walk read a
 * library's text, its version, in a page the page tables map: the
 * classic pagemap tells those pages apart, PAGEMAP_SCAN does not.) */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "memsource.h"

struct memimage;

/* Parses an image.  Returns 0 with *ret, or -EBADMSG with msg naming the
 * line and what is wrong, -E2BIG past RW_MEMIMAGE_MAX, -ENOMEM. */
int memimage_parse(const char *buf, size_t len, struct memimage **ret, char *msg, size_t msg_size);
/* Frees an image; accepts NULL, returns NULL. */
struct memimage *memimage_free(struct memimage *img);
/* A source that answers from the image (which must outlive it). */
void memimage_source(struct memimage *img, struct memsource *ret);

/* Records what a source answers into an image file, as it answers:
 * wraps inner (which it takes over: closing the recorder closes it) into
 * ret.  Returns 0 or -ENOMEM. */
int memimage_record(struct memsource *inner, FILE *out, struct memsource *ret);
