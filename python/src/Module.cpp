//===- Module.cpp - _q2: pybind11 bindings over the q2 libraries ----------===//
//
// Thin bindings: every function here calls one library entry point and
// converts its arguments and results. Records are typed classes whose
// properties are the keys of the libraries' field lists (Records.cpp);
// measure and sweeps are in Orchestrator.cpp; errors map to Python
// exceptions by their error code (Common.h). Long calls release the GIL.
//
//===----------------------------------------------------------------------===//
#include "Common.h"
#include "Records.h"

#include "q2/Hamiltonian/QubitHamiltonian.h"
#include "q2/Execution/PhaseC.h"
#include "q2/InitQ2.h"
#include "q2/JIT/Circuit.h"
#include "q2/Orchestrator/Compare.h"
#include "q2/Profiling/Report.h"
#include "q2/Profiling/Timing.h"
#include "q2/QPE/ProgramPlan.h"
#include "q2/QPE/ProgramRequest.h"
#include "q2/QPE/QPEMetadata.h"
#include "q2/Runtime/Limits.h"
#include "q2/Session/CompileSession.h"
#include "q2/Support/FileIO.h"

#include "mlir/IR/DialectRegistry.h"
#include "llvm/Support/Error.h"

#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cmath>
#include <mutex>
#include <optional>
#include <set>

namespace py = pybind11;
using namespace q2;
using namespace q2py;
namespace prof = q2::profiling;

