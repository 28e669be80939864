// The server's lifecycle: startup, reload polling, signals and graceful shutdown.
#include "server/server.hpp"

#include <algorithm>
#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <memory>
#include <optional>
#include <vector>

#include "admission/policy_file.hpp"
#include "server/file_watcher.hpp"
#include "server/io_pool.hpp"
#include "server/listener.hpp"
#include "server/log.hpp"
#include "server/probe_session.hpp"
#include "server/shared_state.hpp"
#include "server/tls_context.hpp"
#include "server/tls_session.hpp"

namespace rjg::server {
namespace {

namespace net = boost::asio;
using tcp = net::ip::tcp;
using Clock = std::chrono::steady_clock;

constexpr std::chrono::milliseconds kDrainPoll{20};
// At shutdown, a running large review gets at least this long to finish once the loops stopped.
constexpr std::chrono::milliseconds kReviewJoinGrace{100};

// Writes `text` to `path` through a temporary file and rename(), so readers never see half.
Status write_atomically(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << text;
    out.flush();
    if (!out) {
      return unavailable("cannot write '" + tmp + "'");
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    return unavailable("cannot rename '" + tmp + "' to '" + path + "'");
  }
  return {};
}

bool quota_from_cluster(const admission::LoadedPolicy& p) {
  return p.config.quota.source == policy::QuotaConfig::Source::kCluster;
}

// Everything that lives as long as the event loops. Control handlers (signals, reload and
// shutdown timers) and both accept loops run on the pool's control context, which one thread
// runs, so they never race each other; connections run on the context they were accepted into.
class Runtime {
  using Timer = net::basic_waitable_timer<Clock, net::wait_traits<Clock>, IoExecutor>;

 public:
  Runtime(const ServerConfig& config, const std::string& version, ReviewFn review,
          const ClusterView* cluster)
      : state_(config, version, std::move(review), cluster),
        pool_(config.threads),
        signals_(pool_.control(), SIGINT, SIGTERM),
        reload_timer_(pool_.control()),
        delay_timer_(pool_.control()),
        drain_timer_(pool_.control()),
        deadline_timer_(pool_.control()),
        tls_watcher_({config.tls_cert_file, config.tls_key_file, config.client_ca_file}),
        policy_watcher_({config.policy_file}) {}

  // The large-review lane's waiting jobs own connections bound to pool_'s contexts: drop them
  // (and join its workers) while pool_ still exists. REQUIRES: stop_reviews() did not fail.
  ~Runtime() { state_.large_reviews.stop(); }

