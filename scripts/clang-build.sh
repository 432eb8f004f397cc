# Sourced by fuzz.sh and sanitize.sh: the project's packages (without
# configuring build/), clang-22 with its runtimes, and a clang Release
# configuration with line tables in $2.
#   q2_clang_configure TOOL BUILD_DIR [cmake args...]
q2_clang_configure() {
  local tool="$1" dir="$2"
  shift 2
  Q2_SETUP_NO_CONFIGURE=1 bash scripts/setup.sh
  if ! command -v clang++-22 >/dev/null ||
     ! dpkg-query -W -f='${Status}' libclang-rt-22-dev 2>/dev/null |
       grep -q "install ok installed"; then
    echo "$tool: installing clang-22 libclang-rt-22-dev"
    local sudo=""
    if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq \
      --no-install-recommends clang-22 libclang-rt-22-dev >/dev/null
  fi
  CC=clang-22 CXX=clang++-22 cmake -S . -B "$dir" -G Ninja \
    -DCMAKE_BUILD_TYPE=Release \
    "-DCMAKE_C_FLAGS_RELEASE=-O1 -gline-tables-only -DNDEBUG" \
    "-DCMAKE_CXX_FLAGS_RELEASE=-O1 -gline-tables-only -DNDEBUG" \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir "$@" >/dev/null
}
