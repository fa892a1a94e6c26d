/* Telling systemd how the daemon is doing (service.h): sd_notify(3)
 * datagrams to $NOTIFY_SOCKET (the unit is Type=notify: it waits for READY=1);
 * without the variable they go nowhere. */
#include "service.h"

#include <stdbool.h>

#include <systemd/sd-daemon.h>

void service_ready(const char *status)
{
	/* one datagram: systemd sees the daemon ready with its status */
	if (status)
		(void)sd_notifyf(false, "READY=1\nSTATUS=%s", status);
	else
		(void)sd_notify(false, "READY=1");
}

void service_reloading(void)
{
	(void)sd_notify(false, "RELOADING=1");
}

void service_stopping(void)
{
	(void)sd_notify(false, "STOPPING=1");
}

void service_status(const char *line)
{
	(void)sd_notifyf(false, "STATUS=%s", line);
}

int service_main(const struct service_def *def, int argc, char **argv, int (*run)(int argc, char **argv))
{
	(void)def;
	return run(argc, argv);
}
