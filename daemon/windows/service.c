/* The daemon as a Windows service (service.h): its registration
 * (--install, --uninstall), its start by the service control manager's
 * dispatcher, and the states it reports to the manager.
 *
 * The manager starts the program with the command line given at
 * installation; main hands over to StartServiceCtrlDispatcher, which calls
 * the service's main on a thread of its own: that thread runs the daemon
 * (run), and the manager's controls come on the dispatcher's thread, which
 * turns stop, shutdown and parameter change into the event loop's requests
 * (event_loop_request), as the console's Ctrl-C is.
 *
 * The service's log is a file, ramwatchd.log in %ProgramData%\ramwatch,
 * not the Event Log: the Event Log shows a message only through a message
 * table registered with the source (a resource in the program and a
 * registry entry), without which every entry reads "the description for
 * Event ID ... cannot be found"; a file keeps the daemon's own lines, with
 * their priorities, readable with any tool (and under Wine).  It is
 * started again at each start once past LOG_FILE_MAX, the old one kept as
 * ramwatchd.log.old.  The directory, when this makes it, is given an
 * access list of its own (the system and Administrators in full, users
 * read only), so that no user may leave files the service would take as
 * its own. */
#include "service.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <windows.h>
#include <knownfolders.h>
#include <sddl.h>
#include <shlobj.h>

#include "event-loop.h"
#include "log.h"
#include "paths.h"

#define LOG_FILE_NAME "ramwatchd.log"
#define LOG_FILE_MAX (16u * 1024u * 1024u)
/* how long the manager waits between two reports while starting or
 * stopping (the daemon writes its last rows when it stops) */
#define WAIT_HINT_MS 30000u
/* %ProgramData%\ramwatch: the system and Administrators in full, users
 * (authenticated) read, inherited by what is made in it */
#define STATE_DIR_SDDL L"D:P(A;OICI;FA;;;SY)(A;OICI;FA;;;BA)(A;OICI;FRFX;;;AU)"

static const struct service_def *service;
static int (*service_run)(int argc, char **argv);
static int service_argc;
static char **service_argv;

/* Set while running as a service, NULL in the console. */
static SERVICE_STATUS_HANDLE status_handle;
static SERVICE_STATUS status = {
	.dwServiceType = SERVICE_WIN32_OWN_PROCESS,
	.dwCurrentState = SERVICE_START_PENDING,
};

static void report(DWORD state, DWORD accepted)
{
	if (!status_handle)
		return;
	status.dwCurrentState = state;
	status.dwControlsAccepted = accepted;
	if (state == SERVICE_START_PENDING || state == SERVICE_STOP_PENDING) {
		status.dwCheckPoint++;
		status.dwWaitHint = WAIT_HINT_MS;
	} else {
		status.dwCheckPoint = 0;
		status.dwWaitHint = 0;
	}
	/* best effort, as sd_notify is */
	(void)SetServiceStatus(status_handle, &status);
}

void service_ready(const char *line)
{
	report(SERVICE_RUNNING, SERVICE_ACCEPT_STOP | SERVICE_ACCEPT_SHUTDOWN | SERVICE_ACCEPT_PARAMCHANGE);
	if (line && status_handle)
		log_debug("service status: %s", line);
}

void service_reloading(void)
{
	/* the manager has no reloading state: the service stays running */
}

void service_stopping(void)
{
	report(SERVICE_STOP_PENDING, 0);
}

void service_status(const char *line)
{
	/* the manager has no status line to show it in */
	(void)line;
}

/* ------------------------------------------------------------ the service's run */

static DWORD WINAPI on_control(DWORD control, DWORD type, void *data, void *context)
{
	(void)type, (void)data, (void)context;
	switch (control) {
	case SERVICE_CONTROL_STOP:
	case SERVICE_CONTROL_SHUTDOWN:
		report(SERVICE_STOP_PENDING, 0);
		(void)event_loop_request(EVENT_STOP, control == SERVICE_CONTROL_STOP ? "service stop" : "system shutdown");
		return NO_ERROR;
	case SERVICE_CONTROL_PARAMCHANGE:
		(void)event_loop_request(EVENT_RELOAD, "service parameter change");
		return NO_ERROR;
	case SERVICE_CONTROL_INTERROGATE:
		report(status.dwCurrentState, status.dwControlsAccepted);
		return NO_ERROR;
	default: return ERROR_CALL_NOT_IMPLEMENTED;
	}
}

/* %ProgramData%\ramwatch into buf: the known folder, as the system has
 * it (a service's environment need not name it). */
