"""q2.profiling: the q2m3 profiling API, signature for signature, over q2's
own compiler (docs/python.md, "q2.profiling"). A q2m3 script changes only its
imports: ``from q2m3.profiling.X import Y`` -> ``from q2.profiling.X import Y``.

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

Submodules load on first use: importing memory or timing loads neither the
compiler (libMLIR/libLLVM) nor NumPy.
"""
import importlib

_SUBMODULES = ("memory", "timing", "ir", "catalyst_ir", "qpe_profiler",
               "orchestrator", "molecules")

__all__ = list(_SUBMODULES)


def __getattr__(name):
    if name in _SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
