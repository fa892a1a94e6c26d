/* The account at the other end of a control pipe on Windows
 * (control-peer.c).  Windows only. */
#pragma once

#include <stdint.h>

#include "control-access.h"

/* The peer that process pid is: its user SID and whether it is
 * privileged (control-access.h).  Returns 0 with *ret, or -errno (the
 * process is gone, or its token cannot be opened). */
int control_peer_of_process(uint32_t pid, struct control_peer *ret);
