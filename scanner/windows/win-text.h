/* Windows strings for the scanner and the daemon: UTF-16 to UTF-8, NT
 * device paths (\Device\HarddiskVolume3\...) to the drive-letter paths
 * people know, and the account a SID names. */
#pragma once

#include <stddef.h>
#include <wchar.h>

/* The UTF-8 of len UTF-16 units at s (len -1: NUL-terminated), malloc'd;
 * NULL without memory or for text that is not UTF-16. */
char *win_text_utf8(const wchar_t *s, int len);

/* DOMAIN\account of the SID (a PSID), as LookupAccountSidW names it,
 * malloc'd UTF-8; NULL when it names none or without memory. */
char *win_text_account(void *sid);

struct win_devices;

/* The drive letters' devices (QueryDosDeviceW), read once per scan. */
struct win_devices *win_devices_new(void);
struct win_devices *win_devices_free(struct win_devices *d);

/* The path with its device replaced by its drive letter ("C:\..."), or
 * the NT path as given when no drive names it (a network share, a volume
 * with no letter), malloc'd UTF-8; NULL without memory. */
char *win_devices_path(const struct win_devices *d, const wchar_t *nt_path);
