#!/bin/bash
# The installed package, as an administrator gets it: installs the .deb with
# apt-get, runs ramwatchd the way ramwatchd.service runs it (user ramwatch,
# its capabilities, the unit's ExecStart), checks what users and
# administrators would check (other users' processes are read; the socket is
# open to all while the database is not; a user sees only their own
# processes), then runs it again under systemd itself, booted as PID 1 of
# namespaces of its own, to see the unit's sandbox let the daemon do its
# job; then removes and purges the package.  Optionally checks an .rpm's
# contents and scriptlets.
#
#   bash tests/install/test-install.sh build/deb/ramwatch_VERSION_ARCH.deb [ramwatch-VERSION.rpm]
#
# Needs root on Debian (12), and no systemd as PID 1 (with one, the package's
# own scripts would start the service; the test starts the daemon itself).
# It changes the machine: run it where that is fine (CI).  It refuses to
# touch a ramwatch package or /var/lib/ramwatch that it did not install, and
# leaves the machine as it found it (the package purged, its users removed
# if it made them), so it can run again.
set -uo pipefail

DEB=${1:-}
RPM=${2:-}
TEST_USER=rwinstall              # not the integration tests' user: both may run at once
MARKER=/run/ramwatch-install-test
DROPIN_DIR=/etc/ramwatch/ramwatchd.conf.d
DROPIN=$DROPIN_DIR/50-install-test.conf
STATE=/var/lib/ramwatch
SOCKET=/run/ramwatch/ramwatch.sock
UNITDIR=/lib/systemd/system

passed=0 failed=0 skipped=0
pass() { echo "ok: $*"; passed=$((passed + 1)); }
fail() { echo "FAIL: $*"; failed=$((failed + 1)); }
skip() { echo "skip: $*"; skipped=$((skipped + 1)); }
# check DESCRIPTION COMMAND...: passes when the command succeeds
check() { local what=$1; shift; if "$@"; then pass "$what"; else fail "$what"; fi; }
not() { ! "$@"; }
# expect DESCRIPTION ACTUAL WANTED
expect() { if [ "$2" = "$3" ]; then pass "$1 ($2)"; else fail "$1: $2, wanted $3"; fi; }
summary() { echo "$passed passed, $failed failed, $skipped skipped"; }

if [ "$(id -u)" != 0 ]; then
	skip "the install test needs root: it installs a package and adds users"
	summary
	exit 0
fi
if ! command -v apt-get >/dev/null || ! command -v dpkg >/dev/null; then
	skip "the install test needs Debian's apt-get and dpkg"
	summary
	exit 0
fi
if [ -z "$DEB" ] || [ ! -f "$DEB" ]; then
	echo "usage: $0 RAMWATCH.deb [RAMWATCH.rpm] (make deb builds it)" >&2
	exit 2
fi
if [ -d /run/systemd/system ]; then
	echo "systemd runs this machine: the package would start ramwatchd itself; run this test in a" \
		"container or CI machine without it" >&2
	exit 2
fi
DEB=$(realpath "$DEB")

tmp=$(mktemp -d /tmp/ramwatch-install-test.XXXXXX)
chmod 0755 "$tmp"
daemon_pid='' root_pid='' user_pid='' ns_pid='' ns_unshare=''
made_ramwatch_user=0 made_ramwatch_group=0 made_dropin_dir=0

installed() { dpkg-query -W -f='${Status}' ramwatch 2>/dev/null | grep -q 'install ok installed'; }
known() { dpkg-query -W -f='${Status}' ramwatch 2>/dev/null | grep -qv 'not-installed'; }
apt() { DEBIAN_FRONTEND=noninteractive apt-get -y -q "$@" >"$tmp/apt.log" 2>&1 || { cat "$tmp/apt.log"; return 1; }; }

