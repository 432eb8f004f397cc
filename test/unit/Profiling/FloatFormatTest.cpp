//===- FloatFormatTest.cpp - MLIR's f64 text, fast, against MLIR ----------===//
//
// q2::formatMLIRFloat must write exactly what MLIR's printer writes for an
// f64 (the IR sizes the profiler reports are counted with it). Checked
// against MLIR itself (a FloatAttr printed without its type) on values of
// every kind: random bit patterns over the whole exponent range, short
// decimals (the 6-digit form), integers, powers, values next to rounding
// ties, and the special values that take MLIR's own path.
//
//===----------------------------------------------------------------------===//

#include "q2/Support/FloatFormat.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>

namespace {

class FloatFormat : public ::testing::Test {
protected:
  mlir::MLIRContext ctx;
  std::string mlirText(double v) {
    std::string s;
    llvm::raw_string_ostream os(s);
    mlir::FloatAttr::get(mlir::Float64Type::get(&ctx), v)
        .print(os, /*elideType=*/true);
    return s;
  }
  /// Counts mismatches (reporting the first few).
  int check(double v) {
    llvm::SmallString<32> fast, slow;
    q2::formatMLIRFloat(v, fast);
    q2::formatMLIRFloatSlow(v, slow);
    std::string want = mlirText(v);
    if (fast.str() == want && slow.str() == want)
      return 0;
    char hex[40];
    std::snprintf(hex, sizeof(hex), "%a", v);
    if (++reported <= 10)
      ADD_FAILURE() << "value " << hex << ": MLIR '"
                    << want << "', fast '" << fast.str().str() << "', slow '"
                    << slow.str().str() << "'";
    return 1;
  }
  int reported = 0;
};

double fromBits(uint64_t b) {
  double v;
  std::memcpy(&v, &b, sizeof(v));
  return v;
}

TEST_F(FloatFormat, SpecialValues) {
  for (double v : {0.0, -0.0, std::numeric_limits<double>::infinity(),
                   -std::numeric_limits<double>::infinity(),
                   std::numeric_limits<double>::quiet_NaN(),
                   std::numeric_limits<double>::denorm_min(),
                   -std::numeric_limits<double>::denorm_min(),
                   std::numeric_limits<double>::min(),
                   std::numeric_limits<double>::max(),
                   -std::numeric_limits<double>::max(),
                   std::numeric_limits<double>::epsilon()})
    EXPECT_EQ(check(v), 0);
}

TEST_F(FloatFormat, ShortDecimalsAndIntegers) {
  int bad = 0;
  for (int i = -4000; i <= 4000; ++i) {
    bad += check(i);
    bad += check(i / 1000.0);
    bad += check(i * 0.1);
    bad += check(i * 1e-7);
    bad += check(i * 1.5e12);
  }
  for (int e = -320; e <= 308; ++e) {
    bad += check(std::pow(10.0, e));
    bad += check(-2.5 * std::pow(10.0, e));
  }
  for (int e = -1074; e <= 1023; ++e)
    bad += check(std::ldexp(1.0, e));
  for (uint64_t i = (uint64_t(1) << 53) - 100; i < (uint64_t(1) << 53) + 100;
       ++i)
    bad += check(double(i));
  EXPECT_EQ(bad, 0);
}

TEST_F(FloatFormat, RandomBitPatterns) {
  std::mt19937_64 rng(35);
  int bad = 0;
  for (int i = 0; i < 40000; ++i) {
    uint64_t b = rng();
    // Also the range of QPE coefficients and angles, where most values are.
    if (i % 2)
      b = (b & ~(uint64_t(0x7ff) << 52)) |
          (uint64_t(1023 - 30 + int(rng() % 45)) << 52);
    bad += check(fromBits(b));
  }
  EXPECT_EQ(bad, 0);
}

TEST_F(FloatFormat, NextToRoundingTies) {
  // Values whose 7th or 18th significant digit is a 5 (or the doubles next
  // to them): where round-half-up, truncation and round-to-even differ.
  std::mt19937_64 rng(7);
  int bad = 0;
  for (int i = 0; i < 5000; ++i) {
    double base = double(rng() % 10000000 * 10 + 5) *
                  std::pow(10.0, int(rng() % 40) - 25);
    bad += check(base);
    bad += check(std::nextafter(base, 0.0));
    bad += check(std::nextafter(base, 1e300));
  }
  EXPECT_EQ(bad, 0);
}

} // namespace
