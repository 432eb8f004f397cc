//===- Orchestrator.cpp - _q2: measure and sweeps -------------------------===//
//
// q2-profile measure / run / sweep / merge from Python. Records are the
// typed classes of Records.cpp (MeasureRecord, PointRecord); a sweep takes a
// typed SweepOptions (SweepSpec's fields, None: SweepSpec's default, the one
// declaration of q2-profile's). Calls that run child processes run on a
// worker thread so that ^C cancels them as in q2-profile (cancellable()).
//
//===----------------------------------------------------------------------===//
#include "Common.h"
#include "Records.h"

#include "q2/Orchestrator/Measure.h"
#include "q2/Orchestrator/Sweep.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"

#include <pybind11/functional.h>
#include <pybind11/stl.h>

namespace py = pybind11;
namespace orch = q2::orch;
using namespace q2py;

namespace {

/// A non-negative integer option: ValueError (not a failed cast) for a
/// negative or non-integer value.
unsigned unsignedArg(py::handle v, const std::string &name) {
  if (!py::isinstance<py::int_>(v) || py::isinstance<py::bool_>(v))
    throw py::value_error(name + " must be an integer, got " +
                          std::string(py::repr(v)));
  long long n = v.cast<long long>();
  if (n < 0 || n > UINT32_MAX)
    throw py::value_error(name + " must be between 0 and " +
                          std::to_string(UINT32_MAX) + ", got " +
                          std::to_string(n));
  return unsigned(n);
}

double numberArg(py::handle v, const std::string &name) {
  if (py::isinstance<py::bool_>(v) ||
      !(py::isinstance<py::int_>(v) || py::isinstance<py::float_>(v)))
    throw py::type_error(name + " must be a number, got " +
                         std::string(py::repr(v)));
  return v.cast<double>();
}

std::string absolute(const std::string &path) {
  llvm::SmallString<256> p(path);
  llvm::sys::fs::make_absolute(p);
  return std::string(p);
}

/// The options of one sweep (q2.run_sweep's keywords, typed): a SweepSpec.
struct SweepOptions {
  orch::SweepSpec spec;
};

SweepOptions makeSweepOptions(
    PathArg outDir, py::object molecules, py::object grid, py::object modes,
    py::object runs, py::object jobs, py::object wallS, py::object rssMB,
    py::object totalRssMB, py::object pollS, bool retryFailed, py::object only,
    py::object vars, py::object commands, const std::string &executor,
    py::object slurm) {
  SweepOptions o;
  orch::SweepSpec &s = o.spec;
  s.outDir = absolute(outDir.path);
  // {name: file} or [(name, file[, n_terms])].
  py::object items = py::isinstance<py::dict>(molecules)
                         ? molecules.attr("items")()
                         : molecules;
  if (py::isinstance<py::str>(molecules) || !py::hasattr(items, "__iter__"))
    throw py::type_error("molecules must be {name: file} or [(name, file[, "
                         "n_terms])], got " +
                         std::string(py::repr(molecules)));
  for (py::handle m : items) {
    py::tuple t = py::tuple(py::reinterpret_borrow<py::object>(m));
    if (t.size() != 2 && t.size() != 3)
      throw py::value_error("a molecule is (name, file[, n_terms]), got " +
                            std::string(py::repr(m)));
    PathArg file = t[1].cast<PathArg>();
    s.molecules.push_back({py::str(t[0]).cast<std::string>(),
                           absolute(file.path),
                           t.size() == 3 ? unsignedArg(t[2], "n_terms") : 0});
  }
  if (py::isinstance<py::str>(grid)) {
    s.grid = unwrap(orch::parseGrid(grid.cast<std::string>()));
  } else if (!grid.is_none()) {
    s.grid.clear();
    for (py::handle g : grid) {
      py::tuple p = py::tuple(py::reinterpret_borrow<py::object>(g));
      if (p.size() != 2)
        throw py::value_error("a grid point is (n_est, n_trotter), got " +
                              std::string(py::repr(g)));
      s.grid.push_back(
          {unsignedArg(p[0], "n_est"), unsignedArg(p[1], "n_trotter")});
    }
  }
  if (!modes.is_none())
    s.modes = modes.cast<std::vector<std::string>>();
  if (!runs.is_none() && (s.runs = unsignedArg(runs, "runs")) == 0)
    throw py::value_error("runs must be a positive integer");
  if (!jobs.is_none() && (s.jobs = unsignedArg(jobs, "jobs")) == 0)
    throw py::value_error("jobs must be a positive integer");
  if (!wallS.is_none())
    s.phase.wallBudgetS = numberArg(wallS, "wall_s");
  if (!rssMB.is_none())
    s.phase.rssBudgetMB = numberArg(rssMB, "rss_mb");
  if (!totalRssMB.is_none())
    s.totalRssMB = numberArg(totalRssMB, "total_rss_mb");
  if (!pollS.is_none())
    s.phase.pollS = numberArg(pollS, "poll_s");
  s.retryFailed = retryFailed;
  if (!only.is_none())
    s.only = only.cast<std::vector<std::string>>();
  if (!vars.is_none())
    s.vars = vars.cast<std::map<std::string, std::string>>();
  // {"A": argv template, "BC": argv template}; a phase left out keeps
  // SweepSpec's (q2-qpe, q2-opt).
  if (!commands.is_none()) {
    for (auto [k, v] : commands.cast<py::dict>()) {
      std::string phase = py::str(k);
      std::vector<std::string> argv = v.cast<std::vector<std::string>>();
      if (argv.empty())
        throw py::value_error("commands['" + phase + "'] is empty");
      if (phase == "A")
        s.commands.phaseA = std::move(argv);
      else if (phase == "BC")
        s.commands.phaseBC = std::move(argv);
      else
        throw py::value_error("commands: unknown phase '" + phase +
                              "' (phases: 'A', 'BC')");
    }
  }
  std::optional<orch::SweepExecutor> exec = orch::parseExecutor(executor);
  if (!exec)
    throw py::value_error("executor must be 'local' or 'slurm', got '" +
                          executor + "'");
  s.executor = *exec;
  // slurm: {partition, account, max_parallel, sbatch_args, poll_s, wait,
  // q2_profile} (SlurmOptions; validateSweepSpec refuses them for local).
  if (!slurm.is_none()) {
    for (auto [k, v] : slurm.cast<py::dict>()) {
      std::string key = py::str(k);
      orch::SlurmOptions &so = s.slurm;
      if (key == "partition")
        so.partition = py::str(v);
      else if (key == "account")
        so.account = py::str(v);
      else if (key == "max_parallel")
        so.maxParallel = unsignedArg(v, "max_parallel");
      else if (key == "sbatch_args")
        so.sbatchArgs = v.cast<std::vector<std::string>>();
      else if (key == "poll_s")
        so.pollS = numberArg(v, "poll_s");
      else if (key == "wait")
        so.wait = v.cast<bool>();
      else if (key == "q2_profile")
        so.q2Profile = absolute(v.cast<PathArg>().path);
      else
        throw py::type_error("slurm: unknown option '" + key + "'");
    }
  }
  // Refusals before anything is created.
  check(orch::validateSweepSpec(s));
  return o;
}

/// The results of a sweep (or of load_results), typed for the library's
/// tables.
struct SweepResult {
  std::vector<orch::PointRecord> records;
  std::vector<bool> skipped;
  size_t ran = 0, skippedCount = 0, failed = 0;
  bool cancelled = false;
  /// Slurm: points still queued or running (wait=False), retryable
  /// failures, the array jobs submitted.
  size_t inFlight = 0, retryable = 0;
  std::vector<std::string> slurmJobs;
};

py::list pointViews(py::object self) {
  SweepResult &r = self.cast<SweepResult &>();
  py::list l;
  for (auto &p : r.records)
    l.append(py::cast(&p, py::return_value_policy::reference_internal, self));
  return l;
}

const char *kindName(orch::ProgressEvent::Kind k) {
  static const char *kinds[] = {"skipped", "started", "finished", "submitted",
                                "waiting"};
  return kinds[k];
}

} // namespace

