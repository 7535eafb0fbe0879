#!/usr/bin/python3
"""NumPy as a peer of the README's speed table: the same cases as the `parallel/` suite (64 MiB of float32 as
[16384, 1024]; "along the rows" = axis 1, "over the rows" = axis 0, "one line" = 16 Mi floats), each pass followed by
the suite's own read or copy probe (bench/harness.hpp, built into a small library: bench/numpy_probes.cpp) over the
case's buffers, in this process. NumPy runs its reductions and scans on one thread.

Prints one markdown row per case: best / median in % of the limit, as the suite reports them (best = the fastest
pass against the fastest probe; median = each pass against the probe right after it).

    bench/numpy_peer.py [passes=15]     (Debian's python3-numpy: /usr/bin/python3)
"""
import ctypes
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def load_probes():
    """Builds bench/numpy_probes.cpp as the suite's benchmark is built (g++ -O3 -march=x86-64-v3) and loads it."""
    out = os.path.join(tempfile.mkdtemp(prefix="tensorops-numpy-peer-"), "probes.so")
    subprocess.run(["g++", "-std=c++20", "-O3", "-march=x86-64-v3", "-shared", "-fPIC", "-I", os.path.join(ROOT, "bench"),
                    os.path.join(ROOT, "bench", "numpy_probes.cpp"), "-o", out, "-lbenchmark"], check=True)
    lib = ctypes.CDLL(out)
    lib.tensorops_bench_read_probe.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
    lib.tensorops_bench_read_probe.restype = ctypes.c_float
    lib.tensorops_bench_copy_probe.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t]
    return lib


def seconds(call):
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


def main():
    passes = int(sys.argv[1]) if len(sys.argv) > 1 else 15
    probes = load_probes()
    rng = np.random.default_rng(1)
    x = rng.uniform(0.5, 1.5, size=(16384, 1024)).astype(np.float32)
    line = x.reshape(-1)
    scratch = np.empty_like(x)
    rows_out, columns_out = np.empty((16384,), np.float32), np.empty((1024,), np.float32)
    rows_index, columns_index = np.empty((16384,), np.int64), np.empty((1024,), np.int64)

    def read_probe():
        probes.tensorops_bench_read_probe(x.ctypes.data, x.size)

    def copy_probe():
        probes.tensorops_bench_copy_probe(scratch.ctypes.data, x.ctypes.data, x.nbytes)

    def log_sum_exp(axis, out):  # NumPy has none: the usual two-pass form a NumPy user writes
        m = x.max(axis=axis, keepdims=True)
        np.log(np.exp(x - m).sum(axis=axis), out=out)
        out += m.reshape(out.shape)

    cases = [
        ("reduce SUM", "along the rows", lambda: np.sum(x, axis=1, out=rows_out), read_probe),
        ("reduce SUM", "over the rows", lambda: np.sum(x, axis=0, out=columns_out), read_probe),
        ("reduce MAX", "along the rows", lambda: np.max(x, axis=1, out=rows_out), read_probe),
        ("reduce MAX", "over the rows", lambda: np.max(x, axis=0, out=columns_out), read_probe),
        ("reduce LOG_SUM_EXP", "along the rows", lambda: log_sum_exp(1, rows_out), read_probe),
        ("reduce LOG_SUM_EXP", "over the rows", lambda: log_sum_exp(0, columns_out), read_probe),
        ("argmax", "along the rows", lambda: np.argmax(x, axis=1, out=rows_index), read_probe),
        ("argmax", "over the rows", lambda: np.argmax(x, axis=0, out=columns_index), read_probe),
        ("cumulative sum", "along the rows", lambda: np.cumsum(x, axis=1, out=scratch), copy_probe),
        ("cumulative sum", "over the rows", lambda: np.cumsum(x, axis=0, out=scratch), copy_probe),
        ("cumulative sum", "one line", lambda: np.cumsum(line, out=scratch.reshape(-1)), copy_probe),
    ]
    print(f"NumPy {np.__version__}, {passes} passes per case; % of the suite's read (reductions, argmax) or copy (scans) "
          "probe over the same buffers, best / median")
    print("| operator | layout | NumPy, 1 thread |")
    print("| --- | --- | ---: |")
    for name, layout, operation, probe in cases:
        operation()
        probe()
        op_times, probe_times = [], []
        for _ in range(passes):
            op_times.append(seconds(operation))
            probe_times.append(seconds(probe))
        best = 100 * min(probe_times) / min(op_times)
        median = 100 * statistics.median(p / o for o, p in zip(op_times, probe_times))
        print(f"| {name} | {layout} | {best:.0f} / {median:.0f} |", flush=True)


if __name__ == "__main__":
    main()