static void state_dir_default(char *buf, size_t size)
{
	wchar_t *data = NULL;
	char path[MAX_PATH];

	if (SHGetKnownFolderPath(&FOLDERID_ProgramData, 0, NULL, &data) == S_OK &&
	    WideCharToMultiByte(CP_UTF8, 0, data, -1, path, sizeof(path), NULL, NULL) > 0)
		snprintf(buf, size, "%s\\ramwatch", path);
	else
		snprintf(buf, size, "%s", RW_STATE_DIR_DEFAULT);
	CoTaskMemFree(data);
}

/* Makes dir, when missing, with the service's access list.  Returns 0 or
 * -errno. */
static int make_state_dir(const char *dir)
{
	SECURITY_ATTRIBUTES sa = { .nLength = sizeof(sa) };
	PSECURITY_DESCRIPTOR sd = NULL;

	if (!ConvertStringSecurityDescriptorToSecurityDescriptorW(STATE_DIR_SDDL, SDDL_REVISION_1, &sd, NULL))
		return -posix_errno_of(GetLastError());
	sa.lpSecurityDescriptor = sd;
	BOOL made = CreateDirectoryA(dir, &sa);
	DWORD e = made ? 0 : GetLastError();
	LocalFree(sd);
	return made || e == ERROR_ALREADY_EXISTS ? 0 : -posix_errno_of(e);
}

/* The log into the service's log file (time-stamped lines).  A log that
 * cannot be opened leaves stderr as it is: the service runs all the same. */
static void log_to_file(void)
{
	char dir[MAX_PATH], path[MAX_PATH + 32], old[MAX_PATH + 40];
	WIN32_FILE_ATTRIBUTE_DATA st;

	state_dir_default(dir, sizeof(dir));
	if (make_state_dir(dir) < 0)
		return;
	snprintf(path, sizeof(path), "%s\\" LOG_FILE_NAME, dir);
	snprintf(old, sizeof(old), "%s.old", path);
	if (GetFileAttributesExA(path, GetFileExInfoStandard, &st) &&
	    (st.nFileSizeHigh > 0 || st.nFileSizeLow > LOG_FILE_MAX))
		(void)MoveFileExA(path, old, MOVEFILE_REPLACE_EXISTING);
	/* the log's own stream: a service starts without standard handles,
	 * and the C runtime's stderr then goes nowhere */
	FILE *f = fopen(path, "a");
	if (!f)
		return;
	log_set_file(f);
}

static void WINAPI service_entry(DWORD argc, wchar_t **argv)
{
	(void)argc, (void)argv;
	status_handle = RegisterServiceCtrlHandlerExA(service->name, on_control, NULL);
	if (!status_handle)
		return;
	report(SERVICE_START_PENDING, 0);
	log_to_file();
	log_info("%s starting as a service", service->name);
	int code = service_run(service_argc, service_argv);
	log_info("%s stopped (exit code %d)", service->name, code);
	if (code != 0) {
		status.dwWin32ExitCode = ERROR_SERVICE_SPECIFIC_ERROR;
		status.dwServiceSpecificExitCode = (DWORD)code;
	}
	report(SERVICE_STOPPED, 0);
}

/* ------------------------------------------------------------ installing */

/* The quoted argument into cmd (CommandLineToArgvW's rules: backslashes
 * are literal but before a quote).  Returns false when it does not fit. */
static bool append_quoted(char *cmd, size_t size, const char *arg)
{
	size_t n = strlen(cmd);
	if (n + 3 >= size)
		return false;
	cmd[n++] = ' ';
	cmd[n++] = '"';
	for (const char *p = arg;; p++) {
		size_t slashes = 0;
		while (*p == '\\') {
			slashes++;
			p++;
		}
		/* doubled before a quote and before the closing one */
		size_t copies = *p == '"' || *p == '\0' ? 2 * slashes : slashes;
		if (n + copies + 4 >= size)
			return false;
		memset(cmd + n, '\\', copies);
		n += copies;
		if (*p == '\0')
			break;
		if (*p == '"')
			cmd[n++] = '\\';
		cmd[n++] = *p;
	}
	cmd[n++] = '"';
	cmd[n] = '\0';
	return true;
}

static const char *win_error(DWORD e, char *buf, size_t size)
{
	DWORD n = FormatMessageA(FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, NULL, e, 0, buf,
				 (DWORD)size, NULL);
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r' || buf[n - 1] == '.'))
		buf[--n] = '\0';
	if (n == 0)
		snprintf(buf, size, "Windows error %lu", (unsigned long)e);
	return buf;
}

