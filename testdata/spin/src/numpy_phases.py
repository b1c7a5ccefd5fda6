"""Alternates numpy matrix multiplications with pure-Python work and times
each phase with its own clock (time.perf_counter, CLOCK_MONOTONIC on Linux).

    numpy_phases.py ROUNDS [SECONDS_PER_PHASE]

Prints one JSON object (the truth): the phases' totals, the loop's start
and end and each Python phase's start and end on the monotonic clock, so a
trace recorded with perf record -k mono can be cut to them, and the main
thread's CPU time in the Python phases
(below their wall time when other work took the CPU: the recording is then
contended). OPENBLAS_NUM_THREADS sets the BLAS threads.
"""
import json
import os
import sys
import time

import numpy as np


def blas_phase(a, b, seconds):
    """Multiplies until SECONDS have passed on the clock."""
    end = time.perf_counter() + seconds
    n = 0
    while time.perf_counter() < end:
        np.matmul(a, b)
        n += 1
    return n


def python_phase(seconds):
    """Pure-Python arithmetic (no numpy call) until SECONDS have passed."""
    end = time.perf_counter() + seconds
    x = 0
    while time.perf_counter() < end:
        for i in range(2000):
            x = (x * 31 + i) % 1000003
    return x


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 6
    seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 0.2
    rng = np.random.default_rng(1)
    a = rng.random((300, 300))
    b = rng.random((300, 300))
    np.matmul(a, b)  # warm up (OpenBLAS started its threads when loaded)
    blas = python = python_cpu = 0.0
    matmuls = 0
    windows = []
    start = time.perf_counter()
    for _ in range(rounds):
        t0 = time.perf_counter()
        matmuls += blas_phase(a, b, seconds)
        t1, c1 = time.perf_counter(), time.thread_time()
        python_phase(seconds)
        t2, c2 = time.perf_counter(), time.thread_time()
        blas += t1 - t0
        python += t2 - t1
        python_cpu += c2 - c1
        windows.append([t1, t2])
    end = time.perf_counter()
    print(json.dumps({
        "workload": "numpy_phases",
        "openblas_num_threads": os.environ.get("OPENBLAS_NUM_THREADS", ""),
        "openblas_thread_timeout": os.environ.get("OPENBLAS_THREAD_TIMEOUT", ""),
        "rounds": rounds,
        "matmuls": matmuls,
        "loop_start": start,
        "loop_end": end,
        "loop_s": end - start,
        "blas_s": blas,
        "python_s": python,
        "python_cpu_s": python_cpu,
        "python_share": python / (end - start),
        "python_phases": windows,
    }))


if __name__ == "__main__":
    main()
