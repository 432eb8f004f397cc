//===- JSON.cpp - nlohmann_json behind llvm::Error ------------------------===//
#include "q2/Support/JSON.h"

#include "q2/Support/FileIO.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <algorithm>
#include <cassert>
#include <charconv>
#include <cstring>

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
  return writeTextFile(path, dump(v, indent));
}

Error writeTextFile(StringRef path, Expected<std::string> text) {
  if (!text)
    return createStringError(path + ": " + toString(text.takeError()));
  return writeFileAtomically(path, [&](raw_ostream &os) {
    os << *text << '\n';
    return Error::success();
  });
}

//===----------------------------------------------------------------------===//
// TextWriter
//===----------------------------------------------------------------------===//

namespace detail {

void TextWriter::integer(int64_t i) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, i);
  out.append(buf, r.ptr);
}

void TextWriter::unsignedInteger(uint64_t u) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, u);
  out.append(buf, r.ptr);
}

void TextWriter::number(double d) {
  if (!std::isfinite(d))
    return null();
  // nlohmann's serializer formats floats with this (shortest round-trip
  // digits, "1.0" for integral values, "1e-05" style exponents).
  char buf[64];
  char *end = nlohmann::detail::to_chars(buf, buf + sizeof buf, d);
  out.append(buf, end);
}

void TextWriter::string(StringRef s) {
  out += '"';
  // nlohmann's escapes (ensure_ascii off): the two-character ones, \u00xx
  // for other control characters; other bytes as they are, if UTF-8.
  bool ascii = true;
  size_t run = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    unsigned char c = s[i];
    if (c >= 0x80)
      ascii = false;
    if (c >= 0x20 && c != '"' && c != '\\')
      continue;
    out.append(s.data() + run, i - run);
    run = i + 1;
    switch (c) {
    case '"': out += "\\\""; break;
    case '\\': out += "\\\\"; break;
    case '\b': out += "\\b"; break;
    case '\t': out += "\\t"; break;
    case '\n': out += "\\n"; break;
    case '\f': out += "\\f"; break;
    case '\r': out += "\\r"; break;
    default: {
      static const char hex[] = "0123456789abcdef";
      char esc[] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
      out.append(esc, sizeof esc);
    }
    }
  }
  out.append(s.data() + run, s.size() - run);
  out += '"';
  size_t at = 0;
  if (!ascii && error.empty() && !llvm::json::isUTF8(s, &at))
    error = formatv("a string is not UTF-8 (byte {0} of \"{1}\")", at,
                    llvm::json::fixUTF8(s.take_front(40)))
                .str();
}

void TextWriter::rawObject(const RawObject &o) {
  // Its owner wrote it; a text that does not parse is written as {}.
  Value v = Value::parse(o.text, nullptr, /*allow_exceptions=*/false);
  if (!v.is_object() || v.empty()) {
    out += "{}";
    return;
  }
  auto text = json::dump(v, indent);
  if (!text) {
    if (error.empty())
      error = toString(text.takeError());
    else
      consumeError(text.takeError());
    out += "{}";
    return;
  }
  if (indent < 0) {
    out += *text;
    return;
  }
  // Printed at level 0: its lines move to this level.
  std::string pad(size_t(indent) * depth, ' ');
  for (char c : *text) {
    out += c;
    if (c == '\n')
      out += pad;
  }
}

void TextWriter::newline(unsigned level) {
  out += '\n';
  out.append(size_t(indent) * level, ' ');
}

void TextWriter::open(char bracket) {
  out += bracket;
  ++depth;
}

void TextWriter::element(size_t index) {
  if (index)
    out += ',';
  if (indent >= 0)
    newline(depth);
}

void TextWriter::key(StringRef k) {
  string(k);
  out += indent < 0 ? ":" : ": ";
}

void TextWriter::close(char bracket, size_t count) {
  --depth;
  if (count && indent >= 0)
    newline(depth);
  out += bracket;
}

const TextWriter::Order &TextWriter::orderOf(ArrayRef<Member> members) {
  // Records of one type visit a few key sequences (optional fields absent
  // or present, often alternating): the order is computed once per key
  // sequence (keys are the field list's literals), a few kept per type.
  auto same = [&](const Order &o) {
    return o.keys.size() == members.size() &&
           std::equal(o.keys.begin(), o.keys.end(), members.begin(),
                      [](const char *k, const Member &m) { return k == m.key; });
  };
  SmallVector<Order, 2> &known = orders[members.front().key];
  for (Order &o : known)
    if (same(o))
      return o;
  constexpr size_t kOrdersPerType = 8;
  if (known.size() < kOrdersPerType)
    known.emplace_back();
  Order &o = known.back();
  o.keys.clear();
  for (const Member &m : members)
    o.keys.push_back(m.key);
  SmallVector<unsigned, 32> idx(members.size());
  for (unsigned i = 0; i < idx.size(); ++i)
    idx[i] = i;
  // Stable: of equal keys (a field list that writes one twice) the last
  // wins, as a second j[key] = ... does.
  std::stable_sort(idx.begin(), idx.end(), [&](unsigned a, unsigned b) {
    return std::strcmp(members[a].key, members[b].key) < 0;
  });
  o.emit.clear();
  o.lengths.clear();
  for (size_t i = 0; i < idx.size(); ++i) {
    if (i + 1 < idx.size() &&
        std::strcmp(members[idx[i]].key, members[idx[i + 1]].key) == 0)
      continue;
    const char *k = members[idx[i]].key;
    size_t len = std::strlen(k);
    // Field-list keys are ASCII names: nothing to escape.
    assert(std::all_of(k, k + len, [](char c) {
      return c > 0x20 && c < 0x7f && c != '"' && c != '\\';
    }));
    o.emit.push_back(idx[i]);
    o.lengths.push_back(unsigned(len));
  }
  return o;
}

void TextWriter::closeRecord(size_t start,
                             SmallVectorImpl<Member> &members) {
  if (members.empty()) {
    out += '{';
    close('}', 0);
    return;
  }
  const Order &o = orderOf(members);
  scratch.assign(out, start, std::string::npos);
  // The object's length is known: size it once and copy into place (about
  // half the cost of appending key, separator and value one by one).
  bool pretty = indent >= 0;
  size_t pad = pretty ? size_t(indent) * depth : 0;
  size_t sep = pretty ? 3 : 2; // "\": " or "\":"
  size_t n = o.emit.size(), total = 1 + (n - 1); // '{', commas
  if (pretty)
    total += n * (1 + pad);
  for (size_t i = 0; i < n; ++i) {
    const Member &m = members[o.emit[i]];
    total += 1 + o.lengths[i] + sep + (m.end - m.begin);
  }
  out.resize(start + total);
  char *at = out.data() + start;
  auto put = [&](const char *text, size_t len) {
    std::memcpy(at, text, len);
    at += len;
  };
  auto newlineAt = [&](size_t spaces) {
    *at++ = '\n';
    std::memset(at, ' ', spaces);
    at += spaces;
  };
  *at++ = '{';
  for (size_t i = 0; i < n; ++i) {
    const Member &m = members[o.emit[i]];
    if (i)
      *at++ = ',';
    if (pretty)
      newlineAt(pad);
    *at++ = '"';
    put(m.key, o.lengths[i]);
    put("\": ", sep);
    put(scratch.data() + (m.begin - start), m.end - m.begin);
  }
  assert(at == out.data() + out.size() && "closeRecord: length mismatch");
  close('}', n);
}

} // namespace detail

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
