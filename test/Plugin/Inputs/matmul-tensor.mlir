// A tensor program in the upstream style: two matmuls on tensors, a bias
// add, an scf loop of accumulations (bufferization + LLVM lowering input).
func.func @matmul(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>,
                  %c: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x4xf32>)
                     outs(%c : tensor<8x4xf32>) -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}

func.func @accumulate(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>,
                      %init: tensor<8x4xf32>, %n: index) -> tensor<8x4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %unused = arith.addf %zero, %zero : f32
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> tensor<8x4xf32> {
    %m = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x4xf32>)
                       outs(%acc : tensor<8x4xf32>) -> tensor<8x4xf32>
    scf.yield %m : tensor<8x4xf32>
  }
  return %r : tensor<8x4xf32>
}
