// Every verifier rule of the quantum dialect.
// RUN: q2-opt %s --split-input-file --verify-diagnostics

func.func @alloc_zero() {
  // expected-error @+1 {{register size must be in [1, 62], got 0}}
  %r = quantum.alloc(0) : !quantum.reg
  return
}

// -----

func.func @alloc_too_big() {
  // expected-error @+1 {{register size must be in [1, 62], got 63}}
  %r = quantum.alloc(63) : !quantum.reg
  return
}

// -----

func.func @extract_out_of_range() {
  %r = quantum.alloc(2) : !quantum.reg
  // expected-error @+1 {{qubit index 2 is out of range for a register of 2 qubits}}
  %q = quantum.extract %r[2] : !quantum.reg -> !quantum.bit
  return
}

// -----

func.func @insert_out_of_range(%q: !quantum.bit) {
  %r = quantum.alloc(2) : !quantum.reg
  // expected-error @+1 {{qubit index 5 is out of range for a register of 2 qubits}}
  %r1 = quantum.insert %r[5], %q : !quantum.reg, !quantum.bit
  return
}

// -----

func.func @extract_negative() {
  %r = quantum.alloc(2) : !quantum.reg
  // expected-error @+1 {{whose value is non-negative}}
  %q = quantum.extract %r[-1] : !quantum.reg -> !quantum.bit
  return
}

// -----

func.func @extract_both_index_forms(%r: !quantum.reg, %i: i64) {
  // expected-error @+1 {{expects exactly one of a static index and an index operand}}
  %q = "quantum.extract"(%r, %i) <{idx_attr = 0 : i64}> : (!quantum.reg, i64) -> !quantum.bit
  return
}

// -----

func.func @extract_no_index(%r: !quantum.reg) {
  // expected-error @+1 {{expects exactly one of a static index and an index operand}}
  %q = "quantum.extract"(%r) : (!quantum.reg) -> !quantum.bit
  return
}

// -----

func.func @unknown_gate(%q: !quantum.bit) {
  // expected-error @+1 {{unknown gate 'Toffoli3'}}
  %a = quantum.custom "Toffoli3"() %q : !quantum.bit
  return
}

// -----

func.func @param_count(%q: !quantum.bit) {
  // expected-error @+1 {{gate 'RX' expects 1 parameter(s), got 0}}
  %a = quantum.custom "RX"() %q : !quantum.bit
  return
}

// -----

func.func @param_count_extra(%q: !quantum.bit, %t: f64) {
  // expected-error @+1 {{gate 'H' expects 0 parameter(s), got 1}}
  %a = quantum.custom "H"(%t) %q : !quantum.bit
  return
}

// -----

func.func @target_count(%q: !quantum.bit) {
  // expected-error @+1 {{gate 'CNOT' expects 2 target qubit(s), got 1}}
  %a = quantum.custom "CNOT"() %q : !quantum.bit
  return
}

// -----

func.func @result_count(%q: !quantum.bit) {
  // expected-error @+1 {{expects 1 target results, got 2}}
  %a:2 = "quantum.custom"(%q) <{gate_name = "H", operandSegmentSizes = array<i32: 0, 1, 0>, resultSegmentSizes = array<i32: 2, 0>}> : (!quantum.bit) -> (!quantum.bit, !quantum.bit)
  return
}

// -----

func.func @ctrl_result_count(%q: !quantum.bit, %c: !quantum.bit) {
  // expected-error @+1 {{expects 1 control results, got 0}}
  %a = "quantum.custom"(%q, %c) <{gate_name = "H", operandSegmentSizes = array<i32: 0, 1, 1>, resultSegmentSizes = array<i32: 1, 0>}> : (!quantum.bit, !quantum.bit) -> (!quantum.bit)
  return
}

// -----

func.func @same_qubit_twice(%q: !quantum.bit) {
  // expected-error @+1 {{uses the same qubit value more than once}}
  %a:2 = quantum.custom "CNOT"() %q, %q : !quantum.bit, !quantum.bit
  return
}

