"""Memory layers with q2m3's signatures (stdlib only, like the original:
importing this module loads neither the compiler nor NumPy).

Layers: getrusage(RUSAGE_SELF/RUSAGE_CHILDREN) peaks, /proc status
(VmRSS, VmPeak, VmHWM), smaps_rollup, tracemalloc (Python heap), and, beyond
q2m3, the C/C++ heap (glibc mallinfo2: arena bytes in use + mmapped chunks,
the same figure as the C++ library's HeapInfo.inUse) with a sampled peak.

Units: every MB here is decimal, 1e6 bytes, as in q2-opt's table, the
report and sweeps (docs/report.md, "One unit convention"): /proc's and
getrusage's "kB" are KiB, so a value of N kB is N * 1024 / 1e6 MB.
"""
import math
import os
import resource
import threading
import time
# The C module: tracemalloc.py imports linecache, fnmatch, ... (ms each);
# is_tracing/get_traced_memory are these.
import _tracemalloc

from .._args import check_number, check_pid, check_str

__all__ = ["MemorySnapshot", "ProfileResult", "read_proc_status",
           "read_smaps_rollup", "take_snapshot", "MemoryTimeline",
           "ParentSideMonitor", "measure_command", "read_heap"]

MB = 1e6  # bytes per MB, the one unit of every *_mb value
_KIB_PER_MB = 1024.0 / MB


def _define_dataclasses():
    """Defines MemorySnapshot and ProfileResult on first use: ``import
    dataclasses`` pulls in inspect, enum, ... (about 10 ms), more than the
    rest of this module's import."""
    import dataclasses

    @dataclasses.dataclass
    class MemorySnapshot:
        """All layers at one instant (MB = 1e6 bytes)."""
        label: str
        rss_mb: float
        vm_peak_mb: float
        maxrss_mb: float
        maxrss_children_mb: float
        tracemalloc_peak_mb: float
        tracemalloc_current_mb: float
        elapsed_s: float = 0.0
        # q2 beyond q2m3 (all defaulted, after q2m3's fields):
        hwm_mb: float = 0.0
        heap_in_use_mb: float = 0.0
        # Highest C/C++ heap seen by this module's readers (snapshots and
        # MemoryTimeline samples) up to this snapshot, or over the phase for the
        # profile_* snapshots: sampled, so a lower bound of the true peak.
        heap_peak_mb: float = 0.0
        heap_peak_source: str = "sampled"
        # The absolute figures at the snapshot's instant: for take_snapshot
        # the same as rss_mb and tracemalloc_current_mb; for the phase
        # snapshots of qpe_profiler (whose rss_mb and tracemalloc_current_mb
        # are the change over the phase, as in q2m3) the values at its end.
        rss_after_mb: float = 0.0
        tracemalloc_after_mb: float = 0.0
        # Per compile stage, for Phase B: name, wall_s, peak_rss_mb,
        # peak_source, heap_after_mb, heap_peak_mb, ir_kb, ir_lines.
        stages: list = dataclasses.field(default_factory=list)


    @dataclasses.dataclass
    class ProfileResult:
        """The profile of one (molecule, n_est, n_trotter, mode) point."""
        molecule: str
        n_system_qubits: int
        n_estimation_wires: int
        n_trotter: int
        n_terms: int
        ir_scale: int
        mode: str = "dynamic"
        phase_a: "MemorySnapshot | None" = None
        phase_b: "MemorySnapshot | None" = None
        phase_c: "MemorySnapshot | None" = None
        timeline_peak_mb: float = 0.0
        timeline_samples: list = dataclasses.field(default_factory=list)
        ir_analysis: list = dataclasses.field(default_factory=list)
        prob_sum: float = 0.0
        error: "str | None" = None
        # q2 beyond q2m3:
        energy: "float | None" = None          # decoded from the last call
        exact_energy: "float | None" = None    # the sector's exact ground energy
        energy_error: "float | None" = None    # |energy - exact_energy|
        compile_s: float = 0.0                 # wall s of the six stages
        compile_peak_mb: float = 0.0           # highest stage peak (sampled)
        heap_peak_mb: float = 0.0              # C/C++ heap, sampled, whole point
        wall_s: float = 0.0                    # the point, all phases
        pid: int = 0                           # process that ran it

        def to_row(self):
            """One flat dict (summary.csv's columns): scalars, phase figures,
            and IR KB/lines per stage."""
            row = {k: getattr(self, k) for k in (
                "molecule", "mode", "n_system_qubits", "n_estimation_wires",
                "n_trotter", "n_terms", "ir_scale", "prob_sum", "energy",
                "exact_energy", "energy_error", "compile_s", "compile_peak_mb",
                "timeline_peak_mb", "heap_peak_mb", "wall_s", "error")}
            for tag, snap in (("a", self.phase_a), ("b", self.phase_b),
                              ("c", self.phase_c)):
                row[f"phase_{tag}_s"] = snap.elapsed_s if snap else None
                row[f"phase_{tag}_maxrss_mb"] = snap.maxrss_mb if snap else None
                row[f"phase_{tag}_heap_peak_mb"] = \
                    snap.heap_peak_mb if snap else None
            for stage, kb, lines in self.ir_analysis:
                row[f"ir_kb_{stage}"] = kb
                row[f"ir_lines_{stage}"] = lines
            return row

    for cls in (MemorySnapshot, ProfileResult):
        cls.__module__ = __name__  # pickled by reference, as any class
        cls.__qualname__ = cls.__name__
        globals()[cls.__name__] = cls


