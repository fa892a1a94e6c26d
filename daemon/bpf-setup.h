/* What the daemon's BPF programs (the change watch, the OOM watch) share
 * when they are loaded. */
#pragma once

#include <stdbool.h>

/* Sends libbpf's messages to the debug log: a failed load explains itself
 * at length, and the caller logs the one line that matters. */
void bpf_setup_quiet_libbpf(void);

/* Whether this process sees the first pid namespace's pids, the ones BPF
 * programs name processes by. */
bool bpf_setup_in_first_pid_namespace(void);
