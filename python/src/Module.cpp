//===- Module.cpp - _q2: pybind11 bindings over the q2 libraries ----------===//
//
// Thin bindings: every function here calls one library entry point and
// converts its arguments and results. Records cross as the JSON text the
// libraries write (toJSONText), so the Python field names are the report's
// and there is one writer. Errors map by their error code:
//   invalid_argument -> ValueError, another errno -> OSError(errno, message)
//   (Python picks FileExistsError, FileNotFoundError, ... from the errno),
//   anything else -> RuntimeError.
// Long calls release the GIL; those that run child processes (measure,
// sweeps) run on a worker thread so that ^C cancels them as in q2-profile.
//
//===----------------------------------------------------------------------===//
#include "q2/Hamiltonian/QubitHamiltonian.h"
#include "q2/InitQ2.h"
#include "q2/JIT/Circuit.h"
#include "q2/Orchestrator/Compare.h"
#include "q2/Orchestrator/Measure.h"
#include "q2/Orchestrator/Sweep.h"
#include "q2/Profiling/Memory.h"
#include "q2/Profiling/Report.h"
#include "q2/Profiling/Timeline.h"
#include "q2/Profiling/Timing.h"
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

#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <csignal>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

namespace py = pybind11;
using namespace q2;
namespace prof = q2::profiling;