static int install(int argc, char **argv)
{
	char exe[MAX_PATH], cmd[8192], why[256];
	SC_HANDLE scm, svc;

	DWORD n = GetModuleFileNameA(NULL, exe, sizeof(exe));
	if (n == 0 || n >= sizeof(exe)) {
		fprintf(stderr, "%s: cannot tell where this program is\n", service->name);
		return 1;
	}
	snprintf(cmd, sizeof(cmd), "\"%s\"", exe);
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--install") != 0 && !append_quoted(cmd, sizeof(cmd), argv[i])) {
			fprintf(stderr, "%s: the command line is too long\n", service->name);
			return 2;
		}
	scm = OpenSCManagerA(NULL, NULL, SC_MANAGER_CREATE_SERVICE);
	if (!scm) {
		fprintf(stderr, "%s: cannot open the service control manager: %s (installing needs an administrator)\n",
			service->name, win_error(GetLastError(), why, sizeof(why)));
		return 1;
	}
	/* LocalSystem (no account given): the daemon reads every process */
	svc = CreateServiceA(scm, service->name, service->display_name, SERVICE_ALL_ACCESS, SERVICE_WIN32_OWN_PROCESS,
			     SERVICE_AUTO_START, SERVICE_ERROR_NORMAL, cmd, NULL, NULL, NULL, NULL, NULL);
	if (!svc) {
		DWORD e = GetLastError();
		fprintf(stderr, "%s: cannot install the service: %s\n", service->name, win_error(e, why, sizeof(why)));
		CloseServiceHandle(scm);
		return 1;
	}
	SERVICE_DESCRIPTIONA d = { .lpDescription = (char *)service->description };
	(void)ChangeServiceConfig2A(svc, SERVICE_CONFIG_DESCRIPTION, &d);
	printf("installed the service %s: %s\nstart it with: sc start %s\n", service->name, cmd, service->name);
	CloseServiceHandle(svc);
	CloseServiceHandle(scm);
	return 0;
}

static int uninstall(void)
{
	char why[256];
	SERVICE_STATUS st;
	SC_HANDLE scm = OpenSCManagerA(NULL, NULL, SC_MANAGER_CONNECT);
	if (!scm) {
		fprintf(stderr, "%s: cannot open the service control manager: %s\n", service->name,
			win_error(GetLastError(), why, sizeof(why)));
		return 1;
	}
	SC_HANDLE svc = OpenServiceA(scm, service->name, DELETE | SERVICE_QUERY_STATUS);
	if (!svc) {
		DWORD e = GetLastError();
		CloseServiceHandle(scm);
		if (e == ERROR_SERVICE_DOES_NOT_EXIST) {
			printf("the service %s is not installed\n", service->name);
			return 0;
		}
		fprintf(stderr, "%s: cannot open the service: %s\n", service->name, win_error(e, why, sizeof(why)));
		return 1;
	}
	bool running = QueryServiceStatus(svc, &st) && st.dwCurrentState != SERVICE_STOPPED;
	int r = 0;
	if (!DeleteService(svc)) {
		fprintf(stderr, "%s: cannot remove the service: %s\n", service->name,
			win_error(GetLastError(), why, sizeof(why)));
		r = 1;
	} else if (running)
		printf("the service %s is removed once it stops (sc stop %s)\n", service->name, service->name);
	else
		printf("removed the service %s\n", service->name);
	CloseServiceHandle(svc);
	CloseServiceHandle(scm);
	return r;
}

int service_main(const struct service_def *def, int argc, char **argv, int (*run)(int argc, char **argv))
{
	service = def;
	service_run = run;
	service_argc = argc;
	service_argv = argv;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--install"))
			return install(argc, argv);
		if (!strcmp(argv[i], "--uninstall"))
			return argc == 2 ? uninstall() : (fprintf(stderr, "%s: --uninstall takes nothing else\n", def->name), 2);
		if (!strcmp(argv[i], "--foreground") || !strcmp(argv[i], "--help") || !strcmp(argv[i], "-h") ||
		    !strcmp(argv[i], "--version") || !strcmp(argv[i], "--check-config"))
			return run(argc, argv);
	}

	SERVICE_TABLE_ENTRYW table[] = { { (wchar_t *)L"", service_entry }, { NULL, NULL } };
	if (StartServiceCtrlDispatcherW(table))
		return 0;
	DWORD e = GetLastError();
	if (e == ERROR_FAILED_SERVICE_CONTROLLER_CONNECT) {
		fprintf(stderr,
			"%s runs as a service: install it with --install, then sc start %s; or run it in the console "
			"with --foreground\n",
			def->name, def->name);
		return 2;
	}
	char why[256];
	fprintf(stderr, "%s: cannot start the service: %s\n", def->name, win_error(e, why, sizeof(why)));
	return 1;
}
