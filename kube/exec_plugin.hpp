// Running a kubeconfig's exec credential plugin: the command with its arguments and environment
// (plus KUBERNETES_EXEC_INFO), no standard input, a deadline; what it printed on stdout.
#pragma once

#include <chrono>
#include <string>

#include "admission/kubeconfig.hpp"
#include "common/result.hpp"

namespace rjg::kube {

// Runs `exec` (a bare command is looked up in PATH) with `exec_info` as KUBERNETES_EXEC_INFO and
// returns its standard output. Returns kUnavailable when it cannot be started (the message
// carries exec.installHint), exits non-zero or by a signal (the message has the end of what it
// wrote on stderr), or runs past `timeout` (it is killed).
Result<std::string> run_exec_plugin(const admission::ExecConfig& exec, const std::string& exec_info,
                                    std::chrono::milliseconds timeout);

}  // namespace rjg::kube
