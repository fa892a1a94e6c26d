/* Telling the service manager how the daemon is doing: ready to serve,
 * reloading its configuration, stopping, and a one-line status that the
 * manager shows (systemctl status).  Each call is best effort: a daemon
 * run by hand, with no service manager listening, tells nobody and goes on.
 *
 * linux/service.c sends systemd's notifications (sd_notify: READY=1,
 * RELOADING=1, STOPPING=1, STATUS=).  Windows has none yet: its
 * implementation is to report the same states to the service control
 * manager (SetServiceStatus). */
#pragma once

/* The daemon serves: start-up is done, or a reload is.  status, when not
 * NULL, is the status line, sent with it. */
void service_ready(const char *status);
/* The configuration is being reloaded; service_ready follows. */
void service_reloading(void);
/* The daemon is stopping: it writes what it gathered and exits. */
void service_stopping(void);
/* The status line, replacing the last one. */
void service_status(const char *line);