namespace {

//===----------------------------------------------------------------------===//
// The compiler
//===----------------------------------------------------------------------===//

mlir::DialectRegistry &registry() {
  static mlir::DialectRegistry *r = [] {
    auto *reg = new mlir::DialectRegistry();
    registerQ2Dialects(*reg);
    registerQ2Passes(); // the stages' upstream passes and ours
    return reg;
  }();
  return *r;
}

/// "keep-native-pauli" -> "keep_native_pauli".
std::string pyName(const char *passOption) {
  std::string s = passOption;
  for (char &c : s)
    if (c == '-')
      c = '_';
  return s;
}

/// PipelineOptions from keyword arguments named after the pass options
/// (PipelineOptions.def), validated by the library.
pipeline::PipelineOptions pipelineOptions(const py::dict &kw) {
  pipeline::PipelineOptions o;
  size_t used = 0;
  auto set = [&](const char *name, auto &field) {
    std::string key = pyName(name);
    if (!kw.contains(key))
      return;
    ++used;
    try {
      field = kw[py::str(key)].cast<std::remove_reference_t<decltype(field)>>();
    } catch (const py::cast_error &) {
      throw py::value_error("pipeline option " + key + ": wrong type");
    }
  };
#define Q2_PIPELINE_OPTION(T, F, N, D, DEF, M, H) set(N, o.F);
#include "q2/Pipeline/PipelineOptions.def"
#undef Q2_PIPELINE_OPTION
  if (used != kw.size()) {
    std::set<std::string> known;
    std::string list;
#define Q2_PIPELINE_OPTION(T, F, N, D, DEF, M, H)                              \
  known.insert(pyName(N));                                                     \
  list += (list.empty() ? "" : ", ") + pyName(N);
#include "q2/Pipeline/PipelineOptions.def"
#undef Q2_PIPELINE_OPTION
    for (auto kv : kw) {
      std::string k = py::str(kv.first);
      if (!known.count(k))
        throw py::type_error("unknown pipeline option '" + k +
                             "' (known: " + list + ")");
    }
  }
  if (llvm::Error e = o.validate())
    throw py::value_error(llvm::toString(std::move(e)));
  return o;
}

/// A ProgramRequest from keyword arguments named as ProgramRequest.def's
/// Python names (None: the default). Each value is written as on q2-qpe's
/// command line and set by the library, which owns parsing and checks;
/// Python turns a wrong type into TypeError and a bad value into ValueError.
qpe::ProgramRequest programRequest(const py::dict &kw) {
  qpe::ProgramRequest r;
  auto real = [](py::handle v) {
    py::float_ f(py::reinterpret_borrow<py::object>(v));
    return std::string(py::repr(f));
  };
  for (auto [key, value] : kw) {
    std::string name = py::str(key);
    const qpe::ProgramOptionInfo *o = qpe::findProgramOption(name);
    if (!o || o->pyName != name) {
      std::string known;
      for (const qpe::ProgramOptionInfo &k : qpe::programOptions())
        known += (known.empty() ? "" : ", ") + k.pyName.str();
      throw py::type_error("unknown program option '" + name +
                           "' (known: " + known + ")");
    }
    if (value.is_none())
      continue;
    auto wrongType = [&](const char *want) {
      return py::type_error(name + " must be " + want + ", got " +
                            std::string(py::str(value.get_type().attr(
                                "__name__"))) +
                            " " + std::string(py::repr(value)));
    };
    bool isBool = py::isinstance<py::bool_>(value);
    bool isInt = !isBool && py::isinstance<py::int_>(value);
    bool isReal = isInt || (!isBool && py::isinstance<py::float_>(value));
    std::string text;
    switch (o->kind) {
    case qpe::ProgramOptionKind::Count:
    case qpe::ProgramOptionKind::Steps:
      if (o->kind == qpe::ProgramOptionKind::Steps &&
          py::isinstance<py::str>(value) && py::str(value).cast<std::string>() == "auto")
        text = "auto";
      else if (isInt)
        text = py::str(value);
      else
        throw wrongType("an int");
      break;
    case qpe::ProgramOptionKind::Choice:
      if (!py::isinstance<py::str>(value))
        throw wrongType(("a str (" + o->valueDesc.str() + ")").c_str());
      text = py::str(value);
      break;
    case qpe::ProgramOptionKind::Switch:
      if (!isBool)
        throw wrongType("a bool");
      text = value.cast<bool>() ? "true" : "false";
      break;
    case qpe::ProgramOptionKind::Real:
      if (!isReal)
        throw wrongType("a number");
      text = real(value);
      break;
    case qpe::ProgramOptionKind::Window: {
      if (!py::isinstance<py::sequence>(value) ||
          py::isinstance<py::str>(value) || py::len(value) != 2)
        throw wrongType("(lo, hi)");
      py::sequence pair = value.cast<py::sequence>();
      for (py::handle x : pair)
        if (py::isinstance<py::bool_>(x) ||
            !(py::isinstance<py::int_>(x) || py::isinstance<py::float_>(x)))
          throw wrongType("(lo, hi)");
      text = real(pair[0]) + "," + real(pair[1]);
      break;
    }
    }
    if (llvm::Error e = r.set(name, text, qpe::OptionSpelling::Python))
      throw py::value_error(llvm::toString(std::move(e)));
  }
  if (llvm::Error e = r.validate(qpe::OptionSpelling::Python))
    throw py::value_error(llvm::toString(std::move(e)));
  return r;
}

/// A loaded program; calls go straight to Circuit::callInto.
struct PyCircuit {
  std::unique_ptr<jit::Circuit> circuit;
  py::ssize_t nOut = 0;
  /// Circuit is not thread-safe and calls run without the GIL: calls from
  /// several Python threads take turns.
  std::mutex busy;
  /// energy_type(energy, default_coeffs) -> the returned energy (q2.Energy,
  /// which says its resolution and error); None: a plain float.
  py::object energyType = py::none();

