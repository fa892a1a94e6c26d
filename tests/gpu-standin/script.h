/* The stand-in NVML and CUDA driver libraries (test fixtures only): what
 * they answer comes from a script, the file $RAMWATCH_STANDIN_SCRIPT names,
 * read again at every nvmlInit_v2, cuInit and cuDriverGetVersion, and by
 * NVML's nvmlDeviceGetHandleByIndex_v2 of GPU 0 (where a snapshot starts)
 * when the file changed since: a program that keeps NVML open (the
 * daemon) sees a test's new script.  Replace the file whole (a rename),
 * so that it is never read half written.
 *
 * One directive a line; '#' starts a comment:
 *
 *   device UUID TOTAL USED NAME...   a GPU; GPUs are numbered 0, 1, ... in order
 *   mig GPU UUID TOTAL USED NAME...  a MIG instance of GPU (which is then in MIG
 *                                    mode); instances are m0, m1, ... in order
 *   compute DEV PID USED             DEV (a GPU's number or mN) lists PID in its
 *   graphics DEV PID USED            compute or graphics list; USED bytes or "na"
 *   lost GPU N                       after N calls of nvmlDeviceGetMemoryInfo on GPU,
 *                                    it and its instances answer NVML_ERROR_GPU_IS_LOST
 *   fail FUNCTION CODE               FUNCTION (the exported name) answers CODE
 *   insufficient N                   the first N process-list calls answer
 *                                    NVML_ERROR_INSUFFICIENT_SIZE, asking for more room
 *   cuda-version V                   cuDriverGetVersion's and NVML's answer (12040)
 *   init-delay MS                    nvmlInit_v2 takes MS milliseconds more (as a
 *                                    real driver's start does), for tests of what
 *                                    runs while it starts
 *
 * Without the variable, or with an empty script, there is no device.  With
 * $RAMWATCH_STANDIN_LOG, the init and shutdown calls and NVML's
 * process-list calls are appended to that file, one name a line, so a test
 * can tell what was called (and how often). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#define STANDIN_DEVICES_MAX 256
#define STANDIN_FAILS_MAX 32

struct standin_device {
	char uuid[96];
	char name[96];
	unsigned long long total, used;
	int parent;            /* a MIG instance: its GPU's number; a GPU: -1 */
	unsigned memory_calls; /* nvmlDeviceGetMemoryInfo calls so far */
	long lost_after;       /* -1: never lost */
};

struct standin_process {
	int device; /* in standin_script.devices */
	unsigned pid;
	unsigned long long used;
	bool graphics;
};

struct standin_script {
	struct standin_device devices[STANDIN_DEVICES_MAX]; /* GPUs, then MIG instances */
	size_t n_devices, n_gpus;
	struct standin_process *processes;
	size_t n_processes;
	struct {
		char function[64];
		int code;
	} fails[STANDIN_FAILS_MAX];
	size_t n_fails;
	unsigned insufficient;
	int cuda_version;
	unsigned init_delay_ms;
	/* the file as read: device, inode, size, modification time */
	unsigned long long dev, ino, size, mtime_ns;
};

/* Reads the script into s (freeing what it held).  Returns 0, or -1 when
 * the file cannot be read or a line is wrong (said on stderr). */
int standin_load(struct standin_script *s);
void standin_free(struct standin_script *s);

/* Reads the script again when its file changed since it was read (another
 * file, size or modification time).  Returns 1 when it did, 0 when
 * nothing changed, -1 as standin_load. */
int standin_reload(struct standin_script *s);

/* The code the script makes function answer, 0 for none. */
int standin_fail(const struct standin_script *s, const char *function);

/* Appends function to $RAMWATCH_STANDIN_LOG, when set. */
void standin_log(const char *function);

/* Whether a device (or the GPU of a MIG instance) is lost by now. */
bool standin_lost(const struct standin_script *s, const struct standin_device *d);
