//===- Records.cpp - _q2: typed record classes from the field lists -------===//
//
// One generic binder turns a record's JSON field list (the lists the report
// writer and reader use) into a pybind11 class: a read-only property per
// key, `to_dict()` (exactly what the file holds), `to_json()`, `fields()`,
// `get()`, `[key]`, `in`, equality, a short repr, copy and pickling (through
// the JSON reader). Nested records are returned as views into their parent
// (kept alive by it), so walking a large report copies nothing.
//
// Presence follows the writer: an unset optional is None and not `in` the
// record; a key written only when not default reads its default.
//
//===----------------------------------------------------------------------===//
#include "Records.h"
#include "Common.h"

#include "q2/Orchestrator/RecordFields.h"
#include "q2/Profiling/ReportFields.h"
#include "q2/Profiling/Memory.h"
#include "q2/Profiling/Timeline.h"
#include "q2/Profiling/Timing.h"
#include "q2/QPE/QPEMetadata.h"

#include <pybind11/stl.h>

#include <cmath>
#include <string>
#include <vector>

namespace py = pybind11;
namespace prof = q2::profiling;
namespace json = q2::json;
using namespace q2py;

namespace {

//===----------------------------------------------------------------------===//
// Values
//===----------------------------------------------------------------------===//

py::object jsonToPy(const json::Value &j) {
  switch (j.type()) {
  case json::Value::value_t::null:
    return py::none();
  case json::Value::value_t::boolean:
    return py::bool_(j.get<bool>());
  case json::Value::value_t::number_integer:
    return py::int_(j.get<int64_t>());
  case json::Value::value_t::number_unsigned:
    return py::int_(j.get<uint64_t>());
  case json::Value::value_t::number_float:
    return py::float_(j.get<double>());
  case json::Value::value_t::string:
    return py::str(j.get_ref<const std::string &>());
  case json::Value::value_t::array: {
    py::list l;
    for (const auto &e : j)
      l.append(jsonToPy(e));
    return std::move(l);
  }
  case json::Value::value_t::object: {
    py::dict d;
    for (auto it = j.begin(); it != j.end(); ++it)
      d[py::str(it.key())] = jsonToPy(it.value());
    return std::move(d);
  }
  default:
    return py::none();
  }
}

template <class T> struct IsPlain {
  static constexpr bool value =
      std::is_arithmetic_v<T> || std::is_same_v<T, std::string>;
};

/// Where a nested record may be returned as a view: inside the bytes of the
/// object `parent` wraps (a member, or the elements of a member vector);
/// anything else (a value the field list computed) is copied.
struct Owner {
  py::handle parent;
  const char *begin = nullptr, *end = nullptr;
  bool holds(const void *p) const {
    auto *c = static_cast<const char *>(p);
    return parent && c >= begin && c < end;
  }
};

template <class T> py::object toPy(const T &x, const Owner &owner, bool view) {
  if constexpr (std::is_same_v<T, json::RawObject>) {
    return jsonToPy(json::Value::parse(x.text, nullptr, false));
  } else if constexpr (IsPlain<T>::value) {
    if constexpr (std::is_floating_point_v<T>)
      return py::float_(double(x));
    else
      return py::cast(x);
  } else if constexpr (std::is_enum_v<T>) {
    return py::str(toString(x).str());
  } else if constexpr (json::detail::IsOptional<T>::value) {
    return x ? toPy(*x, owner, view) : py::none();
  } else if constexpr (json::detail::IsVariant<T>::value) {
    return std::visit([&](const auto &e) { return toPy(e, owner, false); }, x);
  } else if constexpr (json::detail::IsVector<T>::value) {
    py::list l;
    for (const auto &e : x)
      l.append(toPy(e, owner, view));
    return std::move(l);
  } else if constexpr (json::detail::IsStringMap<T>::value) {
    py::dict d;
    for (const auto &[k, e] : x)
      d[py::str(k)] = toPy(e, owner, false);
    return std::move(d);
  } else {
    if (view)
      return py::cast(&x, py::return_value_policy::reference_internal,
                      owner.parent);
    return py::cast(x); // a copy
  }
}

//===----------------------------------------------------------------------===//
// Visitors over a field list (the writer's presence rules)
//===----------------------------------------------------------------------===//

/// The keys of a type, in the list's order.
struct KeyList {
  std::vector<std::string> keys;
  template <class T> void operator()(const char *k, const T &) {
    keys.push_back(k);
  }
  template <class T> void optional(const char *k, const T &) {
    keys.push_back(k);
  }
  template <class T> void unlessDefault(const char *k, const T &, const T &) {
    keys.push_back(k);
  }
  template <class T> void when(bool, const char *k, const T &) {
    keys.push_back(k);
  }
  template <class T> void derived(const char *k, const T &) {
    keys.push_back(k);
  }
  static constexpr bool reading = false;
};

/// One key's value (as Python) and whether the writer would write it.
struct Finder {
  std::string key;
  Owner owner;
  bool wantValue = true;
  bool known = false, present = false;
  py::object value = py::none();

