func.func @not_on_a_module() attributes {quantum.qpe = 1 : i64} {
  return
}
