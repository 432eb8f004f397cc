//===- JSON.h - nlohmann_json behind llvm::Error ----------------*- C++ -*-===//
//
// Q2Support's JSON layer (nlohmann_json is a public dependency of
// Q2Support): the libraries that read or write JSON include it; the other
// public headers expose typed structs only. Nothing here lets an nlohmann exception escape: parse
// errors, overflowing numbers (1e400), wrong types and non-UTF-8 strings all
// become an llvm::Error naming the file and the key path.
//
// Typed records are (de)serialized from one field list per type:
//
//   template <class V, class R> void fields(V &v, R &r) {
//     v("wall_s", r.wallS);
//     v.optional("ir", r.ir);
//   }
//
// json::toValue(r) writes every field, json::fromValue(cursor, r) reads them
// back; the list is written once, so writer and reader cannot disagree.
// json::dumpRecord(r) writes the text dump(toValue(r)) would, byte for byte,
// without building the tree (for large records written once: the profile
// report).
//
//===----------------------------------------------------------------------===//
#ifndef Q2_SUPPORT_JSON_H
#define Q2_SUPPORT_JSON_H

#include "q2/Support/RawJSON.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace q2::json {

using Value = nlohmann::json;

/// Parses `text`; errors are "<source>: invalid JSON: ...".
llvm::Expected<Value> parse(llvm::StringRef text, llvm::StringRef source);
/// Reads and parses a file (through q2::readInputFile: regular files only,
/// at most `maxBytes`).
llvm::Expected<Value> readFile(llvm::StringRef path,
                               uint64_t maxBytes = uint64_t(256) << 20);
/// Serializes (NaN/inf become null); fails on strings that are not UTF-8.
llvm::Expected<std::string> dump(const Value &v, int indent = 2);
/// Serializes, then writes atomically (q2::writeFileAtomically), with a
/// trailing newline. Nothing is written when serialization fails.
llvm::Error writeFile(llvm::StringRef path, const Value &v, int indent = 2);
/// Writes `text` (or the serialization error, naming `path`) as writeFile
/// does.
llvm::Error writeTextFile(llvm::StringRef path,
                          llvm::Expected<std::string> text);

/// A position in a parsed document: the value plus its source file and
/// key path ("phase_b.stages[2].wall_s") for messages.
class Cursor {
public:
  Cursor(const Value &v, std::string source, std::string path = "")
      : v(&v), src(std::move(source)), keyPath(std::move(path)) {}

  const Value &value() const { return *v; }
  const std::string &source() const { return src; }
  const std::string &path() const { return keyPath; }
  /// "<source>: <path>: msg" (or "<source>: msg" at the root).
  llvm::Error error(const llvm::Twine &msg) const;

  bool isNull() const { return v->is_null(); }
  bool isObject() const { return v->is_object(); }
  bool isArray() const { return v->is_array(); }
  bool has(llvm::StringRef key) const;
  /// A required member; error if absent or if this is not an object.
  llvm::Expected<Cursor> at(llvm::StringRef key) const;
  /// An optional member: nullopt when absent (or null).
  std::optional<Cursor> find(llvm::StringRef key) const;
  /// Array elements; error if this is not an array.
  llvm::Expected<std::vector<Cursor>> elements() const;

  llvm::Expected<double> number() const; ///< finite
  llvm::Expected<int64_t> integer() const;
  llvm::Expected<uint64_t> unsignedInteger() const;
  llvm::Expected<bool> boolean() const;
  llvm::Expected<std::string> string() const;

private:
  std::string member(llvm::StringRef key) const;
  const Value *v;
  std::string src, keyPath;
};

//===----------------------------------------------------------------------===//
// Field-list (de)serialization
//===----------------------------------------------------------------------===//

template <class T> Value toValue(const T &r);
template <class T> llvm::Error fromValue(const Cursor &c, T &r);

/// Declares the field list of record `Type` (for const and non-const use):
///   Q2_JSON_FIELDS(StageRecord) { v("name", r.name); ... }
#define Q2_JSON_FIELDS(Type)                                                   \
  template <class V, class R,                                                  \
            std::enable_if_t<std::is_same_v<std::remove_const_t<R>, Type>,     \
                             int> = 0>                                         \
  void fields(V &v, R &r)

