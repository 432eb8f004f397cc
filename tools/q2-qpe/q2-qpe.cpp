//===- q2-qpe.cpp - Hamiltonian -> stage-0 QPE program --------------------===//
//
//   q2-qpe h2.FCIDUMP --mode dynamic --n-est 8 --n-trotter 10 -o h2.mlir
//   q2-qpe h2.FCIDUMP --info [--json]
//   q2-qpe --molecule lih.xyz --basis sto-3g --charge 0 --active 2,3 --info
//     (runs psi4, if installed, through psi4_fcidump.py next to the binary)
//
//===----------------------------------------------------------------------===//
#include "q2/Hamiltonian/Hamiltonian.h"
#include "q2/QPE/QPEProgram.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <nlohmann/json.hpp>

#include <optional>

using namespace llvm;
namespace ham = q2::hamiltonian;

static cl::OptionCategory cat("q2-qpe options");
static cl::opt<std::string> inputFile(cl::Positional, cl::desc("<hamiltonian>"),
                                      cl::cat(cat));
static cl::opt<std::string>
    outputFile("o", cl::desc("Output MLIR file ('-' for stdout)"),
               cl::value_desc("file"), cl::init("-"), cl::cat(cat));
static cl::opt<q2::qpe::Mode> mode(
    "mode", cl::desc("Coefficients as constants or as a function argument"),
    cl::values(clEnumValN(q2::qpe::Mode::Fixed, "fixed", "constants"),
               clEnumValN(q2::qpe::Mode::Dynamic, "dynamic",
                          "func argument tensor<N x f64> (default)")),
    cl::init(q2::qpe::Mode::Dynamic), cl::cat(cat));
static cl::opt<unsigned> order("order", cl::desc("Trotter order: 1 or 2"),
                               cl::init(2), cl::cat(cat));
static cl::opt<unsigned> nEst("n-est",
                              cl::desc("Estimation qubits (default: from "
                                       "--resolution and the window)"),
                              cl::cat(cat));
static cl::opt<unsigned> nTrotter("n-trotter",
                                  cl::desc("Trotter steps per controlled "
                                           "evolution"),
                                  cl::init(1), cl::cat(cat));
static cl::opt<q2::qpe::Power> power(
    "power", cl::desc("How estimation wire k gets U^(2^k)"),
    cl::values(clEnumValN(q2::qpe::Power::Time, "time",
                          "evolve for 2^k t (default)"),
               clEnumValN(q2::qpe::Power::Repeat, "repeat",
                          "repeat U(t) 2^k times")),
    cl::init(q2::qpe::Power::Time), cl::cat(cat));
static cl::opt<bool> unroll("unroll",
                            cl::desc("Fully unroll all loops (stress case)"),
                            cl::cat(cat));
static cl::opt<double> resolution(
    "resolution", cl::desc("Target energy resolution in Hartree (default "
                           "0.003); picks n_est when --n-est is not given"),
    cl::init(3e-3), cl::cat(cat));
static cl::list<double> window("window",
                               cl::desc("Energy window lo,hi in Hartree "
                                        "(default: the 1-norm bound)"),
                               cl::CommaSeparated, cl::cat(cat));
static cl::opt<double> baseTime("base-time",
                                cl::desc("Override the base time t"),
                                cl::cat(cat));
static cl::opt<double> energyShift("energy-shift",
                                   cl::desc("Override the energy shift"),
                                   cl::cat(cat));
static cl::opt<bool> info("info", cl::desc("Print what a chemist checks "
                                           "before compiling, then exit"),
                          cl::cat(cat));
static cl::opt<bool> json("json", cl::desc("With --info: print JSON"),
                          cl::cat(cat));

// The psi4 path: molecule -> RHF -> FCIDUMP (built by psi4_fcidump.py).
static cl::opt<std::string>
    molecule("molecule",
             cl::desc("Run psi4 on this XYZ geometry (Angstrom) to build the "
                      "FCIDUMP instead of reading <hamiltonian>"),
             cl::value_desc("file.xyz"), cl::cat(cat));
static cl::opt<std::string> basis("basis",
                                  cl::desc("With --molecule: basis set "
                                           "(default sto-3g)"),
                                  cl::init("sto-3g"), cl::cat(cat));
static cl::opt<std::string> charge("charge",
                                   cl::desc("With --molecule: total charge "
                                            "(integer, required)"),
                                   cl::cat(cat));