_define_lock = threading.Lock()


def _ensure_dataclasses():
    with _define_lock:
        if "MemorySnapshot" not in globals():
            _define_dataclasses()


def __getattr__(name):
    if name in ("MemorySnapshot", "ProfileResult"):
        _ensure_dataclasses()
        return globals()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# ---------------------------------------------------------------------------
# /proc readers
# ---------------------------------------------------------------------------

def _proc(pid, name):
    return f"/proc/{pid}/{name}"


def _read_kb_lines(path):
    """{key: MB} of the 'Key:  N kB' lines of a /proc file."""
    out = {}
    with open(path, "rb") as f:
        data = f.read().decode("ascii", "replace")
    for line in data.splitlines():
        key, sep, rest = line.partition(":")
        if not sep:
            continue
        parts = rest.split()
        if len(parts) == 2 and parts[1] == "kB":
            try:
                out[key] = int(parts[0]) * _KIB_PER_MB
            except ValueError:
                pass
    return out


# The keys q2m3's read_proc_status always returns (0.0 when absent).
_STATUS_KEYS = ("VmRSS", "VmPeak", "VmSize", "VmHWM")


def _read_proc(fn, pid, name, strict, base):
    pid = check_pid(fn, pid)
    try:
        lines = _read_kb_lines(_proc(pid, name))
    except (FileNotFoundError, ProcessLookupError, PermissionError):
        if strict:
            raise
        lines = {}
    out = dict(base)
    out.update(lines)
    return out


def read_proc_status(pid="self", *, strict=False):
    """/proc/<pid>/status's memory lines in MB: VmRSS, VmPeak, VmSize and
    VmHWM always (0.0 when absent, as in q2m3: a zombie, or a process that
    is gone), then every other "kB" line (VmData, RssAnon, RssFile, ...).
    ``pid``: "self", an int or its decimal text. ``strict=True``: a process
    that does not exist is an OSError instead of zeros."""
    return _read_proc("read_proc_status", pid, "status", strict,
                      dict.fromkeys(_STATUS_KEYS, 0.0))


def read_smaps_rollup(pid="self", *, strict=False):
    """/proc/<pid>/smaps_rollup in MB: Rss, Pss, Anonymous, LazyFree,
    AnonHugePages, Swap, ...; {} for a process that is gone (as q2m3), or
    an OSError with ``strict=True``."""
    return _read_proc("read_smaps_rollup", pid, "smaps_rollup", strict, {})


# ---------------------------------------------------------------------------
# C/C++ heap (glibc mallinfo2)
# ---------------------------------------------------------------------------

_mallinfo2 = None
_heap_lock = threading.Lock()
_heap_peak = 0  # bytes, highest seen by any reader of this module


def _load_mallinfo2():
    global _mallinfo2
    import ctypes

    class _MI2(ctypes.Structure):
        _fields_ = [(n, ctypes.c_size_t) for n in (
            "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks",
            "fsmblks", "uordblks", "fordblks", "keepcost")]
    try:
        f = ctypes.CDLL(None).mallinfo2
        f.restype, f.argtypes = _MI2, []
        _mallinfo2 = f
    except (AttributeError, OSError):  # not glibc >= 2.33
        _mallinfo2 = False


