//===- ObjectIO.h - the .q2.qpe.io section (internal) -----------*- C++ -*-===//
//
// Next to the .q2.qpe JSON, an object compiled by q2-opt carries a second
// section stating, apart from the JSON, the buffers the compiled entry point
// reads and writes. readObjectMetadata compares the two, so an edited
// .q2.qpe section (e.g. n_est or mode changed) cannot make the host pass
// buffers of other sizes than the code uses.
//
//===----------------------------------------------------------------------===//
#ifndef Q2_LIB_QPE_OBJECTIO_H
#define Q2_LIB_QPE_OBJECTIO_H

#include "q2/QPE/QPEMetadata.h"

#include <string>

namespace q2::qpe {

inline constexpr const char *kObjectIOSection = ".q2.qpe.io";
inline constexpr const char *kObjectIOSymbol = "__q2_qpe_io";

/// "q2.qpe.io/1 coeffs=<n_terms, or 0 in fixed mode> result=<2^n_est>".
std::string ioSignature(const QPEMetadata &md);

} // namespace q2::qpe

#endif // Q2_LIB_QPE_OBJECTIO_H
