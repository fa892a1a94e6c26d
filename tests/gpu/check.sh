#!/bin/bash
# tests/gpu/check.sh: on a host with an NVIDIA GPU, checks that ramwatch puts
# each kind of CUDA memory where it belongs.  Not run by make check (no GPU
# there); run it by hand on a GPU host after make:
#
#   tests/gpu/check.sh [BUILD_DIR]        (default: build, beside tests/)
#
# It builds tests/gpu/cuda-alloc.c with gcc (the CUDA driver API is loaded at
# run time: no CUDA toolkit needed, only gcc and the NVIDIA driver), which
# makes a CUDA context, then allocates known amounts of device memory
# (cuMemAlloc), pinned host memory (cuMemHostAlloc) and managed memory
# (cuMemAllocManaged, touched from the host).  A census before and after the
# allocations (ramwatch scan PID --json --regions) must show
#   - the process's device memory, from NVML, grown by the device memory
#     allocated, within 5 %;
#   - the pinned buffer in a pinned_cuda region, and pinned_cuda grown by
#     its size within 5 %;
#   - the managed buffer in a cuda_uvm region, and cuda_uvm grown by its
#     size within 5 %;
#   - the classes adding up exactly to the totals (conservation);
# then ramwatchd, run briefly watching the process, must store a census
# with the same pinned and managed memory, and its census through the
# daemon (ramwatch scan --daemon) must show the device memory.
#
# Sizes: VRAM_MIB (1024), PINNED_MIB (256), MANAGED_MIB (256) in the
# environment.  Prints one line per check and "N passed, M failed"; exits 0
# when all passed, 1 when one failed, 77 when this host has no usable GPU.
set -u

here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:-$here/../../build}" 2>/dev/null && pwd) || { echo "no build directory: ${1:-build}" >&2; exit 1; }
ramwatch=$build/ramwatch
ramwatchd=$build/ramwatchd
vram_mib=${VRAM_MIB:-1024}
pinned_mib=${PINNED_MIB:-256}
managed_mib=${MANAGED_MIB:-256}
mib=$((1024 * 1024))

for f in "$ramwatch" "$ramwatchd"; do
	[ -x "$f" ] || { echo "$f is missing: run make first" >&2; exit 1; }
done

work=$(mktemp -d "${TMPDIR:-/tmp}/ramwatch-gpu-check-XXXXXX")
alloc_pid=
daemon_pid=
cleanup() {
	[ -n "$daemon_pid" ] && kill "$daemon_pid" 2>/dev/null && wait "$daemon_pid" 2>/dev/null
	[ -n "$alloc_pid" ] && kill "$alloc_pid" 2>/dev/null && wait "$alloc_pid" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT

passed=0
failed=0
# check NAME STATUS DETAIL: STATUS 0 is a pass
check() {
	if [ "$2" -eq 0 ]; then
		echo "ok    $1: $3"
		passed=$((passed + 1))
	else
		echo "FAIL  $1: $3"
		failed=$((failed + 1))
	fi
}

# within ACTUAL EXPECTED: whether ACTUAL is within 5 % of EXPECTED
within() {
	awk -v a="$1" -v e="$2" 'BEGIN { d = a - e; if (d < 0) d = -d; exit !(d <= e * 0.05) }'
}

# The census's JSON (jansson's indented output: one value a line) as
# path=value lines: classes.3.key=pinned_cuda, gpu.devices.0.used=123, ...
flatten() {
	awk '
	function prefix(   p, i) { p = ""; for (i = 2; i <= depth; i++) p = p name[i] "."; return p }
	{
		line = $0
		sub(/^[ \t]+/, "", line)
		sub(/,$/, "", line)
		key = ""
		if (line ~ /^"[^"]*": /) {
			key = substr(line, 2, index(line, "\": ") - 2)
			line = substr(line, index(line, "\": ") + 3)
		} else if (depth > 0 && array[depth] && line != "]" && line != "}")
			key = ++count[depth] - 1
		if (line == "{" || line == "[") {
			depth++; name[depth] = key; array[depth] = line == "["; count[depth] = 0
			next
		}
		if (line == "}" || line == "]") { depth--; next }
		if (line ~ /^".*"$/)
			line = substr(line, 2, length(line) - 2)
		print prefix() key "=" line
	}' "$1"
}

