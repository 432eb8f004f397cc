// RUN: q2-opt %s --q2-order-constant-globals | FileCheck %s

// Bufferization's constant globals go to the top in order of first use and
// are renamed by that order; other globals and the IR stay as they are.
// CHECK: memref.global "private" constant @__constant_2xf64 : memref<2xf64> = dense<[3.000000e+00, 4.000000e+00]>
// CHECK-NEXT: memref.global "private" constant @__constant_2xf64_1 : memref<2xf64> = dense<[1.000000e+00, 2.000000e+00]>
// CHECK-NEXT: memref.global "private" constant @__constant_3xi64 : memref<3xi64>
// CHECK-NEXT: memref.global "private" @other : memref<2xf64>
// CHECK-LABEL: func.func @f
// CHECK-NEXT: memref.get_global @__constant_2xf64 :
// CHECK-NEXT: memref.get_global @__constant_2xf64_1 :
// CHECK-NEXT: memref.get_global @__constant_3xi64 :
// CHECK-NEXT: memref.get_global @__constant_2xf64 :
module {
  memref.global "private" constant @__constant_2xf64 : memref<2xf64> = dense<[1.0, 2.0]>
  memref.global "private" @other : memref<2xf64>
  memref.global "private" constant @__constant_3xi64_4 : memref<3xi64> = dense<[1, 2, 3]>
  memref.global "private" constant @__constant_2xf64_7 : memref<2xf64> = dense<[3.0, 4.0]>
  func.func @f() {
    %a = memref.get_global @__constant_2xf64_7 : memref<2xf64>
    %b = memref.get_global @__constant_2xf64 : memref<2xf64>
    %c = memref.get_global @__constant_3xi64_4 : memref<3xi64>
    %d = memref.get_global @__constant_2xf64_7 : memref<2xf64>
    return
  }
}
