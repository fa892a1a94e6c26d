/* A client of the control pipe that misbehaves on purpose, for
 * test_win_control.py: what the server answers (each line it sends, then
 * "closed" when it closes the connection, or "open" when it is still open
 * at the end) goes to stdout.
 *
 *   pipepoke.exe NAME line TEXT     sends TEXT and a newline
 *   pipepoke.exe NAME bytes N       sends N bytes of 'x', no newline
 *   pipepoke.exe NAME hold MS       connects, says nothing for MS ms
 *   pipepoke.exe NAME many N MS     N connections at once, held MS ms; for
 *                                   each, the first line it got (or
 *                                   "none") */
#include <windows.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static HANDLE open_pipe(const char *name)
{
	for (int i = 0; i < 50; i++) {
		HANDLE h = CreateFileA(name, GENERIC_READ | FILE_WRITE_DATA, 0, NULL, OPEN_EXISTING, 0, NULL);
		if (h != INVALID_HANDLE_VALUE)
			return h;
		if (GetLastError() != ERROR_PIPE_BUSY)
			break;
		WaitNamedPipeA(name, 1000);
	}
	fprintf(stderr, "pipepoke: cannot open %s: error %lu\n", name, (unsigned long)GetLastError());
	exit(1);
}

/* Whether the pipe has bytes, or is closed (true), within ms. */
static BOOL wait_readable(HANDLE h, DWORD ms)
{
	for (DWORD waited = 0;; waited += 10) {
		DWORD avail = 0;
		if (!PeekNamedPipe(h, NULL, 0, NULL, &avail, NULL) || avail > 0)
			return TRUE;
		if (waited >= ms)
			return FALSE;
		Sleep(10);
	}
}

/* Prints each line the server sends until it closes or is quiet for ms. */
static void answers(HANDLE h, DWORD ms)
{
	char buf[65536];
	DWORD n;

	while (wait_readable(h, ms)) {
		if (!ReadFile(h, buf, sizeof(buf), &n, NULL) || n == 0) {
			printf("closed\n");
			return;
		}
		fwrite(buf, 1, n, stdout);
	}
	printf("open\n");
}

static void send_all(HANDLE h, const char *data, size_t len)
{
	DWORD n;
	while (len > 0) {
		DWORD chunk = len > 65536 ? 65536 : (DWORD)len;
		if (!WriteFile(h, data, chunk, &n, NULL)) {
			printf("write failed: error %lu\n", (unsigned long)GetLastError());
			return;
		}
		data += n;
		len -= n;
	}
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	if (argc < 4) {
		fprintf(stderr, "usage: pipepoke NAME line TEXT | bytes N | hold MS | many N MS\n");
		return 2;
	}
	const char *name = argv[1], *what = argv[2];
	if (!strcmp(what, "line")) {
		HANDLE h = open_pipe(name);
		size_t len = strlen(argv[3]);
		char *line = malloc(len + 1);
		memcpy(line, argv[3], len);
		line[len] = '\n';
		send_all(h, line, len + 1);
		answers(h, 3000);
		CloseHandle(h);
	} else if (!strcmp(what, "bytes")) {
		HANDLE h = open_pipe(name);
		size_t n = strtoul(argv[3], NULL, 10);
		char *junk = malloc(n);
		memset(junk, 'x', n);
		send_all(h, junk, n);
		answers(h, 3000);
		CloseHandle(h);
	} else if (!strcmp(what, "hold")) {
		HANDLE h = open_pipe(name);
		printf("holding\n");
		Sleep(strtoul(argv[3], NULL, 10));
		answers(h, 0);
		CloseHandle(h);
	} else if (!strcmp(what, "many") && argc >= 5) {
		unsigned n = strtoul(argv[3], NULL, 10);
		HANDLE *hs = calloc(n, sizeof(HANDLE));
		for (unsigned i = 0; i < n; i++)
			hs[i] = open_pipe(name);
		Sleep(strtoul(argv[4], NULL, 10));
		for (unsigned i = 0; i < n; i++) {
			char buf[512];
			DWORD got = 0;
			if (wait_readable(hs[i], 0) && ReadFile(hs[i], buf, sizeof(buf) - 1, &got, NULL) && got > 0) {
				buf[got] = '\0';
				buf[strcspn(buf, "\n")] = '\0';
				printf("%s\n", buf);
			} else
				printf("none\n");
		}
		for (unsigned i = 0; i < n; i++)
			CloseHandle(hs[i]);
	} else {
		fprintf(stderr, "pipepoke: unknown %s\n", what);
		return 2;
	}
	return 0;
}
