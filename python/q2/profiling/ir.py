"""IR analysis with q2m3's signatures (q2m3: ``catalyst_ir``; that name is
an alias of this module).

Unlike the original, ``ir_output_dir`` never changes the working directory:
it sets a context variable that ``q2.compile`` consults, so it is safe in
threads (each thread or asyncio task sees only its own block) and it may
surround the compile call rather than a decoration.

    with ir_output_dir("ir/") as d:
        res = q2.compile("h2.FCIDUMP", n_est=4, n_trotter=2)
    analyze_ir_stages(res)      # [("HLOLowering", 12.3, 210), ...]
"""
import contextlib
import os
import shutil
import tempfile
import warnings

__all__ = ["ir_output_dir", "analyze_ir_stages", "COMPILATION_STAGES",
           "STAGE_ALIASES", "canonical_stage"]

#: q2's six compile stages, in order (stage 0, "Input", is the program).
COMPILATION_STAGES = ["HLOLowering", "QuantumLowering", "Bufferization",
                      "LLVMDialect", "LLVMIR", "ObjectCode"]

#: Catalyst's stage names (its keep_intermediate files and
#: get_compilation_stage) -> q2's stages doing the same lowering.
STAGE_ALIASES = {
    "mlir": "Input",
    "HLOLoweringPass": "HLOLowering",
    "HLOLoweringStage": "HLOLowering",
    "QuantumCompilationPass": "QuantumLowering",
    "QuantumCompilationStage": "QuantumLowering",
    "BufferizationPass": "Bufferization",
    "BufferizationStage": "Bufferization",
    "MLIRToLLVMDialect": "LLVMDialect",
    "MLIRToLLVMDialectConversion": "LLVMDialect",
    "LLVMDialectLoweringStage": "LLVMDialect",
    "LLVMIRTranslation": "LLVMIR",
    "llvm_ir": "LLVMIR",
    "last": "LLVMIR",
}

_ALL = ["Input"] + COMPILATION_STAGES


def canonical_stage(name):
    """q2's name of a stage given by q2's or Catalyst's name
    (case-insensitive), or None for an unknown name."""
    if not isinstance(name, str):
        raise TypeError(f"analyze_ir_stages: stage names must be str, got "
                        f"{type(name).__name__}")
    for s in _ALL:
        if s.lower() == name.lower():
            return s
    for a, s in STAGE_ALIASES.items():
        if a.lower() == name.lower():
            return s
    return None


@contextlib.contextmanager
def ir_output_dir(path=None):
    """Yields the directory in which every ``q2.compile`` inside the block
    (in this thread/task) keeps its stages' IR, one subdirectory per compile
    (``compile_1/0_Input.mlir`` .. ``6_ObjectCode.o``). ``path`` None: a
    temporary directory, removed on exit; else created if needed and kept."""
    import q2
    if path is not None and not isinstance(path, (str, os.PathLike)):
        raise TypeError("ir_output_dir: path must be a str, os.PathLike or "
                        f"None, got {type(path).__name__}")
    temp = path is None
    d = tempfile.mkdtemp(prefix="q2-ir-") if temp else \
        os.path.abspath(os.fspath(path))
    if not temp:
        os.makedirs(d, exist_ok=True)
    token = q2._ir_scope.set(q2._IRScope(d))
    try:
        yield d
    finally:
        q2._ir_scope.reset(token)
        if temp:
            shutil.rmtree(d, ignore_errors=True)


def _stages_arg(stages):
    if stages is None:
        return list(COMPILATION_STAGES), list(COMPILATION_STAGES)
    if isinstance(stages, (str, bytes)):
        raise TypeError("analyze_ir_stages: stages must be a list of stage "
                        f"names, not a single str ({stages!r})")
    names = list(stages)
    canon = [canonical_stage(s) for s in names]
    for n, c in zip(names, canon):
        if c is None:
            warnings.warn(
                f"analyze_ir_stages: unknown stage {n!r} skipped (stages: "
                f"{', '.join(_ALL)}; Catalyst's names: "
                f"{', '.join(STAGE_ALIASES)})", stacklevel=3)
    return names, canon


def analyze_ir_stages(compiled_fn, stages=None):
    """[(stage, size_kb, n_lines)] of the IR after each stage, for a
    compiled function (what q2.compile or profile_qjit_compilation returned:
    its kept IR files, else its profile's IR figures) or an --ir-dir
    directory. ``stages``: names (q2's or Catalyst's), default
    COMPILATION_STAGES; each entry is named as given. Stages with no IR
    (not kept, not profiled) are left out, so a compile without either
    gives []; an unknown name is skipped with a warning (as q2m3 skips a
    stage it cannot export). KB = 1e3 bytes (decimal, as the table's "IR kB"); ObjectCode's "lines" are 0."""
    names, canon = _stages_arg(stages)
    found = {}
    ir_dir = None
    if isinstance(compiled_fn, (str, os.PathLike)):
        ir_dir = os.fspath(compiled_fn)
    elif hasattr(compiled_fn, "stages") and hasattr(compiled_fn, "ir_dir"):
        ir_dir = compiled_fn.ir_dir
        if not (ir_dir and os.path.isdir(ir_dir)):
            ir_dir = None
            for st in compiled_fn.stages:
                ir = st.get("ir")
                if ir is not None:
                    found[st.name] = (ir.bytes / 1e3, int(ir.lines))
    else:
        raise TypeError("analyze_ir_stages: compiled_fn must be what "
                        "q2.compile or profile_qjit_compilation returned, "
                        f"or an IR directory; got {type(compiled_fn).__name__}")
    if ir_dir is not None:
        import q2
        for stage, nbytes, lines, _ops in q2.analyze_ir_stages(ir_dir):
            found[stage] = (nbytes / 1e3, int(lines))
    return [(n, *found[c]) for n, c in zip(names, canon) if c in found]