void q2py::bindOrchestrator(py::module_ &m) {
  //--- measure (q2-profile measure) -----------------------------------------
  m.def(
      "measure_command",
      [](py::object command, PathArg directory, double wallS, double rssMB,
         std::optional<PathArg> cwd, py::object env,
         std::optional<double> pollS, std::optional<double> killGraceS) {
        if (py::isinstance<py::str>(command) ||
            py::isinstance<py::bytes>(command))
          throw py::value_error(
              "command must be a list of arguments (no shell)");
        orch::MeasureOptions o;
        py::object fspath = py::module_::import("os").attr("fspath");
        for (py::handle c : command)
          o.argv.push_back(fspath(c).cast<std::string>());
        o.outDir = directory.path;
        o.wallBudgetS = wallS;
        o.rssBudgetMB = rssMB;
        if (cwd)
          o.cwd = cwd->path;
        if (!env.is_none())
          for (auto [k, v] : env.cast<py::dict>())
            o.env.emplace_back(py::str(k), py::str(v));
        o.pollS = pollS.value_or(o.pollS); // None: MeasureBudget's default
        o.killGraceS = killGraceS.value_or(o.killGraceS);
        // Refusals before any thread or process exists.
        check(orch::validateMeasureOptions(o));
        std::atomic<bool> cancel{false};
        std::atomic<int> sig{0};
        o.cancel = &cancel;
        o.cancelSignal = &sig;
        return unwrap(
            cancellable(cancel, sig, [&] { return orch::measure(o); }));
      },
      py::arg("command"), py::arg("directory"), py::arg("wall_s") = 900.0,
      py::arg("rss_mb") = 8192.0, py::arg("cwd") = py::none(),
      py::arg("env") = py::none(), py::arg("poll_s") = py::none(),
      py::arg("kill_grace_s") = py::none(),
      "Runs command (argv list, no shell) as q2-profile measure: its own "
      "process group, budgets on wall time and summed tree RSS, evidence in "
      "directory (must not exist: record.json, stdout.txt, stderr.txt). "
      "Returns the MeasureRecord (the fields of record.json).\n\n"
      "Refusals (before anything starts): ValueError for bad values, "
      "FileExistsError for an existing directory, OSError "
      "(FileNotFoundError, NotADirectoryError) for a missing parent, cwd or "
      "program. ^C stops the tree and raises KeyboardInterrupt.");

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

  py::class_<SweepOptions>(
      m, "SweepOptions",
      "What one sweep runs (SweepSpec): None is q2-profile's default. "
      "Checked when made (validateSweepSpec): ValueError before anything is "
      "created.")
      .def(py::init(&makeSweepOptions), py::kw_only(), py::arg("out_dir"),
           py::arg("molecules"), py::arg("grid") = py::none(),
           py::arg("modes") = py::none(), py::arg("runs") = py::none(),
           py::arg("jobs") = py::none(), py::arg("wall_s") = py::none(),
           py::arg("rss_mb") = py::none(), py::arg("total_rss_mb") = py::none(),
           py::arg("poll_s") = py::none(), py::arg("retry_failed") = false,
           py::arg("only") = py::none(), py::arg("vars") = py::none(),
           py::arg("commands") = py::none(), py::arg("executor") = "local",
           py::arg("slurm") = py::none())
      .def_property_readonly(
          "out_dir", [](const SweepOptions &o) { return o.spec.outDir; })
      .def_property_readonly(
          "molecules",
          [](const SweepOptions &o) {
            std::vector<std::tuple<std::string, std::string, unsigned>> out;
            for (const auto &m : o.spec.molecules)
              out.emplace_back(m.name, m.hamiltonian, m.nTerms);
            return out;
          })
      .def_property_readonly("grid",
                             [](const SweepOptions &o) {
                               std::vector<std::pair<unsigned, unsigned>> g;
                               for (const auto &p : o.spec.grid)
                                 g.push_back({p.nEst, p.nTrotter});
                               return g;
                             })
      .def_property_readonly("modes",
                             [](const SweepOptions &o) { return o.spec.modes; })
      .def_property_readonly("runs",
                             [](const SweepOptions &o) { return o.spec.runs; })
      .def_property_readonly("jobs",
                             [](const SweepOptions &o) { return o.spec.jobs; })
      .def_property_readonly(
          "wall_s",
          [](const SweepOptions &o) { return o.spec.phase.wallBudgetS; })
      .def_property_readonly(
          "rss_mb",
          [](const SweepOptions &o) { return o.spec.phase.rssBudgetMB; })
      .def_property_readonly(
          "total_rss_mb",
          [](const SweepOptions &o) { return o.spec.totalRssMB; })
      .def_property_readonly(
          "poll_s", [](const SweepOptions &o) { return o.spec.phase.pollS; })
      .def_property_readonly(
          "retry_failed",
          [](const SweepOptions &o) { return o.spec.retryFailed; })
      .def_property_readonly("only",
                             [](const SweepOptions &o) { return o.spec.only; })
      .def_property_readonly("vars",
                             [](const SweepOptions &o) { return o.spec.vars; })
      .def_property_readonly("commands", [](const SweepOptions &o) {
        py::dict d;
        d["A"] = o.spec.commands.phaseA;
        d["BC"] = o.spec.commands.phaseBC;
        return d;
      })
      .def_property_readonly("executor", [](const SweepOptions &o) {
        return orch::executorName(o.spec.executor);
      });

  py::class_<orch::ProgressEvent>(m, "ProgressEvent",
                                  "A point skipped, started or finished.")
      .def_property_readonly(
          "kind", [](const orch::ProgressEvent &e) { return kindName(e.kind); })
      .def_property_readonly(
          "key", [](const orch::ProgressEvent &e) { return e.point.key(); })
      .def_property_readonly(
          "molecule",
          [](const orch::ProgressEvent &e) { return e.point.molecule; })
      .def_property_readonly(
          "mode", [](const orch::ProgressEvent &e) { return e.point.mode; })
      .def_property_readonly(
          "n_est", [](const orch::ProgressEvent &e) { return e.point.nEst; })
      .def_property_readonly(
          "n_trotter",
          [](const orch::ProgressEvent &e) { return e.point.nTrotter; })
      .def_readonly("status", &orch::ProgressEvent::status)
      .def_readonly("done", &orch::ProgressEvent::done)
      .def_readonly("total", &orch::ProgressEvent::total)
      .def_readonly("running", &orch::ProgressEvent::running)
      .def_readonly("failed", &orch::ProgressEvent::failed)
      .def_readonly("queued", &orch::ProgressEvent::queued)
      .def_readonly("detail", &orch::ProgressEvent::detail)
      .def_readonly("elapsed_s", &orch::ProgressEvent::elapsedS)
      .def_property_readonly("eta_s",
                             [](const orch::ProgressEvent &e) {
                               return e.etaS < 0 ? std::nullopt
                                                 : std::optional(e.etaS);
                             })
      .def_readonly("predicted_rss_mb", &orch::ProgressEvent::predictedRssMB)
      .def("__repr__", [](const orch::ProgressEvent &e) {
        return std::string("ProgressEvent(") + kindName(e.kind) + " " +
               e.point.key() + ", " + std::to_string(e.done) + "/" +
               std::to_string(e.total) + ")";
      });

  py::class_<SweepResult>(
      m, "SweepResult",
      "The points of a sweep (PointRecords: key, status, reason, wall_s, "
      "peak_rss_mb, phases, report, ...) and its counts.")
      .def_property_readonly("points", &pointViews)
      .def("__len__", [](const SweepResult &r) { return r.records.size(); })
      .def("__iter__",
           [](py::object self) { return py::iter(pointViews(self)); })
      .def("__getitem__",
           [](py::object self, py::object i) {
             return py::object(pointViews(self)[i]);
           })
      .def_readonly("skipped", &SweepResult::skipped)
      .def_readonly("ran", &SweepResult::ran)
      .def_readonly("skipped_count", &SweepResult::skippedCount)
      .def_readonly("failed", &SweepResult::failed)
      .def_readonly("cancelled", &SweepResult::cancelled)
      .def_readonly("in_flight", &SweepResult::inFlight)
      .def_readonly("retryable", &SweepResult::retryable)
      .def_readonly("slurm_jobs", &SweepResult::slurmJobs)
      .def(
          "summary_csv",
          [](const SweepResult &r) { return orch::summaryCsv(r.records); },
          "summary.csv's text, one row per point (columns in docs/sweeps.md).")
      .def("summary_table",
           [](const SweepResult &r) { return orch::summaryTable(r.records); })
      .def(
          "compile_seconds",
          [](const SweepResult &r) {
            std::vector<std::optional<double>> out;
            for (const auto &p : r.records)
              out.push_back(p.compileSeconds());
            return out;
          },
          "Per point: wall seconds of the report's compile stages, or None.")
      .def(
          "write_results",
          [](const SweepResult &r, PathArg path) {
            check(orch::writeResults(path.path, r.records));
          },
          py::arg("path"), "One JSON array (q2-profile merge's results.json).")
      .def("to_dicts", [](py::object self) {
        py::list l;
        for (py::handle p : pointViews(self))
          l.append(p.attr("to_dict")());
        return l;
      });

  m.def(
      "run_sweep",
      [](const SweepOptions &options, py::object onProgress) {
        orch::SweepSpec spec = options.spec;
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
              onProgress(e);
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
        auto out = std::make_unique<SweepResult>();
        for (auto &p : s.points) {
          if (p.record.key.empty())
            continue; // Still in the Slurm queue (wait=False).
          out->skipped.push_back(p.skipped);
          out->records.push_back(std::move(p.record));
        }
        out->ran = s.ran;
        out->skippedCount = s.skipped;
        out->failed = s.failed;
        out->cancelled = s.cancelled;
        out->inFlight = s.inFlight;
        out->retryable = s.retryable;
        out->slurmJobs = s.slurmJobs;
        return out;
      },
      py::arg("options"), py::arg("on_progress") = py::none(),
      "One sweep (q2-profile run and sweep are sweeps restricted to their "
      "points). on_progress(ProgressEvent) runs with the GIL held; an "
      "exception in it stops the sweep and is raised.");

  m.def(
      "load_results",
      [](py::args dirs) {
        std::vector<std::string> paths;
        for (py::handle d : dirs)
          paths.push_back(d.cast<PathArg>().path);
        auto out = std::make_unique<SweepResult>();
        out->records = unwrap(orch::loadResults(paths));
        out->skipped.assign(out->records.size(), true);
        return out;
      },
      "q2-profile merge: the points of finished sweeps, as a SweepResult.");
}