  template <class T> void set(const T &x, bool isPresent, bool view = true) {
    known = true;
    present = isPresent;
    if (wantValue)
      value = toPy(x, owner, view && owner.holds(&x));
  }
  template <class T> void operator()(const char *k, const T &x) {
    if (!known && key == k)
      set(x, true);
  }
  template <class T> void optional(const char *k, const std::optional<T> &x) {
    if (!known && key == k)
      set(x, x.has_value());
  }
  template <class T>
  void unlessDefault(const char *k, const T &x, const T &dflt) {
    if (!known && key == k)
      set(x, !(x == dflt));
  }
  template <class T> void when(bool cond, const char *k, const T &x) {
    if (known || key != k)
      return;
    known = true;
    present = cond;
    if (cond && wantValue)
      value = toPy(x, owner, owner.holds(&x));
  }
  template <class T> void derived(const char *k, const T &x) {
    if (!known && key == k)
      set(x, true, /*view=*/false);
  }
  static constexpr bool reading = false;
};

template <class T> Owner ownerOf(const T &r, py::handle self) {
  auto *b = reinterpret_cast<const char *>(&r);
  return Owner{self, b, b + sizeof(T)};
}

template <class T>
Finder find(const T &r, py::handle self, const std::string &key,
            bool wantValue) {
  Finder f{key, ownerOf(r, self), wantValue};
  fields(f, r);
  return f;
}

template <class T> json::Value toValue(const T &r) { return json::toValue(r); }

template <class T> T fromText(const std::string &text) {
  auto v = json::parse(text, "<json>");
  if (!v)
    throw py::value_error(llvm::toString(v.takeError()));
  T r{};
  if (llvm::Error e = json::fromValue(json::Cursor(*v, "<json>"), r))
    throw py::value_error(llvm::toString(std::move(e)));
  return r;
}

template <class T> std::string toText(const T &r, int indent) {
  return unwrap(json::dump(json::toValue(r), indent));
}

std::string shortRepr(py::handle v) {
  if (py::isinstance<py::list>(v) || py::isinstance<py::dict>(v))
    return "<" + std::string(py::str(v.get_type().attr("__name__"))) + " of " +
           std::to_string(py::len(v)) + ">";
  if (py::hasattr(v.get_type(), "__q2_record__"))
    return "<" + std::string(py::str(v.get_type().attr("__name__"))) + ">";
  return py::repr(v);
}

/// Binds record type T as `name`: properties from its field list plus the
/// common record methods.
template <class T>
py::class_<T> bindRecord(py::module_ &m, const char *name, const char *doc) {
  py::class_<T> cls(m, name, doc);
  cls.attr("__q2_record__") = true;
  T proto{};
  KeyList keys;
  fields(keys, proto);
  auto keyList = std::make_shared<std::vector<std::string>>(keys.keys);
  for (const std::string &k : keys.keys) {
    if (py::hasattr(cls, k.c_str()))
      continue; // a key flattened twice
    cls.def_property_readonly(k.c_str(), [k](py::object self) {
      const T &r = self.cast<const T &>();
      return find(r, self, k, true).value;
    });
  }
  cls.def(py::init([](const py::kwargs &kw) {
            // From keyword arguments, as from_dict.
            py::object text = py::module_::import("json").attr("dumps")(kw);
            return fromText<T>(text.cast<std::string>());
          }),
          "A record from its fields as keyword arguments (JSON values), read "
          "as a file of its kind is read.");
  cls.def(
      "to_dict", [](const T &r) { return jsonToPy(toValue(r)); },
      "Plain dicts and lists, exactly as a file of this record holds it.");
  cls.def(
      "to_json", [](const T &r, int indent) { return toText(r, indent); },
      py::arg("indent") = -1, "The JSON text the libraries write.");
  cls.def_static(
      "from_json", [](const std::string &text) { return fromText<T>(text); },
      py::arg("text"));
  cls.def_static(
      "from_dict",
      [](const py::object &d) {
        py::object text = py::module_::import("json").attr("dumps")(d);
        return fromText<T>(text.cast<std::string>());
      },
      py::arg("data"));
  cls.def(
      "fields",
      [](const T &r) {
        std::vector<std::string> out;
        json::Value v = toValue(r);
        for (auto it = v.begin(); it != v.end(); ++it)
          out.push_back(it.key());
        return out;
      },
      "The keys present, in the order of to_dict().");
  cls.def(
      "get",
      [](py::object self, const std::string &key, py::object dflt) {
        Finder f = find(self.cast<const T &>(), self, key, true);
        return f.present ? f.value : dflt;
      },
      py::arg("key"), py::arg("default") = py::none());
  cls.def("__getitem__", [](py::object self, const std::string &key) {
    Finder f = find(self.cast<const T &>(), self, key, true);
    if (!f.present)
      throw py::key_error(key);
    return f.value;
  });
  cls.def("__contains__", [](py::object self, const std::string &key) {
    return find(self.cast<const T &>(), self, key, false).present;
  });
  cls.def(
      "__eq__", [](const T &a, const T &b) { return toValue(a) == toValue(b); },
      py::is_operator());
  cls.def(
      "__ne__",
      [](const T &a, const T &b) { return !(toValue(a) == toValue(b)); },
      py::is_operator());
  cls.attr("__hash__") = py::none();
  cls.def("__repr__", [keyList](py::object self) {
    const T &r = self.cast<const T &>();
    std::string s =
        std::string(py::str(self.get_type().attr("__name__"))) + "(";
    int shown = 0;
    for (const std::string &k : *keyList) {
      Finder f = find(r, self, k, true);
      if (!f.present)
        continue;
      if (shown == 8) {
        s += ", ...";
        break;
      }
      s += (shown++ ? ", " : "") + k + "=" + shortRepr(f.value);
    }
    return s + ")";
  });
  cls.def("__copy__", [](const T &r) { return T(r); });
  cls.def("__deepcopy__", [](const T &r, py::handle) { return T(r); });
  cls.def(py::pickle([](const T &r) { return py::make_tuple(toText(r, -1)); },
                     [](const py::tuple &t) {
                       return fromText<T>(t[0].cast<std::string>());
                     }));
  return cls;
}

/// Named accumulators of seconds (q2.ProfilingStats): each a Stats (exact
/// median), in the order first recorded.
struct NamedStats {
  std::vector<std::pair<std::string, prof::Stats>> entries;
  const prof::Stats *find(const std::string &n) const {
    for (const auto &e : entries)
      if (e.first == n)
        return &e.second;
    return nullptr;
  }
  prof::Stats &get(const std::string &n) {
    for (auto &e : entries)
      if (e.first == n)
        return e.second;
    entries.emplace_back(n, prof::Stats());
    return entries.back().second;
  }
  /// `fn` of the named Stats, or `empty` for a name never recorded.
  template <class R, class F> R of(const std::string &n, F fn, R empty) const {
    const prof::Stats *s = find(n);
    return s ? fn(*s) : empty;
  }
};

/// q2.MemoryTimeline: the library's sampler (thread backend: a timer signal
/// would interrupt the interpreter's system calls) as a context manager,
/// keeping the record taken when it stopped.
struct PyTimeline {
  std::unique_ptr<prof::TimelineSampler> sampler;
  std::optional<prof::TimelineRecord> stopped;
  prof::TimelineRecord record() const {
    return stopped ? *stopped : sampler->record(true);
  }
  void stop() {
    {
      py::gil_scoped_release release;
      sampler->stop();
    }
    stopped = sampler->record(true);
  }
};

} // namespace