# systemd booted in namespaces of its own: PID 1 there, its mounts its own,
# and the cgroups it made (cgroupfs is the host's) removed after it
stop_ns_systemd() {
	[ -n "$ns_pid" ] || return 0
	kill -KILL "$ns_pid" 2>/dev/null
	wait "$ns_unshare" 2>/dev/null
	local d
	find /sys/fs/cgroup -mindepth 1 -type d 2>/dev/null | sort >"$tmp/cgroups-after"
	comm -13 "$tmp/cgroups-before" "$tmp/cgroups-after" | sort -r | while read -r d; do rmdir "$d" 2>/dev/null; done
	ns_pid=''
}

cleanup() {
	stop_ns_systemd
	for p in $daemon_pid $root_pid $user_pid; do kill "$p" 2>/dev/null; done
	for p in $daemon_pid $root_pid $user_pid; do wait "$p" 2>/dev/null; done
	rm -f "$DROPIN"
	[ $made_dropin_dir = 1 ] && rmdir "$DROPIN_DIR" 2>/dev/null
	if [ -e "$MARKER" ] && known; then
		DEBIAN_FRONTEND=noninteractive apt-get -y -q purge ramwatch >/dev/null 2>&1
	fi
	[ -e "$MARKER" ] && rm -rf "$STATE" /run/ramwatch
	userdel "$TEST_USER" 2>/dev/null
	[ $made_ramwatch_user = 1 ] && userdel ramwatch 2>/dev/null
	[ $made_ramwatch_group = 1 ] && groupdel ramwatch 2>/dev/null
	rm -f "$MARKER"
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ------------------------------------------------------------------ a clean start

# A package or state left by an earlier run of this test (the marker says
# so) goes; anyone else's stays, and the test stops.
if [ -e "$MARKER" ]; then
	known && apt purge ramwatch
	rm -rf "$STATE" /run/ramwatch
elif known || [ -e "$STATE" ]; then
	echo "ramwatch is installed here, or $STATE exists, and not by this test: not touching it" >&2
	trap - EXIT
	rm -rf "$tmp"
	exit 2
fi
: >"$MARKER"
getent passwd ramwatch >/dev/null || made_ramwatch_user=1
getent group ramwatch >/dev/null || made_ramwatch_group=1
userdel "$TEST_USER" 2>/dev/null
useradd --no-create-home --shell /usr/sbin/nologin "$TEST_USER" || exit 1
test_uid=$(id -u "$TEST_USER")

# ------------------------------------------------------------------ the package's contents

contents=$(dpkg-deb -c "$DEB" | awk '{ print $6 }' | sed 's|^\./|/|')
for f in /usr/bin/ramwatch /usr/sbin/ramwatchd /etc/ramwatch/ramwatchd.conf \
	$UNITDIR/ramwatchd.service $UNITDIR/ramwatchd.socket \
	/usr/lib/sysusers.d/ramwatch.conf /usr/lib/tmpfiles.d/ramwatch.conf \
	/usr/share/man/man1/ramwatch.1.gz /usr/share/man/man5/ramwatchd.conf.5.gz \
	/usr/share/man/man7/ramwatch-schema.7.gz /usr/share/man/man8/ramwatchd.8.gz \
	/usr/share/bash-completion/completions/ramwatch /usr/share/zsh/vendor-completions/_ramwatch \
	/usr/lib/ramwatch/libramwatch-trace.so /usr/lib/ramwatch/python/ramwatch_trace.py \
	/usr/include/ramwatch-trace.h /usr/share/man/man3/ramwatch-trace.3.gz; do
	check "the package holds $f" grep -qx "$f" <<<"$contents"
done
check "ramwatchd.conf is a conffile" bash -c "dpkg-deb -I '$DEB' conffiles | grep -qx /etc/ramwatch/ramwatchd.conf"

# ------------------------------------------------------------------ install

if ! apt install "$DEB"; then
	fail "apt-get install $DEB"
	summary
	exit 1
fi
check "apt-get install: ramwatch is installed" installed
# the installed client finds the installed tracer, and a traced shell's trace is whole
trace_file=$(mktemp)
check "ramwatch trace record finds the installed tracer" \
	bash -c "/usr/bin/ramwatch trace record -o '$trace_file' -- /bin/true 2>&1 | grep -q ', trace complete\$'"
rm -f "$trace_file"

# The system user and group, from the sysusers.d file
uid_min=$(awk '$1 == "UID_MIN" { print $2 }' /etc/login.defs 2>/dev/null)
IFS=: read -r _ _ rw_uid rw_gid _ rw_home rw_shell < <(getent passwd ramwatch)
if [ -n "${rw_uid:-}" ]; then
	check "user ramwatch is a system user (uid $rw_uid < ${uid_min:-1000})" test "$rw_uid" -lt "${uid_min:-1000}"
	expect "user ramwatch's group" "$(getent group "$rw_gid" | cut -d: -f1)" ramwatch
	expect "user ramwatch's home" "$rw_home" $STATE
	expect "user ramwatch cannot log in" "$rw_shell" /usr/sbin/nologin
	expect "group ramwatch has no members yet" "$(getent group ramwatch | cut -d: -f4)" ""
else
	fail "the package made no user ramwatch"
fi
# The state directory, from the tmpfiles.d file, before the first start
expect "$STATE after install" "$(stat -c '%a %U:%G' $STATE 2>&1)" "750 ramwatch:ramwatch"
for u in multi-user.target.wants/ramwatchd.service sockets.target.wants/ramwatchd.socket; do
	check "the units are enabled: $u" test -L /etc/systemd/system/$u
done
out=$(systemd-analyze verify --man=no $UNITDIR/ramwatchd.service $UNITDIR/ramwatchd.socket 2>&1)
rc=$?
check "systemd-analyze verify: the installed units are good${out:+: $out}" test $rc = 0 -a -z "$out"
exposure=$(systemd-analyze security --offline=yes --no-pager $UNITDIR/ramwatchd.service 2>&1 | tail -n 1)
check "systemd-analyze security: $exposure" \
	systemd-analyze security --offline=yes --threshold=20 --no-pager $UNITDIR/ramwatchd.service >/dev/null 2>&1
check "ramwatchd --check-config accepts the installed ramwatchd.conf" \
	setpriv --reuid=ramwatch --regid=ramwatch --init-groups /usr/sbin/ramwatchd --check-config >/dev/null

# ------------------------------------------------------------------ run it as the unit would

unit_value() { sed -n "s/^$1=//p" $UNITDIR/ramwatchd.service; }
expect "the unit's user" "$(unit_value User)" ramwatch
expect "the unit's ambient capabilities" "$(unit_value AmbientCapabilities)" "CAP_SYS_PTRACE CAP_DAC_READ_SEARCH CAP_BPF CAP_PERFMON CAP_SYSLOG"
expect "the unit's bounding capabilities" "$(unit_value CapabilityBoundingSet)" "CAP_SYS_PTRACE CAP_DAC_READ_SEARCH CAP_BPF CAP_PERFMON CAP_SYSLOG"
expect "the unit's state directory mode" "$(unit_value StateDirectoryMode)" 0750
expect "the socket unit's path" "$(sed -n 's/^ListenStream=//p' $UNITDIR/ramwatchd.socket)" $SOCKET
expect "the socket unit's mode" "$(sed -n 's/^SocketMode=//p' $UNITDIR/ramwatchd.socket)" 0666
exec_start=$(unit_value ExecStart)

# Two processes to watch: root's and an unprivileged user's
sleep 600 &
root_pid=$!
setpriv --reuid="$TEST_USER" --regid="$TEST_USER" --init-groups sleep 600 &
user_pid=$!
[ -d $DROPIN_DIR ] || { mkdir -p $DROPIN_DIR; made_dropin_dir=1; }
cat >$DROPIN <<EOF
# written by tests/install/test-install.sh
[Watch]
Watch=pid:$root_pid pid:$user_pid
MinPrivate=0
[Sampling]
DiscoverInterval=1s
StoreInterval=1s
EOF

# The socket's path is the unit's: nothing else may hold it
if python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).connect(sys.argv[1])' $SOCKET 2>/dev/null; then
	fail "another process listens on $SOCKET (another ramwatchd, or the integration tests): stop it and run again"
	summary
	exit 1