  /// probabilities (a fresh array, or `out`) and the decoded energy.
  py::tuple
  call(std::optional<
           py::array_t<double, py::array::c_style | py::array::forcecast>>
           coeffs,
       std::optional<py::array_t<double, py::array::c_style>> out) {
    py::array_t<double> probs =
        out ? py::array_t<double>(*out) : py::array_t<double>(nOut);
    if (out && (out->ndim() != 1 || out->shape(0) != nOut || !out->writeable()))
      throw py::value_error("out must be a writable float64 array of " +
                            std::to_string(nOut) + " entries");
    llvm::ArrayRef<double> c;
    if (coeffs) {
      if (coeffs->ndim() != 1)
        throw py::value_error("coeffs must be one-dimensional");
      c = llvm::ArrayRef<double>(coeffs->data(), size_t(coeffs->shape(0)));
      if (c.empty()) // an explicitly empty set is not "the default"
        throw py::value_error("coeffs is empty (pass None for the defaults)");
    }
    llvm::MutableArrayRef<double> o(probs.mutable_data(), size_t(nOut));
    std::optional<llvm::Expected<qpe::QPEResult>> r;
    {
      py::gil_scoped_release release;
      std::lock_guard<std::mutex> lock(busy);
      r.emplace(circuit->callInto(c, o));
    }
    if (!*r)
      raise(r->takeError());
    if (!(std::fabs((*r)->probSum - 1.0) <= qpe::kProbSumTolerance)) {
      std::string msg = "prob_sum " + std::to_string((*r)->probSum) +
                        " differs from 1 by more than 1e-6: the "
                        "probabilities and the energy are not reliable";
      if (PyErr_WarnEx(PyExc_RuntimeWarning, msg.c_str(), 1) < 0)
        throw py::error_already_set();
    }
    if (energyType.is_none())
      return py::make_tuple(std::move(probs), (*r)->energy);
    return py::make_tuple(std::move(probs),
                          energyType((*r)->energy, c.empty()));
  }
};

/// What compile() returns: callable like its circuit (the call goes
/// straight to PyCircuit::call), plus the profile and the object.
struct PyCompileResult {
  py::object circuit; // a PyCircuit
  py::object report;  // a ProfileReport, or None without profile
  py::bytes object;   // the ELF bytes
  py::object irDir = py::none();

  PyCircuit &native() { return circuit.cast<PyCircuit &>(); }
  /// report.<name>(args...), or `empty` without a report.
  template <class... A>
  py::object ofReport(const char *name, py::object empty, A &&...args) const {
    if (report.is_none())
      return empty;
    return report.attr(name)(std::forward<A>(args)...);
  }
  py::object phaseB(const char *records) const {
    if (report.is_none())
      return py::list();
    return report.attr("phase_b").attr(records);
  }
};

} // namespace

namespace q2py {
void bindView(py::module_ &m); // View.cpp
} // namespace q2py

