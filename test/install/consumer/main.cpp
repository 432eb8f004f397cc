// Registers q2's dialects, parses and verifies a function with quantum ops,
// counts them and reads this process's RSS through the profiling library.
#include "q2/Dialect/Quantum/IR/QuantumOps.h"
#include "q2/InitQ2.h"
#include "q2/Profiling/Memory.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/raw_ostream.h"

int main() {
  mlir::DialectRegistry registry;
  q2::registerQ2Dialects(registry);
  mlir::MLIRContext ctx(registry);
  const char *src = R"mlir(
    func.func @bell() -> !quantum.reg {
      %r = quantum.alloc(2) : !quantum.reg
      %q0 = quantum.extract %r[0] : !quantum.reg -> !quantum.bit
      %q1 = quantum.extract %r[1] : !quantum.reg -> !quantum.bit
      %h = quantum.custom "H"() %q0 : !quantum.bit
      %a, %b = quantum.custom "CNOT"() %h, %q1 : !quantum.bit, !quantum.bit
      return %r : !quantum.reg
    })mlir";
  mlir::OwningOpRef<mlir::ModuleOp> m =
      mlir::parseSourceString<mlir::ModuleOp>(src, &ctx);
  if (!m || mlir::failed(mlir::verify(*m)))
    return 1;
  unsigned gates = 0;
  m->walk([&](q2::quantum::CustomOp) { ++gates; });
  auto status = q2::profiling::readProcStatus();
  if (!status) {
    llvm::errs() << llvm::toString(status.takeError()) << "\n";
    return 1;
  }
  llvm::outs() << "quantum gates: " << gates
               << " rss_bytes>0: " << (status->vmRSS > 0) << "\n";
  return gates == 2 && status->vmRSS > 0 ? 0 : 1;
}