def _heap_bytes(own=0):
    """C/C++ heap in use (uordblks + hblkhd) minus `own` bytes of the
    caller's profiling buffers; None without mallinfo2. Updates the
    module's sampled peak."""
    global _heap_peak
    if _mallinfo2 is None:
        _load_mallinfo2()
    if not _mallinfo2:
        return None
    mi = _mallinfo2()
    b = max(0, mi.uordblks + mi.hblkhd - own)
    with _heap_lock:
        if b > _heap_peak:
            _heap_peak = b
    return b


def read_heap():
    """(in_use_mb, peak_mb): the C/C++ heap now and the highest value any
    snapshot or MemoryTimeline sample of this process has seen (sampled).
    (0.0, 0.0) where mallinfo2 is missing."""
    b = _heap_bytes()
    if b is None:
        return 0.0, 0.0
    return b / MB, _heap_peak / MB


def _reset_heap_peak():
    """Starts a new sampled heap peak from the current heap (per phase)."""
    global _heap_peak
    with _heap_lock:
        _heap_peak = 0
    _heap_bytes()


# ---------------------------------------------------------------------------
# Snapshots
# ---------------------------------------------------------------------------

def take_snapshot(label):
    """Every layer now: VmRSS/VmPeak/VmHWM, ru_maxrss of this process and of
    its waited-for children (RUSAGE_CHILDREN: what ran in subprocesses),
    tracemalloc's current/peak when tracing, the C/C++ heap and its sampled
    peak."""
    check_str("take_snapshot", "label", label)
    st = _read_kb_lines("/proc/self/status")
    ru = resource.getrusage(resource.RUSAGE_SELF)
    ruc = resource.getrusage(resource.RUSAGE_CHILDREN)
    cur = peak = 0
    if _tracemalloc.is_tracing():
        cur, peak = _tracemalloc.get_traced_memory()
    heap, heap_peak = read_heap()
    _ensure_dataclasses()
    return MemorySnapshot(
        label=label, rss_mb=st.get("VmRSS", 0.0),
        vm_peak_mb=st.get("VmPeak", 0.0), maxrss_mb=ru.ru_maxrss * _KIB_PER_MB,
        maxrss_children_mb=ruc.ru_maxrss * _KIB_PER_MB,
        tracemalloc_peak_mb=peak / MB, tracemalloc_current_mb=cur / MB,
        hwm_mb=st.get("VmHWM", 0.0), heap_in_use_mb=heap,
        heap_peak_mb=heap_peak, rss_after_mb=st.get("VmRSS", 0.0),
        tracemalloc_after_mb=cur / MB)


# ---------------------------------------------------------------------------
# Timelines
# ---------------------------------------------------------------------------

_PAGE = os.sysconf("SC_PAGE_SIZE")


class _Statm:
    """Current RSS of a process through a descriptor of its statm kept
    open (one pread per sample)."""

    def __init__(self, pid):
        self.fd = os.open(_proc(pid, "statm"), os.O_RDONLY | os.O_CLOEXEC)

    def rss_bytes(self):
        return int(os.pread(self.fd, 128, 0).split()[1]) * _PAGE

    def close(self):
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


def _interval(fn, interval_s):
    v = check_number(fn, "interval_s", interval_s, positive=True)
    if v < 0.001:
        raise ValueError(f"{fn}: interval_s must be >= 0.001, got {v}")
    return v


class _PeakSampler:
    """The sampling loop of MemoryTimeline and ParentSideMonitor: a daemon
    thread calls ``_sample()`` every ``interval_s`` until stop() or until
    it returns False (the process is gone); ``_peak_grew(rss_mb)`` keeps the
    RSS peak and captures the process's smaps_rollup as it grows (each read
    walks the page tables: only when the peak grew by 4 MB and 5 % since the
    last capture)."""

    def __init__(self, fn, pid, interval_s):
        self.interval_s = _interval(fn, interval_s)
        self._pid = pid
        self._thread = None
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._reset_peak()

    def _reset_peak(self):
        self._peak_mb, self._smaps, self._smaps_rss = 0.0, {}, 0.0

    def _peak_grew(self, rss_mb):
        """Records an RSS sample (MB; call with self._lock held): (whether
        it is a new peak, whether to capture smaps_rollup for it)."""
        if rss_mb <= self._peak_mb:
            return False, False
        self._peak_mb = rss_mb
        return True, rss_mb > self._smaps_rss + max(4.0,
                                                    0.05 * self._smaps_rss)

    def _capture(self, rss_mb):
        """Reads smaps_rollup for a new peak (outside the lock)."""
        try:
            sm = _read_kb_lines(_proc(self._pid, "smaps_rollup"))
        except OSError:
            return
        with self._lock:
            self._smaps, self._smaps_rss = sm, rss_mb

    def _run(self):
        try:
            while not self._stop.wait(self.interval_s):
                if self._sample() is False:
                    return
        except OSError:
            pass

    def start(self):
        """Starts sampling (a first sample now). RuntimeError if running."""
        if self._thread is not None:
            raise RuntimeError(f"{type(self).__name__}: already running")
        self._stop.clear()
        self._begin()
        self._t0 = time.monotonic()
        self._sample()
        self._thread = threading.Thread(target=self._run, daemon=True,
                                        name=self._thread_name)
        self._thread.start()
        return self

    def stop(self):
        """Takes a last sample (if the process is still there) and stops.
        Idempotent."""
        if self._thread is None:
            return
        self._stop.set()
        self._thread.join()
        self._thread = None
        self._end()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
        return False

    @property
    def peak_smaps(self):
        """smaps_rollup (MB) captured at the RSS peak (the last capture
        below or at it)."""
        with self._lock:
            return dict(self._smaps)