# field FLAT PATH: one value
field() {
	sed -n "s|^$2=||p" "$1" | head -n 1
}

# class_total FLAT CLASS COUNTER: a class's counter, 0 when the class is absent
class_total() {
	awk -F= -v cls="$2" -v what="$3" '
		$1 ~ /^classes\.[0-9]+\.key$/ && $2 == cls { split($1, p, "."); n = p[2] }
		{ v[$1] = $2 }
		END { k = "classes." n "." what; print (n != "" && k in v) ? v[k] : 0 }' "$1"
}

# class_sum FLAT COUNTER: the sum of a counter over the classes
class_sum() {
	awk -F= -v what="$2" '$1 ~ "^classes\\.[0-9]+\\." what "$" { s += $2 } END { printf "%.0f\n", s }' "$1"
}

# region_class FLAT ADDRESS: the class of the region holding ADDRESS (0x...)
region_class() {
	awk -F= -v addr="$2" '
	function hex(s,   n, i, c) {
		n = 0; s = tolower(substr(s, 3))
		for (i = 1; i <= length(s); i++) { c = index("0123456789abcdef", substr(s, i, 1)) - 1; n = n * 16 + c }
		return n
	}
	$1 ~ /^regions\.[0-9]+\.(start|end|class)$/ { split($1, p, "."); v[p[2], p[3]] = $2; if (p[2] + 1 > n) n = p[2] + 1 }
	END {
		a = hex(addr)
		for (i = 0; i < n; i++)
			if (hex(v[i, "start"]) <= a && a < hex(v[i, "end"])) { print v[i, "class"]; exit }
		print "none"
	}' "$1"
}

# vram FLAT: the device memory NVML lists for the process, summed over devices
vram() {
	awk -F= '$1 ~ /^gpu\.devices\.[0-9]+\.used$/ && $2 != "null" { s += $2 } END { printf "%.0f\n", s }' "$1"
}

scan() { # scan NAME: the census of the process as JSON and flat
	"$ramwatch" scan "$alloc_pid" --json --regions --gpu >"$work/$1.json" 2>"$work/$1.err" &&
		flatten "$work/$1.json" >"$work/$1.flat"
}

# ---- the CUDA process

gcc -std=gnu11 -O2 -Wall -Wextra -o "$work/cuda-alloc" "$here/cuda-alloc.c" -ldl || exit 1
mkfifo "$work/to" "$work/from"
"$work/cuda-alloc" "$vram_mib" "$pinned_mib" "$managed_mib" <"$work/to" >"$work/from" 2>"$work/alloc.err" &
alloc_pid=$!
exec 3>"$work/to" 4<"$work/from"
if ! read -r -t 120 line <&4 || [ "$line" != context ]; then
	wait "$alloc_pid"
	status=$?
	alloc_pid=
	cat "$work/alloc.err" >&2
	if [ "$status" -eq 2 ]; then
		echo "no NVIDIA GPU or driver here: nothing checked"
		exit 77
	fi
	echo "cuda-alloc failed (exit $status)"
	exit 1
fi

scan before || { cat "$work/before.err" >&2; exit 1; }
echo go >&3
declare -A address bytes
while read -r -t 300 what addr size <&4; do
	[ "$what" = ready ] && break
	address[$what]=$addr
	bytes[$what]=$size
done
[ -n "${address[managed]:-}" ] || { cat "$work/alloc.err" >&2; echo "cuda-alloc did not allocate"; exit 1; }
sleep 1 # NVML's per-process figures follow the driver's accounting
scan after || { cat "$work/after.err" >&2; exit 1; }

# ---- the census of ramwatch scan

state=$(field "$work/after.flat" gpu.state)
if [ "$state" = ok ]; then
	check "NVML answers" 0 "gpu.state ok, CUDA $(field "$work/after.flat" gpu.driver_version)"
else
	check "NVML answers" 1 "gpu.state $state: $(field "$work/after.flat" gpu.message)"
