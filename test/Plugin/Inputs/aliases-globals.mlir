// Printed with attribute aliases at module level (#map) until the loops
// replace linalg.generic; a global; a function no pass changes.
#map = affine_map<(d0, d1) -> (d0, d1)>
memref.global "private" constant @table : memref<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]>
func.func @add(%a: memref<4x4xf32>, %b: memref<4x4xf32>) {
  linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<4x4xf32>) outs(%b : memref<4x4xf32>) {
  ^bb0(%x: f32, %y: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  }
  return
}
func.func @untouched(%x: i32) -> i32 {
  return %x : i32
}
func.func @fold() -> i32 {
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %s = arith.addi %c1, %c2 : i32
  return %s : i32
}