fi

# What StateDirectory= and RuntimeDirectory= would have made, and the
# environment systemd would give (no socket passed: the daemon makes it)
install -d -m 0755 -o ramwatch -g ramwatch /run/ramwatch
(
	cd / && umask 0027 &&
		exec env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin STATE_DIRECTORY=$STATE RUNTIME_DIRECTORY=/run/ramwatch \
			setpriv --reuid=ramwatch --regid=ramwatch --init-groups \
			--inh-caps=+sys_ptrace,+dac_read_search,+bpf,+perfmon,+syslog \
			--ambient-caps=+sys_ptrace,+dac_read_search,+bpf,+perfmon,+syslog \
			--bounding-set=-all,+sys_ptrace,+dac_read_search,+bpf,+perfmon,+syslog $exec_start
) >"$tmp/ramwatchd.log" 2>&1 &
daemon_pid=$!

for _ in $(seq 100); do
	[ -S $SOCKET ] && break
	kill -0 $daemon_pid 2>/dev/null || break
	sleep 0.1
done
if ! kill -0 $daemon_pid 2>/dev/null; then
	fail "ramwatchd did not start"
	cat "$tmp/ramwatchd.log"
	summary
	exit 1
fi
pass "ramwatchd runs as the unit would: $exec_start"
expect "ramwatchd's uid (ramwatch's)" "$(awk '/^Uid:/ { print $2 }' /proc/$daemon_pid/status)" "$rw_uid"
caps=$(awk '/^Cap(Eff|Amb|Bnd)/ { printf "%s=%s ", $1, $2 }' /proc/$daemon_pid/status)
expect "ramwatchd's capabilities (CAP_SYS_PTRACE CAP_DAC_READ_SEARCH CAP_BPF CAP_PERFMON CAP_SYSLOG)" "$caps" \
	"CapEff:=000000c400080004 CapBnd:=000000c400080004 CapAmb:=000000c400080004 "
