#!/bin/sh
# Saves a live process's smaps and status as a test fixture:
#   tests/data/capture.sh NAME PID   ->  tests/data/smaps/NAME.smaps, NAME.status
# The fixtures in tests/data/smaps were taken with it from real processes
# (Linux 6.18, Debian 12): see tests/data/README.md for what each one runs.
set -eu
name=$1 pid=$2
dir=$(dirname "$0")/smaps
cat "/proc/$pid/smaps" > "$dir/$name.smaps"
cat "/proc/$pid/status" > "$dir/$name.status"
echo "$dir/$name.smaps: $(grep -c '^[0-9a-f]*-' "$dir/$name.smaps") regions"