class MemoryTimeline(_PeakSampler):
    """Samples this process's RSS (and C/C++ heap) every ``interval_s`` on
    a daemon thread; captures smaps_rollup as the RSS peak grows.

        with MemoryTimeline(0.05) as tl:
            work()
        tl.peak, tl.peak_smaps["Anonymous"], len(tl.samples)

    ``samples``: [(t_s, rss_mb)], t from start(); ``heap_samples``:
    [(t_s, heap_mb)]; ``peak``: highest RSS sample (MB); ``peak_t_s``;
    ``heap_peak_mb``; ``start_time``: time.time() at start(). The sample
    lists' own memory is subtracted from the heap figures."""

    _thread_name = "q2-memory-timeline"

    def __init__(self, interval_s=0.1):
        super().__init__("MemoryTimeline", "self", interval_s)
        self.samples = []
        self.heap_samples = []
        self.peak_t_s = 0.0
        self.heap_peak_mb = 0.0
        self.start_time = None

    def _own_bytes(self):
        import sys
        return sys.getsizeof(self.samples) + sys.getsizeof(self.heap_samples)

    def _sample(self):
        t = time.monotonic() - self._t0
        rss = self._statm.rss_bytes() / MB
        heap = _heap_bytes(self._own_bytes())
        with self._lock:
            self.samples.append((t, rss))
            if heap is not None:
                self.heap_samples.append((t, heap / MB))
                self.heap_peak_mb = max(self.heap_peak_mb, heap / MB)
            peak, capture = self._peak_grew(rss)
            if peak:
                self.peak_t_s = t
        if capture:
            self._capture(rss)

    def _begin(self):
        self.samples, self.heap_samples = [], []
        self._reset_peak()
        self.heap_peak_mb = 0.0
        self.start_time = time.time()
        self._statm = _Statm("self")

    def _end(self):
        try:
            self._sample()
        finally:
            self._statm.close()

    def sample_now(self):
        """One extra sample now (e.g. at a point of interest)."""
        if self._thread is not None:
            self._sample()

    @property
    def peak_rss_mb(self):
        """Highest RSS sample, MB (q2m3's name)."""
        return self._peak_mb

    peak = peak_rss_mb

    def heap_peak_between(self, t0_unix, t1_unix):
        """Highest heap sample (MB) taken between two time.time() values,
        or None (e.g. for a stage shorter than the interval)."""
        a, b = t0_unix - self.start_time, t1_unix - self.start_time
        vals = [h for t, h in self.heap_samples if a <= t <= b]
        return max(vals) if vals else None


