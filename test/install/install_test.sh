#!/usr/bin/env bash
# ctest "install" (docs/install.md): installs the build into a temporary
# prefix, moves that prefix elsewhere, checks that nothing in it names the
# source or build tree (text, RPATH/RUNPATH), builds the .deb packages
# (cpack) and checks their dependencies, then, with both trees hidden
# behind empty mounts (unshare; plain run when not permitted), runs from the
# prefix: H2 end to end (q2-qpe -> q2-opt --profile-stages --run), the
# plugin in stock mlir-opt-22, an out-of-tree C++ project built against
# find_package(Q2), and `import q2`.
# usage: install_test.sh SOURCE_DIR BUILD_DIR [PYTHON]  (no PYTHON: no q2 module)
set -euo pipefail
src=$(realpath "$1") build=$(realpath "$2") py=${3:-}
work=$(mktemp -d "${TMPDIR:-/tmp}/q2-install-test.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "install test: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$work/stage" >/dev/null
mv "$work/stage" "$work/P" # relocated after installation
P=$work/P
for f in bin/q2-opt bin/q2-qpe bin/q2-profile bin/psi4_fcidump.py \
         lib/Q2Plugin.so lib/libq2_runtime.so lib/libQ2QuantumDialect.a \
         include/q2/Dialect/Quantum/IR/QuantumOps.h.inc \
         include/q2/Dialect/Quantum/IR/QuantumOps.h \
         lib/cmake/Q2/Q2Config.cmake lib/cmake/Q2/Q2Targets.cmake \
         share/q2/examples/hamiltonians/h2_0.7414.FCIDUMP \
         share/q2/scripts/plot_profile.py share/q2/scripts/plot_sweep.py \
         ${py:+lib/python3/dist-packages/q2/__init__.py} \
         ${py:+lib/python3/dist-packages/q2/_config.py}; do
  [ -e "$P/$f" ] || fail "missing $f"
done
[ -z "$py" ] || ls "$P"/lib/python3/dist-packages/q2/_q2.*.so >/dev/null \
  || fail "missing _q2"

# Nothing refers to the trees: no file content (binaries included) ...
if hits=$(grep -r -l -a -F -e "$src" -e "$build" "$P"); then
  fail "these files name the source or build tree:"$'\n'"$hits"
fi
# ... and RPATH/RUNPATH only name Debian's LLVM or $ORIGIN.
while IFS= read -r -d '' f; do
  if head -c 4 "$f" | grep -q $'\x7fELF'; then
    rp=$(readelf -d "$f" | sed -n 's/.*R\(UN\)\?PATH.*\[\(.*\)\]/\2/p')
    for d in ${rp//:/ }; do
      case "$d" in /usr/lib/llvm-*|'$ORIGIN'*) ;;
        *) fail "$f: RPATH entry $d" ;; esac
    done
  fi
done < <(find "$P" -type f -print0)

# cpack -G DEB: q2-opt and q2-opt-dev, depending on Debian's LLVM/MLIR 22.
(cd "$work" && cpack -G DEB --config "$build/CPackConfig.cmake" -B "$work/deb" \
   >/dev/null)
deps=$(dpkg-deb -f "$work"/deb/q2-opt_*.deb Depends)
case "$deps" in *libmlir-22*libllvm22*) ;;
  *) fail "q2-opt .deb depends on: $deps" ;; esac
dpkg-deb -f "$work"/deb/q2-opt-dev_*.deb Depends | grep -q "libmlir-22-dev" \
  || fail "q2-opt-dev .deb does not depend on libmlir-22-dev"
rm -rf "$work/deb"

cp -r "$src/test/install/consumer" "$work/consumer"
cat > "$work/from_prefix.sh" <<'SCRIPT'
set -euo pipefail
P=$1 py=$2 work=$3
cd "$work"
ex=$P/share/q2/examples/hamiltonians/h2_0.7414.FCIDUMP
"$P/bin/q2-qpe" "$ex" --mode dynamic --n-est 4 -o h2.mlir
"$P/bin/q2-opt" --profile-stages --run 5 h2.mlir -o h2.o \
  --report report.json >run.log
python3 - report.json "$P" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["phase_c"]
import os
rt = os.path.normpath(c["runtime"])
assert rt == sys.argv[2] + "/lib/libq2_runtime.so", rt
assert abs(c["sets"][0]["prob_sum"] - 1) < 1e-9 and c["sets"][0]["energy"] < 0, c
print("H2 from the prefix: E =", c["sets"][0]["energy"], "Ha")
PY
cat > hh.mlir <<'MLIR'
func.func @hh() -> !quantum.bit {
  %r = quantum.alloc(1) : !quantum.reg
  %q = quantum.extract %r[0] : !quantum.reg -> !quantum.bit
  %a = quantum.custom "H"() %q : !quantum.bit
  %b = quantum.custom "H"() %a : !quantum.bit
  return %b : !quantum.bit
}
MLIR
mlir-opt-22 --load-dialect-plugin="$P/lib/Q2Plugin.so" \
  --load-pass-plugin="$P/lib/Q2Plugin.so" \
  --pass-pipeline='builtin.module(func.func(quantum-cancel-inverses))' \
  hh.mlir >hh.out
! grep -q quantum.custom hh.out || { echo "install test: the plugin's pass did not run" >&2; exit 1; }
{ cmake -S consumer -B consumer-build -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_PREFIX_PATH="$P" && cmake --build consumer-build; } >consumer.log 2>&1 \
  || { cat consumer.log; echo "install test: the find_package(Q2) project failed" >&2; exit 1; }
consumer-build/q2-consumer
[ -n "$py" ] || exit 0
PYTHONPATH=$P/lib/python3/dist-packages "$py" - "$P" "$ex" <<'PY'
import os, sys
import q2
P, ex = sys.argv[1:]
for f in (q2.__file__, q2._config.BIN_DIR, q2._config.RUNTIME_LIB,
          q2._config.EXAMPLES_DIR):
    assert f.startswith(P + "/") and os.path.exists(f), f
r = q2.compile(ex, n_est=2)
assert r()[0].size == 4
print("import q2 from the prefix:", q2.__file__)
PY
SCRIPT

hide=()
for d in "$build" "$src"; do [ -d "$d" ] && hide+=("$d"); done
if unshare --mount true 2>/dev/null; then
  unshare --mount bash -c 'set -e; w=$1 P=$2 py=$3; shift 3
    for d in "$@"; do mount -t tmpfs q2-hidden "$d"; done
    exec bash "$w/from_prefix.sh" "$P" "$py" "$w"' \
    _ "$work" "$P" "$py" "${hide[@]}"
else
  echo "install test: unshare not permitted; the trees stay visible" \
       "(the grep and RPATH checks above still apply)"
  bash "$work/from_prefix.sh" "$P" "$py" "$work"
fi
echo "install test: OK ($P)"
