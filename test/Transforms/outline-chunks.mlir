// RUN: q2-opt %s --quantum-outline-chunks="max-gates=2 min-gates=2 tabulate=false" --split-input-file | FileCheck %s
// RUN: q2-opt %s --quantum-outline-chunks="max-gates=8 min-gates=2 tabulate=false" --split-input-file | FileCheck %s --check-prefix=CODE
// RUN: q2-opt %s --quantum-outline-chunks=max-gates=0 --split-input-file | FileCheck %s --check-prefix=OFF
// Without tables (tabulate=false) the chunks hold the gates themselves;
// outline-chunks-tables.mlir has the tables.

// With room for eight gates and eight ops of arithmetic, the four gates
// are one chunk. The call sits where the chunk's last gate was, takes the
// qubits and values the chunk needs (in order of first use) and returns the
// qubits used after it. A term's angle math goes with its gate (cloned,
// constants too); the originals left without users are erased.
// CODE-LABEL: func.func @run(
// CODE-SAME: %[[C:.*]]: tensor<4xf64>, %[[F:.*]]: f64, %[[A:.*]]: !quantum.bit, %[[B:.*]]: !quantum.bit
// CODE-NEXT: %[[R:.*]]:2 = call @run.chunk0(%[[A]], %[[C]], %[[F]], %[[B]]) : (!quantum.bit, tensor<4xf64>, f64, !quantum.bit) -> (!quantum.bit, !quantum.bit)
// CODE-NEXT: return %[[R]]#0, %[[R]]#1
// CODE: func.func private @run.chunk0(%[[A0:.*]]: !quantum.bit, %[[C0:.*]]: tensor<4xf64>, %[[F0:.*]]: f64, %[[B0:.*]]: !quantum.bit) -> (!quantum.bit, !quantum.bit)
// CODE-SAME: attributes {llvm.linkage = #llvm.linkage<internal>, passthrough = ["noinline"]}
// CODE-NEXT: %[[H:.*]] = quantum.custom "H"() %[[A0]]
// CODE-NEXT: %[[I0:.*]] = arith.constant 0 : index
// CODE-NEXT: %[[E0:.*]] = tensor.extract %[[C0]][%[[I0]]]
// CODE-NEXT: %[[S0:.*]] = arith.constant 5.000000e-01 : f64
// CODE-NEXT: %[[M0:.*]] = arith.mulf %[[E0]], %[[S0]]
// CODE-NEXT: %[[T0:.*]] = arith.mulf %[[M0]], %[[F0]]
// CODE-NEXT: %[[RZ:.*]], %[[RC:.*]] = quantum.custom "RZ"(%[[T0]]) %[[B0]] ctrls(%[[H]])
// CODE-NEXT: %[[I1:.*]] = arith.constant 1 : index
// CODE-NEXT: %[[E1:.*]] = tensor.extract %[[C0]][%[[I1]]]
// CODE-NEXT: %[[T1:.*]] = arith.mulf %[[E1]], %[[F0]]
// CODE-NEXT: %[[RX:.*]] = quantum.custom "RX"(%[[T1]]) %[[RC]]
// CODE-NEXT: %[[X:.*]], %[[XC:.*]] = quantum.custom "X"() %[[RX]] ctrls(%[[RZ]])
// CODE-NEXT: return %[[X]], %[[XC]]
// With room for two ops of arithmetic per function, the RZ (three ops)
// cannot join the H; the RX and X (two ops) can.
// CHECK-LABEL: func.func @run(
// CHECK: quantum.custom "H"
// CHECK: quantum.custom "RZ"
// CHECK: call @run.chunk0
// CHECK: func.func private @run.chunk0(
// CHECK: quantum.custom "RX"
// CHECK: quantum.custom "X"
func.func @run(%c: tensor<4xf64>, %f: f64, %a: !quantum.bit, %b: !quantum.bit) -> (!quantum.bit, !quantum.bit) {
  %half = arith.constant 0.5 : f64
  %i0 = arith.constant 0 : index
  %i1 = arith.constant 1 : index
  %h = quantum.custom "H"() %a : !quantum.bit
  %e0 = tensor.extract %c[%i0] : tensor<4xf64>
  %m0 = arith.mulf %e0, %half : f64
  %t0 = arith.mulf %m0, %f : f64
  %rz, %rc = quantum.custom "RZ"(%t0) %b ctrls(%h) : !quantum.bit ctrls !quantum.bit
  %e1 = tensor.extract %c[%i1] : tensor<4xf64>
  %t1 = arith.mulf %e1, %f : f64
  %rx = quantum.custom "RX"(%t1) %rc : !quantum.bit
  %x, %xc = quantum.custom "X"() %rx ctrls(%rz) : !quantum.bit ctrls !quantum.bit
  return %x, %xc : !quantum.bit, !quantum.bit
}
// OFF-LABEL: func.func @run(
// OFF-NOT: call
// OFF-NOT: func.func private

