func.func @params(%q: !quantum.bit, %x: f64) -> !quantum.bit {
  %c1 = arith.constant 1 : index
  %buf = memref.alloca() : memref<2xf64>
  %t = bufferization.to_tensor %buf restrict writable : memref<2xf64> to tensor<2xf64>
  %p = tensor.insert %x into %t[%c1] : tensor<2xf64>
  %o = quantum.gate_table %q params(%p : tensor<2xf64>) kinds ["RZ"] records [0, 0, 1, 1, 0, 0, 0] : !quantum.bit
  return %o : !quantum.bit
}