void q2py::bindRecords(py::module_ &m) {
  //--- record classes -------------------------------------------------------
  bindRecord<prof::ProcStatus>(m, "ProcStatus",
                               "/proc/<pid>/status's memory lines, bytes.");
  bindRecord<prof::RUsage>(m, "RUsage", "getrusage of this process.");
  bindRecord<prof::HeapInfo>(m, "HeapInfo", "The C/C++ heap (mallinfo2).");
  bindRecord<prof::MemorySnapshot>(m, "MemorySnapshot",
                                   "All memory layers at one instant.");
  bindRecord<prof::IRMetrics>(m, "IRMetrics", "Size of one IR form.");
  bindRecord<prof::StatsRecord>(m, "StatsRecord",
                                "Summary of repeated timings.");
  bindRecord<prof::TimelineSample>(m, "TimelineSample", "One RSS sample.");
  bindRecord<prof::TimelinePeak>(
      m, "TimelinePeak",
      "The highest sample, with smaps_rollup captured nearest below it.");
  bindRecord<prof::TimelineRecord>(m, "TimelineRecord",
                                   "What a memory timeline saw.");
  bindRecord<prof::PassRecord>(m, "PassRecord", "One pass execution.");
  bindRecord<prof::StageRecord>(m, "StageRecord", "One pipeline stage.");
  bindRecord<prof::SessionRecord>(m, "SessionRecord",
                                  "Stages, passes, snapshots, timeline.");
  bindRecord<prof::CacheRecord>(m, "CacheRecord", "The object cache.");
  bindRecord<prof::PhaseARecord>(m, "PhaseARecord",
                                 "Phase A run inside q2-opt.");
  bindRecord<prof::BlockRecord>(m, "BlockRecord",
                                "How one kind of powered block was applied.");
  bindRecord<prof::PhaseCSetRecord>(m, "PhaseCSetRecord",
                                    "One coefficient set run in Phase C.");
  bindRecord<prof::PhaseCRecord>(m, "PhaseCRecord", "Phase C.");
  bindRecord<q2::qpe::QPEMetadata>(
      m, "QPEMetadata",
      "What a QPE program is (QPEMetadata.def; the object's .q2.qpe "
      "section, the report's parameters).")
      .def_property_readonly("n_qubits", &q2::qpe::QPEMetadata::numQubits)
      .def_property_readonly("n_coeff_args",
                             &q2::qpe::QPEMetadata::numCoeffArgs)
      .def_property_readonly("format", [](const q2::qpe::QPEMetadata &) {
        return q2::qpe::kObjectFormat;
      });
  bindRecord<PyReport>(m, "ProfileReport",
                       "A q2.profile/3 report (q2-opt --report).")
      // The program's metadata, typed (the report carries it as a JSON
      // object whose keys the QPE model owns).
      .def_property_readonly(
          "parameters",
          [](const PyReport &r) -> py::object {
            if (!r.parameters)
              return py::none();
            return py::cast(
                unwrap(q2::qpe::fromJSON(r.parameters->text, "parameters")));
          })
      .def("compile_seconds", &PyReport::compileSeconds)
      .def("compile_peak_rss", &PyReport::compilePeakRSS)
      .def("stage_table",
           [](const PyReport &r) {
             return prof::formatStageTable(r.phaseB.stages);
           })
      .def(
          "pass_table",
          [](const PyReport &r, size_t top) {
            return prof::formatPassTable(r.phaseB.passes, top);
          },
          py::arg("top") = 20)
      .def(
          "write",
          [](const PyReport &r, PathArg path) {
            check(prof::writeReport(path.path, r));
          },
          py::arg("path"), "Writes the report atomically, as q2-opt --report.");
  bindRecord<q2::orch::MeasureRecord>(m, "MeasureRecord",
                                      "record.json of q2-profile measure.");
  bindRecord<q2::orch::PointPhases>(m, "PointPhases",
                                    "The measure records of a point's phases.");
  bindRecord<q2::orch::SlurmTaskRecord>(
      m, "SlurmTaskRecord", "The Slurm array task of a point (\"slurm\").");
  bindRecord<q2::orch::PointRecord>(m, "PointRecord",
                                    "result.json of a sweep point.");

  m.def(
      "read_report",
      [](PathArg path) { return unwrap(prof::readReport(path.path)); },
      py::arg("path"),
      "Reads a q2.profile/3 report (q2-opt --report; /2 is upgraded).");

  //--- memory ---------------------------------------------------------------
  m.def(
      "take_snapshot",
      [](const std::string &label, py::object pid, bool smaps) {
        return unwrap(prof::takeSnapshot(label, pidArg(pid), smaps));
      },
      py::arg("label"), py::arg("pid") = "self", py::arg("smaps") = false,
      "All memory layers now: /proc status, rusage and the C/C++ heap (own "
      "process only), optionally smaps_rollup.");
  m.def(
      "read_proc_status",
      [](py::object pid) { return unwrap(prof::readProcStatus(pidArg(pid))); },
      py::arg("pid") = "self", "/proc/<pid>/status in bytes.");
  m.def(
      "read_smaps_rollup",
      [](py::object pid) { return unwrap(prof::readSmapsRollup(pidArg(pid))); },
      py::arg("pid") = "self",
      "/proc/<pid>/smaps_rollup as {\"Rss\": bytes, \"Pss\": bytes, ...}.");
  m.def(
      "read_current_rss",
      [](py::object pid) { return unwrap(prof::readCurrentRSS(pidArg(pid))); },
      py::arg("pid") = "self");
  m.def(
      "reset_peak_rss",
      [](py::object pid) {
        std::string why;
        bool ok = prof::resetPeakRSS(pidArg(pid), &why);
        return py::make_tuple(ok, why);
      },
      py::arg("pid") = "self");
  m.def("elapsed_seconds", &prof::elapsedSeconds);
  m.def("process_cpu_seconds", &prof::processCPUSeconds);

  py::class_<PyTimeline>(
      m, "MemoryTimeline",
      "Samples the RSS every interval_s on a sampler thread while the block "
      "runs; keeps the peak and smaps_rollup captured near it.\n\n"
      "    with q2.MemoryTimeline(0.05) as tl:\n        work()\n"
      "    tl.peak.rss_bytes, tl.peak_smaps[\"Rss\"], len(tl.samples)")
      .def(py::init([](double intervalS, py::object pid, bool smapsAtPeaks) {
             prof::TimelineSampler::Options o;
             o.intervalMs = int(std::lround(intervalS * 1000));
             o.pid = pidArg(pid);
             o.smapsAtPeaks = smapsAtPeaks;
             o.backend = prof::TimelineSampler::Options::Backend::Thread;
             auto t = std::make_unique<PyTimeline>();
             t->sampler = unwrap(prof::TimelineSampler::create(o));
             return t;
           }),
           py::arg("interval_s") = 0.1, py::arg("pid") = "self",
           py::arg("smaps_at_peaks") = true)
      .def("start",
           [](PyTimeline &t) {
             t.stopped.reset();
             check(t.sampler->start());
           })
      .def("__enter__",
           [](py::object self) {
             PyTimeline &t = self.cast<PyTimeline &>();
             t.stopped.reset();
             check(t.sampler->start());
             return self;
           })
      .def("__exit__",
           [](PyTimeline &t, py::args) {
             t.stop();
             return false;
           })
      .def(
          "stop",
          [](PyTimeline &t) {
            t.stop();
            return *t.stopped;
          },
          "Stops (a last sample) and returns the record.")
      .def("sample_now", [](PyTimeline &t) { t.sampler->sampleNow(); })
      .def_property_readonly(
          "running", [](const PyTimeline &t) { return t.sampler->running(); })
      .def_property_readonly(
          "record", &PyTimeline::record,
          "The timeline record as in reports (interval_ms, sampler, peak, "
          "samples, ...); the live state while running.")
      .def_property_readonly(
          "samples",
          [](const PyTimeline &t) {
            std::vector<std::pair<double, uint64_t>> out;
            for (const auto &s : t.record().samples)
              out.emplace_back(s.t, s.rss);
            return out;
          },
          "[(t_s, rss_bytes), ...]")
      .def_property_readonly(
          "peak", [](const PyTimeline &t) { return t.record().peak; },
          "The highest sample (t_s, rss_bytes, smaps_rollup, ...), or None.")
      .def_property_readonly("peak_rss",
                             [](const PyTimeline &t) -> uint64_t {
                               auto p = t.record().peak;
                               return p ? p->sample.rss : 0;
                             })
      .def_property_readonly(
          "peak_smaps",
          [](const PyTimeline &t) -> std::optional<prof::SmapsRollup> {
            auto p = t.record().peak;
            return p ? p->smaps : std::nullopt;
          },
          "smaps_rollup captured at (or nearest below) the peak, or None.");

  //--- timing ---------------------------------------------------------------
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
      .def("record", &prof::Stats::record);

  using S = prof::Stats;
  py::class_<NamedStats>(
      m, "ProfilingStats",
      "Named accumulators of timings (seconds), each the library's Stats "
      "(exact median); a name never recorded reads 0.")
      .def(py::init<>())
      .def(
          "record",
          [](NamedStats &n, const std::string &name, double seconds) {
            n.get(name).add(seconds);
          },
          py::arg("name"), py::arg("seconds"))
      .def("names",
           [](const NamedStats &n) {
             std::vector<std::string> out;
             for (const auto &e : n.entries)
               out.push_back(e.first);
             return out;
           })
      .def("__contains__",
           [](const NamedStats &n, const std::string &name) {
             return n.find(name) != nullptr;
           })
      .def("count",
           [](const NamedStats &n, const std::string &k) {
             return n.of(
                 k, [](const S &s) { return s.count(); }, size_t(0));
           })
      .def("total",
           [](const NamedStats &n, const std::string &k) {
             return n.of(
                 k, [](const S &s) { return s.total(); }, 0.0);
           })
      .def("mean",
           [](const NamedStats &n, const std::string &k) {
             return n.of(
                 k, [](const S &s) { return s.mean(); }, 0.0);
           })
      .def("min",
           [](const NamedStats &n, const std::string &k) {
             return n.of(
                 k, [](const S &s) { return s.min(); }, 0.0);
           })
      .def("max",
           [](const NamedStats &n, const std::string &k) {
             return n.of(
                 k, [](const S &s) { return s.max(); }, 0.0);
           })
      .def("median",
           [](const NamedStats &n, const std::string &k) {
             return n.of(
                 k, [](const S &s) { return s.median(); }, 0.0);
           })
      .def("samples",
           [](const NamedStats &n, const std::string &k) {
             return n.of(
                 k, [](const S &s) { return s.samples(); },
                 std::vector<double>());
           })
      .def(
          "stats",
          [](const NamedStats &n, const std::string &k) {
            return n.of(
                k, [](const S &s) { return s.record(); }, prof::StatsRecord());
          },
          "count, total, mean, min, median, max, stddev as a StatsRecord.")
      .def(
          "summary",
          [](const NamedStats &n, std::optional<std::string> name, double scale,
             const std::string &unit) {
            if (name)
              return n.of(
                  *name, [&](const S &s) { return s.summary(scale, unit); },
                  S().summary(scale, unit));
            std::string out;
            for (const auto &[k, s] : n.entries)
              out +=
                  (out.empty() ? "" : "\n") + k + ": " + s.summary(scale, unit);
            return out;
          },
          py::arg("name") = py::none(), py::arg("scale") = 1e3,
          py::arg("unit") = "ms",
          "One line per name (\"name: n=5 total=14 mean=2.8 ... ms\"), or "
          "the line of one name.")
      .def("to_dict",
           [](const NamedStats &n) {
             py::dict d;
             for (const auto &[k, s] : n.entries)
               d[py::str(k)] = jsonToPy(json::toValue(s.record()));
             return d;
           })
      .def("reset", [](NamedStats &n) { n.entries.clear(); });
}
