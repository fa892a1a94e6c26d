/* Where the installed daemon and its clients meet when nothing says
 * otherwise: the control socket, the daemon's configuration, the state
 * directory and the database in it.  The systemd units (ramwatchd.socket, RuntimeDirectory= and
 * StateDirectory=), tmpfiles.d and the man pages name the same paths. */
#pragma once

#define RW_SOCKET_DEFAULT "/run/ramwatch/ramwatch.sock"
/* Windows's: the daemon's named pipe */
#define RW_PIPE_DEFAULT "\\\\.\\pipe\\ramwatch"
/* the database's file name inside the state directory */
#define RW_DATABASE_NAME "ramwatch.db"
/* what joins a directory and a name in the paths the daemon shows */
#ifdef _WIN32
#define RW_PATH_SEPARATOR "\\"
#else
#define RW_PATH_SEPARATOR "/"
#endif
#ifdef _WIN32
/* %ProgramData%\ramwatch: Windows keeps the data of a service for every
 * user under %ProgramData%, which is C:\ProgramData unless moved */
#define RW_STATE_DIR_DEFAULT "C:\\ProgramData\\ramwatch"
#define RW_DATABASE_DEFAULT RW_STATE_DIR_DEFAULT "\\" RW_DATABASE_NAME
/* the configuration beside the data, where an administrator finds both */
#define RW_CONFIG_DEFAULT RW_STATE_DIR_DEFAULT "\\ramwatchd.conf"
#else
#define RW_CONFIG_DEFAULT "/etc/ramwatch/ramwatchd.conf"
#define RW_STATE_DIR_DEFAULT "/var/lib/ramwatch"
#define RW_DATABASE_DEFAULT RW_STATE_DIR_DEFAULT "/" RW_DATABASE_NAME
#endif

/* The environment variable that names another database for ramwatch sql */
#define RW_DATABASE_ENV "RAMWATCH_DB"