static cl::opt<unsigned> multiplicity("multiplicity",
                                      cl::desc("With --molecule: spin "
                                               "multiplicity (only 1: RHF)"),
                                      cl::init(1), cl::cat(cat));
static cl::opt<std::string>
    active("active",
           cl::desc("With --molecule: active space NE,NO (electrons, "
                    "orbitals); the lowest (N-NE)/2 orbitals are frozen"),
           cl::value_desc("NE,NO"), cl::cat(cat));
static cl::opt<std::string>
    fcidumpOut("fcidump-out",
               cl::desc("With --molecule: also keep the FCIDUMP here"),
               cl::value_desc("file"), cl::cat(cat));

static int fail(const Twine &msg) {
  WithColor::error(errs(), "q2-qpe") << msg << "\n";
  return 1;
}

/// Element symbol -> nuclear charge (H..Kr, the range of STO-3G).
static int atomicNumber(StringRef sym) {
  static const char *const elements[] = {
      "H",  "He", "Li", "Be", "B",  "C",  "N",  "O",  "F",  "Ne", "Na", "Mg",
      "Al", "Si", "P",  "S",  "Cl", "Ar", "K",  "Ca", "Sc", "Ti", "V",  "Cr",
      "Mn", "Fe", "Co", "Ni", "Cu", "Zn", "Ga", "Ge", "As", "Se", "Br", "Kr"};
  for (unsigned i = 0; i < std::size(elements); ++i)
    if (sym.equals_insensitive(elements[i]))
      return i + 1;
  return 0;
}

namespace {
struct MoleculeSpec {
  std::vector<std::string> atoms; ///< "Sym x y z" lines for psi4.
  int nuclearCharge = 0;
};
} // namespace

/// Reads an XYZ file: either the standard form (count, comment, atoms) or
/// bare "Sym x y z" lines. Errors are `file:line: ...`.
static Expected<MoleculeSpec> readXYZ(StringRef path) {
  auto buf = MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buf)
    return createStringError(buf.getError(), "%s: cannot read file: %s",
                             path.str().c_str(),
                             buf.getError().message().c_str());
  SmallVector<StringRef> lines;
  (*buf)->getBuffer().split(lines, '\n');
  MoleculeSpec m;
  unsigned first = 0;
  std::optional<unsigned> count;
  unsigned n;
  if (!lines.empty() && !lines[0].trim().getAsInteger(10, n)) {
    count = n;
    first = 2; // skip the comment line
  }
  for (unsigned i = first; i < lines.size(); ++i) {
    StringRef line = lines[i].trim();
    if (line.empty() || line.starts_with("#"))
      continue;
    auto err = [&](const Twine &msg) {
      return createStringError(inconvertibleErrorCode(),
                               path + ":" + Twine(i + 1) + ": " + msg);
    };
    SmallVector<StringRef> f;
    line.split(f, ' ', -1, /*KeepEmpty=*/false);
    if (f.size() == 1 && line.contains('\t'))
      line.split(f, '\t', -1, false);
    if (f.size() != 4)
      return err("expected 'Element x y z', got '" + line + "'");
    int z = atomicNumber(f[0]);
    if (!z)
      return err("unknown element '" + f[0] + "' (supported: H..Kr)");
    for (unsigned c = 1; c < 4; ++c) {
      double v;
      if (f[c].getAsDouble(v))
        return err("bad coordinate '" + f[c] + "'");
    }
    m.atoms.push_back((f[0] + " " + f[1] + " " + f[2] + " " + f[3]).str());
    m.nuclearCharge += z;
  }
  if (m.atoms.empty())
    return createStringError(inconvertibleErrorCode(),
                             path + ": no atoms in XYZ file");
  if (count && *count != m.atoms.size())
    return createStringError(inconvertibleErrorCode(),
                             path + ":1: atom count " + Twine(*count) +
                                 " but " + Twine(m.atoms.size()) +
                                 " atom lines");
  return m;
}

static std::string tailOfFile(StringRef path, unsigned nLines) {
  auto buf = MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buf)
    return "";
  SmallVector<StringRef> lines;
  (*buf)->getBuffer().rtrim().split(lines, '\n');
  std::string out;
  unsigned from = lines.size() > nLines ? lines.size() - nLines : 0;
  for (unsigned i = from; i < lines.size(); ++i)
    out += ("    " + lines[i] + "\n").str();
  return out;
}

