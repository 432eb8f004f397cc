//===- TestSanitizers.h - what a sanitizer build changes for tests -*- C++ -*-===//
//
// Q2_ASAN is 1 in an AddressSanitizer build (scripts/sanitize.sh). Tests that
// measure the process's own memory skip there: ASan's allocator replaces
// malloc (mallinfo2 reads zero), its quarantine keeps freed memory resident
// and its shadow memory adds to RSS.
//
//===----------------------------------------------------------------------===//
#ifndef Q2_TEST_UNIT_TESTSANITIZERS_H
#define Q2_TEST_UNIT_TESTSANITIZERS_H

#if defined(__SANITIZE_ADDRESS__)
#define Q2_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define Q2_ASAN 1
#endif
#endif
#ifndef Q2_ASAN
#define Q2_ASAN 0
#endif

/// Skips the current GoogleTest test in an ASan build, saying why.
#define Q2_SKIP_UNDER_ASAN(why)                                                \
  do {                                                                         \
    if (Q2_ASAN)                                                               \
      GTEST_SKIP() << "AddressSanitizer build: " << why;                       \
  } while (0)

#endif // Q2_TEST_UNIT_TESTSANITIZERS_H
