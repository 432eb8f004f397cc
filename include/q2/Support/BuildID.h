//===- BuildID.h - Identity of the running q2 binary ------------*- C++ -*-===//
#ifndef Q2_SUPPORT_BUILDID_H
#define Q2_SUPPORT_BUILDID_H

#include <string>

namespace q2 {
/// The GNU build id (hex) of the executable or shared object this library
/// is linked into: it changes whenever the code does, so caches keyed by it
/// never serve results of an older build. Falls back to the size and mtime
/// of that file when there is no build-id note.
const std::string &buildID();
} // namespace q2

#endif // Q2_SUPPORT_BUILDID_H