namespace {
/// Removes the psi4 work directory on every exit path.
struct TempDir {
  SmallString<128> path;
  ~TempDir() {
    if (!path.empty())
      sys::fs::remove_directories(path);
  }
};
} // namespace

/// Runs psi4 (via psi4_fcidump.py) for the --molecule options; returns the
/// path of the FCIDUMP in `work` and psi4's own energies in `psi4Result`.
static Expected<std::string> runPsi4(const char *argv0, TempDir &work,
                                     nlohmann::json &psi4Result) {
  auto argErr = [](const Twine &msg) {
    return createStringError(inconvertibleErrorCode(), msg);
  };
  // Validate everything before running anything.
  if (!inputFile.empty())
    return argErr("give either a Hamiltonian file or --molecule, not both");
  if (!charge.getNumOccurrences())
    return argErr("--molecule needs --charge (total charge, an integer)");
  int q;
  if (StringRef(charge).trim().getAsInteger(10, q))
    return argErr("--charge must be an integer, got '" + charge + "'");
  if (multiplicity != 1)
    return argErr("--multiplicity " + Twine(multiplicity.getValue()) +
                  " is not supported: the psi4 path runs closed-shell RHF "
                  "(multiplicity 1)");
  if (!active.getNumOccurrences())
    return argErr("--molecule needs --active NE,NO");
  unsigned ne, no;
  {
    auto [a, b] = StringRef(active).split(',');
    if (a.trim().getAsInteger(10, ne) || b.trim().getAsInteger(10, no))
      return argErr("--active must be NE,NO (two non-negative integers), "
                    "got '" + active + "'");
  }
  if (ne < 1 || no < 1 || ne > 2 * no)
    return argErr("--active " + Twine(ne) + "," + Twine(no) +
                  ": need 1 <= NE <= 2*NO and NO >= 1");
  // 2*NO qubits; the exact solver and the program builder are for small
  // active spaces anyway.
  if (no > 16)
    return argErr("--active: NO = " + Twine(no) +
                  " orbitals (" + Twine(2 * no) +
                  " qubits) is too large; at most 16");
  if (StringRef(basis).trim().empty() ||
      StringRef(basis).find_first_of("\"'\n\\") != StringRef::npos)
    return argErr("--basis: bad basis set name '" + basis + "'");
  Expected<MoleculeSpec> mol = readXYZ(molecule);
  if (!mol)
    return mol.takeError();
  int nTotal = mol->nuclearCharge - q;
  if (nTotal <= 0)
    return argErr(molecule + ": charge " + Twine(q) + " leaves " +
                  Twine(nTotal) + " electrons");
  if (nTotal % 2)
    return argErr(molecule + ": " + Twine(nTotal) +
                  " electrons (charge " + Twine(q) +
                  ") is odd; multiplicity 1 needs an even count");
  if (int(ne) > nTotal || (nTotal - int(ne)) % 2)
    return argErr("--active: NE = " + Twine(ne) + " does not fit " +
                  Twine(nTotal) + " electrons (N - NE must be even and >= 0)");

  ErrorOr<std::string> psi4 = sys::findProgramByName("psi4");
  if (!psi4)
    return argErr("--molecule needs psi4 (not found on PATH); install it "
                  "with `apt-get install psi4` (Debian), or pass an FCIDUMP");
  std::string exe = sys::fs::getMainExecutable(
      argv0, reinterpret_cast<void *>(&atomicNumber));
  SmallString<256> script(sys::path::parent_path(exe));
  sys::path::append(script, "psi4_fcidump.py");
  if (!sys::fs::exists(script))
    return argErr("psi4 driver script '" + script +
                  "' not found (it is installed next to q2-qpe)");

  if (std::error_code ec =
          sys::fs::createUniqueDirectory("q2-qpe-psi4", work.path))
    return argErr("cannot create a temporary directory: " + ec.message());
  auto inWork = [&](StringRef name) {
    SmallString<256> p(work.path);
    sys::path::append(p, name);
    return std::string(p);
  };
  std::string fcidump =
      inWork((sys::path::stem(molecule) + ".FCIDUMP").str());
  std::string result = inWork("result.json"), output = inWork("output.dat");
  std::string input = inWork("input.py"), log = inWork("psi4.log");
  nlohmann::json params = {{"atoms", mol->atoms},
                           {"charge", q},
                           {"multiplicity", multiplicity.getValue()},
                           {"basis", StringRef(basis).trim().str()},
                           {"active_electrons", ne},
                           {"active_orbitals", no},
                           {"fcidump", fcidump},
                           {"result", result},
                           {"psi4_output", output},
                           {"workdir", std::string(work.path)}};
  std::string paramsPath = inWork("params.json");
  if (Error e = writeToOutput(paramsPath, [&](raw_ostream &os) {
        os << params.dump(2) << "\n";
        return Error::success();
      }))
    return std::move(e);
  // The psi4 input: plain Python (run with -k), paths as JSON strings, which
  // are valid Python string literals.
  if (Error e = writeToOutput(input, [&](raw_ostream &os) {
        os << "Q2_PARAMS_FILE = " << nlohmann::json(paramsPath).dump() << "\n"
           << "_q2_script = " << nlohmann::json(std::string(script)).dump()
           << "\n"
           << "exec(compile(open(_q2_script).read(), _q2_script, 'exec'))\n";
        return Error::success();
      }))
    return std::move(e);

  SmallVector<StringRef> args = {*psi4, "-k", "-n", "1", "-s", work.path,
                                 "-i", input, "-o", output};
  std::optional<StringRef> redirects[] = {StringRef(""), StringRef(log),
                                          StringRef(log)};
  std::string execErr;
  int rc = sys::ExecuteAndWait(*psi4, args, std::nullopt, redirects, 0, 0,
                               &execErr);
  if (rc != 0 || !sys::fs::exists(result)) {
    std::string msg = "psi4 failed (" +
                      (rc < 0 ? execErr : "exit code " + std::to_string(rc)) +
                      ")";
    std::string why = tailOfFile(result + ".err", 5);
    if (!why.empty())
      msg += "\n  " + StringRef(why).trim().str();
    std::string tail = tailOfFile(output, 15);
    if (!tail.empty())
      msg += "\n  tail of psi4's output:\n" + tail;
    tail = tailOfFile(log, 10);
    if (!tail.empty())
      msg += "  tail of psi4's stdout/stderr:\n" + tail;
    return argErr(StringRef(msg).rtrim());
  }
  auto resBuf = MemoryBuffer::getFile(result);
  if (!resBuf)
    return argErr(result + ": cannot read psi4 result");
  psi4Result = nlohmann::json::parse((*resBuf)->getBuffer().str(), nullptr,
                                     /*allow_exceptions=*/false);
  if (psi4Result.is_discarded() || !psi4Result.contains("ci_energy"))
    return argErr(result + ": malformed psi4 result");
  errs() << formatv("q2-qpe: psi4 ({0}, {1}): RHF {2:F10} Ha, CI ({3}e,{4}o, "
                    "{5} frozen core) {6:F10} Ha\n",
                    molecule, StringRef(basis).trim(),
                    psi4Result["scf_energy"].get<double>(), ne, no,
                    psi4Result["n_core"].get<int>(),
                    psi4Result["ci_energy"].get<double>());
  return fcidump;
}