// -----

func.func @target_is_control(%q: !quantum.bit) {
  // expected-error @+1 {{uses the same qubit value more than once}}
  %a, %b = quantum.custom "X"() %q ctrls(%q) : !quantum.bit ctrls !quantum.bit
  return
}

// -----

func.func @pauli_length(%q0: !quantum.bit, %t: f64) {
  // expected-error @+1 {{Pauli word 'XY' has 2 letter(s) but the op has 1 target qubit(s)}}
  %a = quantum.pauli_rot "XY"(%t) %q0 : !quantum.bit
  return
}

// -----

func.func @pauli_letter(%q0: !quantum.bit, %q1: !quantum.bit, %t: f64) {
  // expected-error @+1 {{Pauli word 'XA' has letter 'A' at position 1; expected one of I, X, Y, Z}}
  %a:2 = quantum.pauli_rot "XA"(%t) %q0, %q1 : !quantum.bit, !quantum.bit
  return
}

// -----

func.func @pauli_lowercase(%q0: !quantum.bit, %t: f64) {
  // expected-error @+1 {{has letter 'x' at position 0}}
  %a = quantum.pauli_rot "x"(%t) %q0 : !quantum.bit
  return
}

// -----

func.func @pauli_empty(%t: f64) {
  // expected-error @+1 {{Pauli word must not be empty}}
  "quantum.pauli_rot"(%t) <{pauli_word = "", operandSegmentSizes = array<i32: 1, 0, 0>, resultSegmentSizes = array<i32: 0, 0>}> : (f64) -> ()
  return
}

// -----

func.func @pauli_same_qubit(%q0: !quantum.bit, %t: f64) {
  // expected-error @+1 {{uses the same qubit value more than once}}
  %a:2 = quantum.pauli_rot "XX"(%t) %q0, %q0 : !quantum.bit, !quantum.bit
  return
}

// -----

func.func @probs_size(%q0: !quantum.bit, %q1: !quantum.bit) {
  // expected-error @+1 {{expects a 1-D shape of 4 elements (2^2), got 'tensor<8xf64>'}}
  %p = quantum.probs %q0, %q1 : tensor<8xf64>
  return
}

// -----

func.func @probs_buffer_size(%q0: !quantum.bit, %b: memref<3xf64>) {
  // expected-error @+1 {{expects a 1-D shape of 2 elements (2^1), got 'memref<3xf64>'}}
  quantum.probs %q0 in(%b : memref<3xf64>)
  return
}

// -----

func.func @probs_both(%q0: !quantum.bit, %b: memref<2xf64>) {
  // expected-error @+1 {{expects either a tensor result or an out-buffer}}
  %p = "quantum.probs"(%q0, %b) <{operandSegmentSizes = array<i32: 1, 0, 1>}> : (!quantum.bit, memref<2xf64>) -> tensor<2xf64>
  return
}

// -----

func.func @probs_neither(%q0: !quantum.bit) {
  // expected-error @+1 {{expects either a tensor result or an out-buffer}}
  "quantum.probs"(%q0) <{operandSegmentSizes = array<i32: 1, 0, 0>}> : (!quantum.bit) -> ()
  return
}

// -----

func.func @probs_no_qubits() {
  // expected-error @+1 {{expects either qubit operands or a register range, not both or neither}}
  %p = "quantum.probs"() <{operandSegmentSizes = array<i32: 0, 0, 0>}> : () -> tensor<1xf64>
  return
}

// -----

func.func @probs_list_and_range(%q0: !quantum.bit, %r: !quantum.reg) {
  // expected-error @+1 {{expects either qubit operands or a register range, not both or neither}}
  %p = quantum.probs %q0 reg %r[0, 1] : tensor<2xf64>
  return
}

// -----

func.func @probs_empty_range(%r: !quantum.reg) {
  // expected-error @+1 {{expects at least one qubit}}
  %p = quantum.probs reg %r[0, 0] : tensor<1xf64>
  return
}

