func.func @not_on_a_module() attributes {qpe.metadata = 1 : i64} {
  return
}