  // After run(): stops the large-review lane, waiting for a running review until the shutdown
  // deadline (--shutdown-timeout after the signal). Returns false when one still runs then.
  bool stop_reviews() {
    const auto deadline = signal_time_ ? *signal_time_ + state_.config.shutdown_timeout
                                       : Clock::now() + state_.config.shutdown_timeout;
    return state_.large_reviews.stop(std::max(deadline, Clock::now() + kReviewJoinGrace));
  }
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  Status start() {
    const auto& c = state_.config;
    auto policy = admission::load_policy_or_default(c.policy_file);
    if (!policy.ok()) {
      return Error{policy.error().code,
                   (c.policy_file.empty() ? std::string("embedded default policy")
                                          : "--policy '" + c.policy_file + "'") +
                       ": " + policy.error().message};
    }
    if (quota_from_cluster(policy.value()) && state_.cluster == nullptr) {
      return invalid_argument("the policy's quota.source is cluster, but serve was given no "
                              "cluster to read ResourceQuotas from");
    }
    state_.policy.store(std::make_shared<const admission::LoadedPolicy>(std::move(policy).value()));
    auto tls = make_tls_context(c.tls_cert_file, c.tls_key_file, c.client_ca_file);
    if (!tls.ok()) {
      return tls.error();
    }
    state_.metrics.set_certificate_expiry(tls.value().not_after_unix);
    cert_serial_ = tls.value().serial_hex;
    state_.tls.store(std::make_shared<const TlsContext>(std::move(tls).value()));

    https_ = std::make_shared<Listener>(
        pool_.control(), "https", [this]() -> net::io_context& { return pool_.next(); },
        [this](Socket&& socket) {
          if (state_.closing) {
            return;  // the socket closes as it goes out of scope
          }
          if (state_.connections.size() >= state_.config.max_connections) {
            state_.metrics.connection_rejected();
            return;
          }
          start_tls_session(std::move(socket), state_);
        });
    // Probe connections are few and cheap: they stay on the control context.
    probe_ = std::make_shared<Listener>(
        pool_.control(), "probe", [this]() -> net::io_context& { return pool_.control(); },
        [this](Socket&& socket) { start_probe_session(std::move(socket), state_); });
    // TLS clients speak first: defer the accept until the ClientHello is there. A client silent
    // for the header timeout would be cut by us anyway; the kernel drops it instead.
    const auto defer = std::chrono::ceil<std::chrono::seconds>(c.header_timeout);
    if (Status s = https_->open(c.listen, defer); !s.ok()) {
      return Error{s.error().code, "--listen: " + s.error().message};
    }
    if (Status s = probe_->open(c.probe_listen); !s.ok()) {
      return Error{s.error().code, "--probe-listen: " + s.error().message};
    }
    if (!c.port_file.empty()) {
      const std::string ports = "{\"https\":" + std::to_string(https_->port()) +
                                ",\"probe\":" + std::to_string(probe_->port()) + "}\n";
      if (Status s = write_atomically(c.port_file, ports); !s.ok()) {
        return Error{s.error().code, "--port-file: " + s.error().message};
      }
    }
    https_->run();
    probe_->run();
    signals_.async_wait([this](boost::system::error_code ec, int signo) { on_signal(ec, signo); });
    arm_reload();
    state_.ready = true;
    log_event(
        Level::kInfo, "listening",
        {{"https_port", static_cast<long long>(https_->port())},
         {"probe_port", static_cast<long long>(probe_->port())},
         {"https_address", c.listen.host},
         {"probe_address", c.probe_listen.host},
         {"threads", static_cast<long long>(c.threads)},
         {"review_threads", static_cast<long long>(c.review_threads)},
         {"large_review_bytes", static_cast<long long>(c.large_review_bytes)},
         {"policy", c.policy_file.empty() ? std::string("(embedded default)") : c.policy_file},
         {"policy_hash", state_.policy.load()->hash},
         {"certificate_serial", cert_serial_},
         {"mtls", !c.client_ca_file.empty()}});
    return {};
  }

  // Runs the loops on config.threads threads (this one included) until shutdown completes.
  void run() {
    pool_.run([this](const std::exception& e) {
      // A handler threw: a bug. Count it and keep serving the other connections.
      state_.metrics.internal_error();
      log_event(Level::kError, "internal error in event loop", {{"error", std::string(e.what())}});
    });
  }

 private:
  void arm_reload() {
    reload_timer_.expires_after(state_.config.reload_interval);
    reload_timer_.async_wait([this](boost::system::error_code ec) {
      if (ec) {
        return;
      }
      check_reload();
      arm_reload();
    });
  }

  void check_reload() {
    const auto& c = state_.config;
    if (tls_watcher_.changed()) {
      auto tls = make_tls_context(c.tls_cert_file, c.tls_key_file, c.client_ca_file);
      if (tls.ok()) {
        state_.metrics.certificate_reload("success");
        state_.metrics.set_certificate_expiry(tls.value().not_after_unix);
        cert_serial_ = tls.value().serial_hex;
        log_event(Level::kInfo, "certificate reloaded",
                  {{"certificate_serial", cert_serial_},
                   {"not_after_unix", static_cast<long long>(tls.value().not_after_unix)}});
        // New handshakes use the new context; open connections keep theirs.
        state_.tls.store(std::make_shared<const TlsContext>(std::move(tls).value()));
      } else {
        state_.metrics.certificate_reload("failure");
        log_event(Level::kError, "certificate reload refused; still serving the previous one",
                  {{"error", tls.error().message}, {"certificate_serial", cert_serial_}});
      }
    }
    if (policy_watcher_.changed()) {
      auto policy = admission::load_policy_file(c.policy_file);
      if (policy.ok() &&
          quota_from_cluster(policy.value()) != quota_from_cluster(*state_.policy.load())) {
        // The watch of ResourceQuotas starts with the process; a reload cannot start or stop it.
        policy = invalid_argument("quota.source changed; it takes effect on restart only");
      }
      if (policy.ok()) {
        state_.metrics.policy_reload("success");
        const std::string hash = policy.value().hash;
        state_.policy.store(
            std::make_shared<const admission::LoadedPolicy>(std::move(policy).value()));
        log_event(Level::kInfo, "policy reloaded",
                  {{"policy", c.policy_file}, {"policy_hash", hash}});
      } else {
        state_.metrics.policy_reload("failure");
        log_event(Level::kError, "policy reload refused; still serving the previous one",
                  {{"policy", c.policy_file},
                   {"error", policy.error().message},
                   {"policy_hash", state_.policy.load()->hash}});
      }
    }
  }