// -----

func.func @probs_range_no_count(%r: !quantum.reg) {
  // expected-error @+1 {{register range needs a start and a count}}
  %p = "quantum.probs"(%r) <{operandSegmentSizes = array<i32: 0, 1, 0>, reg_start = 0 : i64}> : (!quantum.reg) -> tensor<2xf64>
  return
}

// -----

func.func @probs_range_out_of_register() {
  %r = quantum.alloc(4) : !quantum.reg
  // expected-error @+1 {{register range [3, 5) exceeds a register of 4 qubits}}
  %p = quantum.probs reg %r[3, 2] : tensor<4xf64>
  return
}

// -----

func.func @probs_range_size(%r: !quantum.reg) {
  // expected-error @+1 {{expects a 1-D shape of 8 elements (2^3), got 'tensor<4xf64>'}}
  %p = quantum.probs reg %r[0, 3] : tensor<4xf64>
  return
}

// -----

func.func @probs_element_type(%q0: !quantum.bit) {
  // expected-error @+1 {{must be ranked tensor of 64-bit float values}}
  %p = quantum.probs %q0 : tensor<2xf32>
  return
}

// -----

func.func @bad_type(%q0: !quantum.bit) {
  // expected-error @+1 {{unknown  type `qubit` in dialect `quantum`}}
  %a = quantum.custom "H"() %q0 : !quantum.qubit
  return
}

// -----

// Regression: start + count overflowed int64 and passed the range check.
func.func @probs_range_overflow() -> tensor<4xf64> {
  %r = quantum.alloc(2) : !quantum.reg
  // expected-error @+1 {{register range starts at qubit 9223372036854775807, beyond the largest register (62 qubits)}}
  %p = quantum.probs reg %r[9223372036854775807, 2] : tensor<4xf64>
  return %p : tensor<4xf64>
}

// -----

func.func @probs_range_count_huge() -> tensor<4xf64> {
  %r = quantum.alloc(2) : !quantum.reg
  // expected-error @+1 {{cannot return probabilities of 63 qubits}}
  %p = quantum.probs reg %r[0, 63] : tensor<4xf64>
  return %p : tensor<4xf64>
}

// -----

func.func @gt_results(%q0: !quantum.bit, %q1: !quantum.bit, %p: tensor<1xf64>, %p2: tensor<1x1xf64>) {
  // expected-error @+1 {{expects 1 results (one per qubit operand), got 2}}
  %o:2 = quantum.gate_table %q0 kinds ["H"] records [0, 0, -1, 1, 0, 0, 0] : !quantum.bit, !quantum.bit
  return
}

// -----

func.func @gt_kind(%q0: !quantum.bit, %q1: !quantum.bit, %p: tensor<1xf64>, %p2: tensor<1x1xf64>) {
  // expected-error @+1 {{unknown gate kind 'Q'}}
  %o = quantum.gate_table %q0 kinds ["Q"] records [0, 0, -1, 1, 0, 0, 0] : !quantum.bit
  return
}

// -----

func.func @gt_words(%q0: !quantum.bit, %q1: !quantum.bit, %p: tensor<1xf64>, %p2: tensor<1x1xf64>) {
  // expected-error @+1 {{words has letter 'A' at position 1; expected one of I, X, Y, Z}}
  %o = quantum.gate_table %q0 params(%p : tensor<1xf64>) kinds ["pauli_rot"] words "XA" records [0, 0, 0, 1, 0, 0, 0] : !quantum.bit
  return
}

// -----

func.func @gt_truncated_header(%q0: !quantum.bit, %q1: !quantum.bit, %p: tensor<1xf64>, %p2: tensor<1x1xf64>) {
  // expected-error @+1 {{record 0 (at 0): truncated}}
  %o = quantum.gate_table %q0 kinds ["H"] records [0, 0, -1, 1] : !quantum.bit
  return
}

// -----

