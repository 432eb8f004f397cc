//===- FloatFormat.cpp - MLIR's text of an f64, fast ----------------------===//
//
// The steps are APFloat::toString's (llvm/lib/Support/APFloat.cpp): the exact
// value as an integer times a power of ten, a first cut of decimal digits
// estimated from its bit length (a floor division), the digits with trailing
// zeros dropped, a round half up to the precision, then the layout. Here the
// integer has at most 256 bits; anything that would need more goes to
// APFloat. MLIR's printFloatValue then keeps the 6-digit form if it parses
// back to the same value, else the 17-digit one, else hexadecimal.
//
//===----------------------------------------------------------------------===//
#include "q2/Support/FloatFormat.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/APInt.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <charconv>
#include <cstdint>
#include <cstring>

using namespace q2;

namespace {

constexpr uint64_t kTen19 = 10000000000000000000ull;

uint64_t pow10(unsigned n) {
  uint64_t p = 1;
  while (n--)
    p *= 10;
  return p;
}

uint64_t pow5(unsigned n) {
  uint64_t p = 1;
  while (n--)
    p *= 5;
  return p;
}

/// (hi:lo) / d with hi < d: the quotient fits in 64 bits.
inline uint64_t div128(uint64_t hi, uint64_t lo, uint64_t d, uint64_t &rem) {
#if defined(__x86_64__)
  uint64_t q;
  __asm__("divq %4" : "=a"(q), "=d"(rem) : "a"(lo), "d"(hi), "rm"(d));
  return q;
#else
  unsigned __int128 n = (static_cast<unsigned __int128>(hi) << 64) | lo;
  rem = uint64_t(n % d);
  return uint64_t(n / d);
#endif
}

/// An unsigned integer of up to 256 bits; `size` limbs in use.
struct U256 {
  uint64_t w[4] = {0, 0, 0, 0};
  unsigned size = 0;