class ParentSideMonitor(_PeakSampler):
    """Watches another process (a child) from outside through
    /proc/<pid>/status: ``peak_rss_mb`` (highest VmRSS sample),
    ``peak_hwm_mb`` (the kernel's VmHWM, exact), ``peak_smaps``
    (smaps_rollup captured as the RSS peak grew). After the process exits
    the last values stay; ``exited`` tells."""

    def __init__(self, pid, interval_s=0.1):
        pid = check_pid("ParentSideMonitor", pid)
        if pid == "self":
            pid = os.getpid()
        super().__init__("ParentSideMonitor", pid, interval_s)
        self.pid = pid
        self._thread_name = f"q2-monitor-{pid}"
        self.peak_hwm_mb = 0.0
        self.samples = []
        self.exited = False

    @property
    def peak_rss_mb(self):
        return self._peak_mb

    def _sample(self):
        try:
            st = _read_kb_lines(_proc(self.pid, "status"))
        except OSError:
            st = {}
        if "VmRSS" not in st:  # gone, or a zombie: exited, not yet reaped
            self.exited = True
            return False
        rss, hwm = st["VmRSS"], st.get("VmHWM", 0.0)
        with self._lock:
            self.samples.append((time.monotonic() - self._t0, rss))
            self.peak_hwm_mb = max(self.peak_hwm_mb, hwm)
            _, capture = self._peak_grew(rss)
        if capture:
            self._capture(rss)
        return True

    def _begin(self):
        pass

    def _end(self):
        if not self.exited:
            self._sample()

    def to_dict(self):
        return {"pid": self.pid, "peak_rss_mb": self.peak_rss_mb,
                "peak_hwm_mb": self.peak_hwm_mb,
                "peak_smaps": self.peak_smaps, "exited": self.exited,
                "n_samples": len(self.samples)}


# ---------------------------------------------------------------------------
# measure_command
# ---------------------------------------------------------------------------

_SCOPE = ("the command's process and its current descendants at each poll, "
          "summed; not the observing process")
_LIMITATION = ("polled samples give no upper bound for transient "
               "allocations between polls; max_vmhwm_mb (the kernel's "
               "per-process peak) covers those per process")


def measure_command(command, directory, *, wall_s=900.0, rss_mb=8192.0,
                    cwd=None, env=None):
    """Runs ``command`` (a non-empty argv list, no shell) with budgets on
    wall time and the summed RSS of its process tree (decimal MB, polled
    every 0.01 s), evidence in the new ``directory`` (record.json,
    stdout.txt, stderr.txt). Returns a dict: command, exit_code, reason,
    wall_s, peak_tree_rss_mb, poll_s, rss_budget_mb, wall_budget_s, scope,
    limitation, and q2's further fields (signal, max_vmhwm_mb, polls, ...).

    ValueError: bad values, before the directory or a process exists;
    FileExistsError: ``directory`` exists; RuntimeError: no Linux /proc;
    OSError: missing cwd or a command that cannot start. The C++ monitor of
    ``q2-profile measure`` does the work (the compiler extension loads on
    the first call)."""
    fn = "measure_command"
    if isinstance(command, (str, bytes)) or not isinstance(command,
                                                           (list, tuple)):
        raise ValueError(f"{fn}: command must be a non-empty list of str "
                         f"(no shell), got {type(command).__name__}")
    if not command:
        raise ValueError(f"{fn}: command is empty")
    for i, c in enumerate(command):
        if not isinstance(c, str):
            raise ValueError(f"{fn}: command[{i}] must be a str, got "
                             f"{type(c).__name__}")
        if "\0" in c:
            raise ValueError(f"{fn}: command[{i}] contains NUL")
    if not isinstance(directory, (str, os.PathLike)):
        raise ValueError(f"{fn}: directory must be a path, got "
                         f"{type(directory).__name__}")
    directory = os.fspath(directory)
    if not directory or "\0" in directory:
        raise ValueError(f"{fn}: directory must be a non-empty path")
    for name, v in (("wall_s", wall_s), ("rss_mb", rss_mb)):
        if isinstance(v, bool) or not isinstance(v, (int, float)) or \
                not math.isfinite(v) or v <= 0:
            raise ValueError(f"{fn}: {name} must be a finite positive "
                             f"number, got {v!r}")
    if cwd is not None and not isinstance(cwd, (str, os.PathLike)):
        raise ValueError(f"{fn}: cwd must be a path or None")
    if env is not None:
        if not isinstance(env, dict):
            raise ValueError(f"{fn}: env must be a dict of str to str")
        for k, v in env.items():
            if not isinstance(k, str) or not isinstance(v, str) or not k \
                    or "=" in k or "\0" in k or "\0" in v:
                raise ValueError(f"{fn}: env entry {k!r}: names and values "
                                 "must be str, names non-empty without '='")
    if not os.path.isdir("/proc/self"):
        raise RuntimeError(f"{fn}: needs Linux /proc")
    if os.path.lexists(directory):
        raise FileExistsError(17, f"{fn}: directory exists", directory)
    import q2
    rec = q2.measure_command(list(command), directory, wall_s=float(wall_s),
                             rss_mb=float(rss_mb), cwd=cwd, env=env)
    d = rec.to_dict()
    d.setdefault("scope", _SCOPE)
    d.setdefault("limitation", _LIMITATION)
    return d
