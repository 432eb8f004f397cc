//===- JSON.cpp - nlohmann_json behind llvm::Error ------------------------===//
#include "q2/Support/JSON.h"

#include "q2/Support/FileIO.h"

#include "llvm/Support/FormatVariadic.h"

using namespace llvm;

namespace q2::json {

Expected<Value> parse(StringRef text, StringRef source) {
  try {
    return Value::parse(text.begin(), text.end());
  } catch (const nlohmann::json::exception &e) {
    // parse_error (syntax) and out_of_range (e.g. 1e400) alike.
    std::string what = e.what();
    // "[json.exception.parse_error.101] parse error at line 1, column 2: ..."
    if (size_t close = what.find("] "); close != std::string::npos)
      what = what.substr(close + 2);
    return createStringError(source + ": invalid JSON: " + what);
  }
}

Expected<Value> readFile(StringRef path, uint64_t maxBytes) {
  auto buf = readInputFile(path, maxBytes);
  if (!buf)
    return buf.takeError();
  return parse((*buf)->getBuffer(), path);
}

Expected<std::string> dump(const Value &v, int indent) {
  try {
    return v.dump(indent);
  } catch (const nlohmann::json::exception &e) {
    return createStringError(Twine("cannot serialize JSON: ") + e.what());
  }
}

Error writeFile(StringRef path, const Value &v, int indent) {
  auto text = dump(v, indent);
  if (!text)
    return createStringError(path + ": " + toString(text.takeError()));
  return writeFileAtomically(path, [&](raw_ostream &os) {
    os << *text << '\n';
    return Error::success();
  });
}

Error Cursor::error(const Twine &msg) const {
  if (keyPath.empty())
    return createStringError(src + ": " + msg);
  return createStringError(src + ": " + keyPath + ": " + msg);
}

std::string Cursor::member(StringRef key) const {
  return keyPath.empty() ? key.str() : keyPath + "." + key.str();
}

bool Cursor::has(StringRef key) const {
  return v->is_object() && v->contains(key.str());
}

Expected<Cursor> Cursor::at(StringRef key) const {
  if (!v->is_object())
    return error("expected an object");
  auto it = v->find(key.str());
  if (it == v->end())
    return error("missing \"" + key + "\"");
  return Cursor(*it, src, member(key));
}

std::optional<Cursor> Cursor::find(StringRef key) const {
  if (!v->is_object())
    return std::nullopt;
  auto it = v->find(key.str());
  if (it == v->end() || it->is_null())
    return std::nullopt;
  return Cursor(*it, src, member(key));
}

Expected<std::vector<Cursor>> Cursor::elements() const {
  if (!v->is_array())
    return error("expected an array");
  std::vector<Cursor> out;
  out.reserve(v->size());
  for (size_t i = 0; i < v->size(); ++i)
    out.emplace_back((*v)[i], src, formatv("{0}[{1}]", keyPath, i).str());
  return out;
}

static const char *typeName(const Value &v) {
  return v.is_null() ? "null" : v.type_name();
}

Expected<double> Cursor::number() const {
  if (!v->is_number())
    return error(Twine("expected a number, got ") + typeName(*v));
  double d = v->get<double>();
  if (!std::isfinite(d))
    return error("number is not finite");
  return d;
}

Expected<int64_t> Cursor::integer() const {
  if (v->is_number_integer()) {
    if (v->is_number_unsigned() &&
        v->get<uint64_t>() > uint64_t(std::numeric_limits<int64_t>::max()))
      return error("integer out of range");
    return v->get<int64_t>();
  }
  return error(Twine("expected an integer, got ") + typeName(*v));
}

Expected<uint64_t> Cursor::unsignedInteger() const {
  if (v->is_number_unsigned())
    return v->get<uint64_t>();
  if (v->is_number_integer())
    return error("expected a non-negative integer");
  return error(Twine("expected an integer, got ") + typeName(*v));
}

Expected<bool> Cursor::boolean() const {
  if (!v->is_boolean())
    return error(Twine("expected true or false, got ") + typeName(*v));
  return v->get<bool>();
}

Expected<std::string> Cursor::string() const {
  if (!v->is_string())
    return error(Twine("expected a string, got ") + typeName(*v));
  return v->get<std::string>();
}

} // namespace q2::json
