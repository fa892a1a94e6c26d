/* The system's error behind SQLite's last failure, as an errno value: what
 * the store and ramwatch sql turn a failed open or I/O into (-ENOENT,
 * -EACCES, -ENOSPC).  SQLite gives errno on Linux but GetLastError()'s code
 * on Windows, so each platform has its file: store-errno.c here,
 * windows/store-errno.c there. */
#pragma once

#include <sqlite3.h>

/* errno of the last failure of a call on db, 0 when none is known (db
 * may be NULL). */
int store_system_errno(sqlite3 *db);
