//===- ObjectDigest.cpp - SHA-256 seal of a compiled object ---------------===//
#include "q2/Support/ObjectDigest.h"

#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SHA256.h"

#include <array>

namespace {
/// Offset of the digest bytes in the file, or why there are none.
llvm::Expected<size_t> digestOffset(const llvm::object::ObjectFile &file,
                                    llvm::StringRef source) {
  const char *start = file.getData().data();
  std::optional<size_t> offset;
  for (const llvm::object::SectionRef &s : file.sections()) {
    auto name = s.getName();
    if (!name) {
      llvm::consumeError(name.takeError());
      continue;
    }
    if (*name != q2::kDigestSection)
      continue;
    auto contents = s.getContents();
    if (!contents)
      return llvm::createStringError(source + ": cannot read section " +
                                     *name + ": " +
                                     llvm::toString(contents.takeError()));
    if (offset || contents->size() != q2::kDigestSize)
      return llvm::createStringError(
          source + ": malformed " + q2::kDigestSection +
          " section: refusing a corrupted or edited object");
    offset = size_t(contents->data() - start);
  }
  if (!offset)
    return llvm::createStringError(
        source + ": no " + q2::kDigestSection +
        " section: not an object written by this q2-opt (recompile it)");
  return *offset;
}

llvm::Expected<std::unique_ptr<llvm::object::ObjectFile>>
parseObject(llvm::ArrayRef<char> object, llvm::StringRef source) {
  llvm::MemoryBufferRef ref(llvm::StringRef(object.data(), object.size()),
                            source);
  auto obj = llvm::object::ObjectFile::createObjectFile(ref);
  if (!obj)
    return llvm::createStringError(source + ": not an object file (" +
                                   llvm::toString(obj.takeError()) + ")");
  return std::move(*obj);
}

std::array<uint8_t, 32> digestOf(llvm::ArrayRef<char> object, size_t at) {
  llvm::SHA256 h;
  auto bytes = [](llvm::ArrayRef<char> a) {
    return llvm::ArrayRef<uint8_t>(
        reinterpret_cast<const uint8_t *>(a.data()), a.size());
  };
  static const uint8_t zeros[q2::kDigestSize] = {};
  h.update(bytes(object.take_front(at)));
  h.update(llvm::ArrayRef<uint8_t>(zeros));
  h.update(bytes(object.drop_front(at + q2::kDigestSize)));
  return h.final();
}
} // namespace

llvm::Error q2::sealObject(llvm::MutableArrayRef<char> object) {
  auto file = parseObject(object, "<compiled object>");
  if (!file)
    return file.takeError();
  auto at = digestOffset(**file, "<compiled object>");
  if (!at)
    return at.takeError();
  std::array<uint8_t, 32> d = digestOf(object, *at);
  std::copy(d.begin(), d.end(), object.begin() + *at);
  return llvm::Error::success();
}

llvm::Error q2::checkObjectDigest(const llvm::object::ObjectFile &file,
                                  llvm::StringRef source) {
  auto at = digestOffset(file, source);
  if (!at)
    return at.takeError();
  llvm::StringRef data = file.getData();
  llvm::ArrayRef<char> object(data.data(), data.size());
  std::array<uint8_t, 32> d = digestOf(object, *at);
  if (!std::equal(d.begin(), d.end(),
                  reinterpret_cast<const uint8_t *>(object.data() + *at)))
    return llvm::createStringError(
        source + ": the object's digest does not match its contents "
                 "(corrupted or edited after compilation): refusing it");
  return llvm::Error::success();
}

llvm::Error q2::checkObjectDigest(llvm::ArrayRef<char> object,
                                  llvm::StringRef source) {
  auto file = parseObject(object, source);
  if (!file)
    return file.takeError();
  return checkObjectDigest(**file, source);
}
