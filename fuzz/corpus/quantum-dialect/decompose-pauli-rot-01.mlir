// Identity letters are skipped (their qubit passes through untouched), the
// control moves onto the RZ alone, the ladder connects only active qubits.
// NATIVE-LABEL: func.func @controlled_with_identity
// NATIVE: quantum.pauli_rot "ZIX"(%{{.*}}) %{{.*}}, %{{.*}}, %{{.*}} ctrls(%{{.*}})
func.func @controlled_with_identity(%a: !quantum.bit, %b: !quantum.bit, %c: !quantum.bit, %k: !quantum.bit, %t: f64) -> (!quantum.bit, !quantum.bit, !quantum.bit, !quantum.bit) {
  %h:3, %hc = quantum.pauli_rot "ZIX"(%t) %a, %b, %c ctrls(%k) : !quantum.bit, !quantum.bit, !quantum.bit ctrls !quantum.bit
  return %h#0, %h#1, %h#2, %hc : !quantum.bit, !quantum.bit, !quantum.bit, !quantum.bit
}