func.func @gt_truncated_wires(%q0: !quantum.bit, %q1: !quantum.bit, %p: tensor<1xf64>, %p2: tensor<1x1xf64>) {
  // expected-error @+1 {{record 1 (at 7): truncated}}
  %o = quantum.gate_table %q0 kinds ["H"] records [0, 0, -1, 1, 0, 0, 0, 0, 0, -1, 1, 0, 0] : !quantum.bit
  return
}

// -----

func.func @gt_kind_index(%q0: !quantum.bit, %q1: !quantum.bit, %p: tensor<1xf64>, %p2: tensor<1x1xf64>) {
  // expected-error @+1 {{record 0 (at 0): kind 1 is not an index into kinds}}
  %o = quantum.gate_table %q0 kinds ["H"] records [1, 0, -1, 1, 0, 0, 0] : !quantum.bit
  return
}

// -----

func.func @gt_adjoint(%q0: !quantum.bit, %q1: !quantum.bit, %p: tensor<1xf64>, %p2: tensor<1x1xf64>) {
  // expected-error @+1 {{adjoint must be 0 or 1, got 2}}
  %o = quantum.gate_table %q0 kinds ["H"] records [0, 2, -1, 1, 0, 0, 0] : !quantum.bit
  return
}

// -----

func.func @gt_no_target(%q0: !quantum.bit, %q1: !quantum.bit, %p: tensor<1xf64>, %p2: tensor<1x1xf64>) {
  // expected-error @+1 {{needs at least one target and no negative count}}
  %o = quantum.gate_table %q0 kinds ["H"] records [0, 0, -1, 0, 0, 0] : !quantum.bit
  return
}

// -----

func.func @gt_param_negative(%q0: !quantum.bit, %q1: !quantum.bit, %p: tensor<1xf64>, %p2: tensor<1x1xf64>) {
  // expected-error @+1 {{param must be -1 or an index, got -2}}
  %o = quantum.gate_table %q0 params(%p : tensor<1xf64>) kinds ["RZ"] records [0, 0, -2, 1, 0, 0, 0] : !quantum.bit
  return
}

// -----

func.func @gt_param_range(%q0: !quantum.bit, %q1: !quantum.bit, %p: tensor<1xf64>, %p2: tensor<1x1xf64>) {
  // expected-error @+1 {{param 1 is out of range for 1 parameter(s)}}
  %o = quantum.gate_table %q0 params(%p : tensor<1xf64>) kinds ["RZ"] records [0, 0, 1, 1, 0, 0, 0] : !quantum.bit
  return
}

// -----

func.func @gt_targets(%q0: !quantum.bit, %q1: !quantum.bit, %p: tensor<1xf64>, %p2: tensor<1x1xf64>) {
  // expected-error @+1 {{gate 'H' expects 1 target(s), got 2}}
  %o:2 = quantum.gate_table %q0, %q1 kinds ["H"] records [0, 0, -1, 2, 0, 0, 0, 1] : !quantum.bit, !quantum.bit
  return
}

// -----

func.func @gt_gate_param(%q0: !quantum.bit, %q1: !quantum.bit, %p: tensor<1xf64>, %p2: tensor<1x1xf64>) {
  // expected-error @+1 {{gate 'H' expects 0 parameter(s)}}
  %o = quantum.gate_table %q0 params(%p : tensor<1xf64>) kinds ["H"] records [0, 0, 0, 1, 0, 0, 0] : !quantum.bit
  return
}

// -----

func.func @gt_gate_word(%q0: !quantum.bit, %q1: !quantum.bit, %p: tensor<1xf64>, %p2: tensor<1x1xf64>) {
  // expected-error @+1 {{word must be 0 for gate 'H'}}
  %o = quantum.gate_table %q0 kinds ["H"] records [0, 0, -1, 1, 0, 3, 0] : !quantum.bit
  return
}

// -----

