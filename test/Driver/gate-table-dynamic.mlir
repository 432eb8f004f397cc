// quantum.gate_table with parameters of unknown size (tensor<?xf64>): the
// verifier cannot check the indices, so the compiled code compares the
// largest with the size before running the table and raises a runtime error
// (regression: at -O0 SIGSEGV, at -O2 exit 0 with a poison angle, one past
// the end read neighbouring memory). Every -O level; Python is in
// python/tests/test_reliability.py.
// REQUIRES: q2-runtime
// RUN: rm -rf %t && mkdir -p %t
// RUN: sed -e 's/PARAM/2/' %s > %t/past.mlir
// RUN: sed -e 's/PARAM/7/' %s > %t/far.mlir
// RUN: sed -e 's/PARAM/1/' %s > %t/ok.mlir
// RUN: not q2-opt --qpe-pipeline -O0 --run 1 %t/past.mlir -o %t/a.o 2>&1 | FileCheck %s --check-prefix=PAST
// RUN: not q2-opt --qpe-pipeline -O2 --run 1 %t/past.mlir -o %t/a.o 2>&1 | FileCheck %s --check-prefix=PAST
// RUN: not q2-opt --qpe-pipeline -O3 --run 1 %t/past.mlir -o %t/a.o 2>&1 | FileCheck %s --check-prefix=PAST
// RUN: not q2-opt --qpe-pipeline -O0 --run 1 %t/far.mlir -o %t/a.o 2>&1 | FileCheck %s --check-prefix=FAR
// RUN: not q2-opt --qpe-pipeline -O1 --run 1 %t/far.mlir -o %t/a.o 2>&1 | FileCheck %s --check-prefix=FAR
// RUN: not q2-opt --qpe-pipeline -O2 --run 1 %t/far.mlir -o %t/a.o 2>&1 | FileCheck %s --check-prefix=FAR
// The same object compiled by stock mlir-opt with the plugin, run by q2-opt.
// RUN: mlir-opt-22 --load-dialect-plugin=%q2_plugin --load-pass-plugin=%q2_plugin %t/past.mlir --pass-pipeline='builtin.module(q2-qpe-pipeline{output=%t/plugin.o})' -o /dev/null
// RUN: not q2-opt --run 1 %t/plugin.o 2>&1 | FileCheck %s --check-prefix=PAST
// PAST: error: q2-jit: runtime error: quantum.gate_table: parameter index 2 is out of range for 2 parameter(s)
// FAR: error: q2-jit: runtime error: quantum.gate_table: parameter index 7 is out of range for 2 parameter(s)
// In range: it runs (RY(0.5) then exp(-i 0.25/2 Z) on qubit 1, probabilities of qubit 1).
// RUN: q2-opt --qpe-pipeline -O0 --run 1 %t/ok.mlir -o %t/a.o | FileCheck %s --check-prefix=OK
// RUN: q2-opt --qpe-pipeline -O2 --run 1 %t/ok.mlir -o %t/a.o | FileCheck %s --check-prefix=OK
// OK: [default] prob_sum 1.000000000000
module attributes {qpe.metadata = #qpe.metadata<molecule = "T", n_system = 1, n_est = 1, n_trotter = 1, n_terms = 2, order = 1, mode = "dynamic", power = "time", unroll = false, base_time = 1.0, energy_shift = 0.0, resolution = 0.1, words = ["I", "Z"], default_coeffs = [0.5, 0.25]>} {
  func.func @qpe(%c: tensor<2xf64>) -> tensor<2xf64> attributes {llvm.emit_c_interface} {
    %d = tensor.cast %c : tensor<2xf64> to tensor<?xf64>
    %r = quantum.alloc(2) : !quantum.reg
    %q0 = quantum.extract %r[0] : !quantum.reg -> !quantum.bit
    %q1 = quantum.extract %r[1] : !quantum.reg -> !quantum.bit
    %o:2 = quantum.gate_table %q0, %q1 params(%d : tensor<?xf64>) kinds ["RY", "pauli_rot"] words "Z" records [0, 0, 0, 1, 0, 0, 1,  1, 0, PARAM, 1, 0, 0, 1] : !quantum.bit, !quantum.bit
    %r1 = quantum.insert %r[0], %o#0 : !quantum.reg, !quantum.bit
    %r2 = quantum.insert %r1[1], %o#1 : !quantum.reg, !quantum.bit
    %p = quantum.probs reg %r2[1, 1] : tensor<2xf64>
    quantum.dealloc %r2 : !quantum.reg
    return %p : tensor<2xf64>
  }
}
