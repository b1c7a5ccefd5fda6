#!/usr/bin/env bash
# Writes perf script text of N threads, each seen once (distinct tids, one
# sample each, 10 µs apart), for measuring memory per thread:
#
#   scripts/many-threads.sh N [once|switch|forkexit|cpuwide|busy] | /usr/bin/time -v wallfold >/dev/null
#
# once: the sample alone (no task events, no switch records); switch: a
# per-task SWITCH IN before it and a SWITCH OUT after; forkexit: a FORK
# before it and an EXIT after; cpuwide: system-wide CPU-wide switches on
# 8 CPUs (process scope), each thread in a process of its own; busy: the
# same records of 64 threads in turn (many records a second, few threads:
# the look-ahead on a pipe holds its most).
set -euo pipefail
n=${1:?usage: scripts/many-threads.sh N [once|switch|forkexit|cpuwide|busy]}
mode=${2:-once}
exec awk -v n="$n" -v mode="$mode" 'BEGIN {
	base = 100
	for (i = 0; i < n; i++) {
		tid = 1001 + i
		if (mode == "busy") tid = 1001 + i % 64
		us = 100000000 + i * 10
		t = sprintf("%d.%06d", int(us / 1000000), us % 1000000)
		t2 = sprintf("%d.%06d", int((us + 5) / 1000000), (us + 5) % 1000000)
		t3 = sprintf("%d.%06d", int((us + 8) / 1000000), (us + 8) % 1000000)
		if (mode == "cpuwide" || mode == "busy") {
			cpu = sprintf("[%03d]", i % 8)
			printf "w %d/%d %s %s: PERF_RECORD_SWITCH_CPU_WIDE IN  prev pid/tid:     0/0    \n", tid, tid, cpu, t
			printf "w %d/%d %s %s:    1001001 cpu-clock: \n\t  401000 work+0x10 (/bin/w)\n\n", tid, tid, cpu, t2
			printf "w %d/%d %s %s: PERF_RECORD_SWITCH_CPU_WIDE OUT next pid/tid:     0/0    \n", tid, tid, cpu, t3
			continue
		}
		if (mode == "switch") printf "w %d/%d %s: PERF_RECORD_SWITCH IN\n", 1000, tid, t
		if (mode == "forkexit") printf "w %d/%d %s: PERF_RECORD_FORK(%d:%d):(%d:%d)\n", 1000, tid, t, 1000, tid, 1000, 1000
		printf "w %d/%d %s:    1001001 cpu-clock: \n\t  401000 work+0x10 (/bin/w)\n\n", 1000, tid, t2
		if (mode == "switch") printf "w %d/%d %s: PERF_RECORD_SWITCH OUT\n", 1000, tid, t3
		if (mode == "forkexit") printf "w %d/%d %s: PERF_RECORD_EXIT(%d:%d):(%d:%d)\n", 1000, tid, t3, 1000, tid, 1000, 1000
	}
}'
