/* The system's error behind SQLite's last failure on Windows: SQLite's
 * figure is GetLastError()'s code (ERROR_PATH_NOT_FOUND is 3, which as an
 * errno would read "No such process"), turned into errno by the Windows
 * build's POSIX layer (common/windows/posix.c). */
#include "store-errno.h"

int store_system_errno(sqlite3 *db)
{
	return db ? posix_errno_of((unsigned long)sqlite3_system_errno(db)) : 0;
}
