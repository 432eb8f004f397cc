// RUN: q2-opt %s --quantum-outline-chunks=max-gates=1 --verify-diagnostics

// A chunk of one gate is never outlined, so max-gates=1 could only loop;
// it is refused.
// expected-error @+1 {{quantum-outline-chunks: max-gates must be 0 (off) or at least 2, got 1}}
module {
  func.func @f(%a: !quantum.bit) -> !quantum.bit {
    %0 = quantum.custom "H"() %a : !quantum.bit
    %1 = quantum.custom "X"() %0 : !quantum.bit
    return %1 : !quantum.bit
  }
}
