# -*- Python -*-
import os
import shutil

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "Q2"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test", ".json"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "unit"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.q2_obj_root, "test")

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%shlibext", config.shlibext))
config.substitutions.append(("%q2_src", config.q2_src_root))
config.substitutions.append(("%examples", os.path.join(config.q2_src_root, "examples")))
config.substitutions.append(("%q2_plugin", os.path.join(config.q2_lib_dir, "Q2Plugin" + config.shlibext)))
config.substitutions.append(("%q2_test_plugin", os.path.join(config.q2_obj_root, "test", "lib", "Q2TestPlugin" + config.shlibext)))
# The heap interposer for LD_PRELOAD (not built in sanitizer builds).
q2_heap_lib = os.path.join(config.q2_lib_dir, "libq2_heap" + config.shlibext)
config.substitutions.append(("%q2_heap_lib", q2_heap_lib))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.q2_tools_dir, append_path=True)

# A sanitizer build (scripts/sanitize.sh): tests of time and memory budgets
# do not apply, and the stock (uninstrumented) MLIR tools that load
# Q2Plugin.so get the ASan runtime preloaded (without leak checks: the leaks
# LSan would see there are the stock tool's).
asan = getattr(config, "q2_sanitized", "") in ("ON", "1", "TRUE")
stock_prefix = ""
if asan:
    config.available_features.add("asan")
    if getattr(config, "q2_asan_runtime", ""):
        stock_prefix = "env LD_PRELOAD=%s ASAN_OPTIONS=%s " % (
            config.q2_asan_runtime, config.q2_asan_host_options)
    for var in ("ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS"):
        if var in os.environ:
            config.environment[var] = os.environ[var]
    # For checkers of heap statistics (ASan's allocator has none to give).
    config.environment["Q2_ASAN"] = "1"

tool_dirs = [config.q2_tools_dir, config.llvm_tools_dir]
tools = [
    "q2-opt",
    "not",
    "count",
    ToolSubst("q2-qpe", unresolved="ignore"),
    # Not the q2-profile pass in a pipeline: "(q2-profile{...".
    ToolSubst("q2-profile", pre=r".-^/\<(", post="-.{", unresolved="ignore"),
    # Stock LLVM/MLIR tools from Debian's llvm-22/mlir-22 packages.
    ToolSubst("mlir-opt-22", command=stock_prefix + os.path.join(config.llvm_tools_dir, "mlir-opt")),
    ToolSubst("mlir-translate-22", command=stock_prefix + os.path.join(config.llvm_tools_dir, "mlir-translate")),
    ToolSubst("opt-22", command=os.path.join(config.llvm_tools_dir, "opt")),
    ToolSubst("llvm-nm-22", command=os.path.join(config.llvm_tools_dir, "llvm-nm")),
    ToolSubst("llvm-readelf-22", command=os.path.join(config.llvm_tools_dir, "llvm-readelf")),
    ToolSubst("llvm-objcopy-22", command=os.path.join(config.llvm_tools_dir, "llvm-objcopy")),
]
llvm_config.add_tool_substitutions(tools, tool_dirs)

if shutil.which("psi4"):
    config.available_features.add("psi4")
if not asan:
    config.available_features.add("q2-heap")
if os.path.exists(os.path.join(config.q2_lib_dir, "libq2_runtime" + config.shlibext)):
    config.available_features.add("q2-runtime")
