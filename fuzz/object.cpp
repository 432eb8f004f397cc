// libFuzzer target: a saved object through the path `q2-opt --run obj.o`
// takes (qpe::readObjectMetadata: object parse, digest, .q2.qpe and
// .q2.qpe.io; then jit::Circuit::load: digest again, JIT link,
// __q2_qpe_shape; then one call with the default coefficients, limited to
// 12 qubits). Two kinds of input:
//
//  - an ELF file ("\x7f" "ELF" ...): the bytes as the object. The seeds are
//    real objects, so a mutant is refused by the digest unless it is the
//    header or section table the reader must survive first;
//  - anything else: a forgery of the metadata with the digest recomputed,
//    the one edit the threat model says must still not corrupt the host
//    (docs/reliability.md). Byte 0 picks a seed object (the .o files of
//    fuzz/corpus/object/, in name order); the rest is "<.q2.qpe.io
//    text>\n<.q2.qpe JSON>", written over those sections (NUL-padded,
//    truncated to their size) of a copy of the seed, which is then resealed.
//    The code stays the seed's, so only the metadata can be inconsistent.
//
// The seed objects are compiled by q2-opt (how: docs/reliability.md); after a
// change of the object format they must be compiled again, which the target
// says at start-up.
#include "q2/JIT/Circuit.h"
#include "q2/QPE/QPEMetadata.h"
#include "q2/Support/ObjectDigest.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#ifndef Q2_FUZZ_OBJECT_SEEDS
#error "Q2_FUZZ_OBJECT_SEEDS (the seed object directory) must be defined"
#endif

namespace {

constexpr const char *kIOSection = ".q2.qpe.io"; // lib/QPE/ObjectIO.h

struct Template {
  std::string name;
  std::vector<char> bytes;
  size_t jsonAt = 0, jsonSize = 0, ioAt = 0, ioSize = 0;
};

/// The runner's whole path for one object; errors are refusals.
void runObject(llvm::ArrayRef<char> object) {
  auto md = q2::qpe::readObjectMetadata(object, "fuzz.o");
  if (!md) {
    llvm::consumeError(md.takeError());
    return;
  }
  auto circuit = q2::jit::Circuit::load(object, *md, "", /*maxQubits=*/12,
                                           /*digestChecked=*/true);
  if (!circuit) {
    llvm::consumeError(circuit.takeError());
    return;
  }
  auto r = (*circuit)->call();
  if (!r)
    llvm::consumeError(r.takeError());
}

[[noreturn]] void die(const std::string &msg) {
  llvm::errs() << "q2-fuzz-object: " << msg << "\n";
  std::exit(2);
}

std::vector<Template> loadTemplates() {
  std::vector<std::string> files;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(Q2_FUZZ_OBJECT_SEEDS, ec), end;
       it != end && !ec; it.increment(ec))
    if (llvm::sys::path::extension(it->path()) == ".o")
      files.push_back(it->path());
  std::sort(files.begin(), files.end());
  if (files.empty())
    die(std::string("no seed objects (*.o) in ") + Q2_FUZZ_OBJECT_SEEDS);
  std::vector<Template> out;
  for (const std::string &f : files) {
    auto buf = llvm::MemoryBuffer::getFile(f);
    if (!buf)
      die("cannot read " + f);
    Template t;
    t.name = f;
    t.bytes.assign((*buf)->getBufferStart(), (*buf)->getBufferEnd());
    auto obj = llvm::object::ObjectFile::createObjectFile(**buf);
    if (!obj)
      die(f + ": " + llvm::toString(obj.takeError()));
    for (const llvm::object::SectionRef &s : (*obj)->sections()) {
      auto name = s.getName();
      auto contents = s.getContents();
      if (!name || !contents) {
        if (!name)
          llvm::consumeError(name.takeError());
        if (!contents)
          llvm::consumeError(contents.takeError());
        continue;
      }
      size_t at = contents->data() - (*buf)->getBufferStart();
      if (*name == q2::qpe::kObjectSection) {
        t.jsonAt = at;
        t.jsonSize = contents->size();
      } else if (*name == kIOSection) {
        t.ioAt = at;
        t.ioSize = contents->size();
      }
    }
    if (!t.jsonSize || !t.ioSize)
      die(f + ": no .q2.qpe / .q2.qpe.io section");
    // A seed that no longer loads (older object format) would make the
    // forgery half of this target test nothing.
    auto md = q2::qpe::readObjectMetadata(t.bytes, f);
    if (!md)
      die(llvm::toString(md.takeError()) +
          " (compile the seed objects again: docs/reliability.md)");
    auto c = q2::jit::Circuit::load(t.bytes, *md, "", 12);
    if (!c)
      die(f + ": " + llvm::toString(c.takeError()));
    out.push_back(std::move(t));
  }
  return out;
}

/// Copies `text` over [at, at + size) of `bytes`, NUL-padded or truncated.
void overwrite(std::vector<char> &bytes, size_t at, size_t size,
               llvm::StringRef text) {
  size_t n = std::min(size, text.size());
  std::copy(text.begin(), text.begin() + n, bytes.begin() + at);
  std::fill(bytes.begin() + at + n, bytes.begin() + at + size, '\0');
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const std::vector<Template> templates = loadTemplates();
  llvm::StringRef in(reinterpret_cast<const char *>(data), size);
  if (in.starts_with("\x7f"
                     "ELF")) {
    runObject(llvm::ArrayRef<char>(in.data(), in.size()));
    return 0;
  }
  if (in.empty())
    return 0;
  const Template &t = templates[uint8_t(in[0]) % templates.size()];
  auto [io, json] = in.drop_front().split('\n');
  std::vector<char> bytes = t.bytes;
  overwrite(bytes, t.ioAt, t.ioSize, io);
  overwrite(bytes, t.jsonAt, t.jsonSize, json);
  if (llvm::Error e = q2::sealObject(bytes)) {
    llvm::errs() << llvm::toString(std::move(e)) << "\n";
    __builtin_trap(); // the seed was sealable: a copy must be too
  }
  runObject(bytes);
  return 0;
}
