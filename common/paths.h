/* Where the installed daemon and its clients meet when nothing says
 * otherwise: the control socket, the state directory and the database in
 * it.  The systemd units (ramwatchd.socket, RuntimeDirectory= and
 * StateDirectory=), tmpfiles.d and the man pages name the same paths. */
#pragma once

#define RW_SOCKET_DEFAULT "/run/ramwatch/ramwatch.sock"
#define RW_STATE_DIR_DEFAULT "/var/lib/ramwatch"
/* the database's file name inside the state directory */
#define RW_DATABASE_NAME "ramwatch.db"
#define RW_DATABASE_DEFAULT RW_STATE_DIR_DEFAULT "/" RW_DATABASE_NAME

/* The environment variable that names another database for ramwatch sql */
#define RW_DATABASE_ENV "RAMWATCH_DB"