static int printInfo(const ham::QubitHamiltonian &h,
                     const nlohmann::json &psi4Result) {
  Expected<ham::ExactResult> exact = ham::exactSectorEnergies(h);
  std::string exactErr;
  if (!exact)
    exactErr = toString(exact.takeError());
  if (json) {
    nlohmann::json j = {{"name", h.name},
                        {"n_qubits", h.numQubits},
                        {"n_electrons", h.numElectrons},
                        {"ms2", h.ms2},
                        {"n_terms", h.terms.size()},
                        {"identity_coeff", h.identityCoeff()},
                        {"one_norm", h.oneNorm()}};
    if (exact) {
      j["hf_energy"] = exact->hfEnergy;
      j["ground_energy"] = exact->groundEnergy;
      j["sector_dim"] = exact->sectorDim;
      j["n_alpha"] = exact->nAlpha;
      j["n_beta"] = exact->nBeta;
    } else {
      j["exact_error"] = exactErr;
    }
    if (!psi4Result.is_null())
      j["psi4"] = psi4Result;
    outs() << j.dump(2) << "\n";
    return 0;
  }
  outs() << formatv("Hamiltonian      {0}\n", h.name)
         << formatv("qubits           {0}\n", h.numQubits)
         << formatv("electrons        {0} (2*Sz = {1})\n", h.numElectrons,
                    h.ms2)
         << formatv("Pauli terms      {0}\n", h.terms.size())
         << formatv("identity coeff   {0:F10} Ha\n", h.identityCoeff())
         << formatv("1-norm           {0:F10} Ha (non-identity terms)\n",
                    h.oneNorm());
  if (exact)
    outs() << formatv("HF energy        {0:F10} Ha\n", exact->hfEnergy)
           << formatv("exact ground     {0:F10} Ha (sector n_alpha={1}, "
                      "n_beta={2}, dim {3})\n",
                      exact->groundEnergy, exact->nAlpha, exact->nBeta,
                      exact->sectorDim);
  else
    outs() << "exact ground     unavailable: " << exactErr << "\n";
  if (!psi4Result.is_null())
    outs() << formatv("psi4 RHF         {0:F10} Ha\n",
                      psi4Result["scf_energy"].get<double>())
           << formatv("psi4 CI          {0:F10} Ha (detci, same active "
                      "space)\n",
                      psi4Result["ci_energy"].get<double>());
  return 0;
}

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(cat);
  cl::ParseCommandLineOptions(
      argc, argv,
      "q2-qpe: writes the stage-0 QPE program (MLIR) for a Hamiltonian\n\n"
      "Inputs: FCIDUMP (psi4, PySCF, Molpro), qubit-Hamiltonian JSON, or\n"
      "OpenFermion-style term lines ('-0.045 X0 X1 Y2 Y3').\n");
  TempDir psi4Work;
  nlohmann::json psi4Result;
  std::string hamFile = inputFile;
  if (molecule.getNumOccurrences()) {
    Expected<std::string> f = runPsi4(argv[0], psi4Work, psi4Result);
    if (!f)
      return fail(toString(f.takeError()));
    hamFile = *f;
  } else if (charge.getNumOccurrences() || active.getNumOccurrences() ||
             fcidumpOut.getNumOccurrences()) {
    return fail("--charge, --active and --fcidump-out need --molecule");
  }
  if (hamFile.empty())
    return fail("no input Hamiltonian given (see --help)");

  Expected<ham::QubitHamiltonian> h = ham::loadHamiltonian(hamFile);
  if (!h)
    return fail(toString(h.takeError()));
  if (!fcidumpOut.empty()) {
    auto buf = MemoryBuffer::getFile(hamFile);
    if (!buf)
      return fail("cannot read '" + hamFile + "'");
    if (Error e = writeToOutput(fcidumpOut, [&](raw_ostream &os) {
          os << (*buf)->getBuffer();
          return Error::success();
        }))
      return fail("cannot write '" + fcidumpOut +
                  "': " + toString(std::move(e)));
  }
  if (info)
    return printInfo(*h, psi4Result);

  std::optional<std::pair<double, double>> win;
  if (!window.empty()) {
    if (window.size() != 2 || !(window[0] < window[1]))
      return fail("--window needs lo,hi with lo < hi");
    win = std::make_pair(window[0], window[1]);
  }
  if (resolution <= 0)
    return fail("--resolution must be > 0");
  std::optional<unsigned> est;
  if (nEst.getNumOccurrences())
    est = nEst;
  Expected<ham::QPEParameters> params =
      ham::computeQPEParameters(*h, est, resolution, win);
  if (!params)
    return fail(toString(params.takeError()));
  if (baseTime.getNumOccurrences()) {
    if (!(baseTime > 0))
      return fail("--base-time must be > 0");
    params->baseTime = baseTime;
  }
  if (energyShift.getNumOccurrences())
    params->energyShift = energyShift;

  q2::qpe::QPEOptions opts;
  opts.mode = mode;
  opts.order = order;
  opts.nTrotter = nTrotter;
  opts.power = power;
  opts.unroll = unroll;

  mlir::MLIRContext ctx;
  auto module = q2::qpe::buildQPEProgram(ctx, *h, *params, opts);
  if (!module)
    return fail(toString(module.takeError()));
  // Temporary file + rename: a failed or killed run leaves no partial file.
  if (Error e = writeToOutput(outputFile, [&](raw_ostream &os) -> Error {
        // Verified right after building; do not verify again while printing.
        (**module)->print(os, mlir::OpPrintingFlags().assumeVerified());
        return Error::success();
      }))
    return fail("cannot write '" + outputFile + "': " + toString(std::move(e)));
  return 0;
}
