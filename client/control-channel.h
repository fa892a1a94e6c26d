/* The client's channel to ramwatchd: where the control protocol's bytes
 * go and come from (control-client.c speaks the protocol over it).
 * control-socket.c is Linux's (the Unix socket, RW_SOCKET_DEFAULT or
 * $RAMWATCH_SOCKET); windows/control-pipe.c is Windows's (the named pipe,
 * RW_PIPE_DEFAULT or $RAMWATCH_PIPE).  Every wait ends at a deadline
 * (monotonic µs). */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "control-client.h"
#include "macro.h"

struct control_channel;

/* Connects to the daemon at address.  Returns 0 with *ret, or a negative
 * errno with err saying what to do about it (is ramwatchd running?
 * permission?). */
int control_channel_open(const char *address, struct control_channel **ret, struct control_error *err);
/* Accepts NULL. */
void control_channel_close(struct control_channel *ch);
/* Sends all of data[0, len).  Returns 0, -ETIMEDOUT at the deadline, or
 * -errno (-EPIPE: the daemon closed the connection). */
int control_channel_send(struct control_channel *ch, const char *data, size_t len, uint64_t deadline_us);
/* Receives some bytes (at most size).  Returns 0 with *ret_n (0: the
 * daemon closed the connection), -ETIMEDOUT at the deadline, or -errno. */
int control_channel_recv(struct control_channel *ch, char *buf, size_t size, uint64_t deadline_us, size_t *ret_n);

/* Fills err (may be NULL) with r, the daemon's or the client's wire code
 * ("" for none) and the message.  Returns r. */
int control_client_set_error(struct control_error *err, int r, const char *code, const char *fmt, ...) _printf_(4, 5);
