//===- q2-qpe.cpp - Hamiltonian -> stage-0 QPE program --------------------===//
//
//   q2-qpe h2.FCIDUMP -o h2.mlir [--n-est 8 --n-trotter 10 --mode fixed ...]
//   q2-qpe h2.FCIDUMP --info [--json]
//   q2-qpe --molecule lih.xyz --charge 0 --active 2,3 --info   (runs psi4)
//
// Command line and printing only: the program flags are the options of
// q2::qpe::ProgramRequest (ProgramRequest.def), planned and built by lib/QPE.
//
//===----------------------------------------------------------------------===//
#include "q2/Hamiltonian/Hamiltonian.h"
#include "q2/ProgramBuilder/QPEProgram.h"
#include "q2/QPE/ProgramPlan.h"
#include "q2/QPE/ProgramRequestFlags.h"
#include "q2/Support/CommandLine.h"
#include "q2/Support/FileIO.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
namespace ham = q2::hamiltonian;
namespace qpe = q2::qpe;

// Named to sort before "Other options" (q2/Support/CommandLine.h).
static cl::OptionCategory cat("Hamiltonian and program options");
static cl::opt<std::string> inputFile(cl::Positional, cl::desc("<hamiltonian>"),
                                      cl::cat(cat));
static cl::opt<std::string>
    outputFile("o", cl::desc("Output MLIR file ('-' for stdout)"),
               cl::value_desc("file"), cl::init("-"), cl::cat(cat));
static cl::opt<bool> info("info", cl::desc("Print what a chemist checks "
                                           "before compiling, then exit"),
                          cl::cat(cat));
static cl::opt<bool> json("json", cl::desc("With --info: print JSON"),
                          cl::cat(cat));
// The psi4 path: molecule -> RHF -> FCIDUMP (built by psi4_fcidump.py).
static cl::opt<std::string> molecule(
    "molecule", cl::desc("Run psi4 on this XYZ geometry (Angstrom) to build "
                         "the FCIDUMP instead of reading <hamiltonian>"),
    cl::value_desc("file.xyz"), cl::cat(cat));
static cl::opt<std::string> basis(
    "basis", cl::desc("With --molecule: basis set (default sto-3g)"),
    cl::init("sto-3g"), cl::cat(cat));
static cl::opt<std::string> charge(
    "charge", cl::desc("With --molecule: total charge (integer, required)"),
    cl::cat(cat));
static cl::opt<unsigned> multiplicity(
    "multiplicity", cl::desc("With --molecule: spin multiplicity (only 1: RHF)"),
    cl::init(1), cl::cat(cat));
static cl::opt<std::string> active(
    "active", cl::desc("With --molecule: active space NE,NO (electrons, "
                       "orbitals); the lowest (N-NE)/2 orbitals are frozen"),
    cl::value_desc("NE,NO"), cl::cat(cat));
static cl::opt<std::string> fcidumpOut(
    "fcidump-out", cl::desc("With --molecule: also keep the FCIDUMP here"),
    cl::value_desc("file"), cl::cat(cat));

// Errors end the run ("q2-qpe: error: ..."); the psi4 run is static so its
// temporary directory is removed at exit.
static ExitOnError check("q2-qpe: error: ");
static std::unique_ptr<ham::Psi4Run> psi4Run;
static int fail(const Twine &msg) {
  check(createStringError(msg));
  return 1;
}

// One flag per option of ProgramRequest.def.
static qpe::ProgramRequestFlags programFlags(cat);

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  q2::organizeHelp({&cat});
  cl::ParseCommandLineOptions(
      argc, argv,
      "q2-qpe: writes the stage-0 QPE program (MLIR) for a Hamiltonian\n\n"
      "Inputs: FCIDUMP (psi4, PySCF, Molpro), qubit-Hamiltonian JSON, or\n"
      "OpenFermion-style term lines ('-0.045 X0 X1 Y2 Y3').\n");
  // Refuse clobbering (`-o f.FCIDUMP` on f.FCIDUMP, two outputs on one
  // file) and bad program options before anything runs.
  std::vector<q2::NamedPath> outPaths = {{info ? std::string() : outputFile, "-o"},
                                         {fcidumpOut, "--fcidump-out"}};
  check(q2::checkDistinctPaths(
      {{inputFile, "input"}, {molecule, "--molecule"}}, outPaths));
  for (const q2::NamedPath &o : outPaths)
    if (!o.path.empty())
      check(q2::checkOutputPath(o.path, o.flag));
  qpe::ProgramRequest request = check(programFlags.request());
  check(request.validate());
  if (!molecule.getNumOccurrences() &&
      (charge.getNumOccurrences() || active.getNumOccurrences() ||
       fcidumpOut.getNumOccurrences()))
    return fail("--charge, --active and --fcidump-out need --molecule");

  std::string hamFile = inputFile;
  if (molecule.getNumOccurrences()) {
    if (!inputFile.empty())
      return fail("give either a Hamiltonian file or --molecule, not both");
    auto given = [](cl::opt<std::string> &o) {
      return o.getNumOccurrences() ? std::optional(o.getValue()) : std::nullopt;
    };
    ham::Psi4Request req{molecule, given(charge), multiplicity, given(active),
                         basis};
    std::string summary;
    psi4Run = check(ham::runPsi4(
        req, ham::defaultPsi4Script(argv[0], reinterpret_cast<void *>(&fail)),
        summary));
    errs() << "q2-qpe: " << summary << "\n";
    hamFile = psi4Run->fcidumpPath();
  }
  if (hamFile.empty())
    return fail("no input Hamiltonian given (see --help)");
  ham::QubitHamiltonian h = check(ham::loadHamiltonian(hamFile));
  if (!fcidumpOut.empty())
    check(q2::writeFileAtomically(
        fcidumpOut, check(q2::readInputFile(hamFile))->getBuffer()));

  // Plan before writing anything: parameters, steps, reference energies.
  Expected<qpe::ProgramPlan> planned = qpe::planProgram(h, request);
  if (info) {
    std::string error = planned ? "" : toString(planned.takeError());
    outs() << qpe::formatProgramInfo(h, planned ? &*planned : nullptr, error,
                                     psi4Run ? psi4Run->resultJSON() : "",
                                     json);
    return 0;
  }
  qpe::ProgramPlan plan = check(std::move(planned));
  if (std::optional<std::string> w = plan.warning())
    WithColor::warning(errs(), "q2-qpe") << *w << "\n";
  mlir::MLIRContext ctx;
  // Temporary file + rename: a failed or killed run leaves no partial file.
  // writeQPEProgram: a Trotter step is one gate table (data per term).
  check(q2::writeFileAtomically(outputFile, [&](raw_ostream &os) {
    return qpe::writeQPEProgram(os, ctx, h, plan.params, plan.options);
  }));
  return 0;
}
