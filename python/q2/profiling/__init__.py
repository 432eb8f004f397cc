"""q2.profiling: the q2m3 profiling API, signature for signature, over q2's
own compiler (docs/python.md, "q2.profiling"). A q2m3 script changes only its
imports: ``q2m3.profiling`` -> ``q2.profiling``, ``q2m3.molecule`` ->
``q2.molecule``.

    memory        MemorySnapshot, ProfileResult, read_proc_status,
                  read_smaps_rollup, take_snapshot, MemoryTimeline,
                  ParentSideMonitor, measure_command     (stdlib only)
    timing        profile_section, profile_function, ProfilingStats
                                                          (stdlib only)
    ir            ir_output_dir, analyze_ir_stages, COMPILATION_STAGES
    catalyst_ir   the same module under q2m3's name
    qpe_profiler  profile_hamiltonian_build, profile_qjit_compilation[_fixed],
                  profile_execution
    orchestrator  MOLECULES, H2_SWEEP_GRID, run_single_profile,
                  run_single_profile_in_subprocess, run_both_modes, run_sweep
    molecules     MoleculeConfig, MOLECULES and the Hamiltonian of a molecule

The names q2m3's package exports are this package's too
(``from q2.profiling import take_snapshot, run_both_modes``). Everything
loads on first use: importing memory or timing (or this package) loads
neither the compiler (libMLIR/libLLVM) nor NumPy.
"""
import importlib

_SUBMODULES = ("memory", "timing", "ir", "catalyst_ir", "qpe_profiler",
               "orchestrator", "molecules")

# q2m3's package-level names (its __all__), and q2's few beside them, with
# the submodule each comes from.
_NAMES = {
    "MemorySnapshot": "memory", "ProfileResult": "memory",
    "MemoryTimeline": "memory", "ParentSideMonitor": "memory",
    "take_snapshot": "memory",
    "COMPILATION_STAGES": "ir", "ir_output_dir": "ir",
    "analyze_ir_stages": "ir",
    "profile_hamiltonian_build": "qpe_profiler",
    "profile_qjit_compilation": "qpe_profiler",
    "profile_qjit_compilation_fixed": "qpe_profiler",
    "profile_execution": "qpe_profiler",
    "MOLECULES": "orchestrator", "H2_SWEEP_GRID": "orchestrator",
    "run_single_profile": "orchestrator",
    "run_single_profile_in_subprocess": "orchestrator",
    "run_sweep": "orchestrator", "run_both_modes": "orchestrator",
    "ProfilingStats": "timing", "profile_function": "timing",
    "profile_section": "timing",
    # q2's
    "read_proc_status": "memory", "read_smaps_rollup": "memory",
    "measure_command": "memory", "MoleculeConfig": "molecules",
    "CompiledQPE": "qpe_profiler",
}

__all__ = list(_NAMES)


def __getattr__(name):
    if name in _SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")
    if name in _NAMES:
        value = getattr(importlib.import_module(
            f"{__name__}.{_NAMES[name]}"), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_SUBMODULES) | set(_NAMES))