namespace detail {
template <class T> struct IsOptional : std::false_type {};
template <class T> struct IsOptional<std::optional<T>> : std::true_type {};
template <class T> struct IsVector : std::false_type {};
template <class T> struct IsVector<std::vector<T>> : std::true_type {};
template <class T> struct IsVariant : std::false_type {};
template <class... Ts>
struct IsVariant<std::variant<Ts...>> : std::true_type {};
/// A record type may declare `llvm::Error checkRecord(const Cursor &, const
/// T &)` next to its field list (found by ADL): fromValue calls it after the
/// fields are read, so every reader of the type refuses the same values
/// (e.g. a null or negative time), naming the file and key.
template <class T, class = void> struct HasCheck : std::false_type {};
template <class T>
struct HasCheck<T, std::void_t<decltype(checkRecord(
                       std::declval<const Cursor &>(), std::declval<const T &>()))>>
    : std::true_type {};
template <class T> struct IsStringMap : std::false_type {};
template <class T>
struct IsStringMap<std::map<std::string, T>> : std::true_type {};

/// Writes the fields of a record into an object.
struct Writer {
  Value &j;
  template <class T> void operator()(const char *key, const T &x) {
    j[key] = toValue(x);
  }
  /// Written only when set.
  template <class T> void optional(const char *key, const std::optional<T> &x) {
    if (x)
      j[key] = toValue(*x);
  }
  /// Written only when not equal to `dflt` (e.g. empty strings).
  template <class T> void unlessDefault(const char *key, const T &x,
                                        const T &dflt) {
    if (!(x == dflt))
      j[key] = toValue(x);
  }
  /// Written only when `cond` holds (read back when present).
  template <class T> void when(bool cond, const char *key, const T &x) {
    if (cond)
      j[key] = toValue(x);
  }
  /// Written for readers of the file, not read back (derived from fields).
  template <class T> void derived(const char *key, const T &x) {
    j[key] = toValue(x);
  }
  static constexpr bool reading = false;
};

/// Reads the fields of a record from an object; the first error sticks.
struct Reader {
  const Cursor &c;
  llvm::Error err = llvm::Error::success();
  explicit Reader(const Cursor &c) : c(c) {}
  template <class T> void operator()(const char *key, T &x) {
    if (err)
      return;
    auto m = c.at(key);
    if (!m) {
      err = m.takeError();
      return;
    }
    err = fromValue(*m, x);
  }
  template <class T> void optional(const char *key, std::optional<T> &x) {
    if (err)
      return;
    if (auto m = c.find(key)) {
      T value{};
      err = fromValue(*m, value);
      x = std::move(value);
    } else {
      x.reset();
    }
  }
  template <class T> void unlessDefault(const char *key, T &x, const T &dflt) {
    if (err)
      return;
    if (auto m = c.find(key))
      err = fromValue(*m, x);
    else
      x = dflt;
  }
  template <class T> void when(bool, const char *key, T &x) {
    if (err)
      return;
    if (auto m = c.find(key))
      err = fromValue(*m, x);
  }
  template <class T> void derived(const char *, const T &) {}
  static constexpr bool reading = true;
};
} // namespace detail

template <class... Ts>
std::tuple<Ts *...> variantTags(std::variant<Ts...> *) {
  return {static_cast<Ts *>(nullptr)...};
}

/// Scalars, strings, vectors, optionals, string-keyed maps, raw objects,
/// and records with a `fields(V&, R&)` overload found by ADL.
template <class T> Value toValue(const T &x) {
  if constexpr (std::is_same_v<T, bool> || std::is_arithmetic_v<T> ||
                std::is_same_v<T, std::string>) {
    return Value(x);
  } else if constexpr (std::is_same_v<T, RawObject>) {
    // Its owner wrote it; a text that does not parse is not written.
    Value v = Value::parse(x.text, nullptr, /*allow_exceptions=*/false);
    return v.is_object() ? v : Value::object();
  } else if constexpr (std::is_enum_v<T>) {
    return Value(toString(x).str());
  } else if constexpr (detail::IsOptional<T>::value) {
    return x ? toValue(*x) : Value(nullptr);
  } else if constexpr (detail::IsVariant<T>::value) {
    return std::visit([](const auto &e) { return toValue(e); }, x);
  } else if constexpr (detail::IsVector<T>::value) {
    Value a = Value::array();
    for (const auto &e : x)
      a.push_back(toValue(e));
    return a;
  } else if constexpr (detail::IsStringMap<T>::value) {
    Value o = Value::object();
    for (const auto &[k, e] : x)
      o[k] = toValue(e);
    return o;
  } else {
    Value o(Value::value_t::object);
    detail::Writer w{o};
    fields(w, x);
    return o;
  }
}