PYBIND11_MODULE(_q2, m) {
  m.doc() = "q2-opt's C++ libraries (use the q2 package, docs/python.md)";

  // Records, memory, timing, reports (Records.cpp); measure and sweeps
  // (Orchestrator.cpp).
  q2py::bindRecords(m);
  q2py::bindOrchestrator(m);
  q2py::bindView(m); // q2.show / q2.view (View.cpp)

  //--- compare (q2-profile compare) ------------------------------------------
  m.def(
      "compare",
      [](const std::string &a, const std::string &b,
         std::map<std::string, double> thresholds, double minTimeS,
         bool gatePasses, bool allowDifferentProgram) {
        orch::CompareOptions o;
        for (const auto &[k, v] : thresholds)
          check(orch::parseThresholds(k + "=" + std::to_string(v), o));
        o.minTimeS = minTimeS;
        o.gatePasses = gatePasses;
        o.allowDifferentProgram = allowDifferentProgram;
        return orch::toJSONText(unwrap(orch::compareProfiles(a, b, o)), -1);
      },
      py::arg("a"), py::arg("b"), py::arg("thresholds"), py::arg("min_time_s"),
      py::arg("gate_passes"), py::arg("allow_different_program"));

  //--- IR -------------------------------------------------------------------
  m.def(
      "analyze_ir_stages",
      [](PathArg dir) {
        std::optional<llvm::Expected<std::vector<session::StageIR>>> r;
        {
          py::gil_scoped_release release;
          r.emplace(session::analyzeIRStages(dir.path, registry()));
        }
        std::vector<session::StageIR> stages = unwrap(std::move(*r));
        std::vector<std::tuple<std::string, uint64_t, uint64_t, uint64_t>> out;
        for (const auto &s : stages)
          out.emplace_back(s.stage, s.ir.bytes, s.ir.lines, s.ir.ops);
        return out;
      },
      py::arg("ir_dir"),
      "[(stage, bytes, lines, ops), ...] for the files of an --ir-dir "
      "directory (0_Input.mlir .. 6_ObjectCode.o), as in the report's ir.");

  //--- compile once, call many ----------------------------------------------
  m.def(
      "build_program",
      [](const std::string &path, const py::dict &options) {
        qpe::ProgramRequest spec = programRequest(options);
        std::optional<llvm::Expected<std::string>> r;
        {
          py::gil_scoped_release release;
          r.emplace(session::buildProgramText(path, spec));
        }
        return unwrap(std::move(*r));
      },
      py::arg("path"), py::arg("options"));
  // ProgramRequest.def as Python sees it: (name, default, help) per option.
  m.def("program_options", [] {
    std::vector<std::tuple<std::string, py::object, std::string>> out;
    for (const qpe::ProgramOptionInfo &o : qpe::programOptions()) {
      std::string def = qpe::ProgramRequest().get(o.flag);
      py::object value = py::none();
      if (o.kind == qpe::ProgramOptionKind::Switch)
        value = py::bool_(def == "true");
      else if (o.kind == qpe::ProgramOptionKind::Choice)
        value = py::str(def);
      else if (o.kind == qpe::ProgramOptionKind::Count && !def.empty())
        value = py::int_(std::stoul(def));
      else if (o.kind == qpe::ProgramOptionKind::Real && !def.empty())
        value = py::float_(std::stod(def));
      out.emplace_back(o.pyName.str(), value, o.help.str());
    }
    return out;
  });
  m.def("read_text", [](const std::string &path) {
    auto buf = unwrap(readInputFile(path));
    return std::string(buf->getBuffer());
  });

  py::class_<PyCircuit>(
      m, "Circuit",
      "A compiled program loaded into this process. circuit(coeffs) returns "
      "(probabilities, energy): a NumPy array of 2^n_est floats written by "
      "the runtime (pass out= to reuse one) and the decoded QPE energy (a "
      "q2.Energy). coeffs None means the program's default coefficients (the "
      "only choice for mode=\"fixed\"). The GIL is released during the call; "
      "calls of one circuit from several threads take turns.")
      // `out` is never converted: the probabilities must land in it.
      .def("__call__", &PyCircuit::call, py::arg("coeffs") = py::none(),
           py::arg("out").noconvert() = py::none())
      // The object's metadata as the typed record (QPEMetadata.def).
      .def_property_readonly(
          "metadata",
          [](const PyCircuit &c) { return py::cast(c.circuit->metadata()); })
      .def_property_readonly("default_coeffs",
                             [](const PyCircuit &c) {
                               return c.circuit->metadata().defaultCoeffs;
                             })
      .def_property_readonly("n_probs",
                             [](const PyCircuit &c) { return c.nOut; })
      .def_readwrite("energy_type", &PyCircuit::energyType)
      .def_property_readonly(
          "runtime_library",
          [](const PyCircuit &c) { return c.circuit->runtimeLibrary(); })
      .def_property(
          "threads", [](const PyCircuit &c) { return c.circuit->threads(); },
          [](PyCircuit &c, int n) {
            std::lock_guard<std::mutex> lock(c.busy);
            c.circuit->setThreads(n);
          })
      // How the powered blocks of the calls since the last reset were
      // applied: BlockRecords, as in the report's phase_c.sets[].blocks.
      .def("block_stats",
           [](const PyCircuit &c) { return py::cast(c.circuit->blockStats()); })
      .def("reset_block_stats",
           [](PyCircuit &c) { c.circuit->resetBlockStats(); })
      // For benchmarks/python/call_overhead.py: `calls` calls timed in C++
      // (as bench-call-loop does), seconds per call, into one buffer.
      .def(
          "time_calls_cpp",
          [](PyCircuit &c, int calls,
             std::optional<
                 py::array_t<double, py::array::c_style | py::array::forcecast>>
                 coeffs) {
            llvm::ArrayRef<double> in;
            if (coeffs)
              in = llvm::ArrayRef<double>(coeffs->data(),
                                          size_t(coeffs->size()));
            std::vector<double> out(size_t(c.nOut)), times;
            times.reserve(size_t(std::max(calls, 0)));
            py::gil_scoped_release release;
            std::lock_guard<std::mutex> lock(c.busy);
            for (int i = 0; i < calls; ++i) {
              double t0 = prof::elapsedSeconds();
              auto r = c.circuit->callInto(in, out);
              times.push_back(prof::elapsedSeconds() - t0);
              if (!r) {
                py::gil_scoped_acquire gil;
                raise(r.takeError());
              }
            }
            return times;
          },
          py::arg("calls"), py::arg("coeffs") = py::none());

  using Coeffs = std::optional<
      py::array_t<double, py::array::c_style | py::array::forcecast>>;
  using Out = std::optional<py::array_t<double, py::array::c_style>>;
  py::class_<PyCompileResult>(
      m, "CompileResult",
      "What compile() returns: callable like its circuit, plus the profile. "
      "report: the q2.profile/3 report (a ProfileReport), None without "
      "profile; stages, passes: its phase_b records; compile_s: wall seconds "
      "of the compile stages; circuit, object (the ELF bytes), metadata; "
      "ir_dir: where the stages' IR was kept, if anywhere.")
      .def(
          "__call__",
          [](PyCompileResult &r, Coeffs coeffs, Out out) {
            return r.native().call(std::move(coeffs), std::move(out));
          },
          py::arg("coeffs") = py::none(),
          py::arg("out").noconvert() = py::none())
      .def_readonly("circuit", &PyCompileResult::circuit)
      .def_readonly("report", &PyCompileResult::report)
      .def_readonly("object", &PyCompileResult::object)
      .def_readwrite("ir_dir", &PyCompileResult::irDir)
      .def_property_readonly("metadata",
                             [](PyCompileResult &r) {
                               return r.circuit.attr("metadata");
                             })
      .def_property_readonly(
          "stages", [](const PyCompileResult &r) { return r.phaseB("stages"); })
      .def_property_readonly(
          "passes", [](const PyCompileResult &r) { return r.phaseB("passes"); })
      .def_property_readonly("compile_s",
                             [](const PyCompileResult &r) {
                               return r.ofReport("compile_seconds", py::none());
                             })
      .def_property_readonly("compile_peak_rss",
                             [](const PyCompileResult &r) {
                               return r.ofReport("compile_peak_rss",
                                                 py::none());
                             })
      .def(
          "stage_table",
          [](const PyCompileResult &r) {
            return r.ofReport("stage_table", py::str(""));
          },
          "The table q2-opt --profile-stages prints.")
      .def(
          "pass_table",
          [](const PyCompileResult &r, int top) {
            return r.ofReport("pass_table", py::str(""), top);
          },
          py::arg("top") = 20)
      .def(
          "write_report",
          [](const PyCompileResult &r, py::object path) {
            if (r.report.is_none())
              throw py::value_error("compiled without profile=True: no report");
            r.report.attr("write")(std::move(path));
          },
          py::arg("path"),
          "Writes the report as q2-opt --report does (q2.profile/3).")
      .def("to_dict", [](const PyCompileResult &r) {
        return r.ofReport("to_dict", py::dict());
      });

  // One compile session (q2/Session/CompileSession.h), as q2-opt runs it:
  // program text, or a file (MLIR, or a Hamiltonian built with `program`);
  // Phase C (`run` calls of the default coefficients) is the session's step
  // as in q2-opt, and the circuit stays loaded for the caller.
  m.def(
      "compile",
      [](const std::string &text, const std::string &path, bool profile,
         const std::string &irDir, const std::string &runtimeLib,
         int64_t maxQubits, const py::dict &options, const py::dict &program,
         bool profilePasses, int timelineIntervalMs, int run) {
        if (maxQubits < 0) // as q2-opt --max-qubits refuses it
          throw py::value_error("max_qubits must be a positive number of "
                                "qubits (0: what fits in 80% of RAM), got " +
                                std::to_string(maxQubits));
        if (timelineIntervalMs < 1)
          throw py::value_error("timeline_interval_ms must be at least 1, "
                                "got " + std::to_string(timelineIntervalMs));
        if (run < 0) // as q2-opt --run refuses it
          throw py::value_error("run must be >= 0 calls, got " +
                                std::to_string(run));
        session::SessionOptions so;
        so.pipeline = pipelineOptions(options);
        so.program = programRequest(program);
        so.profile = profile;
        so.profilePasses = profilePasses;
        so.timelineIntervalMs = timelineIntervalMs;
        so.hosted = true; // the interpreter's process
        so.irDir = irDir;
        execution::ExecuteOptions eo;
        eo.runs = run;
        eo.runtimeLib = runtimeLib;
        eo.maxQubits = maxQubits;
        eo.quiet = true; // no progress line in the interpreter
        execution::PhaseC phaseC(eo);
        session::SessionHooks hooks;
        hooks.executor = &phaseC;
        session::ProgramSource src =
            path.empty() ? session::ProgramSource::fromText(text, "<string>")
                         : session::ProgramSource::fromFile(path);
        std::optional<llvm::Expected<session::CompiledObject>> prog;
        {
          py::gil_scoped_release release;
          prog.emplace(
              session::CompileSession::run(src, so, registry(), hooks));
        }
        if (!*prog)
          raise(prog->takeError());
        session::CompiledObject &p = **prog;
        auto c = std::make_unique<PyCircuit>();
        // The circuit Phase C ran, or (run=0) the object loaded now.
        c->circuit = phaseC.takeCircuit();
        if (!c->circuit) {
          std::optional<llvm::Expected<std::unique_ptr<jit::Circuit>>> loaded;
          {
            py::gil_scoped_release release;
            loaded.emplace(jit::Circuit::load(p.object, p.metadata, runtimeLib,
                                              maxQubits));
          }
          c->circuit = unwrap(std::move(*loaded));
        }
        c->nOut = py::ssize_t(1) << p.metadata.nEst;
        PyCompileResult result;
        result.report = py::none();
        if (p.report)
          result.report = py::cast(
              std::make_unique<PyReport>(PyReport{std::move(*p.report)}));
        result.object = py::bytes(p.object.data(), p.object.size());
        result.circuit = py::cast(std::move(c));
        return result;
      },
      py::arg("text"), py::arg("path"), py::arg("profile"), py::arg("ir_dir"),
      py::arg("runtime_lib"), py::arg("max_qubits"), py::arg("options"),
      py::arg("program"), py::arg("profile_passes"),
      py::arg("timeline_interval_ms"), py::arg("run") = 0);
  m.def("default_max_qubits", &q2::runtime::limits::defaultMaxQubits);

  // q2.profiling's Phase A: the qubit Hamiltonian q2-qpe builds a program
  // from (FCIDUMP through Jordan-Wigner), as plain Python values, and with
  // `program` (ProgramRequest keywords) the plan q2-qpe would make for it.
  m.def(
      "qubit_hamiltonian",
      [](const std::string &path, std::optional<py::dict> program) {
        std::optional<llvm::Expected<hamiltonian::QubitHamiltonian>> r;
        {
          py::gil_scoped_release release;
          r.emplace(hamiltonian::loadHamiltonian(path));
        }
        hamiltonian::QubitHamiltonian h = unwrap(std::move(*r));
        py::dict d;
        d["name"] = h.name;
        d["n_qubits"] = h.numQubits;
        d["n_electrons"] = h.numElectrons;
        d["ms2"] = h.ms2;
        d["hf_state"] = h.hfOccupation;
        py::list terms;
        for (const auto &t : h.terms)
          terms.append(py::make_tuple(t.word, t.coeff));
        d["terms"] = terms;
        if (!program)
          return d;
        qpe::ProgramRequest request = programRequest(*program);
        std::optional<llvm::Expected<qpe::ProgramPlan>> p;
        {
          py::gil_scoped_release release;
          p.emplace(qpe::planProgram(h, request));
        }
        qpe::ProgramPlan plan = unwrap(std::move(*p));
        py::dict pd;
        pd["n_est"] = plan.params.nEst;
        pd["base_time"] = plan.params.baseTime;
        pd["energy_shift"] = plan.params.energyShift;
        pd["resolution"] = plan.params.resolution;
        pd["trotter_steps"] = plan.trotter.steps;
        pd["trotter_bound"] = plan.trotter.maxEnergyError;
        pd["hf_energy"] = plan.hasHF ? py::object(py::float_(plan.hfEnergy))
                                     : py::object(py::none());
        pd["exact_energy"] =
            plan.exact ? py::object(py::float_(plan.exact->groundEnergy))
                       : py::object(py::none());
        d["plan"] = pd;
        return d;
      },
      py::arg("path"), py::arg("program") = py::none());
}
