//===- ProgramRequestFlags.cpp - ProgramRequest on a command line ---------===//
#include "q2/QPE/ProgramRequestFlags.h"

#include "llvm/ADT/STLExtras.h"

#include <optional>

using namespace q2::qpe;
namespace cl = llvm::cl;

struct ProgramRequestFlags::Flag {
  const ProgramOptionInfo *option = nullptr;
  std::string help; // cl::desc keeps a StringRef
  std::optional<cl::opt<std::string>> value;
  std::optional<cl::opt<bool>> on; // a switch
  const cl::Option &opt() const {
    return value ? static_cast<const cl::Option &>(*value) : *on;
  }
};

ProgramRequestFlags::ProgramRequestFlags(cl::OptionCategory &cat,
                                         llvm::ArrayRef<llvm::StringRef> only,
                                         llvm::StringRef helpPrefix) {
  for (const ProgramOptionInfo &o : programOptions()) {
    if (!only.empty() && !llvm::is_contained(only, o.flag))
      continue;
    Flag &f = flagList.emplace_back();
    f.option = &o;
    f.help = (helpPrefix + o.helpWithDefault()).str();
    if (o.kind == ProgramOptionKind::Switch)
      f.on.emplace(o.flag, cl::desc(f.help), cl::cat(cat));
    else
      f.value.emplace(o.flag, cl::desc(f.help), cl::value_desc(o.valueDesc),
                      cl::cat(cat));
  }
}

ProgramRequestFlags::~ProgramRequestFlags() = default;

llvm::Expected<ProgramRequest> ProgramRequestFlags::request() const {
  ProgramRequest r;
  for (const Flag &f : flagList) {
    if (!f.opt().getNumOccurrences())
      continue;
    llvm::StringRef text = f.value ? llvm::StringRef(f.value->getValue())
                                   : (f.on->getValue() ? "true" : "false");
    if (llvm::Error e = r.set(f.option->flag, text))
      return std::move(e);
  }
  return r;
}

std::vector<std::pair<std::string, const cl::Option *>>
ProgramRequestFlags::flags() const {
  std::vector<std::pair<std::string, const cl::Option *>> out;
  for (const Flag &f : flagList)
    out.emplace_back(f.option->name(OptionSpelling::Flag), &f.opt());
  return out;
}