template <class T> llvm::Error fromValue(const Cursor &c, T &x) {
  if constexpr (std::is_same_v<T, RawObject>) {
    if (!c.value().is_object())
      return c.error("expected an object");
    auto text = dump(c.value(), -1);
    if (!text)
      return text.takeError();
    x.text = std::move(*text);
  } else if constexpr (std::is_same_v<T, bool>) {
    auto b = c.boolean();
    if (!b)
      return b.takeError();
    x = *b;
  } else if constexpr (std::is_floating_point_v<T>) {
    // NaN and infinities are written as null.
    if (c.isNull()) {
      x = std::numeric_limits<T>::quiet_NaN();
      return llvm::Error::success();
    }
    auto d = c.number();
    if (!d)
      return d.takeError();
    x = T(*d);
  } else if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
    auto i = c.integer();
    if (!i)
      return i.takeError();
    if (*i < int64_t(std::numeric_limits<T>::min()) ||
        *i > int64_t(std::numeric_limits<T>::max()))
      return c.error("integer out of range");
    x = T(*i);
  } else if constexpr (std::is_integral_v<T>) {
    auto u = c.unsignedInteger();
    if (!u)
      return u.takeError();
    if (*u > uint64_t(std::numeric_limits<T>::max()))
      return c.error("integer out of range");
    x = T(*u);
  } else if constexpr (std::is_same_v<T, std::string>) {
    auto s = c.string();
    if (!s)
      return s.takeError();
    x = std::move(*s);
  } else if constexpr (std::is_enum_v<T>) {
    auto s = c.string();
    if (!s)
      return s.takeError();
    std::optional<T> e = parseEnum(*s, (T *)nullptr);
    if (!e)
      return c.error("unknown value '" + *s + "'");
    x = *e;
  } else if constexpr (detail::IsVariant<T>::value) {
    // Scalar variants (bool, integer, floating, string) by JSON type.
    const Value &j = c.value();
    llvm::Error err = c.error("unsupported value type");
    bool done = false;
    auto tryAlt = [&](auto *tag) {
      using A = std::remove_pointer_t<decltype(tag)>;
      if (done)
        return;
      bool match = (std::is_same_v<A, bool> && j.is_boolean()) ||
                   (std::is_integral_v<A> && !std::is_same_v<A, bool> &&
                    j.is_number_integer()) ||
                   (std::is_floating_point_v<A> && j.is_number_float()) ||
                   (std::is_same_v<A, std::string> && j.is_string());
      if (!match)
        return;
      A a{};
      llvm::consumeError(std::move(err));
      err = fromValue(c, a);
      x = std::move(a);
      done = true;
    };
    std::apply([&](auto *...tags) { (tryAlt(tags), ...); },
               variantTags(static_cast<T *>(nullptr)));
    return err;
  } else if constexpr (detail::IsOptional<T>::value) {
    if (c.isNull()) {
      x.reset();
      return llvm::Error::success();
    }
    typename T::value_type v{};
    if (llvm::Error e = fromValue(c, v))
      return e;
    x = std::move(v);
  } else if constexpr (detail::IsVector<T>::value) {
    auto elems = c.elements();
    if (!elems)
      return elems.takeError();
    x.clear();
    x.reserve(elems->size());
    for (const Cursor &e : *elems) {
      typename T::value_type v{};
      if (llvm::Error err = fromValue(e, v))
        return err;
      x.push_back(std::move(v));
    }
  } else if constexpr (detail::IsStringMap<T>::value) {
    if (!c.isObject())
      return c.error("expected an object");
    x.clear();
    for (auto it = c.value().begin(); it != c.value().end(); ++it) {
      typename T::mapped_type v{};
      Cursor e(it.value(), c.source(),
               c.path().empty() ? it.key() : c.path() + "." + it.key());
      if (llvm::Error err = fromValue(e, v))
        return err;
      x.emplace(it.key(), std::move(v));
    }
  } else {
    if (!c.isObject())
      return c.error("expected an object");
    detail::Reader r(c);
    fields(r, x);
    if (r.err)
      return std::move(r.err);
    if constexpr (detail::HasCheck<T>::value)
      return checkRecord(c, std::as_const(x));
  }
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// Streaming serialization
//===----------------------------------------------------------------------===//

namespace detail {
/// Appends JSON text to a string as nlohmann's dump(indent) prints it
/// (indent < 0: compact): the same separators, string escapes and number
/// format (nlohmann's own float formatter). Containers are written by the
/// templates below; a record's members are written in field-list order and
/// then reordered by key (closeRecord), as nlohmann's std::map orders them.
class TextWriter {
public:
  TextWriter(std::string &out, int indent) : out(out), indent(indent) {}

  void null() { out += "null"; }
  void boolean(bool b) { out += b ? "true" : "false"; }
  void integer(int64_t i);
  void unsignedInteger(uint64_t u);
  void number(double d); ///< NaN and infinities as null
  void string(llvm::StringRef s); ///< the first non-UTF-8 string is an error
  void rawObject(const RawObject &o);

  void open(char bracket);
  /// Before each element of an array or map (`index` from 0).
  void element(size_t index);
  void key(llvm::StringRef k);
  void close(char bracket, size_t count);

