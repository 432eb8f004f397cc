//===- ObjectDigest.h - SHA-256 seal of a compiled object -------*- C++ -*-===//
//
// Every object stage 6 emits carries a section .q2.digest of 32 bytes: the
// SHA-256 of the whole file with those 32 bytes read as zeros (code,
// relocations, constants, metadata, symbol table and headers alike). The
// JIT and the object reader check it before anything else looks at the
// object, so a corrupted or edited object is refused in one line instead of
// being linked (docs/reliability.md, threat model).
//
//===----------------------------------------------------------------------===//
#ifndef Q2_SUPPORT_OBJECTDIGEST_H
#define Q2_SUPPORT_OBJECTDIGEST_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

namespace llvm::object {
class ObjectFile;
} // namespace llvm::object

namespace q2 {

inline constexpr const char *kDigestSection = ".q2.digest";
inline constexpr const char *kDigestSymbol = "__q2_digest";
inline constexpr size_t kDigestSize = 32;

/// Writes the digest into the object's .q2.digest section (which must be
/// there, kDigestSize bytes).
llvm::Error sealObject(llvm::MutableArrayRef<char> object);

/// Succeeds only for an object whose .q2.digest section (exactly one, of
/// kDigestSize bytes) holds the digest of its bytes. `source` names the
/// object in the message.
llvm::Error checkObjectDigest(llvm::ArrayRef<char> object,
                              llvm::StringRef source);
/// The same for an object already parsed (its whole buffer is hashed).
llvm::Error checkObjectDigest(const llvm::object::ObjectFile &file,
                              llvm::StringRef source);

} // namespace q2

#endif // Q2_SUPPORT_OBJECTDIGEST_H
