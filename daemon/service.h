/* Telling the service manager how the daemon is doing: ready to serve,
 * reloading its configuration, stopping, and a one-line status that the
 * manager shows (systemctl status).  Each call is best effort: a daemon
 * run by hand, with no service manager listening, tells nobody and goes on.
 *
 * linux/service.c sends systemd's notifications (sd_notify: READY=1,
 * RELOADING=1, STOPPING=1, STATUS=).  windows/service.c reports the same
 * states to the service control manager (SetServiceStatus:
 * START_PENDING until service_ready, RUNNING, STOP_PENDING from
 * service_stopping), which has no status line; and it is how the daemon
 * starts there (service_main): installed and removed by ramwatchd.exe
 * --install and --uninstall, run by the service control manager's
 * dispatcher, or in the console with --foreground. */
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

/* What the service is called, for service_main. */
struct service_def {
	const char *name;         /* the service's key name: "ramwatchd" */
	const char *display_name; /* what the Services console shows */
	const char *description;
};

/* The process's start, around the daemon's own main (run).  On Linux, run
 * is called with the arguments as they are: systemd starts the daemon as
 * any other program.  On Windows:
 *   --install [ARG...]  registers def as a service started at boot, whose
 *                       command line is this program with the ARGs; exits
 *   --uninstall         removes it (once stopped, if it runs); exits
 *   --foreground ...    run in the console (stderr, Ctrl-C stops it)
 *   anything else       run as the service: the service control manager's
 *                       dispatcher calls run on a thread of its own, with
 *                       the log going to ramwatchd.log in
 *                       %ProgramData%\ramwatch (the console's stderr
 *                       goes nowhere there)
 * Returns the exit code: run's, or 0, 1 (failed, said why), 2 (usage). */
int service_main(const struct service_def *def, int argc, char **argv, int (*run)(int argc, char **argv));