  void on_signal(boost::system::error_code ec, int signo) {
    if (ec) {
      return;
    }
    if (state_.draining) {
      log_event(Level::kInfo, "second signal: skipping the rest of the shutdown delay",
                {{"signal", static_cast<long long>(signo)}});
      delay_timer_.cancel();
      stop_accepting();
      return;
    }
    state_.draining = true;
    signal_time_ = Clock::now();
    log_event(Level::kInfo, "shutdown: draining, /readyz now 503",
              {{"signal", static_cast<long long>(signo)},
               {"delay_ms", static_cast<long long>(state_.config.shutdown_delay.count())},
               {"timeout_ms", static_cast<long long>(state_.config.shutdown_timeout.count())}});
    signals_.async_wait([this](boost::system::error_code e, int s) { on_signal(e, s); });
    deadline_timer_.expires_after(state_.config.shutdown_timeout);
    deadline_timer_.async_wait([this](boost::system::error_code e) {
      if (!e) {
        log_event(Level::kWarn, "shutdown timeout: closing the remaining connections",
                  {{"open_connections", static_cast<long long>(state_.connections.size())}});
        finish();
      }
    });
    delay_timer_.expires_after(state_.config.shutdown_delay);
    delay_timer_.async_wait([this](boost::system::error_code e) {
      if (!e) {
        stop_accepting();
      }
    });
  }

  void stop_accepting() {
    if (state_.closing) {
      return;
    }
    state_.closing = true;
    https_->stop();
    state_.connections.drain_all();
    log_event(Level::kInfo, "shutdown: stopped accepting, finishing open connections",
              {{"open_connections", static_cast<long long>(state_.connections.size())}});
    poll_drained();
  }

  void poll_drained() {
    if (state_.connections.size() == 0) {
      return finish();
    }
    drain_timer_.expires_after(kDrainPoll);
    drain_timer_.async_wait([this](boost::system::error_code e) {
      if (!e) {
        poll_drained();
      }
    });
  }

  void finish() {
    if (finished_) {
      return;
    }
    finished_ = true;
    log_event(Level::kInfo, "shutdown complete", {});
    boost::system::error_code ignored;
    signals_.cancel(ignored);
    reload_timer_.cancel();
    delay_timer_.cancel();
    drain_timer_.cancel();
    deadline_timer_.cancel();
    https_->stop();
    probe_->stop();
    pool_.stop();
  }

  SharedState state_;
  IoPool pool_;  // after state_: connections still queued in it are destroyed before state_
  net::basic_signal_set<IoExecutor> signals_;
  Timer reload_timer_;
  Timer delay_timer_;
  Timer drain_timer_;
  Timer deadline_timer_;
  FileWatcher tls_watcher_;
  FileWatcher policy_watcher_;
  std::shared_ptr<Listener> https_;
  std::shared_ptr<Listener> probe_;
  std::string cert_serial_;
  std::optional<Clock::time_point> signal_time_;  // the first SIGTERM/SIGINT
  bool finished_ = false;
};

}  // namespace

Status serve(const ServerConfig& config, const std::string& version, ReviewFn review,
             const ClusterView* cluster) {
  init_logging(config.log_format, config.log_level);
  auto runtime = std::make_unique<Runtime>(config, version, std::move(review), cluster);
  if (Status s = runtime->start(); !s.ok()) {
    return s;
  }
  runtime->run();
  if (!runtime->stop_reviews()) {
    // A review cannot be interrupted, and a pathological body can take minutes: do not hold the
    // process past its shutdown timeout for an answer nobody waits for any more.
    log_event(Level::kWarn, "shutdown timeout: exiting while a large review still runs", {});
    flush_logs();
    std::_Exit(0);
  }
  runtime.reset();
  // Every connection is closed: write the decision lines still batched before returning.
  flush_logs();
  return {};
}

}  // namespace rjg::server