namespace {

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

[[noreturn]] void raise(llvm::Error e) {
  std::error_code code;
  std::string msg;
  llvm::handleAllErrors(std::move(e), [&](const llvm::ErrorInfoBase &info) {
    if (!code)
      code = info.convertToErrorCode();
    msg += (msg.empty() ? "" : "\n") + info.message();
  });
  if (code == std::errc::invalid_argument)
    throw py::value_error(msg);
  if (code && (code.category() == std::generic_category() ||
               code.category() == std::system_category())) {
    // OSError(errno, message) becomes FileExistsError, FileNotFoundError,
    // NotADirectoryError, ... by the errno.
    py::object err =
        py::module_::import("builtins").attr("OSError")(code.value(), msg);
    PyErr_SetObject(reinterpret_cast<PyObject *>(Py_TYPE(err.ptr())),
                    err.ptr());
    throw py::error_already_set();
  }
  throw std::runtime_error(msg);
}

template <class T> T unwrap(llvm::Expected<T> v) {
  if (!v)
    raise(v.takeError());
  return std::move(*v);
}

void check(llvm::Error e) {
  if (e)
    raise(std::move(e));
}

/// Runs `fn` (which polls `cancel`) on a worker thread while this thread
/// waits without the GIL and checks for signals: ^C sets `cancel`, the work
/// stops as in q2-profile, and the KeyboardInterrupt is raised afterwards.
template <class F>
auto cancellable(std::atomic<bool> &cancel, std::atomic<int> &cancelSignal,
                 F fn) -> decltype(fn()) {
  using R = decltype(fn());
  std::optional<R> result;
  std::exception_ptr failure;
  std::mutex m;
  std::condition_variable cv;
  bool done = false;
  std::thread worker([&] {
    try {
      result.emplace(fn());
    } catch (...) {
      failure = std::current_exception();
    }
    std::lock_guard<std::mutex> lock(m);
    done = true;
    cv.notify_all();
  });
  bool interrupted = false;
  for (;;) {
    {
      py::gil_scoped_release release;
      std::unique_lock<std::mutex> lock(m);
      if (cv.wait_for(lock, std::chrono::milliseconds(50),
                      [&] { return done; }))
        break;
    }
    if (!interrupted && PyErr_CheckSignals() != 0) {
      interrupted = true; // the KeyboardInterrupt stays pending
      cancelSignal = SIGINT;
      cancel = true;
    }
  }
  {
    py::gil_scoped_release release;
    worker.join();
  }
  if (interrupted) {
    if (result) // the Expected must be consumed before we leave
      if (!*result)
        llvm::consumeError(result->takeError());
    throw py::error_already_set();
  }
  if (failure)
    std::rethrow_exception(failure);
  return std::move(*result);
}

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

/// The object JSON of the metadata (one field list, lib/QPE), plus two
/// derived sizes.
py::dict metadataDict(const qpe::QPEMetadata &md) {
  py::dict d =
      py::module_::import("json").attr("loads")(qpe::toObjectJSON(md));
  d["n_qubits"] = md.numQubits();
  d["n_coeff_args"] = md.numCoeffArgs();
  return d;
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

/// The report of a profiled compile or a sweep point, with the library's
/// derived figures and tables.
struct PyReport {
  prof::ProfileReport report;
};

//===----------------------------------------------------------------------===//
// Sweeps
//===----------------------------------------------------------------------===//

/// The results of a sweep (or of loadResults), kept typed for the library's
/// tables.
struct PyResults {
  std::vector<orch::PointRecord> records;
  std::vector<bool> skipped;
  size_t ran = 0, skippedCount = 0, failed = 0;
  bool cancelled = false;
};

py::dict progressDict(const orch::ProgressEvent &e) {
  static const char *kinds[] = {"skipped", "started", "finished"};
  py::dict d;
  d["kind"] = kinds[e.kind];
  d["key"] = e.point.key();
  d["molecule"] = e.point.molecule;
  d["mode"] = e.point.mode;
  d["n_est"] = e.point.nEst;
  d["n_trotter"] = e.point.nTrotter;
  d["status"] = e.status;
  d["done"] = e.done;
  d["total"] = e.total;
  d["running"] = e.running;
  d["elapsed_s"] = e.elapsedS;
  d["eta_s"] = e.etaS < 0 ? py::object(py::none()) : py::float_(e.etaS);
  d["predicted_rss_mb"] = e.predictedRssMB;
  return d;
}

/// A non-negative integer option: ValueError (not a failed cast) for a
/// negative or non-integer value.
unsigned unsignedArg(const py::dict &a, const char *name) {
  py::object v = a[name];
  if (!py::isinstance<py::int_>(v) || py::isinstance<py::bool_>(v))
    throw py::value_error(std::string(name) + " must be an integer");
  long long n = v.cast<long long>();
  if (n < 0 || n > UINT32_MAX)
    throw py::value_error(std::string(name) + " must be between 0 and " +
                          std::to_string(UINT32_MAX) + ", got " +
                          std::to_string(n));
  return unsigned(n);
}

orch::SweepSpec sweepSpec(const py::dict &a) {
  orch::SweepSpec s;
  s.outDir = a["out_dir"].cast<std::string>();
  for (auto m : a["molecules"].cast<py::list>()) {
    auto t = m.cast<py::tuple>();
    if (t.size() != 3)
      throw py::value_error("a molecule is (name, hamiltonian, n_terms)");
    py::dict one;
    one["n_terms"] = t[2];
    s.molecules.push_back({t[0].cast<std::string>(), t[1].cast<std::string>(),
                           unsignedArg(one, "n_terms")});
  }
  if (!a["grid"].is_none()) {
    s.grid.clear();
    for (auto g : a["grid"].cast<py::list>()) {
      auto p = g.cast<py::tuple>();
      if (p.size() != 2)
        throw py::value_error("a grid point is (n_est, n_trotter)");
      py::dict one;
      one["n_est"] = p[0];
      one["n_trotter"] = p[1];
      s.grid.push_back({unsignedArg(one, "n_est"), unsignedArg(one, "n_trotter")});
    }
  }
  s.modes = a["modes"].cast<std::vector<std::string>>();
  s.vars = a["vars"].cast<std::map<std::string, std::string>>();
  // None: the SweepSpec default (the one declaration of q2-profile's).
  auto given = [&](const char *name) { return !a[name].is_none(); };
  if (given("runs"))
    s.runs = unsignedArg(a, "runs");
  s.jobs = unsignedArg(a, "jobs");
  if (given("wall_s"))
    s.phase.wallBudgetS = a["wall_s"].cast<double>();
  if (given("rss_mb"))
    s.phase.rssBudgetMB = a["rss_mb"].cast<double>();
  s.totalRssMB = a["total_rss_mb"].cast<double>();
  if (given("poll_s"))
    s.phase.pollS = a["poll_s"].cast<double>();
  s.retryFailed = a["retry_failed"].cast<bool>();
  s.only = a["only"].cast<std::vector<std::string>>();
  if (s.runs == 0)
    throw py::value_error("runs must be a positive integer");
  if (s.jobs == 0)
    throw py::value_error("jobs must be a positive integer");
  return s;
}

} // namespace

PYBIND11_MODULE(_q2, m) {
  m.doc() = "q2-opt's C++ libraries (use the q2 package, docs/python.md)";

  //--- memory ---------------------------------------------------------------
  m.def(
      "take_snapshot_json",
      [](const std::string &label, int pid, bool smaps) {
        return prof::toJSONText(unwrap(prof::takeSnapshot(label, pid, smaps)));
      },
      py::arg("label"), py::arg("pid") = 0, py::arg("smaps") = false);
  m.def(
      "read_proc_status_json",
      [](int pid) {
        return prof::toJSONText(unwrap(prof::readProcStatus(pid)));
      },
      py::arg("pid") = 0);
  m.def(
      "read_smaps_rollup",
      [](int pid) { return unwrap(prof::readSmapsRollup(pid)); },
      py::arg("pid") = 0);
  m.def(
      "read_current_rss",
      [](int pid) { return unwrap(prof::readCurrentRSS(pid)); },
      py::arg("pid") = 0);
  m.def(
      "reset_peak_rss",
      [](int pid) {
        std::string why;
        bool ok = prof::resetPeakRSS(pid, &why);
        return py::make_tuple(ok, why);
      },
      py::arg("pid") = 0);
  m.def("elapsed_seconds", &prof::elapsedSeconds);
  m.def("process_cpu_seconds", &prof::processCPUSeconds);

  py::class_<prof::TimelineSampler>(m, "Timeline")
      .def(py::init([](int intervalMs, int pid, bool smapsAtPeaks) {
             prof::TimelineSampler::Options o;
             o.intervalMs = intervalMs;
             o.pid = pid;
             o.smapsAtPeaks = smapsAtPeaks;
             // A thread: a timer signal would interrupt the interpreter's
             // system calls (docs/python.md).
             o.backend = prof::TimelineSampler::Options::Backend::Thread;
             return unwrap(prof::TimelineSampler::create(o));
           }),
           py::arg("interval_ms"), py::arg("pid") = 0,
           py::arg("smaps_at_peaks") = true)
      .def("start", [](prof::TimelineSampler &t) { check(t.start()); })
      .def("stop", &prof::TimelineSampler::stop,
           py::call_guard<py::gil_scoped_release>())
      .def("sample_now", &prof::TimelineSampler::sampleNow)
      .def_property_readonly("running", &prof::TimelineSampler::running)
      .def_property_readonly("sample_count",
                             &prof::TimelineSampler::sampleCount)
      .def(
          "record_json",
          [](const prof::TimelineSampler &t, bool withSamples) {
            return prof::toJSONText(t.record(withSamples));
          },
          py::arg("with_samples") = true);

  //--- timing ---------------------------------------------------------------
  py::class_<prof::ScopedTimer>(m, "Timer")
      .def(py::init([] {
        return std::make_unique<prof::ScopedTimer>(
            [](const prof::TimingSample &) {});
      }))
      .def("elapsed",
           [](const prof::ScopedTimer &t) {
             auto s = t.elapsed();
             return py::make_tuple(s.wallS, s.cpuS);
           })
      .def("stop", [](prof::ScopedTimer &t) {
        auto s = t.stop();
        return py::make_tuple(s.wallS, s.cpuS);
      });

  py::class_<prof::Stats>(m, "Stats")
      .def(py::init<>())
      .def("add", &prof::Stats::add)
      .def("count", &prof::Stats::count)
      .def("total", &prof::Stats::total)
      .def("mean", &prof::Stats::mean)
      .def("min", &prof::Stats::min)
      .def("max", &prof::Stats::max)
      .def("median", &prof::Stats::median)
      .def("stddev", &prof::Stats::stddev)
      .def("samples", &prof::Stats::samples)
      .def("summary", &prof::Stats::summary, py::arg("scale") = 1.0,
           py::arg("unit") = "")
      .def("record_json",
           [](const prof::Stats &s) { return prof::toJSONText(s.record()); });

  //--- processes ------------------------------------------------------------
  m.def(
      "measure_json",
      [](std::vector<std::string> argv, std::string outDir, double wallS,
         double rssMB, std::string cwd,
         std::vector<std::pair<std::string, std::string>> env,
         std::optional<double> pollS, std::optional<double> killGraceS) {
        orch::MeasureOptions o;
        o.argv = std::move(argv);
        o.outDir = std::move(outDir);
        o.wallBudgetS = wallS;
        o.rssBudgetMB = rssMB;
        o.cwd = std::move(cwd);
        o.env = std::move(env);
        o.pollS = pollS.value_or(o.pollS); // None: MeasureBudget's default
        o.killGraceS = killGraceS.value_or(o.killGraceS);
        // Refusals before any thread or process exists.
        check(orch::validateMeasureOptions(o));
        std::atomic<bool> cancel{false};
        std::atomic<int> sig{0};
        o.cancel = &cancel;
        o.cancelSignal = &sig;
        auto r = cancellable(cancel, sig, [&] { return orch::measure(o); });
        return orch::toJSONText(unwrap(std::move(r)));
      },
      py::arg("argv"), py::arg("out_dir"), py::arg("wall_s"), py::arg("rss_mb"),
      py::arg("cwd") = "",
      py::arg("env") = std::vector<std::pair<std::string, std::string>>{},
      py::arg("poll_s") = 0.010, py::arg("kill_grace_s") = 1.0);

  //--- sweeps ---------------------------------------------------------------
  m.def("examples_dir_for",
        [](const std::string &exe) { return orch::examplesDirFor(exe); });
  m.def("default_molecule", [](const std::string &examplesDir) {
    orch::Molecule mol = unwrap(orch::defaultMolecule(examplesDir));
    return py::make_tuple(mol.name, mol.hamiltonian, mol.nTerms);
  });
  m.def("default_h2_grid", [] {
    std::vector<std::pair<unsigned, unsigned>> g;
    for (const auto &p : orch::defaultH2Grid())
      g.push_back({p.nEst, p.nTrotter});
    return g;
  });
  m.def("parse_grid", [](const std::string &text) {
    std::vector<std::pair<unsigned, unsigned>> g;
    for (const auto &p : unwrap(orch::parseGrid(text)))
      g.push_back({p.nEst, p.nTrotter});
    return g;
  });

  py::class_<PyResults>(m, "Results")
      .def_property_readonly("records_json",
                             [](const PyResults &r) {
                               std::vector<std::string> out;
                               for (const auto &p : r.records)
                                 out.push_back(orch::toJSONText(p, -1));
                               return out;
                             })
      .def_readonly("skipped", &PyResults::skipped)
      .def_readonly("ran", &PyResults::ran)
      .def_readonly("skipped_count", &PyResults::skippedCount)
      .def_readonly("failed", &PyResults::failed)
      .def_readonly("cancelled", &PyResults::cancelled)
      .def("summary_csv",
           [](const PyResults &r) { return orch::summaryCsv(r.records); })
      .def("summary_table",
           [](const PyResults &r) { return orch::summaryTable(r.records); })
      .def("compile_seconds",
           [](const PyResults &r) {
             std::vector<std::optional<double>> out;
             for (const auto &p : r.records)
               out.push_back(p.compileSeconds());
             return out;
           })
      .def("write_results", [](const PyResults &r, const std::string &path) {
        check(orch::writeResults(path, r.records));
      });

  // One sweep (run_single_profile, run_both_modes and run_sweep are sweeps
  // restricted to their points, as in q2-profile run/sweep).
  m.def(
      "run_sweep",
      [](const py::dict &args, py::object onProgress) {
        orch::SweepSpec spec = sweepSpec(args);
        check(orch::validateSweepSpec(spec));
        std::atomic<bool> cancel{false};
        std::atomic<int> sig{0};
        spec.cancel = &cancel;
        spec.cancelSignal = &sig;
        std::optional<py::error_already_set> callbackError;
        orch::ProgressCallback progress;
        if (!onProgress.is_none())
          progress = [&](const orch::ProgressEvent &e) {
            py::gil_scoped_acquire gil;
            if (callbackError)
              return;
            try {
              onProgress(progressDict(e));
            } catch (py::error_already_set &err) {
              // The sweep stops as if interrupted; the error is raised
              // once it has.
              callbackError.emplace(std::move(err));
              cancel = true;
            }
          };
        auto sum = cancellable(cancel, sig,
                               [&] { return orch::runSweep(spec, progress); });
        if (callbackError) {
          if (!sum)
            llvm::consumeError(sum.takeError());
          throw std::move(*callbackError);
        }
        orch::SweepSummary s = unwrap(std::move(sum));
        auto out = std::make_unique<PyResults>();
        for (auto &p : s.points) {
          out->skipped.push_back(p.skipped);
          out->records.push_back(std::move(p.record));
        }
        out->ran = s.ran;
        out->skippedCount = s.skipped;
        out->failed = s.failed;
        out->cancelled = s.cancelled;
        return out;
      },
      py::arg("args"), py::arg("on_progress") = py::none());

  m.def("load_results", [](std::vector<std::string> dirs) {
    auto out = std::make_unique<PyResults>();
    out->records = unwrap(orch::loadResults(dirs));
    out->skipped.assign(out->records.size(), true);
    return out;
  });

  //--- reports --------------------------------------------------------------
  py::class_<PyReport>(m, "Report")
      .def("json", [](const PyReport &r) { return prof::toJSONText(r.report); })
      .def("compile_seconds",
           [](const PyReport &r) { return r.report.compileSeconds(); })
      .def("compile_peak_rss",
           [](const PyReport &r) { return r.report.compilePeakRSS(); })
      .def("stage_table",
           [](const PyReport &r) {
             return prof::formatStageTable(r.report.phaseB.stages);
           })
      .def(
          "pass_table",
          [](const PyReport &r, size_t top) {
            return prof::formatPassTable(r.report.phaseB.passes, top);
          },
          py::arg("top") = 20)
      .def("write", [](const PyReport &r, const std::string &path) {
        check(prof::writeReport(path, r.report));
      });
  m.def("read_report", [](const std::string &path) {
    return std::make_unique<PyReport>(PyReport{unwrap(prof::readReport(path))});
  });

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
  m.def("analyze_ir_stages", [](const std::string &dir) {
    std::optional<llvm::Expected<std::vector<session::StageIR>>> r;
    {
      py::gil_scoped_release release;
      r.emplace(session::analyzeIRStages(dir, registry()));
    }
    std::vector<session::StageIR> stages = unwrap(std::move(*r));
    std::vector<std::tuple<std::string, uint64_t, uint64_t, uint64_t>> out;
    for (const auto &s : stages)
      out.emplace_back(s.stage, s.ir.bytes, s.ir.lines, s.ir.ops);
    return out;
  });

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

  py::class_<PyCircuit>(m, "Circuit")
      // `out` is never converted: the probabilities must land in it.
      .def("__call__", &PyCircuit::call, py::arg("coeffs") = py::none(),
           py::arg("out").noconvert() = py::none())
      .def_property_readonly("metadata",
                             [](const PyCircuit &c) {
                               return metadataDict(c.circuit->metadata());
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
      .def("block_stats_json",
           [](const PyCircuit &c) {
             // As in the report's phase_c.sets[].blocks.
             prof::PhaseCSetRecord set;
             set.blocks = c.circuit->blockStats();
             return prof::toJSONText(set);
           })
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

  // One compile session (q2/Session/CompileSession.h), as q2-opt runs it:
  // program text, or a file (MLIR, or a Hamiltonian built with `program`).
  m.def(
      "compile",
      [](const std::string &text, const std::string &path, bool profile,
         const std::string &irDir, const std::string &runtimeLib,
         int64_t maxQubits, const py::dict &options, const py::dict &program,
         bool profilePasses, int timelineIntervalMs) {
        if (maxQubits < 0) // as q2-opt --max-qubits refuses it
          throw py::value_error("max_qubits must be a positive number of "
                                "qubits (0: what fits in 80% of RAM), got " +
                                std::to_string(maxQubits));
        if (timelineIntervalMs < 1)
          throw py::value_error("timeline_interval_ms must be at least 1, "
                                "got " + std::to_string(timelineIntervalMs));
        session::SessionOptions so;
        so.pipeline = pipelineOptions(options);
        so.program = programRequest(program);
        so.profile = profile;
        so.profilePasses = profilePasses;
        so.timelineIntervalMs = timelineIntervalMs;
        so.hosted = true; // the interpreter's process
        so.irDir = irDir;
        so.runtimeLib = runtimeLib;
        so.maxQubits = maxQubits;
        session::ProgramSource src =
            path.empty() ? session::ProgramSource::fromText(text, "<string>")
                         : session::ProgramSource::fromFile(path);
        std::optional<llvm::Expected<session::CompiledProgram>> prog;
        {
          py::gil_scoped_release release;
          prog.emplace(session::CompileSession::run(src, so, registry()));
        }
        if (!*prog)
          raise(prog->takeError());
        session::CompiledProgram &p = **prog;
        auto c = std::make_unique<PyCircuit>();
        c->circuit = std::move(p.circuit);
        c->nOut = py::ssize_t(1) << p.metadata.nEst;
        py::object report = py::none();
        if (p.report)
          report = py::cast(
              std::make_unique<PyReport>(PyReport{std::move(*p.report)}));
        py::bytes object(p.object.data(), p.object.size());
        return py::make_tuple(std::move(c), report, object);
      },
      py::arg("text"), py::arg("path"), py::arg("profile"), py::arg("ir_dir"),
      py::arg("runtime_lib"), py::arg("max_qubits"), py::arg("options"),
      py::arg("program"), py::arg("profile_passes"),
      py::arg("timeline_interval_ms"));
  m.def("default_max_qubits", &q2::runtime::limits::defaultMaxQubits);

  // q2.profiling's Phase A: the qubit Hamiltonian q2-qpe builds a program
  // from (FCIDUMP through Jordan-Wigner), as plain Python values.
  m.def("qubit_hamiltonian", [](const std::string &path) {
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
    return d;
  });
}