fi

v0=$(vram "$work/before.flat")
v1=$(vram "$work/after.flat")
within $((v1 - v0)) "${bytes[vram]}"
check "device memory per process (NVML)" $? \
	"grew by $(((v1 - v0) / mib)) MiB for $((bytes[vram] / mib)) MiB allocated (context: $((v0 / mib)) MiB)"

cls=$(region_class "$work/after.flat" "${address[pinned]}")
check "pinned memory's region" "$([ "$cls" = pinned_cuda ]; echo $?)" "${address[pinned]} is in $cls"
p0=$(class_total "$work/before.flat" pinned_cuda resident)
p1=$(class_total "$work/after.flat" pinned_cuda resident)
within $((p1 - p0)) "${bytes[pinned]}"
check "pinned memory's amount" $? "pinned_cuda grew by $(((p1 - p0) / mib)) MiB for $((bytes[pinned] / mib)) MiB"

cls=$(region_class "$work/after.flat" "${address[managed]}")
check "managed memory's region" "$([ "$cls" = cuda_uvm ]; echo $?)" "${address[managed]} is in $cls"
m0=$(class_total "$work/before.flat" cuda_uvm resident)
m1=$(class_total "$work/after.flat" cuda_uvm resident)
within $((m1 - m0)) "${bytes[managed]}"
check "managed memory's amount" $? "cuda_uvm grew by $(((m1 - m0) / mib)) MiB for $((bytes[managed] / mib)) MiB"

for counter in private resident size; do
	s=$(class_sum "$work/after.flat" "$counter")
	t=$(field "$work/after.flat" "totals.$counter")
	check "conservation ($counter)" "$([ "$s" = "$t" ]; echo $?)" "classes add up to $s, totals $t"
done

# ---- ramwatchd, run briefly

cat >"$work/ramwatchd.conf" <<EOF
[Watch]
Watch=pid:$alloc_pid
MinPrivate=0
[Sampling]
SampleInterval=200ms
StoreInterval=1s
DiscoverInterval=200ms
CensusInterval=1h
EOF
mkdir -p "$work/state"
"$ramwatchd" --foreground --config "$work/ramwatchd.conf" --state-dir "$work/state" \
	--socket "$work/ramwatch.sock" --log-level warning 2>"$work/daemon.err" &
daemon_pid=$!
query="SELECT class, resident FROM class_timeline WHERE pid = $alloc_pid AND census_id =
       (SELECT max(census_id) FROM class_timeline WHERE pid = $alloc_pid)"
rows=
for _ in $(seq 60); do
	rows=$("$ramwatch" sql --db "$work/state/ramwatch.db" --format csv "$query" 2>/dev/null | tail -n +2)
	[ -n "$rows" ] && break
	sleep 0.5
done
check "ramwatchd: a census stored" "$([ -n "$rows" ]; echo $?)" \
	"$(echo "$rows" | grep -c .) classes in its latest census of pid $alloc_pid"
stored() { echo "$rows" | awk -F, -v c="$1" '$1 == c { print $2; f = 1 } END { if (!f) print 0 }'; }
p=$(stored pinned_cuda)
within "$p" "$p1"
check "ramwatchd: pinned memory" $? "stored pinned_cuda $((p / mib)) MiB, scan $((p1 / mib)) MiB"
m=$(stored cuda_uvm)
within "$m" "$m1"
check "ramwatchd: managed memory" $? "stored cuda_uvm $((m / mib)) MiB, scan $((m1 / mib)) MiB"

if "$ramwatch" scan "$alloc_pid" --daemon --socket "$work/ramwatch.sock" --json >"$work/daemon.json" 2>>"$work/daemon.err"; then
	flatten "$work/daemon.json" >"$work/daemon.flat"
	d=$(vram "$work/daemon.flat")
	within "$d" "$v1"
	check "ramwatchd: device memory" $? "$((d / mib)) MiB in its census, $((v1 / mib)) MiB in the scan"
else
	check "ramwatchd: device memory" 1 "$(tail -n 1 "$work/daemon.err")"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
