//===- RawJSON.h - A JSON object carried as its text ------------*- C++ -*-===//
//
// A record field whose contents another library owns: the field lists
// (q2/Support/JSON.h) write it as the JSON object it holds and read any
// JSON object into it, without knowing its keys. The profile report's
// "parameters" is one: the QPE model writes and reads them
// (qpe::toJSON / qpe::fromJSON), the profiling core only carries them.
// No nlohmann here, so that typed headers can hold one.
//
//===----------------------------------------------------------------------===//
#ifndef Q2_SUPPORT_RAWJSON_H
#define Q2_SUPPORT_RAWJSON_H

#include <string>

namespace q2::json {

struct RawObject {
  std::string text; ///< a JSON object, compact
  friend bool operator==(const RawObject &a, const RawObject &b) {
    return a.text == b.text;
  }
  friend bool operator!=(const RawObject &a, const RawObject &b) {
    return !(a == b);
  }
};

} // namespace q2::json

#endif // Q2_SUPPORT_RAWJSON_H
