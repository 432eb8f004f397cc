//===- Common.h - _q2: errors, ^C, path arguments ---------------*- C++ -*-===//
//
// Shared by the binding files (Module.cpp, Records.cpp, Orchestrator.cpp).
// Errors map by their error code:
//   invalid_argument -> ValueError, another errno -> OSError(errno, message)
//   (Python picks FileExistsError, FileNotFoundError, ... from the errno),
//   anything else -> RuntimeError.
//
//===----------------------------------------------------------------------===//
#ifndef Q2_PYTHON_COMMON_H
#define Q2_PYTHON_COMMON_H

#include "llvm/Support/Error.h"

#include <pybind11/pybind11.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

namespace q2py {
namespace py = pybind11;

[[noreturn]] inline void raise(llvm::Error e) {
  std::error_code code;
  std::string msg;
  llvm::handleAllErrors(std::move(e), [&](const llvm::ErrorInfoBase &info) {
    if (!code)
      code = info.convertToErrorCode();
    msg += (msg.empty() ? "" : "\n") + info.message();
  });
  if (code == std::errc::invalid_argument)
    throw py::value_error(msg);
  if (code && (code.category() == std::generic_category() ||
               code.category() == std::system_category())) {
    // OSError(errno, message) becomes FileExistsError, FileNotFoundError,
    // NotADirectoryError, ... by the errno.
    py::object err =
        py::module_::import("builtins").attr("OSError")(code.value(), msg);
    PyErr_SetObject(reinterpret_cast<PyObject *>(Py_TYPE(err.ptr())),
                    err.ptr());
    throw py::error_already_set();
  }
  throw std::runtime_error(msg);
}

template <class T> T unwrap(llvm::Expected<T> v) {
  if (!v)
    raise(v.takeError());
  return std::move(*v);
}

inline void check(llvm::Error e) {
  if (e)
    raise(std::move(e));
}

/// Runs `fn` (which polls `cancel`) on a worker thread while this thread
/// waits without the GIL and checks for signals: ^C sets `cancel`, the work
/// stops as in q2-profile, and the KeyboardInterrupt is raised afterwards.
template <class F>
auto cancellable(std::atomic<bool> &cancel, std::atomic<int> &cancelSignal,
                 F fn) -> decltype(fn()) {
  using R = decltype(fn());
  std::optional<R> result;
  std::exception_ptr failure;
  std::mutex m;
  std::condition_variable cv;
  bool done = false;
  std::thread worker([&] {
    try {
      result.emplace(fn());
    } catch (...) {
      failure = std::current_exception();
    }
    std::lock_guard<std::mutex> lock(m);
    done = true;
    cv.notify_all();
  });
  bool interrupted = false;
  for (;;) {
    {
      py::gil_scoped_release release;
      std::unique_lock<std::mutex> lock(m);
      if (cv.wait_for(lock, std::chrono::milliseconds(50),
                      [&] { return done; }))
        break;
    }
    if (!interrupted && PyErr_CheckSignals() != 0) {
      interrupted = true; // the KeyboardInterrupt stays pending
      cancelSignal = SIGINT;
      cancel = true;
    }
  }
  {
    py::gil_scoped_release release;
    worker.join();
  }
  if (interrupted) {
    if (result) // the Expected must be consumed before we leave
      if (!*result)
        llvm::consumeError(result->takeError());
    throw py::error_already_set();
  }
  if (failure)
    std::rethrow_exception(failure);
  return std::move(*result);
}

/// A path argument: a str or an os.PathLike (pathlib.Path), as os.fspath
/// takes it; anything else does not match (TypeError naming the signature).
struct PathArg {
  std::string path;
};

/// "self", None -> 0 (the calling process); a non-negative int -> itself;
/// else ValueError.
inline int pidArg(py::handle pid) {
  if (pid.is_none() ||
      (py::isinstance<py::str>(pid) && pid.cast<std::string>() == "self"))
    return 0;
  if (!py::isinstance<py::bool_>(pid) && py::isinstance<py::int_>(pid)) {
    long long n = pid.cast<long long>();
    if (n >= 0 && n <= INT32_MAX)
      return int(n);
  }
  throw py::value_error("pid must be 'self' or a non-negative int, got " +
                        std::string(py::repr(pid)));
}

} // namespace q2py

namespace pybind11::detail {
template <> struct type_caster<q2py::PathArg> {
  PYBIND11_TYPE_CASTER(q2py::PathArg, const_name("os.PathLike"));
  bool load(handle src, bool) {
    if (!src || src.is_none() || PyBytes_Check(src.ptr()))
      return false;
    PyObject *p = PyOS_FSPath(src.ptr());
    if (!p) {
      PyErr_Clear();
      return false;
    }
    object path = reinterpret_steal<object>(p);
    if (!PyUnicode_Check(p))
      return false;
    value.path = path.cast<std::string>();
    return true;
  }
  static handle cast(const q2py::PathArg &src, return_value_policy, handle) {
    return str(src.path).release();
  }
};
} // namespace pybind11::detail

#endif // Q2_PYTHON_COMMON_H