expect "the socket's mode and owner" "$(stat -c '%A %U' $SOCKET)" "srw-rw-rw- ramwatch"

# The censuses: ok for root's process and the other user's (CAP_SYS_PTRACE)
census_status() {
	sqlite3 -readonly $STATE/ramwatch.db "SELECT group_concat(DISTINCT c.status) FROM censuses c
		JOIN processes p ON p.id = c.process_id WHERE p.pid = $1 AND p.uid = $2" 2>/dev/null
}
for _ in $(seq 300); do
	[ "$(census_status $root_pid 0)" = ok ] && [ "$(census_status $user_pid "$test_uid")" = ok ] && break
	sleep 0.1
done
expect "the census of root's process (pid $root_pid)" "$(census_status $root_pid 0)" ok
expect "the census of $TEST_USER's process (pid $user_pid)" "$(census_status $user_pid "$test_uid")" ok

# With CAP_BPF and CAP_PERFMON the change watch loads: statm is read only
# of processes the kernel names
check "ramwatchd runs the change watch under the unit's capabilities" \
	grep -q "reading statm only of processes the kernel's change events name" "$tmp/ramwatchd.log"
expect "the database's mode and owner" "$(stat -c '%a %U:%G' $STATE/ramwatch.db)" "640 ramwatch:ramwatch"
for f in $STATE/ramwatch.db-wal $STATE/ramwatch.db-shm; do
	[ -e $f ] && expect "$f's mode" "$(stat -c '%a %U:%G' $f)" "640 ramwatch:ramwatch"
done
expect "the state directory's mode and owner" "$(stat -c '%a %U:%G' $STATE)" "750 ramwatch:ramwatch"
check "$TEST_USER cannot read the database" \
	bash -c "! runuser -u $TEST_USER -- sqlite3 -readonly $STATE/ramwatch.db 'SELECT 1' >/dev/null 2>&1"

