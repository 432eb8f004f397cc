// Two copies of benchmarks/profiling/Inputs/sparse-kernels.mlir (functions
// renamed _0, _1, as benchlib.sparse_program writes them): through the
// sparsifier, three #sparse encodings and up to eight #map aliases that MLIR
// numbers (#sparse1, #map7), used from several functions, more often some
// than others (profile-pass-ir-exact.mlir).

#CSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : dense, j : compressed) }>
#DCSR = #sparse_tensor.encoding<{ map = (i, j) -> (i : compressed, j : compressed) }>
#SV = #sparse_tensor.encoding<{ map = (i) -> (i : compressed) }>

#matvec = {
  indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>,
                   affine_map<(i, j) -> (i)>],
  iterator_types = ["parallel", "reduction"]
}
#elementwise = {
  indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>,
                   affine_map<(i, j) -> (i, j)>],
  iterator_types = ["parallel", "parallel"]
}
#sum = {
  indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> ()>],
  iterator_types = ["reduction"]
}

func.func @spmv_0(%a: tensor<?x?xf64, #CSR>, %x: tensor<?xf64>,
                %y: tensor<?xf64>) -> tensor<?xf64> {
  %0 = linalg.generic #matvec ins(%a, %x : tensor<?x?xf64, #CSR>, tensor<?xf64>)
      outs(%y : tensor<?xf64>) {
  ^bb0(%av: f64, %xv: f64, %yv: f64):
    %m = arith.mulf %av, %xv : f64
    %s = arith.addf %yv, %m : f64
    linalg.yield %s : f64
  } -> tensor<?xf64>
  return %0 : tensor<?xf64>
}

func.func @spmm_0(%a: tensor<64x128xf64, #CSR>, %b: tensor<128x32xf64>,
                %c: tensor<64x32xf64>) -> tensor<64x32xf64> {
  %0 = linalg.matmul ins(%a, %b : tensor<64x128xf64, #CSR>, tensor<128x32xf64>)
      outs(%c : tensor<64x32xf64>) -> tensor<64x32xf64>
  return %0 : tensor<64x32xf64>
}

func.func @mul_dcsr_0(%a: tensor<32x32xf64, #DCSR>, %b: tensor<32x32xf64, #DCSR>)
    -> tensor<32x32xf64, #DCSR> {
  %init = tensor.empty() : tensor<32x32xf64, #DCSR>
  %0 = linalg.generic #elementwise
      ins(%a, %b : tensor<32x32xf64, #DCSR>, tensor<32x32xf64, #DCSR>)
      outs(%init : tensor<32x32xf64, #DCSR>) {
  ^bb0(%av: f64, %bv: f64, %o: f64):
    %m = arith.mulf %av, %bv : f64
    linalg.yield %m : f64
  } -> tensor<32x32xf64, #DCSR>
  return %0 : tensor<32x32xf64, #DCSR>
}

func.func @sum_sv_0(%v: tensor<1024xf64, #SV>, %acc: tensor<f64>) -> tensor<f64> {
  %0 = linalg.generic #sum ins(%v : tensor<1024xf64, #SV>) outs(%acc : tensor<f64>) {
  ^bb0(%x: f64, %a: f64):
    %s = arith.addf %a, %x : f64
    linalg.yield %s : f64
  } -> tensor<f64>
  return %0 : tensor<f64>
}
func.func @spmv_1(%a: tensor<?x?xf64, #CSR>, %x: tensor<?xf64>,
                %y: tensor<?xf64>) -> tensor<?xf64> {
  %0 = linalg.generic #matvec ins(%a, %x : tensor<?x?xf64, #CSR>, tensor<?xf64>)
      outs(%y : tensor<?xf64>) {
  ^bb0(%av: f64, %xv: f64, %yv: f64):
    %m = arith.mulf %av, %xv : f64
    %s = arith.addf %yv, %m : f64
    linalg.yield %s : f64
  } -> tensor<?xf64>
  return %0 : tensor<?xf64>
}

func.func @spmm_1(%a: tensor<64x128xf64, #CSR>, %b: tensor<128x32xf64>,
                %c: tensor<64x32xf64>) -> tensor<64x32xf64> {
  %0 = linalg.matmul ins(%a, %b : tensor<64x128xf64, #CSR>, tensor<128x32xf64>)
      outs(%c : tensor<64x32xf64>) -> tensor<64x32xf64>
  return %0 : tensor<64x32xf64>
}

func.func @mul_dcsr_1(%a: tensor<32x32xf64, #DCSR>, %b: tensor<32x32xf64, #DCSR>)
    -> tensor<32x32xf64, #DCSR> {
  %init = tensor.empty() : tensor<32x32xf64, #DCSR>
  %0 = linalg.generic #elementwise
      ins(%a, %b : tensor<32x32xf64, #DCSR>, tensor<32x32xf64, #DCSR>)
      outs(%init : tensor<32x32xf64, #DCSR>) {
  ^bb0(%av: f64, %bv: f64, %o: f64):
    %m = arith.mulf %av, %bv : f64
    linalg.yield %m : f64
  } -> tensor<32x32xf64, #DCSR>
  return %0 : tensor<32x32xf64, #DCSR>
}

func.func @sum_sv_1(%v: tensor<1024xf64, #SV>, %acc: tensor<f64>) -> tensor<f64> {
  %0 = linalg.generic #sum ins(%v : tensor<1024xf64, #SV>) outs(%acc : tensor<f64>) {
  ^bb0(%x: f64, %a: f64):
    %s = arith.addf %a, %x : f64
    linalg.yield %s : f64
  } -> tensor<f64>
  return %0 : tensor<f64>
}
