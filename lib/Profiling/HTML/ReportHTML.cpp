//===- ReportHTML.cpp - One self-contained HTML page of profiles ----------===//
//
// A template (report.html) with three slots filled here: the style, the
// scripts (plotly.js, then the page's report.js) and the data, a JSON
// document in a <script type="application/json"> element. "</" inside the
// JSON is written "<\/" so no string in a report can close that element.
//
//===----------------------------------------------------------------------===//
#include "q2/Profiling/ReportHTML.h"

#include "q2/Support/FileIO.h"

#include <string_view>
#include <utility>

namespace q2::profiling::html::assets {
std::string_view report_html();
std::string_view report_js();
std::string_view report_css();
#ifdef Q2_HAVE_PLOTLY
std::string_view plotly_js();
#endif
} // namespace q2::profiling::html::assets

using namespace q2::profiling::html;

bool q2::profiling::html::available() {
#ifdef Q2_HAVE_PLOTLY
  return true;
#else
  return false;
#endif
}

namespace {
/// Script text that cannot end its <script> element early.
std::string scriptSafe(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '<' && i + 1 < text.size() && text[i + 1] == '/') {
      out += "<\\/";
      ++i;
      continue;
    }
    out += text[i];
  }
  return out;
}
} // namespace

llvm::Expected<std::string>
q2::profiling::html::renderPage(const PageInputs &in) {
#ifndef Q2_HAVE_PLOTLY
  return llvm::createStringError(
      "this q2 was built without plotly.js, which the HTML report embeds "
      "(install python3-plotly, or set Q2_PLOTLY_JS, and rebuild)");
#else
  json::Value data = json::Value::object();
  data["schema"] = "q2.page/1";
  data["title"] = in.title;
  data["views"] = json::Value::array();
  for (const json::Value &v : in.views)
    data["views"].push_back(v);
  if (in.compare)
    data["compare"] = *in.compare;
  if (in.sweep)
    data["sweep"] = *in.sweep;
  auto text = json::dump(data, -1);
  if (!text)
    return text.takeError();
  std::string title;
  for (char c : in.title) // the <title> element: text, escaped
    title += c == '<' ? "&lt;" : c == '&' ? "&amp;" : std::string(1, c);
  // The template is cut at its slots once, so nothing inserted (a pass
  // name, plotly.js) is ever taken for a slot.
  std::pair<std::string_view, std::string> slots[] = {
      {"<!--Q2_TITLE-->", title},
      {"/*Q2_STYLE*/", std::string(assets::report_css())},
      {"/*Q2_DATA*/", scriptSafe(*text)},
      {"/*Q2_PLOTLY*/", scriptSafe(assets::plotly_js())},
      {"/*Q2_SCRIPT*/", scriptSafe(assets::report_js())}};
  std::string_view tpl = assets::report_html();
  std::string page;
  size_t from = 0;
  for (auto &[slot, value] : slots) {
    size_t at = tpl.find(slot, from);
    if (at == std::string_view::npos)
      return llvm::createStringError("the HTML template lacks the slot " +
                                     std::string(slot));
    page.append(tpl.substr(from, at - from));
    page += value;
    from = at + slot.size();
  }
  page.append(tpl.substr(from));
  return page;
#endif
}

llvm::Error q2::profiling::html::writePage(llvm::StringRef path,
                                           const PageInputs &in) {
  auto page = renderPage(in);
  if (!page)
    return page.takeError();
  return q2::writeFileAtomically(path, *page);
}
