/* The system's error behind SQLite's last failure on Linux, where SQLite's
 * own figure is errno already (store-errno.h). */
#include "store-errno.h"

int store_system_errno(sqlite3 *db)
{
	return db ? sqlite3_system_errno(db) : 0;
}