func.func @gt_pauli_param(%q0: !quantum.bit, %q1: !quantum.bit, %p: tensor<1xf64>, %p2: tensor<1x1xf64>) {
  // expected-error @+1 {{a Pauli rotation needs a parameter}}
  %o = quantum.gate_table %q0 kinds ["pauli_rot"] words "X" records [0, 0, -1, 1, 0, 0, 0] : !quantum.bit
  return
}

// -----

// pauli_rot_ladder records are checked as Pauli rotations.
func.func @gt_ladder_param(%q0: !quantum.bit) {
  // expected-error @+1 {{a Pauli rotation needs a parameter}}
  %o = quantum.gate_table %q0 kinds ["pauli_rot_ladder"] words "X" records [0, 0, -1, 1, 0, 0, 0] : !quantum.bit
  return
}

// -----

func.func @gt_ladder_word(%q0: !quantum.bit, %p: tensor<1xf64>) {
  // expected-error @+1 {{word [1, 2) is outside words (1 letters)}}
  %o = quantum.gate_table %q0 params(%p : tensor<1xf64>) kinds ["pauli_rot_ladder"] words "X" records [0, 0, 0, 1, 0, 1, 0] : !quantum.bit
  return
}

// -----

func.func @gt_pauli_word(%q0: !quantum.bit, %q1: !quantum.bit, %p: tensor<1xf64>, %p2: tensor<1x1xf64>) {
  // expected-error @+1 {{word [0, 2) is outside words (1 letters)}}
  %o:2 = quantum.gate_table %q0, %q1 params(%p : tensor<1xf64>) kinds ["pauli_rot"] words "X" records [0, 0, 0, 2, 0, 0, 0, 1] : !quantum.bit, !quantum.bit
  return
}

// -----

func.func @gt_wire_range(%q0: !quantum.bit, %q1: !quantum.bit, %p: tensor<1xf64>, %p2: tensor<1x1xf64>) {
  // expected-error @+1 {{wire 1 is not an index into 1 qubit(s)}}
  %o = quantum.gate_table %q0 kinds ["H"] records [0, 0, -1, 1, 0, 0, 1] : !quantum.bit
  return
}

// -----

func.func @gt_wire_twice(%q0: !quantum.bit, %q1: !quantum.bit, %p: tensor<1xf64>, %p2: tensor<1x1xf64>) {
  // expected-error @+1 {{uses wire 1 more than once}}
  %o:2 = quantum.gate_table %q0, %q1 kinds ["X"] records [0, 0, -1, 1, 1, 0, 1, 1] : !quantum.bit, !quantum.bit
  return
}

// -----

func.func @gt_params_rank(%q0: !quantum.bit, %q1: !quantum.bit, %p: tensor<1xf64>, %p2: tensor<1x1xf64>) {
  // expected-error @+1 {{params must be 1-D, got rank 2}}
  %o = quantum.gate_table %q0 params(%p2 : tensor<1x1xf64>) kinds ["RZ"] records [0, 0, 0, 1, 0, 0, 0] : !quantum.bit
  return
}

// -----

func.func @power_yield_count(%n: index, %q: !quantum.bit) {
  // expected-error @+1 {{body yields 0 qubit(s), expected 1}}
  %r = quantum.power %n qubits(%q) : !quantum.bit {
  ^bb0(%a: !quantum.bit):
    quantum.yield
  }
  return
}

// -----

func.func @power_measures(%n: index, %q: !quantum.bit) {
  %r = quantum.power %n qubits(%q) : !quantum.bit {
  ^bb0(%a: !quantum.bit):
    // expected-error @+1 {{cannot be repeated as part of a quantum.power body}}
    %m, %b = quantum.measure %a : i1, !quantum.bit
    quantum.yield %b : !quantum.bit
  }
  return
}

// -----

func.func @power_args(%n: index, %q: !quantum.bit) {
  // expected-error @+1 {{body has 0 argument(s) for 1 qubit(s)}}
  %r = quantum.power %n qubits(%q) : !quantum.bit {
    quantum.yield %q : !quantum.bit
  }
  return
}