// -----

// Five gates: chunks of 2, 2 and 1; a one-gate chunk stays as it is. Two
// calls and a gate are still more than two units: the calls are grouped
// once more.
// CHECK-LABEL: func.func @balanced(
// CHECK-NEXT: %[[T:.*]] = call @balanced.chunk2(%{{.*}})
// CHECK-NEXT: %[[L:.*]] = quantum.custom "S"() %[[T]]
// CHECK-NEXT: return %[[L]]
// CHECK: func.func private @balanced.chunk0(
// CHECK-NEXT: quantum.custom "H"
// CHECK-NEXT: quantum.custom "X"
// CHECK-NEXT: return
// CHECK: func.func private @balanced.chunk1(
// CHECK-NEXT: quantum.custom "Y"
// CHECK-NEXT: quantum.custom "Z"
// CHECK-NEXT: return
// CHECK: func.func private @balanced.chunk2(
// CHECK-NEXT: call @balanced.chunk0
// CHECK-NEXT: call @balanced.chunk1
// CHECK-NEXT: return
func.func @balanced(%a: !quantum.bit) -> !quantum.bit {
  %0 = quantum.custom "H"() %a : !quantum.bit
  %1 = quantum.custom "X"() %0 : !quantum.bit
  %2 = quantum.custom "Y"() %1 : !quantum.bit
  %3 = quantum.custom "Z"() %2 : !quantum.bit
  %4 = quantum.custom "S"() %3 : !quantum.bit
  return %4 : !quantum.bit
}

// -----

// At most max-gates gates in a block: nothing to do.
// CHECK-LABEL: func.func @short(
// CHECK-NOT: call
// CHECK: quantum.custom "H"
// CHECK: quantum.custom "H"
// CHECK: return
// CHECK-NOT: func.func private
func.func @short(%a: !quantum.bit) -> !quantum.bit {
  %0 = quantum.custom "H"() %a : !quantum.bit
  %1 = quantum.custom "H"() %0 : !quantum.bit
  return %1 : !quantum.bit
}

// -----

// A run ends before an op that uses one of its results (the insert), that
// may have memory effects (the measure) or that has regions (the loop): the
// call must come before such an op, so it cannot join the gates around it.
// CHECK-LABEL: func.func @closers(
// CHECK: %[[C0:.*]] = call @closers.chunk0(
// CHECK-NEXT: %[[R1:.*]] = quantum.insert %{{.*}}[0], %[[C0]]
// CHECK-NEXT: %[[Q:.*]] = quantum.extract %[[R1]][1]
// CHECK-NEXT: %[[C1:.*]] = call @closers.chunk1(%[[Q]])
// CHECK-NEXT: %{{.*}}, %[[M:.*]] = quantum.measure %[[C1]]
// CHECK-NEXT: %[[C2:.*]] = call @closers.chunk2(%[[M]])
// CHECK-NEXT: scf.for
// CHECK: %[[C3:.*]] = call @closers.chunk3(
// CHECK: func.func private @closers.chunk0
// CHECK: func.func private @closers.chunk1
// CHECK: func.func private @closers.chunk2
// CHECK: func.func private @closers.chunk3
func.func @closers(%r: !quantum.reg, %a: !quantum.bit) -> !quantum.bit {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %0 = quantum.custom "H"() %a : !quantum.bit
  %1 = quantum.custom "X"() %0 : !quantum.bit
  %r1 = quantum.insert %r[0], %1 : !quantum.reg, !quantum.bit
  %q = quantum.extract %r1[1] : !quantum.reg -> !quantum.bit
  %2 = quantum.custom "H"() %q : !quantum.bit
  %3 = quantum.custom "Y"() %2 : !quantum.bit
  %m, %4 = quantum.measure %3 : i1, !quantum.bit
  %5 = quantum.custom "H"() %4 : !quantum.bit
  %6 = quantum.custom "Z"() %5 : !quantum.bit
  %7 = scf.for %i = %c0 to %c4 step %c1 iter_args(%x = %6) -> (!quantum.bit) {
    scf.yield %x : !quantum.bit
  }
  %8 = quantum.custom "H"() %7 : !quantum.bit
  %9 = quantum.custom "S"() %8 : !quantum.bit
  return %9 : !quantum.bit
}

// -----

