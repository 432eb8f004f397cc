// RUN: q2-opt %s --quantum-outline-chunks="max-gates=2 min-gates=2 max-table-gates=6" | FileCheck %s
// RUN: q2-opt %s --quantum-outline-chunks="max-gates=2 min-gates=2" | FileCheck %s --check-prefix=DEFAULT
// RUN: q2-opt %s --quantum-outline-chunks="max-gates=2 min-gates=2 max-table-gates=6 tabulate=false" | FileCheck %s --check-prefix=CODE

// A table's gates are data: with max-table-gates=6 the six gates are one
// table (one function for LLVM), although max-gates (the code bound) is 2.
// CHECK-LABEL: func.func @six(
// CHECK-NEXT: %[[R:.*]]:2 = call @six.chunk0(
// CHECK-NEXT: return %[[R]]#0, %[[R]]#1
// CHECK: func.func private @six.chunk0(
// CHECK-NEXT: %[[T:.*]]:2 = quantum.gate_table
// CHECK-SAME: kinds ["H", "X"] records [0, 0, -1, 1, 0, 0, 0, 1, 0, -1, 1, 0, 0, 1, 0, 0, -1, 1, 0, 0, 0, 1, 0, -1, 1, 0, 0, 1, 0, 0, -1, 1, 0, 0, 0, 1, 0, -1, 1, 0, 0, 1]
// CHECK-NEXT: return
// CHECK-NOT: func.func private @six.chunk1

// Without it a table holds at most max-gates gates: three chunks of two,
// then a call tree.
// DEFAULT-LABEL: func.func @six(
// DEFAULT-COUNT-3: quantum.gate_table {{.*}} records [{{[^]]*}}] :
// DEFAULT-NOT: quantum.gate_table
// DEFAULT: func.func private @six.chunk3(

// Gates that stay code (no table) keep the code bound: two per function.
// CODE: func.func private @six.chunk0(
// CODE-NEXT: quantum.custom "H"
// CODE-NEXT: quantum.custom "X"
// CODE-NEXT: return
// CODE: func.func private @six.chunk2(
// CODE-NOT: quantum.gate_table
func.func @six(%a: !quantum.bit, %b: !quantum.bit) -> (!quantum.bit, !quantum.bit) {
  %0 = quantum.custom "H"() %a : !quantum.bit
  %1 = quantum.custom "X"() %b : !quantum.bit
  %2 = quantum.custom "H"() %0 : !quantum.bit
  %3 = quantum.custom "X"() %1 : !quantum.bit
  %4 = quantum.custom "H"() %2 : !quantum.bit
  %5 = quantum.custom "X"() %3 : !quantum.bit
  return %4, %5 : !quantum.bit, !quantum.bit
}
