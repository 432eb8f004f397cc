// One controlled first-order Trotter step exp(-i H t), t = 0.5, of the
// published 15-term H2/STO-3G Jordan-Wigner Hamiltonian, with one estimation
// qubit (qubit 4) and HF state |1100>. Hand-written stand-in used by the main
// job until q2-qpe generates full QPE programs.
func.func @h2_trotter_step() -> tensor<2xf64> {
  %r = quantum.alloc(5) : !quantum.reg
  %q0_0 = quantum.extract %r[0] : !quantum.reg -> !quantum.bit
  %q1_0 = quantum.extract %r[1] : !quantum.reg -> !quantum.bit
  %q2_0 = quantum.extract %r[2] : !quantum.reg -> !quantum.bit
  %q3_0 = quantum.extract %r[3] : !quantum.reg -> !quantum.bit
  %q4_0 = quantum.extract %r[4] : !quantum.reg -> !quantum.bit
  %q0_1 = quantum.custom "X"() %q0_0 : !quantum.bit
  %q1_1 = quantum.custom "X"() %q1_0 : !quantum.bit
  %q4_1 = quantum.custom "H"() %q4_0 : !quantum.bit
  %theta1 = arith.constant -0.09706626816762845 : f64
  %phi1 = arith.constant 0.048533134083814225 : f64
  %q4_2 = quantum.custom "PhaseShift"(%phi1) %q4_1 : !quantum.bit
  %theta2 = arith.constant 0.17141282644776884 : f64
  %q0_2, %q4_3 = quantum.pauli_rot "Z"(%theta2) %q0_1 ctrls(%q4_2) : !quantum.bit ctrls !quantum.bit
  %theta3 = arith.constant 0.17141282644776884 : f64
  %q1_2, %q4_4 = quantum.pauli_rot "Z"(%theta3) %q1_1 ctrls(%q4_3) : !quantum.bit ctrls !quantum.bit
  %theta4 = arith.constant -0.22343153690813597 : f64
  %q2_1, %q4_5 = quantum.pauli_rot "Z"(%theta4) %q2_0 ctrls(%q4_4) : !quantum.bit ctrls !quantum.bit
  %theta5 = arith.constant -0.22343153690813597 : f64
  %q3_1, %q4_6 = quantum.pauli_rot "Z"(%theta5) %q3_0 ctrls(%q4_5) : !quantum.bit ctrls !quantum.bit
  %theta6 = arith.constant 0.16868898170361213 : f64
  %q0_3, %q1_3, %q4_7 = quantum.pauli_rot "ZZ"(%theta6) %q0_2, %q1_2 ctrls(%q4_6) : !quantum.bit, !quantum.bit ctrls !quantum.bit
  %theta7 = arith.constant 0.12062523483390426 : f64
  %q0_4, %q2_2, %q4_8 = quantum.pauli_rot "ZZ"(%theta7) %q0_3, %q2_1 ctrls(%q4_7) : !quantum.bit, !quantum.bit ctrls !quantum.bit
  %theta8 = arith.constant 0.12062523483390426 : f64
  %q1_4, %q3_2, %q4_9 = quantum.pauli_rot "ZZ"(%theta8) %q1_3, %q3_1 ctrls(%q4_8) : !quantum.bit, !quantum.bit ctrls !quantum.bit
  %theta9 = arith.constant 0.16592785033770355 : f64
  %q0_5, %q3_3, %q4_10 = quantum.pauli_rot "ZZ"(%theta9) %q0_4, %q3_2 ctrls(%q4_9) : !quantum.bit, !quantum.bit ctrls !quantum.bit
  %theta10 = arith.constant 0.16592785033770355 : f64
  %q1_5, %q2_3, %q4_11 = quantum.pauli_rot "ZZ"(%theta10) %q1_4, %q2_2 ctrls(%q4_10) : !quantum.bit, !quantum.bit ctrls !quantum.bit
  %theta11 = arith.constant 0.17441287612261608 : f64
  %q2_4, %q3_4, %q4_12 = quantum.pauli_rot "ZZ"(%theta11) %q2_3, %q3_3 ctrls(%q4_11) : !quantum.bit, !quantum.bit ctrls !quantum.bit
  %theta12 = arith.constant -0.0453026155037993 : f64
  %q0_6, %q1_6, %q2_5, %q3_5, %q4_13 = quantum.pauli_rot "XXYY"(%theta12) %q0_5, %q1_5, %q2_4, %q3_4 ctrls(%q4_12) : !quantum.bit, !quantum.bit, !quantum.bit, !quantum.bit ctrls !quantum.bit
  %theta13 = arith.constant -0.0453026155037993 : f64
  %q0_7, %q1_7, %q2_6, %q3_6, %q4_14 = quantum.pauli_rot "YYXX"(%theta13) %q0_6, %q1_6, %q2_5, %q3_5 ctrls(%q4_13) : !quantum.bit, !quantum.bit, !quantum.bit, !quantum.bit ctrls !quantum.bit
  %theta14 = arith.constant 0.0453026155037993 : f64
  %q0_8, %q1_8, %q2_7, %q3_7, %q4_15 = quantum.pauli_rot "XYYX"(%theta14) %q0_7, %q1_7, %q2_6, %q3_6 ctrls(%q4_14) : !quantum.bit, !quantum.bit, !quantum.bit, !quantum.bit ctrls !quantum.bit
  %theta15 = arith.constant 0.0453026155037993 : f64
  %q0_9, %q1_9, %q2_8, %q3_8, %q4_16 = quantum.pauli_rot "YXXY"(%theta15) %q0_8, %q1_8, %q2_7, %q3_7 ctrls(%q4_15) : !quantum.bit, !quantum.bit, !quantum.bit, !quantum.bit ctrls !quantum.bit
  %q4_17 = quantum.custom "H"() %q4_16 : !quantum.bit
  %p = quantum.probs %q4_17 : tensor<2xf64>
  quantum.dealloc %r : !quantum.reg
  return %p : tensor<2xf64>
}