// Eight gates, two per function: four chunks, then still four calls in the
// block, grouped again into two functions of two calls (a tree), so no
// function has more than two gates or calls.
// CHECK-LABEL: func.func @tree(
// CHECK: %[[T0:.*]] = call @tree.chunk4(%{{.*}})
// CHECK-NEXT: %[[T1:.*]] = call @tree.chunk5(%[[T0]])
// CHECK-NEXT: return %[[T1]]
// CHECK: func.func private @tree.chunk0({{.*}}) -> !quantum.bit
// CHECK-COUNT-2: quantum.custom
// CHECK: func.func private @tree.chunk1(
// CHECK: func.func private @tree.chunk2(
// CHECK: func.func private @tree.chunk3(
// CHECK: func.func private @tree.chunk4(%[[X:.*]]: !quantum.bit) -> !quantum.bit
// CHECK-NEXT: %[[Y:.*]] = call @tree.chunk0(%[[X]])
// CHECK-NEXT: %[[Z:.*]] = call @tree.chunk1(%[[Y]])
// CHECK-NEXT: return %[[Z]]
// CHECK: func.func private @tree.chunk5(
// CHECK-NEXT: call @tree.chunk2(
// CHECK-NEXT: call @tree.chunk3(
func.func @tree(%a: !quantum.bit) -> !quantum.bit {
  %0 = quantum.custom "H"() %a : !quantum.bit
  %1 = quantum.custom "X"() %0 : !quantum.bit
  %2 = quantum.custom "Y"() %1 : !quantum.bit
  %3 = quantum.custom "Z"() %2 : !quantum.bit
  %4 = quantum.custom "H"() %3 : !quantum.bit
  %5 = quantum.custom "X"() %4 : !quantum.bit
  %6 = quantum.custom "Y"() %5 : !quantum.bit
  %7 = quantum.custom "Z"() %6 : !quantum.bit
  return %7 : !quantum.bit
}

// -----

// An angle used by two chunks is computed in each (the caller keeps no
// copy); a value from another block (the loop's %f) is an argument.
// CHECK-LABEL: func.func @shared(
// CHECK: scf.for
// CHECK-NOT: arith.mulf
// CHECK: call @shared.chunk0
// CHECK-NOT: arith.mulf
// CHECK: call @shared.chunk1
// CHECK: func.func private @shared.chunk0(
// CHECK: arith.mulf
// CHECK: func.func private @shared.chunk1(
// CHECK: arith.mulf
func.func @shared(%a: !quantum.bit, %f: f64) -> !quantum.bit {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%q = %a) -> (!quantum.bit) {
    %t = arith.mulf %f, %f : f64
    %0 = quantum.custom "RZ"(%t) %q : !quantum.bit
    %1 = quantum.custom "H"() %0 : !quantum.bit
    %2 = quantum.custom "H"() %1 : !quantum.bit
    %3 = quantum.custom "RZ"(%t) %2 : !quantum.bit
    scf.yield %3 : !quantum.bit
  }
  return %r : !quantum.bit
}

// -----

// A chunk's arithmetic is bounded too (max-gates ops): the RZ, whose
// angle takes twenty ops, is a chunk of its own (so it stays in place, with
// its chain); the two H are outlined.
// CHECK-LABEL: func.func @budget(
// CHECK-COUNT-20: arith.addf
// CHECK-NOT: arith.addf
// CHECK: %[[RZ:.*]] = quantum.custom "RZ"
// CHECK-NEXT: call @budget.chunk0(%[[RZ]])
// CHECK: func.func private @budget.chunk0(
// CHECK-NOT: arith.addf
// CHECK: return
func.func @budget(%a: !quantum.bit, %x: f64) -> !quantum.bit {
  %0 = arith.addf %x, %x : f64
  %1 = arith.addf %0, %x : f64
  %2 = arith.addf %1, %x : f64
  %3 = arith.addf %2, %x : f64
  %4 = arith.addf %3, %x : f64
  %5 = arith.addf %4, %x : f64
  %6 = arith.addf %5, %x : f64
  %7 = arith.addf %6, %x : f64
  %8 = arith.addf %7, %x : f64
  %9 = arith.addf %8, %x : f64
  %10 = arith.addf %9, %x : f64
  %11 = arith.addf %10, %x : f64
  %12 = arith.addf %11, %x : f64
  %13 = arith.addf %12, %x : f64
  %14 = arith.addf %13, %x : f64
  %15 = arith.addf %14, %x : f64
  %16 = arith.addf %15, %x : f64
  %17 = arith.addf %16, %x : f64
  %18 = arith.addf %17, %x : f64
  %19 = arith.addf %18, %x : f64
  %g0 = quantum.custom "RZ"(%19) %a : !quantum.bit
  %g1 = quantum.custom "H"() %g0 : !quantum.bit
  %g2 = quantum.custom "H"() %g1 : !quantum.bit
  return %g2 : !quantum.bit
}
