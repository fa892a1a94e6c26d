/* What winscan.c and winscan-evidence.c share. */
#pragma once

#include <windows.h>

#include "error.h"
#include "win-capture.h"

/* s interned in the capture's pool; NULL for NULL or without memory. */
const char *winscan_intern(struct win_capture *c, const char *s);

/* The command line from the PEB's ProcessParameters, or NULL. */
const char *winscan_cmdline(HANDLE h, struct win_capture *c);
/* Marks the heaps (signature, heap list) and threads' stacks (TEB) among
 * the capture's regions.  Returns 0 or -ENOMEM; what cannot be read is
 * left unmarked (its shape may still tell). */
int winscan_mark(HANDLE h, int pid, struct win_capture *c, struct error *err);
/* Sets the resident bytes of every committed region and the capture's
 * residency (exact, estimated, or unknown and why).  Returns 0 or -ENOMEM. */
int winscan_residency(HANDLE h, struct win_capture *c, struct error *err);
