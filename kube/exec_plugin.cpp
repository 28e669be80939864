// run_exec_plugin over Boost.Process: both pipes read asynchronously on one io_context, so a
// plugin that fills stderr cannot block on it while we wait for stdout, and the deadline holds.
#include "kube/exec_plugin.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <string_view>

#include <boost/asio/io_context.hpp>
#include <boost/asio/read.hpp>
#include <boost/process.hpp>

namespace rjg::kube {

namespace bp = boost::process;
namespace asio = boost::asio;

namespace {

// The last `n` bytes of `text`, on one line, for a message.
std::string tail(std::string text, std::size_t n) {
  if (text.size() > n) {
    text = "..." + text.substr(text.size() - n);
  }
  for (char& c : text) {
    if (c == '\n' || c == '\r') {
      c = ' ';
    }
  }
  while (!text.empty() && text.back() == ' ') {
    text.pop_back();
  }
  return text;
}

// The first executable file `name` in a directory of $PATH, or "" (execvp's lookup, done here so
// that a missing plugin gets its install hint rather than a failed fork's message).
std::string find_in_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::string_view dirs = path == nullptr ? "" : path;
  while (!dirs.empty()) {
    const std::size_t colon = dirs.find(':');
    const std::string_view dir = dirs.substr(0, colon);
    dirs = colon == std::string_view::npos ? std::string_view() : dirs.substr(colon + 1);
    const std::string candidate = (dir.empty() ? std::string(".") : std::string(dir)) + "/" + name;
    if (::access(candidate.c_str(), X_OK) == 0) {
      return candidate;
    }
  }
  return "";
}

}  // namespace

Result<std::string> run_exec_plugin(const admission::ExecConfig& exec, const std::string& exec_info,
                                    std::chrono::milliseconds timeout) {
  const std::string what = "exec plugin \"" + exec.command + "\"";
  const std::string hint = exec.install_hint.empty() ? "" : "\n" + exec.install_hint;
  std::string program = exec.command;
  if (exec.command.find('/') == std::string::npos) {
    program = find_in_path(exec.command);
    if (program.empty()) {
      return unavailable(what + " is not in PATH" + hint);
    }
  }
  // set(), not operator[]: Boost.Process 1.74's operator[] finds a name by comparing "NAME="
  // with each entry without checking its length, so it reads past any shorter entry (CI=true).
  bp::environment env = boost::this_process::environment();
  for (const auto& [name, value] : exec.env) {
    env.set(name, value);
  }
  env.set("KUBERNETES_EXEC_INFO", exec_info);

  asio::io_context io;
  bp::async_pipe out(io);
  bp::async_pipe err(io);
  std::error_code spawn_error;
  bp::child child(bp::exe = program, bp::args = exec.args, env, bp::std_in < bp::null,
                  bp::std_out > out, bp::std_err > err, io, spawn_error);
  if (spawn_error) {
    return unavailable(what + " could not be started: " + spawn_error.message() + hint);
  }
  std::string stdout_text;
  std::string stderr_text;
  int open_pipes = 2;
  const auto done = [&open_pipes](const boost::system::error_code&, std::size_t) { --open_pipes; };
  // An ExecCredential is a few KiB; a plugin that prints more than this is stopped by the
  // deadline rather than allowed to fill memory.
  constexpr std::size_t kMaxOutput = 4 << 20;
  asio::async_read(out, asio::dynamic_buffer(stdout_text, kMaxOutput), done);
  asio::async_read(err, asio::dynamic_buffer(stderr_text, kMaxOutput), done);
  io.run_for(timeout);
  if (open_pipes > 0) {
    std::error_code ignored;
    child.terminate(ignored);
    return unavailable(what + " did not finish within " + std::to_string(timeout.count()) +
                       " ms; it was killed");
  }
  std::error_code wait_error;
  child.wait(wait_error);
  if (wait_error) {
    return unavailable(what + ": " + wait_error.message());
  }
  if (const int status = child.native_exit_code(); WIFSIGNALED(status)) {
    return unavailable(what + " was killed by signal " + std::to_string(WTERMSIG(status)) +
                       (stderr_text.empty() ? "" : ": " + tail(stderr_text, 400)));
  }
  if (child.exit_code() != 0) {
    return unavailable(what + " exited with status " + std::to_string(child.exit_code()) +
                       (stderr_text.empty() ? "" : ": " + tail(stderr_text, 400)));
  }
  return stdout_text;
}

}  // namespace rjg::kube
