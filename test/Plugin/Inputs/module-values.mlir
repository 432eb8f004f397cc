// Not the sum of its ops: a value defined at module level (numbered in the
// module's scope) and a dialect resource printed after the module.
%0 = "test.value"() : () -> i32
"test.use"(%0) : (i32) -> ()
memref.global "private" constant @blob : memref<2xi32> = dense_resource<blob1>
func.func @f() -> i32 {
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %s = arith.addi %c1, %c2 : i32
  return %s : i32
}
{-#
  dialect_resources: {
    builtin: {
      blob1: "0x040000000100000002000000"
    }
  }
#-}
