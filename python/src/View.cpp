//===- View.cpp - _q2: reports as tables and HTML pages -------------------===//
//
// q2.show / q2.view (python/q2/view.py) over the profiling library's views
// (q2/Profiling/ReportView.h, ReportHTML.h): the same text as `q2-profile
// show` and the same page as `q2-profile html`. A report is a path or the
// JSON text of a report record (ProfileReport.to_json()); either is read by
// the project's reader first, so Python refuses what the tools refuse.
//
//===----------------------------------------------------------------------===//
#include "Common.h"

#include "q2/Profiling/Report.h"
#include "q2/Profiling/ReportHTML.h"
#include "q2/Profiling/ReportView.h"

#include <pybind11/stl.h>

namespace py = pybind11;
namespace prof = q2::profiling;
namespace view = q2::profiling::view;
namespace html = q2::profiling::html;
using q2py::check;
using q2py::unwrap;

namespace {

/// A report path, or a report's JSON text (it starts with '{').
q2::json::Value document(const std::string &report) {
  llvm::StringRef s = llvm::StringRef(report).ltrim();
  if (!s.starts_with("{"))
    return unwrap(view::loadReportDocument(report));
  unwrap(prof::fromJSONText<prof::ProfileReport>(s, "<report>"));
  return unwrap(q2::json::parse(s, "<report>"));
}

} // namespace

namespace q2py {
void bindView(py::module_ &m) {
  m.def(
      "view_text",
      [](const std::string &report, const std::string &label, unsigned width,
         unsigned top, const std::string &by, bool flat, unsigned fold) {
        view::TextOptions o;
        auto metric = view::parseTopMetric(by);
        if (!metric)
          throw py::value_error("by: '" + by + "' is not one of time, heap, ir");
        if (width < 60)
          throw py::value_error("width must be at least 60");
        o.width = width;
        o.top = top;
        o.topBy = *metric;
        o.flat = flat;
        o.fold = fold;
        return view::formatView(view::buildView(document(report), label), o);
      },
      py::arg("report"), py::arg("label"), py::arg("width") = 100,
      py::arg("top") = 0, py::arg("by") = "time", py::arg("flat") = false,
      py::arg("fold") = 15);
  m.def(
      "view_json",
      [](const std::string &report, const std::string &label) {
        return unwrap(q2::json::dump(
            view::buildView(document(report), label), -1));
      },
      py::arg("report"), py::arg("label"));
  m.def(
      "report_html",
      [](const std::vector<std::string> &reports,
         const std::vector<std::string> &labels, const std::string &title) {
        if (!html::available())
          throw std::runtime_error("this q2 was built without plotly.js "
                                   "(install python3-plotly and rebuild)");
        html::PageInputs in;
        in.title = title;
        for (size_t i = 0; i < reports.size(); ++i)
          in.views.push_back(view::buildView(
              document(reports[i]), i < labels.size() ? labels[i] : ""));
        return unwrap(html::renderPage(in));
      },
      py::arg("reports"), py::arg("labels"), py::arg("title"));
}
} // namespace q2py