# What each one sees through the socket
pids_seen() { # USER: the pids `ramwatch processes` lists to USER, then the uid it filtered to
	runuser -u "$1" -- ramwatch processes --format json 2>"$tmp/processes.err" | python3 -c '
import json, sys
r = json.load(sys.stdin)
print(" ".join(str(p["pid"]) for p in sorted(r["processes"], key=lambda p: p["pid"])), r.get("filtered_to_uid"))'
}
expect "root sees both processes" "$(pids_seen root)" "$(printf '%s\n' $root_pid $user_pid | sort -n | xargs) None"
expect "$TEST_USER sees only their own process" "$(pids_seen "$TEST_USER")" "$user_pid $test_uid"
check "$TEST_USER is told the list holds only their processes" \
	bash -c "runuser -u $TEST_USER -- ramwatch processes 2>&1 >/dev/null | grep -q 'only your own processes'"

# ExecReload=kill -HUP $MAINPID, then ExecStop's SIGTERM
kill -HUP $daemon_pid
sleep 0.5
check "ramwatchd keeps running after a reload (SIGHUP)" kill -0 $daemon_pid
kill -TERM $daemon_pid
wait $daemon_pid
expect "ramwatchd's exit status after SIGTERM" $? 0
daemon_pid=''
check "ramwatchd removed the socket it made" test ! -e $SOCKET
kill $root_pid $user_pid 2>/dev/null
wait $root_pid $user_pid 2>/dev/null
root_pid='' user_pid=''
rm -f $DROPIN

# ------------------------------------------------------------------ under systemd itself

# The unit's sandbox (seccomp filter, capabilities, read-only file system,
# private network, device policy) is only applied by systemd.  Boot it as
# PID 1 of new pid, mount, network, uts and ipc namespaces, with everything
# it could change on this machine hidden behind tmpfs (/run, /tmp, /var/tmp,
# /var/log, /etc/systemd/system) and every unit and generator masked but
# the journal, ramwatchd's two units and two processes to watch.
ns_boot() {
	cat <<'EOF'
set -e
mount --make-rprivate /
for d in /run /tmp /var/tmp /var/log /etc/systemd/system; do mount -t tmpfs -o mode=0755 tmpfs $d; done
chmod 1777 /tmp /var/tmp
mount --bind /dev/null /etc/fstab
mkdir -p /run/systemd/system-generators
for g in /lib/systemd/system-generators/* /usr/lib/systemd/system-generators/*; do
	[ -e "$g" ] && ln -sf /dev/null /run/systemd/system-generators/"${g##*/}"
done
cd /etc/systemd/system
for w in sysinit.target.wants sockets.target.wants basic.target.wants multi-user.target.wants \
	local-fs.target.wants timers.target.wants getty.target.wants; do
	for u in /lib/systemd/system/$w/*; do
		case "${u##*/}" in
		systemd-journald.service | systemd-journald.socket | systemd-journald-dev-log.socket) ;;
		*) [ -e "$u" ] && ln -sf /dev/null "${u##*/}" ;;
		esac
	done
done
for u in getty.target systemd-udevd.service systemd-udev-trigger.service systemd-remount-fs.service \
	systemd-sysctl.service systemd-binfmt.service systemd-modules-load.service; do ln -sf /dev/null $u; done
mkdir -p multi-user.target.wants sockets.target.wants
ln -s /lib/systemd/system/ramwatchd.service multi-user.target.wants/
ln -s /lib/systemd/system/ramwatchd.socket sockets.target.wants/
printf '[Service]\nExecStart=/usr/bin/sleep 600\n' >rwinstall-root.service
printf '[Service]\nUser=%s\nExecStart=/usr/bin/sleep 600\n' "$TEST_USER" >rwinstall-user.service
ln -s /etc/systemd/system/rwinstall-root.service /etc/systemd/system/rwinstall-user.service multi-user.target.wants/
exec env -i container=ramwatch-install-test /lib/systemd/systemd --system --log-target=console \
	--show-status=no --unit=multi-user.target