  explicit U256(uint64_t v) {
    w[0] = v;
    size = v ? 1 : 0;
  }
  bool isZero() const { return size == 0; }
  unsigned bitLength() const {
    return size ? 64 * (size - 1) + 64 - __builtin_clzll(w[size - 1]) : 0;
  }
  /// False when the product does not fit.
  bool mul(uint64_t m) {
    uint64_t carry = 0;
    for (unsigned i = 0; i < size; ++i) {
      unsigned __int128 p = static_cast<unsigned __int128>(w[i]) * m + carry;
      w[i] = uint64_t(p);
      carry = uint64_t(p >> 64);
    }
    if (carry) {
      if (size == 4)
        return false;
      w[size++] = carry;
    }
    return true;
  }
  bool shl(unsigned n) {
    if (!size)
      return true;
    if (bitLength() + n > 256)
      return false;
    unsigned limbs = n / 64, bits = n % 64;
    uint64_t r[4] = {0, 0, 0, 0};
    for (unsigned i = 0; i < size; ++i) {
      r[i + limbs] |= w[i] << bits;
      if (bits && i + limbs + 1 < 4)
        r[i + limbs + 1] |= w[i] >> (64 - bits);
    }
    std::memcpy(w, r, sizeof(w));
    size = 4;
    while (size && !w[size - 1])
      --size;
    return true;
  }
  /// Floor division by d (> 0); returns the remainder.
  uint64_t div(uint64_t d) {
    uint64_t rem = 0;
    for (unsigned i = size; i-- > 0;)
      w[i] = div128(rem, w[i], d, rem);
    while (size && !w[size - 1])
      --size;
    return rem;
  }
};

/// APFloat's toString of m * 2^exp (m != 0) after the sign; false when the
/// integers would need more than 256 bits.
bool toString(uint64_t m, int exp, unsigned precision, unsigned maxPadding,
              bool truncateZero, llvm::SmallVectorImpl<char> &out) {
  if (!precision) // enough digits to read back an IEEE double
    precision = 2 + 53 * 59 / 196;
  int tz = __builtin_ctzll(m);
  exp += tz;
  m >>= tz;
  U256 n(m);
  if (exp > 0) {
    if (!n.shl(unsigned(exp)))
      return false;
    exp = 0;
  } else if (exp < 0) {
    // m * 2^-t == m * 5^t * 10^-t
    for (unsigned t = unsigned(-exp); t;) {
      unsigned step = t < 27 ? t : 27;
      if (!n.mul(pow5(step)))
        return false;
      t -= step;
    }
  }
  // The first cut: decimal digits the bit length says are beyond need.
  unsigned bits = n.bitLength();
  unsigned bitsRequired = (precision * 196 + 58) / 59;
  if (bits > bitsRequired) {
    unsigned tens = (bits - bitsRequired) * 59 / 196;
    exp += int(tens);
    for (; tens >= 19; tens -= 19)
      n.div(kTen19);
    if (tens)
      n.div(pow10(tens));
  }
  // Digits, least significant first, trailing zeros dropped.
  char digits[80];
  unsigned nd = 0;
  bool inTrail = true;
  while (!n.isZero()) {
    uint64_t chunk = n.div(kTen19);
    bool last = n.isZero();
    for (unsigned k = 0; k < 19 && !(last && chunk == 0); ++k) {
      unsigned d = unsigned(chunk % 10);
      chunk /= 10;
      if (inTrail && !d) {
        ++exp;
      } else {
        digits[nd++] = char('0' + d);
        inTrail = false;
      }
    }
  }
  if (!nd)
    return false;
  // Round half up to `precision` digits.
  char *buf = digits;
  if (nd > precision) {
    unsigned first = nd - precision;
    if (buf[first - 1] < '5') {
      while (first < nd && buf[first] == '0')
        ++first;
    } else {
      unsigned i = first;
      for (; i != nd; ++i) {
        if (buf[i] != '9') {
          ++buf[i];
          break;
        }
        ++first;
      }
      if (first == nd) {
        exp += int(first);
        buf[0] = '1';
        nd = 1;
        first = 0;
      }
    }
    exp += int(first);
    buf += first;
    nd -= first;
  }
  // Layout.
  bool scientific;
  if (!maxPadding) {
    scientific = true;
  } else if (exp >= 0) {
    scientific = unsigned(exp) > maxPadding || nd + unsigned(exp) > precision;
  } else {
    int msd = exp + int(nd - 1);
    scientific = msd < 0 && unsigned(-msd) > maxPadding;
  }
  if (scientific) {
    exp += int(nd - 1);
    out.push_back(buf[nd - 1]);
    out.push_back('.');
    if (nd == 1 && truncateZero)
      out.push_back('0');
    else
      for (unsigned i = 1; i != nd; ++i)
        out.push_back(buf[nd - 1 - i]);
    if (!truncateZero && precision > nd - 1)
      out.append(precision - nd + 1, '0');
    out.push_back(truncateZero ? 'E' : 'e');
    out.push_back(exp >= 0 ? '+' : '-');
    unsigned e = unsigned(exp >= 0 ? exp : -exp);
    char eb[8];
    unsigned ne = 0;
    do {
      eb[ne++] = char('0' + e % 10);
      e /= 10;
    } while (e);
    if (!truncateZero && ne < 2)
      eb[ne++] = '0';
    while (ne)
      out.push_back(eb[--ne]);
    return true;
  }
  if (exp >= 0) {
    for (unsigned i = 0; i != nd; ++i)
      out.push_back(buf[nd - 1 - i]);
    out.append(unsigned(exp), '0');
    return true;
  }
  int whole = exp + int(nd);
  unsigned i = 0;
  if (whole > 0) {
    for (; i != unsigned(whole); ++i)
      out.push_back(buf[nd - 1 - i]);
    out.push_back('.');
  } else {
    out.push_back('0');
    out.push_back('.');
    out.append(unsigned(-whole), '0');
  }
  for (; i != nd; ++i)
    out.push_back(buf[nd - 1 - i]);
  return true;
}

} // namespace

