//===- Cache.cpp - The self-checking compile cache ------------------------===//
//
// An entry file:
//   q2-cache/1\n
//   key <bytes>\n<key text>\n
//   object <bytes> <xxh3-64 hex>\n
//   <object bytes>
// Named by the xxh3-64 of the key text. A lookup compares the whole key and
// the object's size and checksum; anything else is "corrupt".
//
//===----------------------------------------------------------------------===//
#include "DriverInternal.h"

#include "q2/Support/BuildID.h"
#include "q2/Support/FileIO.h"

#include "llvm/Config/llvm-config.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/xxhash.h"
#include "llvm/TargetParser/Host.h"

using namespace q2::driver::detail;

static constexpr llvm::StringLiteral kMagic = "q2-cache/1\n";

std::string q2::driver::detail::cacheKey(llvm::StringRef input,
                                         const pipeline::PipelineOptions &opts) {
  auto h = llvm::xxh3_128bits(llvm::ArrayRef<uint8_t>(
      reinterpret_cast<const uint8_t *>(input.data()), input.size()));
  return llvm::formatv("q2-opt {0}\nllvm {1}\ncpu {2}\noptions {3}\n"
                       "input {4:x-16}{5:x-16} {6}\n",
                       q2::buildID(), LLVM_VERSION_STRING,
                       llvm::sys::getHostCPUName(), opts.str(), h.high64,
                       h.low64, input.size())
      .str();
}

CompileCache::CompileCache(std::string dir, std::string keyText)
    : dir(std::move(dir)), key(std::move(keyText)) {
  llvm::SmallString<256> p(this->dir);
  llvm::sys::path::append(p, llvm::formatv("{0:x-16}.q2c",
                                           llvm::xxh3_64bits(key)).str());
  file = std::string(p);
}

std::optional<llvm::SmallVector<char, 0>> CompileCache::lookup() {
  state = "miss";
  if (!llvm::sys::fs::exists(file))
    return std::nullopt;
  auto corrupt = [&](const llvm::Twine &why) {
    state = "corrupt";
    reason = why.str();
    return std::nullopt;
  };
  auto buf = q2::readInputFile(file);
  if (!buf)
    return corrupt(llvm::toString(buf.takeError()));
  llvm::StringRef data = (*buf)->getBuffer();
  if (!data.consume_front(kMagic))
    return corrupt("not a q2 cache entry");
  uint64_t keyLen = 0;
  if (!data.consume_front("key ") || data.consumeInteger(10, keyLen) ||
      !data.consume_front("\n") || data.size() < keyLen)
    return corrupt("damaged header");
  if (data.take_front(keyLen) != key)
    return corrupt("made for another input or options");
  data = data.drop_front(keyLen);
  uint64_t size = 0, sum = 0;
  if (!data.consume_front("\nobject ") || data.consumeInteger(10, size) ||
      !data.consume_front(" ") || data.consumeInteger(16, sum) ||
      !data.consume_front("\n"))
    return corrupt("damaged header");
  if (data.size() != size)
    return corrupt(llvm::formatv("object is {0} bytes, the entry says {1}",
                                 data.size(), size));
  if (llvm::xxh3_64bits(data) != sum)
    return corrupt("checksum mismatch");
  state = "hit";
  return llvm::SmallVector<char, 0>(data.begin(), data.end());
}

llvm::Error CompileCache::store(llvm::ArrayRef<char> object) {
  llvm::StringRef obj(object.data(), object.size());
  return q2::writeFileAtomically(file, [&](llvm::raw_ostream &os) {
    os << kMagic << "key " << key.size() << "\n"
       << key << "\nobject " << obj.size() << " "
       << llvm::formatv("{0:x-16}", llvm::xxh3_64bits(obj)) << "\n"
       << obj;
    return llvm::Error::success();
  });
}
