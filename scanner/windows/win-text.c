/* See win-text.h. */
#include "win-text.h"

#include <stdlib.h>
#include <string.h>
#include <windows.h>

char *win_text_utf8(const wchar_t *s, int len)
{
	int n = WideCharToMultiByte(CP_UTF8, WC_ERR_INVALID_CHARS, s, len, NULL, 0, NULL, NULL);
	if (n <= 0)
		return NULL;
	char *out = malloc((size_t)n + 1);
	if (!out)
		return NULL;
	if (WideCharToMultiByte(CP_UTF8, WC_ERR_INVALID_CHARS, s, len, out, n, NULL, NULL) != n) {
		free(out);
		return NULL;
	}
	out[n] = '\0';
	return out;
}

char *win_text_account(void *sid)
{
	wchar_t name[257], domain[257], both[2 * 257 + 1];
	DWORD name_len = ARRAYSIZE(name), domain_len = ARRAYSIZE(domain);
	SID_NAME_USE use;

	if (!LookupAccountSidW(NULL, sid, name, &name_len, domain, &domain_len, &use))
		return NULL;
	_snwprintf(both, ARRAYSIZE(both), L"%ls\\%ls", domain, name);
	both[ARRAYSIZE(both) - 1] = 0;
	return win_text_utf8(both, -1);
}

struct win_devices {
	struct {
		wchar_t drive[3];     /* L"C:" */
		wchar_t device[MAX_PATH]; /* L"\\Device\\HarddiskVolume3" */
		size_t len;
	} d[26];
	size_t n;
};

struct win_devices *win_devices_new(void)
{
	struct win_devices *d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	DWORD drives = GetLogicalDrives();
	for (int i = 0; i < 26; i++) {
		if (!(drives & (1u << i)))
			continue;
		wchar_t name[3] = { (wchar_t)(L'A' + i), L':', 0 };
		if (!QueryDosDeviceW(name, d->d[d->n].device, MAX_PATH))
			continue;
		memcpy(d->d[d->n].drive, name, sizeof(name));
		d->d[d->n].len = wcslen(d->d[d->n].device);
		d->n++;
	}
	return d;
}

struct win_devices *win_devices_free(struct win_devices *d)
{
	free(d);
	return NULL;
}

char *win_devices_path(const struct win_devices *d, const wchar_t *nt_path)
{
	/* Wine names a file by its DOS path in the NT namespace, "\\??\\Z:\\..." */
	if (wcsncmp(nt_path, L"\\??\\", 4) == 0 && nt_path[4] && nt_path[5] == L':')
		return win_text_utf8(nt_path + 4, -1);
	for (size_t i = 0; d && i < d->n; i++) {
		size_t len = d->d[i].len;
		if (len && _wcsnicmp(nt_path, d->d[i].device, len) == 0 && nt_path[len] == L'\\') {
			size_t rest = wcslen(nt_path + len);
			wchar_t *w = malloc((rest + 3) * sizeof(wchar_t));
			if (!w)
				return NULL;
			w[0] = d->d[i].drive[0];
			w[1] = L':';
			memcpy(w + 2, nt_path + len, (rest + 1) * sizeof(wchar_t));
			char *out = win_text_utf8(w, -1);
			free(w);
			return out;
		}
	}
	return win_text_utf8(nt_path, -1);
}
