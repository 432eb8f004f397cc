//===- BuildID.cpp - Identity of the running q2 binary --------------------===//
#include "q2/Support/BuildID.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"

#include <cstring>
#include <dlfcn.h>
#include <elf.h>
#include <link.h>

namespace {
struct Search {
  const void *address; // a function of this library
  std::string id;
  std::string file;
};

int visit(dl_phdr_info *info, size_t, void *data) {
  auto *s = static_cast<Search *>(data);
  auto addr = reinterpret_cast<uintptr_t>(s->address);
  bool contains = false;
  for (int i = 0; i < info->dlpi_phnum && !contains; ++i) {
    const ElfW(Phdr) &ph = info->dlpi_phdr[i];
    uintptr_t lo = info->dlpi_addr + ph.p_vaddr;
    contains = ph.p_type == PT_LOAD && addr >= lo && addr < lo + ph.p_memsz;
  }
  if (!contains)
    return 0;
  s->file = info->dlpi_name && *info->dlpi_name ? info->dlpi_name
                                                : "/proc/self/exe";
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr) &ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_NOTE)
      continue;
    auto *p = reinterpret_cast<const char *>(info->dlpi_addr + ph.p_vaddr);
    const char *end = p + ph.p_memsz;
    while (p + sizeof(ElfW(Nhdr)) <= end) {
      auto *n = reinterpret_cast<const ElfW(Nhdr) *>(p);
      const char *name = p + sizeof(ElfW(Nhdr));
      const char *desc = name + ((n->n_namesz + 3) & ~3u);
      if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 &&
          std::memcmp(name, "GNU", 4) == 0) {
        for (unsigned k = 0; k < n->n_descsz; ++k)
          s->id += llvm::formatv("{0:x-2}", unsigned(uint8_t(desc[k]))).str();
        return 1;
      }
      p = desc + ((n->n_descsz + 3) & ~3u);
    }
  }
  return 1;
}
} // namespace

const std::string &q2::buildID() {
  static const std::string id = [] {
    Search s{reinterpret_cast<const void *>(&q2::buildID), "", ""};
    dl_iterate_phdr(visit, &s);
    if (!s.id.empty())
      return s.id;
    llvm::sys::fs::file_status st;
    if (!s.file.empty() && !llvm::sys::fs::status(s.file, st))
      return llvm::formatv("{0}-{1}", st.getSize(),
                           st.getLastModificationTime().time_since_epoch().count())
          .str();
    return std::string("unknown");
  }();
  return id;
}