EOF
}
in_ns() { nsenter -t "$ns_pid" -m -p -n -u -i -- "$@"; }
ns_show() { in_ns systemctl show -P "$2" "$1" 2>/dev/null; }

if ! command -v unshare >/dev/null || ! command -v nsenter >/dev/null; then
	skip "no unshare or nsenter: the unit is not run under systemd"
else
	cat >$DROPIN <<EOF
# written by tests/install/test-install.sh
[Watch]
Watch=name:sleep
MinPrivate=0
[Sampling]
DiscoverInterval=1s
StoreInterval=1s
EOF
	find /sys/fs/cgroup -mindepth 1 -type d 2>/dev/null | sort >"$tmp/cgroups-before"
	since_ms=$(($(date +%s) * 1000 - 1000))
	TEST_USER=$TEST_USER unshare --fork --pid --mount --net --uts --ipc --mount-proc \
		bash -c "$(ns_boot)" >"$tmp/systemd.log" 2>&1 </dev/null &
	ns_unshare=$!
	for _ in $(seq 50); do
		ns_pid=$(pgrep -P $ns_unshare -x systemd) && break
		sleep 0.1
	done
	state=''
	for _ in $(seq 200); do
		[ -n "$ns_pid" ] || break
		state=$(ns_show ramwatchd.service ActiveState)
		case "$state" in active | failed) break ;; esac
		sleep 0.1
	done
	if [ -z "$ns_pid" ] || [ -z "$state" ]; then
		skip "systemd does not boot in a namespace here: the unit is not run under systemd"
		tail -n 20 "$tmp/systemd.log"
		stop_ns_systemd
	else
		expect "under systemd: ramwatchd.service" "$state" active
		expect "under systemd: ramwatchd.socket" "$(ns_show ramwatchd.socket ActiveState)" active
		main=$(ns_show ramwatchd.service MainPID)
		status=$(in_ns cat /proc/"$main"/status 2>/dev/null)
		caps=$(awk '/^Cap(Eff|Amb|Bnd)/ { printf "%s=%s ", $1, $2 }' <<<"$status")
		expect "under systemd: ramwatchd's capabilities" "$caps" \
			"CapEff:=000000c400080004 CapBnd:=000000c400080004 CapAmb:=000000c400080004 "
		expect "under systemd: ramwatchd's uid" "$(awk '/^Uid:/ { print $2 }' <<<"$status")" "$rw_uid"
		expect "under systemd: its system call filter (Seccomp: 2) and no new privileges" \
			"$(awk '/^(Seccomp|NoNewPrivs):/ { printf "%s%s ", $1, $2 }' <<<"$status")" "NoNewPrivs:1 Seccomp:2 "
		expect "under systemd: the socket's mode" "$(in_ns stat -c %A $SOCKET)" srw-rw-rw-
		ns_census() { # UID: the census statuses of the watched sleep of that uid since this phase began
			sqlite3 -readonly $STATE/ramwatch.db "SELECT group_concat(DISTINCT c.status) FROM censuses c
				JOIN processes p ON p.id = c.process_id
				WHERE p.comm = 'sleep' AND p.uid = $1 AND p.first_seen >= $since_ms" 2>/dev/null
		}
		for _ in $(seq 300); do
			[ "$(ns_census 0)" = ok ] && [ "$(ns_census "$test_uid")" = ok ] && break
			sleep 0.1
		done
		expect "under systemd: the census of root's process" "$(ns_census 0)" ok
		expect "under systemd: the census of $TEST_USER's process" "$(ns_census "$test_uid")" ok
		check "under systemd: systemctl reload ramwatchd" in_ns systemctl reload ramwatchd.service
		in_ns systemctl restart ramwatchd.socket
		sleep 1
		new_main=$(ns_show ramwatchd.service MainPID)
		check "under systemd: restarting the socket restarts the daemon ($main -> $new_main)" \
			test "$new_main" != "$main" -a "$new_main" != 0
		check "under systemd: ramwatch status answers through the socket" in_ns ramwatch status
		expect "under systemd: ramwatchd was never restarted by a failure" "$(ns_show ramwatchd.service NRestarts)" 0
		if [ $failed != 0 ]; then
			echo "--- the journal under systemd"
			in_ns journalctl --no-pager -u ramwatchd -u ramwatchd.socket | tail -n 30
		fi
		stop_ns_systemd
	fi
	rm -f $DROPIN
