module attributes {qpe.metadata = #qpe.metadata<molecule = "h2_0.7414", n_system = 4, n_est = 5, n_trotter = 4, n_terms = 15, order = 2, mode = "dynamic", power = "repeat", unroll = false, base_time = 1.6665827607060426, energy_shift = 1.7861865225530349, resolution = 0.11781565577108166, words = ["IIII", "IIIZ", "IIZI", "IZII", "ZIII", "IIZZ", "IZIZ", "IZZI", "ZIIZ", "ZIZI", "ZZII", "XXYY", "XYYX", "YXXY", "YYXX"], default_coeffs = [-0.098863969784271615, -0.22278593024287605, -0.22278593024287605, 0.17119774898057472, 0.17119774898057472, 0.17434844183963888, 0.12054482203290029, 0.16586702409067799, 0.16586702409067799, 0.12054482203290029, 0.16862219157249927, -0.045322202057777698, 0.045322202057777698, 0.045322202057777698, -0.045322202057777698], trotter_bound = 0.0047551748944061152, exact_energy = -1.1372701746571028, hf_energy = -1.1166843870661913>} {
  func.func @qpe(%arg0: tensor<15xf64>) -> tensor<32xf64> attributes {llvm.emit_c_interface} {
    %0 = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
    %1 = "tosa.const"() <{values = dense<[-0.41664569017651065, 0.8332913803530213, 0.8332913803530213, 0.8332913803530213, 0.8332913803530213, 0.8332913803530213, 0.8332913803530213, 0.8332913803530213, 0.8332913803530213, 0.8332913803530213, 0.8332913803530213, 0.8332913803530213, 0.8332913803530213, 0.8332913803530213, 0.8332913803530213]> : tensor<15xf64>}> : () -> tensor<15xf64>
    %2 = tosa.mul %arg0, %1, %0 : (tensor<15xf64>, tensor<15xf64>, tensor<1xi8>) -> tensor<15xf64>
    %3 = "tosa.const"() <{values = dense<[0.74420691647309078, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00]> : tensor<15xf64>}> : () -> tensor<15xf64>
    %4 = tosa.add %2, %3 : (tensor<15xf64>, tensor<15xf64>) -> tensor<15xf64>
    %5 = "tosa.const"() <{values = dense<5.000000e-01> : tensor<15xf64>}> : () -> tensor<15xf64>
    %6 = tosa.mul %4, %5, %0 : (tensor<15xf64>, tensor<15xf64>, tensor<1xi8>) -> tensor<15xf64>
    %7 = quantum.alloc(9) : !quantum.reg
    %8 = quantum.extract %7[0] : !quantum.reg -> !quantum.bit
    %out_qubits = quantum.custom "X"() %8 : !quantum.bit
    %9 = quantum.insert %7[0], %out_qubits : !quantum.reg, !quantum.bit
    %10 = quantum.extract %9[1] : !quantum.reg -> !quantum.bit
    %out_qubits_0 = quantum.custom "X"() %10 : !quantum.bit
    %11 = quantum.insert %9[1], %out_qubits_0 : !quantum.reg, !quantum.bit
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c5 = arith.constant 5 : index
    %12 = scf.for %arg1 = %c0 to %c5 step %c1 iter_args(%arg2 = %11) -> (!quantum.reg) {
      %15 = arith.index_cast %arg1 : index to i64
      %c4_i64 = arith.constant 4 : i64
      %16 = arith.addi %15, %c4_i64 : i64
      %17 = quantum.extract %arg2[%16] : !quantum.reg -> !quantum.bit
      %out_qubits_4 = quantum.custom "H"() %17 : !quantum.bit
      %18 = quantum.extract %arg2[0] : !quantum.reg -> !quantum.bit
      %19 = quantum.extract %arg2[1] : !quantum.reg -> !quantum.bit
      %20 = quantum.extract %arg2[2] : !quantum.reg -> !quantum.bit
      %21 = quantum.extract %arg2[3] : !quantum.reg -> !quantum.bit
      %c1_i64 = arith.constant 1 : i64
      %22 = arith.shli %c1_i64, %15 : i64
      %c4_i64_5 = arith.constant 4 : i64
      %23 = arith.muli %22, %c4_i64_5 : i64
      %24 = arith.index_cast %23 : i64 to index
      %25:5 = scf.for %arg3 = %c0 to %24 step %c1 iter_args(%arg4 = %out_qubits_4, %arg5 = %18, %arg6 = %19, %arg7 = %20, %arg8 = %21) -> (!quantum.bit, !quantum.bit, !quantum.bit, !quantum.bit, !quantum.bit) {
        %c0_6 = arith.constant 0 : index
        %extracted = tensor.extract %6[%c0_6] : tensor<15xf64>
        %out_qubits_7 = quantum.custom "PhaseShift"(%extracted) %arg4 : !quantum.bit
        %c1_8 = arith.constant 1 : index
        %extracted_9 = tensor.extract %6[%c1_8] : tensor<15xf64>
        %out_qubits_10, %out_ctrl_qubits = quantum.pauli_rot "Z"(%extracted_9) %arg8 ctrls(%out_qubits_7) : !quantum.bit ctrls !quantum.bit
        %c2 = arith.constant 2 : index
        %extracted_11 = tensor.extract %6[%c2] : tensor<15xf64>
        %out_qubits_12, %out_ctrl_qubits_13 = quantum.pauli_rot "Z"(%extracted_11) %arg7 ctrls(%out_ctrl_qubits) : !quantum.bit ctrls !quantum.bit
        %c3 = arith.constant 3 : index
        %extracted_14 = tensor.extract %6[%c3] : tensor<15xf64>
        %out_qubits_15, %out_ctrl_qubits_16 = quantum.pauli_rot "Z"(%extracted_14) %arg6 ctrls(%out_ctrl_qubits_13) : !quantum.bit ctrls !quantum.bit
        %c4 = arith.constant 4 : index
        %extracted_17 = tensor.extract %6[%c4] : tensor<15xf64>
        %out_qubits_18, %out_ctrl_qubits_19 = quantum.pauli_rot "Z"(%extracted_17) %arg5 ctrls(%out_ctrl_qubits_16) : !quantum.bit ctrls !quantum.bit
        %c5_20 = arith.constant 5 : index
        %extracted_21 = tensor.extract %6[%c5_20] : tensor<15xf64>
        %out_qubits_22:2, %out_ctrl_qubits_23 = quantum.pauli_rot "ZZ"(%extracted_21) %out_qubits_12, %out_qubits_10 ctrls(%out_ctrl_qubits_19) : !quantum.bit, !quantum.bit ctrls !quantum.bit
        %c6 = arith.constant 6 : index
        %extracted_24 = tensor.extract %6[%c6] : tensor<15xf64>
        %out_qubits_25:2, %out_ctrl_qubits_26 = quantum.pauli_rot "ZZ"(%extracted_24) %out_qubits_15, %out_qubits_22#1 ctrls(%out_ctrl_qubits_23) : !quantum.bit, !quantum.bit ctrls !quantum.bit
        %c7 = arith.constant 7 : index
        %extracted_27 = tensor.extract %6[%c7] : tensor<15xf64>
        %out_qubits_28:2, %out_ctrl_qubits_29 = quantum.pauli_rot "ZZ"(%extracted_27) %out_qubits_25#0, %out_qubits_22#0 ctrls(%out_ctrl_qubits_26) : !quantum.bit, !quantum.bit ctrls !quantum.bit
        %c8 = arith.constant 8 : index
        %extracted_30 = tensor.extract %6[%c8] : tensor<15xf64>
        %out_qubits_31:2, %out_ctrl_qubits_32 = quantum.pauli_rot "ZZ"(%extracted_30) %out_qubits_18, %out_qubits_25#1 ctrls(%out_ctrl_qubits_29) : !quantum.bit, !quantum.bit ctrls !quantum.bit
        %c9 = arith.constant 9 : index
        %extracted_33 = tensor.extract %6[%c9] : tensor<15xf64>
        %out_qubits_34:2, %out_ctrl_qubits_35 = quantum.pauli_rot "ZZ"(%extracted_33) %out_qubits_31#0, %out_qubits_28#1 ctrls(%out_ctrl_qubits_32) : !quantum.bit, !quantum.bit ctrls !quantum.bit
        %c10 = arith.constant 10 : index
        %extracted_36 = tensor.extract %6[%c10] : tensor<15xf64>
        %out_qubits_37:2, %out_ctrl_qubits_38 = quantum.pauli_rot "ZZ"(%extracted_36) %out_qubits_34#0, %out_qubits_28#0 ctrls(%out_ctrl_qubits_35) : !quantum.bit, !quantum.bit ctrls !quantum.bit
        %c11 = arith.constant 11 : index
        %extracted_39 = tensor.extract %6[%c11] : tensor<15xf64>
        %out_qubits_40:4, %out_ctrl_qubits_41 = quantum.pauli_rot "XXYY"(%extracted_39) %out_qubits_37#0, %out_qubits_37#1, %out_qubits_34#1, %out_qubits_31#1 ctrls(%out_ctrl_qubits_38) : !quantum.bit, !quantum.bit, !quantum.bit, !quantum.bit ctrls !quantum.bit
        %c12 = arith.constant 12 : index
        %extracted_42 = tensor.extract %6[%c12] : tensor<15xf64>
        %out_qubits_43:4, %out_ctrl_qubits_44 = quantum.pauli_rot "XYYX"(%extracted_42) %out_qubits_40#0, %out_qubits_40#1, %out_qubits_40#2, %out_qubits_40#3 ctrls(%out_ctrl_qubits_41) : !quantum.bit, !quantum.bit, !quantum.bit, !quantum.bit ctrls !quantum.bit
        %c13 = arith.constant 13 : index
        %extracted_45 = tensor.extract %6[%c13] : tensor<15xf64>
        %out_qubits_46:4, %out_ctrl_qubits_47 = quantum.pauli_rot "YXXY"(%extracted_45) %out_qubits_43#0, %out_qubits_43#1, %out_qubits_43#2, %out_qubits_43#3 ctrls(%out_ctrl_qubits_44) : !quantum.bit, !quantum.bit, !quantum.bit, !quantum.bit ctrls !quantum.bit
        %c14 = arith.constant 14 : index
        %extracted_48 = tensor.extract %4[%c14] : tensor<15xf64>
        %out_qubits_49:4, %out_ctrl_qubits_50 = quantum.pauli_rot "YYXX"(%extracted_48) %out_qubits_46#0, %out_qubits_46#1, %out_qubits_46#2, %out_qubits_46#3 ctrls(%out_ctrl_qubits_47) : !quantum.bit, !quantum.bit, !quantum.bit, !quantum.bit ctrls !quantum.bit
        %c13_51 = arith.constant 13 : index
        %extracted_52 = tensor.extract %6[%c13_51] : tensor<15xf64>
        %out_qubits_53:4, %out_ctrl_qubits_54 = quantum.pauli_rot "YXXY"(%extracted_52) %out_qubits_49#0, %out_qubits_49#1, %out_qubits_49#2, %out_qubits_49#3 ctrls(%out_ctrl_qubits_50) : !quantum.bit, !quantum.bit, !quantum.bit, !quantum.bit ctrls !quantum.bit
        %c12_55 = arith.constant 12 : index
        %extracted_56 = tensor.extract %6[%c12_55] : tensor<15xf64>
        %out_qubits_57:4, %out_ctrl_qubits_58 = quantum.pauli_rot "XYYX"(%extracted_56) %out_qubits_53#0, %out_qubits_53#1, %out_qubits_53#2, %out_qubits_53#3 ctrls(%out_ctrl_qubits_54) : !quantum.bit, !quantum.bit, !quantum.bit, !quantum.bit ctrls !quantum.bit
        %c11_59 = arith.constant 11 : index
        %extracted_60 = tensor.extract %6[%c11_59] : tensor<15xf64>
        %out_qubits_61:4, %out_ctrl_qubits_62 = quantum.pauli_rot "XXYY"(%extracted_60) %out_qubits_57#0, %out_qubits_57#1, %out_qubits_57#2, %out_qubits_57#3 ctrls(%out_ctrl_qubits_58) : !quantum.bit, !quantum.bit, !quantum.bit, !quantum.bit ctrls !quantum.bit
        %c10_63 = arith.constant 10 : index
        %extracted_64 = tensor.extract %6[%c10_63] : tensor<15xf64>
        %out_qubits_65:2, %out_ctrl_qubits_66 = quantum.pauli_rot "ZZ"(%extracted_64) %out_qubits_61#0, %out_qubits_61#1 ctrls(%out_ctrl_qubits_62) : !quantum.bit, !quantum.bit ctrls !quantum.bit
        %c9_67 = arith.constant 9 : index
        %extracted_68 = tensor.extract %6[%c9_67] : tensor<15xf64>
        %out_qubits_69:2, %out_ctrl_qubits_70 = quantum.pauli_rot "ZZ"(%extracted_68) %out_qubits_65#0, %out_qubits_61#2 ctrls(%out_ctrl_qubits_66) : !quantum.bit, !quantum.bit ctrls !quantum.bit
        %c8_71 = arith.constant 8 : index
        %extracted_72 = tensor.extract %6[%c8_71] : tensor<15xf64>
        %out_qubits_73:2, %out_ctrl_qubits_74 = quantum.pauli_rot "ZZ"(%extracted_72) %out_qubits_69#0, %out_qubits_61#3 ctrls(%out_ctrl_qubits_70) : !quantum.bit, !quantum.bit ctrls !quantum.bit
        %c7_75 = arith.constant 7 : index
        %extracted_76 = tensor.extract %6[%c7_75] : tensor<15xf64>
        %out_qubits_77:2, %out_ctrl_qubits_78 = quantum.pauli_rot "ZZ"(%extracted_76) %out_qubits_65#1, %out_qubits_69#1 ctrls(%out_ctrl_qubits_74) : !quantum.bit, !quantum.bit ctrls !quantum.bit
        %c6_79 = arith.constant 6 : index
        %extracted_80 = tensor.extract %6[%c6_79] : tensor<15xf64>
        %out_qubits_81:2, %out_ctrl_qubits_82 = quantum.pauli_rot "ZZ"(%extracted_80) %out_qubits_77#0, %out_qubits_73#1 ctrls(%out_ctrl_qubits_78) : !quantum.bit, !quantum.bit ctrls !quantum.bit
        %c5_83 = arith.constant 5 : index
        %extracted_84 = tensor.extract %6[%c5_83] : tensor<15xf64>
        %out_qubits_85:2, %out_ctrl_qubits_86 = quantum.pauli_rot "ZZ"(%extracted_84) %out_qubits_77#1, %out_qubits_81#1 ctrls(%out_ctrl_qubits_82) : !quantum.bit, !quantum.bit ctrls !quantum.bit
        %c4_87 = arith.constant 4 : index
        %extracted_88 = tensor.extract %6[%c4_87] : tensor<15xf64>
        %out_qubits_89, %out_ctrl_qubits_90 = quantum.pauli_rot "Z"(%extracted_88) %out_qubits_73#0 ctrls(%out_ctrl_qubits_86) : !quantum.bit ctrls !quantum.bit
        %c3_91 = arith.constant 3 : index
        %extracted_92 = tensor.extract %6[%c3_91] : tensor<15xf64>
        %out_qubits_93, %out_ctrl_qubits_94 = quantum.pauli_rot "Z"(%extracted_92) %out_qubits_81#0 ctrls(%out_ctrl_qubits_90) : !quantum.bit ctrls !quantum.bit
        %c2_95 = arith.constant 2 : index
        %extracted_96 = tensor.extract %6[%c2_95] : tensor<15xf64>
        %out_qubits_97, %out_ctrl_qubits_98 = quantum.pauli_rot "Z"(%extracted_96) %out_qubits_85#0 ctrls(%out_ctrl_qubits_94) : !quantum.bit ctrls !quantum.bit
        %c1_99 = arith.constant 1 : index
        %extracted_100 = tensor.extract %6[%c1_99] : tensor<15xf64>
        %out_qubits_101, %out_ctrl_qubits_102 = quantum.pauli_rot "Z"(%extracted_100) %out_qubits_85#1 ctrls(%out_ctrl_qubits_98) : !quantum.bit ctrls !quantum.bit
        %c0_103 = arith.constant 0 : index
        %extracted_104 = tensor.extract %6[%c0_103] : tensor<15xf64>
        %out_qubits_105 = quantum.custom "PhaseShift"(%extracted_104) %out_ctrl_qubits_102 : !quantum.bit
        scf.yield %out_qubits_105, %out_qubits_89, %out_qubits_93, %out_qubits_97, %out_qubits_101 : !quantum.bit, !quantum.bit, !quantum.bit, !quantum.bit, !quantum.bit
      }
      %26 = quantum.insert %arg2[0], %25#1 : !quantum.reg, !quantum.bit
      %27 = quantum.insert %26[1], %25#2 : !quantum.reg, !quantum.bit
      %28 = quantum.insert %27[2], %25#3 : !quantum.reg, !quantum.bit
      %29 = quantum.insert %28[3], %25#4 : !quantum.reg, !quantum.bit
      %30 = quantum.insert %29[%16], %25#0 : !quantum.reg, !quantum.bit
      scf.yield %30 : !quantum.reg
    }
    %c0_1 = arith.constant 0 : index
    %c1_2 = arith.constant 1 : index
    %c5_3 = arith.constant 5 : index
    %13 = scf.for %arg1 = %c0_1 to %c5_3 step %c1_2 iter_args(%arg2 = %12) -> (!quantum.reg) {
      %c4 = arith.constant 4 : index
      %15 = arith.subi %c4, %arg1 : index
      %16 = arith.addi %15, %c1_2 : index
      %17 = arith.index_cast %15 : index to i64
      %c4_i64 = arith.constant 4 : i64
      %18 = arith.addi %17, %c4_i64 : i64
      %19 = scf.for %arg3 = %16 to %c5_3 step %c1_2 iter_args(%arg4 = %arg2) -> (!quantum.reg) {
        %22 = arith.index_cast %arg3 : index to i64
        %c4_i64_5 = arith.constant 4 : i64
        %23 = arith.addi %22, %c4_i64_5 : i64
        %24 = arith.subi %22, %17 : i64
        %c1_i64 = arith.constant 1 : i64
        %25 = arith.shli %c1_i64, %24 : i64
        %26 = arith.sitofp %25 : i64 to f64
        %cst = arith.constant -3.1415926535897931 : f64
        %27 = arith.divf %cst, %26 : f64
        %28 = quantum.extract %arg4[%23] : !quantum.reg -> !quantum.bit
        %29 = quantum.extract %arg4[%18] : !quantum.reg -> !quantum.bit
        %out_qubits_6, %out_ctrl_qubits = quantum.custom "PhaseShift"(%27) %29 ctrls(%28) : !quantum.bit ctrls !quantum.bit
        %30 = quantum.insert %arg4[%18], %out_qubits_6 : !quantum.reg, !quantum.bit
        %31 = quantum.insert %30[%23], %out_ctrl_qubits : !quantum.reg, !quantum.bit
        scf.yield %31 : !quantum.reg
      }
      %20 = quantum.extract %19[%18] : !quantum.reg -> !quantum.bit
      %out_qubits_4 = quantum.custom "H"() %20 : !quantum.bit
      %21 = quantum.insert %19[%18], %out_qubits_4 : !quantum.reg, !quantum.bit
      scf.yield %21 : !quantum.reg
    }
    %14 = quantum.probs  reg %13[4, 5] : tensor<32xf64>
    quantum.dealloc %13 : !quantum.reg
    return %14 : tensor<32xf64>
  }
}