void q2::formatMLIRFloatSlow(double v, llvm::SmallVectorImpl<char> &out) {
  llvm::APFloat value(v);
  if (!value.isInfinity() && !value.isNaN()) {
    llvm::SmallString<128> text;
    value.toString(text, /*FormatPrecision=*/6, /*FormatMaxPadding=*/0,
                   /*TruncateZero=*/false);
    if (llvm::APFloat(value.getSemantics(), text).bitwiseIsEqual(value)) {
      out.append(text.begin(), text.end());
      return;
    }
    text.clear();
    value.toString(text);
    if (llvm::StringRef(text).contains('.')) {
      out.append(text.begin(), text.end());
      return;
    }
  }
  value.bitcastToAPInt().toString(out, /*Radix=*/16, /*Signed=*/false,
                                  /*formatAsCLiteral=*/true);
}

bool q2::formatFloatSixDigits(double v, llvm::SmallVectorImpl<char> &out) {
  uint64_t bits;
  std::memcpy(&bits, &v, sizeof(bits));
  unsigned biased = unsigned(bits >> 52) & 0x7ff;
  size_t start = out.size();
  bool done = false;
  if (biased != 0 && biased != 0x7ff) {
    if (bits >> 63)
      out.push_back('-');
    done = toString((bits & ((uint64_t(1) << 52) - 1)) | (uint64_t(1) << 52),
                    int(biased) - 1075, 6, 0, false, out);
  }
  if (!done) {
    out.truncate(start);
    llvm::APFloat value(v);
    if (value.isNaN() || value.isInfinity())
      return false;
    llvm::SmallString<32> text;
    value.toString(text, 6, 0, false);
    out.append(text.begin(), text.end());
  }
  double back = 0;
  const char *first = out.data() + start, *last = out.data() + out.size();
  auto [ptr, ec] = std::from_chars(first, last, back);
  uint64_t backBits;
  std::memcpy(&backBits, &back, sizeof(backBits));
  return ec == std::errc() && ptr == last && backBits == bits;
}

void q2::formatMLIRFloat(double v, llvm::SmallVectorImpl<char> &out) {
  uint64_t bits;
  std::memcpy(&bits, &v, sizeof(bits));
  unsigned biased = unsigned(bits >> 52) & 0x7ff;
  // Zeros, subnormals, infinities and NaNs: as MLIR does.
  if (biased == 0 || biased == 0x7ff)
    return formatMLIRFloatSlow(v, out);
  bool negative = bits >> 63;
  uint64_t m = (bits & ((uint64_t(1) << 52) - 1)) | (uint64_t(1) << 52);
  int exp = int(biased) - 1075;
  size_t start = out.size();
  if (negative)
    out.push_back('-');
  if (!toString(m, exp, 6, 0, false, out)) {
    out.truncate(start);
    return formatMLIRFloatSlow(v, out);
  }
  // Kept if it reads back as v (from_chars rounds correctly, as APFloat's
  // parser does).
  double back = 0;
  const char *first = out.data() + start, *last = out.data() + out.size();
  auto [ptr, ec] = std::from_chars(first, last, back);
  uint64_t backBits;
  std::memcpy(&backBits, &back, sizeof(backBits));
  if (ec == std::errc() && ptr == last && backBits == bits)
    return;
  out.truncate(start);
  if (negative)
    out.push_back('-');
  if (!toString(m, exp, 0, 3, true, out) ||
      !llvm::StringRef(out.data() + start, out.size() - start).contains('.')) {
    out.truncate(start);
    return formatMLIRFloatSlow(v, out);
  }
}

void q2::writeMLIRFloat(llvm::raw_ostream &os, double v) {
  llvm::SmallString<32> text;
  formatMLIRFloat(v, text);
  os << text;
}