fi
[ $made_dropin_dir = 1 ] && rmdir $DROPIN_DIR && made_dropin_dir=0

# ------------------------------------------------------------------ remove, purge, install again

apt remove ramwatch
check "apt-get remove: the programs are gone" test ! -e /usr/sbin/ramwatchd -a ! -e /usr/bin/ramwatch
check "apt-get remove: the database stays" test -f $STATE/ramwatch.db
check "apt-get remove: ramwatchd.conf stays" test -f /etc/ramwatch/ramwatchd.conf
check "apt-get remove: user ramwatch stays" getent passwd ramwatch

apt purge ramwatch
check "apt-get purge: the package is gone" not known
check "apt-get purge: the database and $STATE are gone" test ! -e $STATE
check "apt-get purge: /etc/ramwatch is gone" test ! -e /etc/ramwatch
check "apt-get purge: the units' enablement is gone" \
	test ! -e /etc/systemd/system/multi-user.target.wants/ramwatchd.service \
	-a ! -e /etc/systemd/system/sockets.target.wants/ramwatchd.socket
# Debian's custom: a system user outlives its package (files it owns may
# remain), and a reinstall takes it back
check "apt-get purge: user ramwatch stays, as Debian's system users do" getent passwd ramwatch

apt install "$DEB"
expect "installed again: user ramwatch keeps its uid" "$(id -u ramwatch)" "$rw_uid"
expect "installed again: a new, empty $STATE" "$(stat -c '%a %U:%G' $STATE) $(ls -A $STATE | wc -l)" \
	"750 ramwatch:ramwatch 0"
apt purge ramwatch
check "purged again" test ! -e $STATE -a ! -e /usr/sbin/ramwatchd

# ------------------------------------------------------------------ the .rpm (contents and scriptlets only)

if [ -n "$RPM" ]; then
	if ! command -v rpm >/dev/null; then
		skip "no rpm here: $RPM not checked"
	else
		rpm_files=$(rpm -qlp "$RPM" 2>/dev/null)
		for f in /usr/bin/ramwatch /usr/sbin/ramwatchd /etc/ramwatch/ramwatchd.conf \
			/usr/lib/systemd/system/ramwatchd.service /usr/lib/systemd/system/ramwatchd.socket \
			/usr/lib/sysusers.d/ramwatch.conf /usr/lib/tmpfiles.d/ramwatch.conf /var/lib/ramwatch \
			/usr/share/bash-completion/completions/ramwatch /usr/share/zsh/site-functions/_ramwatch; do
			check "the rpm holds $f" grep -qx "$f" <<<"$rpm_files"
		done
		check "the rpm's /var/lib/ramwatch is 0750 ramwatch:ramwatch" \
			bash -c "rpm -qlvp '$RPM' 2>/dev/null | grep -E '^drwxr-x---.* ramwatch +ramwatch .* /var/lib/ramwatch$' >/dev/null"
		scripts=$(rpm -qp --scripts "$RPM" 2>/dev/null)
		check "the rpm's %pre makes user ramwatch" grep -q 'systemd-sysusers\|useradd' <<<"$scripts"
		check "the rpm's %post enables the units" grep -q 'ramwatchd.socket ramwatchd.service' <<<"$scripts"
		check "the rpm's %post makes the directories" grep -q 'systemd-tmpfiles --create' <<<"$scripts"
	fi
fi

if [ $failed != 0 ]; then
	echo "--- ramwatchd's log"
	cat "$tmp/ramwatchd.log" 2>/dev/null
fi
summary
[ $failed = 0 ]