  /// A record's values follow, one level deeper (no bracket yet).
  void openRecord() { ++depth; }
  /// One member of a record: its key and where its value's text is.
  struct Member {
    const char *key;
    size_t begin, end;
  };
  /// The record's values were appended from `start` (one level deeper);
  /// replaces them with the object, keys sorted, the last of equal keys.
  void closeRecord(size_t start, llvm::SmallVectorImpl<Member> &members);

  std::string &out;
  /// Set by the first string that is not UTF-8.
  std::string error;

private:
  /// Members of a key sequence in output order (duplicates dropped).
  struct Order {
    llvm::SmallVector<const char *, 32> keys;
    llvm::SmallVector<unsigned, 32> emit, lengths;
  };
  const Order &orderOf(llvm::ArrayRef<Member> members);
  void newline(unsigned level);
  int indent;
  unsigned depth = 0; ///< nesting level of the values being written
  std::string scratch;
  /// Per first key (a record type), its key sequences seen.
  llvm::DenseMap<const char *, llvm::SmallVector<Order, 2>> orders;
};

template <class T> void writeText(TextWriter &w, const T &x);

/// The field-list visitor of TextWriter: each field's value is written as
/// it is visited (values may be temporaries of the field list).
struct MemberWriter {
  TextWriter &w;
  llvm::SmallVectorImpl<TextWriter::Member> &members;
  template <class T> void member(const char *key, const T &x) {
    size_t begin = w.out.size();
    writeText(w, x);
    members.push_back({key, begin, w.out.size()});
  }
  template <class T> void operator()(const char *key, const T &x) {
    member(key, x);
  }
  template <class T> void optional(const char *key, const std::optional<T> &x) {
    if (x)
      member(key, *x);
  }
  template <class T> void unlessDefault(const char *key, const T &x,
                                        const T &dflt) {
    if (!(x == dflt))
      member(key, x);
  }
  template <class T> void when(bool cond, const char *key, const T &x) {
    if (cond)
      member(key, x);
  }
  template <class T> void derived(const char *key, const T &x) {
    member(key, x);
  }
  static constexpr bool reading = false;
};

/// As toValue(x), as text.
template <class T> void writeText(TextWriter &w, const T &x) {
  if constexpr (std::is_same_v<T, bool>) {
    w.boolean(x);
  } else if constexpr (std::is_floating_point_v<T>) {
    w.number(double(x));
  } else if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
    w.integer(int64_t(x));
  } else if constexpr (std::is_integral_v<T>) {
    w.unsignedInteger(uint64_t(x));
  } else if constexpr (std::is_same_v<T, std::string>) {
    w.string(x);
  } else if constexpr (std::is_same_v<T, RawObject>) {
    w.rawObject(x);
  } else if constexpr (std::is_enum_v<T>) {
    w.string(toString(x));
  } else if constexpr (IsOptional<T>::value) {
    if (x)
      writeText(w, *x);
    else
      w.null();
  } else if constexpr (IsVariant<T>::value) {
    std::visit([&](const auto &e) { writeText(w, e); }, x);
  } else if constexpr (IsVector<T>::value) {
    w.open('[');
    size_t i = 0;
    for (const auto &e : x) {
      w.element(i++);
      writeText(w, e);
    }
    w.close(']', i);
  } else if constexpr (IsStringMap<T>::value) {
    // std::map's order is nlohmann's.
    w.open('{');
    size_t i = 0;
    for (const auto &[k, e] : x) {
      w.element(i++);
      w.key(k);
      writeText(w, e);
    }
    w.close('}', i);
  } else {
    size_t start = w.out.size();
    llvm::SmallVector<TextWriter::Member, 32> members;
    w.openRecord();
    MemberWriter m{w, members};
    fields(m, x);
    w.closeRecord(start, members);
  }
}
} // namespace detail

/// The text dump(toValue(r), indent) returns, written directly.
/// `sizeHint`: the expected length (the text then grows without copies).
template <class T>
llvm::Expected<std::string> dumpRecord(const T &r, int indent = 2,
                                       size_t sizeHint = 0) {
  std::string out;
  out.reserve(sizeHint);
  detail::TextWriter w(out, indent);
  detail::writeText(w, r);
  if (!w.error.empty())
    return llvm::createStringError("cannot serialize JSON: " + w.error);
  return out;
}

/// writeFile(path, toValue(r), indent), without building the tree.
template <class T>
llvm::Error writeRecordFile(llvm::StringRef path, const T &r, int indent = 2,
                            size_t sizeHint = 0) {
  return writeTextFile(path, dumpRecord(r, indent, sizeHint));
}

} // namespace q2::json

#endif // Q2_SUPPORT_JSON_H
