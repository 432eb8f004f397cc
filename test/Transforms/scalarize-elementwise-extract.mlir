// RUN: q2-opt %s --q2-scalarize-elementwise-extract --split-input-file | FileCheck %s

// An element extracted from a 1-d elementwise linalg.generic is computed as
// scalars at the extract; the generic, now unused, is erased.
// CHECK-LABEL: func.func @one(
// CHECK-SAME: %[[A:.*]]: tensor<4xf64>, %[[B:.*]]: tensor<4xf64>
// CHECK: %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT: %[[X:.*]] = tensor.extract %[[A]][%[[C1]]]
// CHECK-NEXT: %[[Y:.*]] = tensor.extract %[[B]][%[[C1]]]
// CHECK-NEXT: %[[M:.*]] = arith.mulf %[[X]], %[[Y]]
// CHECK-NEXT: return %[[M]]
// CHECK-NOT: linalg.generic
#id = affine_map<(d0) -> (d0)>
func.func @one(%a: tensor<4xf64>, %b: tensor<4xf64>) -> f64 {
  %c1 = arith.constant 1 : index
  %e = tensor.empty() : tensor<4xf64>
  %g = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%a, %b : tensor<4xf64>, tensor<4xf64>) outs(%e : tensor<4xf64>) {
  ^bb0(%x: f64, %y: f64, %o: f64):
    %m = arith.mulf %x, %y : f64
    linalg.yield %m : f64
  } -> tensor<4xf64>
  %r = tensor.extract %g[%c1] : tensor<4xf64>
  return %r : f64
}

// -----

// A generic that reads another: the new extract is scalarized in turn.
// CHECK-LABEL: func.func @cascade(
// CHECK-SAME: %[[A:.*]]: tensor<4xf64>, %[[S:.*]]: f64
// CHECK: %[[X:.*]] = tensor.extract %[[A]]
// CHECK-NEXT: %[[M:.*]] = arith.mulf %[[X]], %[[S]]
// CHECK-NEXT: %[[N:.*]] = arith.addf %[[M]], %[[S]]
// CHECK-NEXT: return %[[N]]
// CHECK-NOT: linalg.generic
#id = affine_map<(d0) -> (d0)>
func.func @cascade(%a: tensor<4xf64>, %s: f64) -> f64 {
  %c2 = arith.constant 2 : index
  %e = tensor.empty() : tensor<4xf64>
  %g = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : tensor<4xf64>) outs(%e : tensor<4xf64>) {
  ^bb0(%x: f64, %o: f64):
    %m = arith.mulf %x, %s : f64
    linalg.yield %m : f64
  } -> tensor<4xf64>
  %h = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%g : tensor<4xf64>) outs(%e : tensor<4xf64>) {
  ^bb0(%x: f64, %o: f64):
    %n = arith.addf %x, %s : f64
    linalg.yield %n : f64
  } -> tensor<4xf64>
  %r = tensor.extract %h[%c2] : tensor<4xf64>
  return %r : f64
}

// -----

// Not elementwise (a reversed index map): left alone.
// CHECK-LABEL: func.func @reversed(
// CHECK: linalg.generic
// CHECK: tensor.extract
#id = affine_map<(d0) -> (d0)>
#rev = affine_map<(d0) -> (3 - d0)>
func.func @reversed(%a: tensor<4xf64>) -> f64 {
  %c1 = arith.constant 1 : index
  %e = tensor.empty() : tensor<4xf64>
  %g = linalg.generic {indexing_maps = [#rev, #id], iterator_types = ["parallel"]}
      ins(%a : tensor<4xf64>) outs(%e : tensor<4xf64>) {
  ^bb0(%x: f64, %o: f64):
    linalg.yield %x : f64
  } -> tensor<4xf64>
  %r = tensor.extract %g[%c1] : tensor<4xf64>
  return %r : f64
}
