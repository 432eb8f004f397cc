// Sparse kernels for the HTML report's fixtures and the docs' upstream
// pipeline example: run through MLIR's own `sparsifier` pipeline.
#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>
#DCSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : compressed, j : compressed) }>
#SV = #sparse_tensor.encoding<{ map = (i) -> (i : compressed) }>

#sum = {
  indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> ()>],
  iterator_types = ["reduction"]
}

module {
  // Dense C += sparse A (CSR) x dense B.
  func.func @spmm(%a: tensor<64x64xf64, #CSR>, %b: tensor<64x32xf64>,
                  %c: tensor<64x32xf64>) -> tensor<64x32xf64> {
    %0 = linalg.matmul ins(%a, %b : tensor<64x64xf64, #CSR>, tensor<64x32xf64>)
                       outs(%c : tensor<64x32xf64>) -> tensor<64x32xf64>
    return %0 : tensor<64x32xf64>
  }

  // Sparse x sparse into a sparse result (DCSR).
  func.func @spmspm(%a: tensor<64x64xf64, #DCSR>,
                    %b: tensor<64x64xf64, #DCSR>) -> tensor<64x64xf64, #DCSR> {
    %e = tensor.empty() : tensor<64x64xf64, #DCSR>
    %0 = linalg.matmul ins(%a, %b : tensor<64x64xf64, #DCSR>, tensor<64x64xf64, #DCSR>)
                       outs(%e : tensor<64x64xf64, #DCSR>) -> tensor<64x64xf64, #DCSR>
    return %0 : tensor<64x64xf64, #DCSR>
  }

  // y += A x, A sparse of any size.
  func.func @spmv(%a: tensor<?x?xf64, #CSR>, %x: tensor<?xf64>,
                  %y: tensor<?xf64>) -> tensor<?xf64> {
    %0 = linalg.matvec ins(%a, %x : tensor<?x?xf64, #CSR>, tensor<?xf64>)
                       outs(%y : tensor<?xf64>) -> tensor<?xf64>
    return %0 : tensor<?xf64>
  }

  // The sum of a sparse vector.
  func.func @vsum(%v: tensor<1024xf64, #SV>, %acc: tensor<f64>) -> tensor<f64> {
    %0 = linalg.generic #sum ins(%v : tensor<1024xf64, #SV>) outs(%acc : tensor<f64>) {
    ^bb0(%x: f64, %s: f64):
      %r = arith.addf %x, %s : f64
      linalg.yield %r : f64
    } -> tensor<f64>
    return %0 : tensor<f64>
  }
}
