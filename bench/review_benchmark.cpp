// review() cost: decode + policy::evaluate + encode of one AdmissionReview, on one core, for a
// small (~3 KB), typical (~8 KB) and large (~60 KB) RayJob, and the floor of its parse stage
// (RapidJSON tokenizing the same text and building nothing). Run:
//   rjg_review_benchmark --benchmark_min_time=1 [--review-file=REVIEW.json ...]
// Each --review-file adds review/<file> and tokenize/<file> for that request body
// (bench/run-bench.sh passes its payloads).
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "admission/decode_rayjob.hpp"
#include "admission/decode_review.hpp"
#include "admission/encode_review.hpp"
#include "admission/json_reader.hpp"
#include "admission/policy_file.hpp"
#include "admission/review.hpp"
#include "bench/tokenize_floor.hpp"
#include "common/file.hpp"
#include "policy/evaluate.hpp"
#include "policy/image_ref.hpp"

namespace {

const std::string kImage = "123456789012.dkr.ecr.us-east-1.amazonaws.com/ray-tenant:2.52.0-py310";

std::string container(const std::string& name, const char* cpu, const char* mem) {
  return R"({"name":")" + name + R"(","image":")" + kImage +
         R"(","imagePullPolicy":"IfNotPresent","ports":[{"containerPort":6379,"name":"gcs-server","protocol":"TCP"},)"
         R"({"containerPort":8265,"name":"dashboard","protocol":"TCP"}],)"
         R"("env":[{"name":"RAY_LOG_TO_STDERR","value":"1"},{"name":"AWS_REGION","value":"us-east-1"}],)"
         R"("volumeMounts":[{"mountPath":"/home/ray/samples","name":"code-sample"}],)"
         R"("resources":{"requests":{"cpu":")" +
         cpu + R"(","memory":")" + mem + R"("},"limits":{"cpu":")" + cpu + R"(","memory":")" + mem +
         R"("}}})";
}

std::string worker_group(int i) {
  return R"({"groupName":"group-)" + std::to_string(i) +
         R"(","replicas":1,"minReplicas":1,"maxReplicas":1,"numOfHosts":1,"rayStartParams":{},)"
         R"("template":{"metadata":{"labels":{"app":"ray"}},"spec":{"serviceAccountName":"ray-tenant",)"
         R"("volumes":[{"name":"code-sample","configMap":{"name":"ray-job-code-sample"}}],"containers":[)" +
         container("ray-worker", "1", "2Gi") + "]}}}";
}

// Whether a request carries the sample's runtimeEnvYAML.
enum class RuntimeEnv { kSample, kNone };

// A review whose object has `groups` worker groups, `annotations` padding annotations and the
// runtimeEnvYAML `runtime_env` says.
std::string make_review(int groups, int annotations, RuntimeEnv runtime_env = RuntimeEnv::kSample) {
  std::string ann;
  for (int i = 0; i < annotations; ++i) {
    ann += (i ? "," : "") + std::string(R"("example.com/note-)") + std::to_string(i) +
           R"(":"a short free-text annotation value that tenants attach to their jobs")";
  }
  std::string workers;
  for (int i = 0; i < groups; ++i) {
    workers += (i ? "," : "") + worker_group(i);
  }
  const std::string object =
      R"({"apiVersion":"ray.io/v1","kind":"RayJob","metadata":{"name":"sample-job","namespace":"tenant-a",)"
      R"("uid":"4a1f0e0c-0000-4000-8000-000000000001","resourceVersion":"1","generation":1,)"
      R"("labels":{"app":"sample","team":"vision"},"annotations":{)" +
      ann +
      R"(}},"spec":{"entrypoint":"python /home/ray/samples/sample_code.py",)" +
      (runtime_env == RuntimeEnv::kSample
           ? R"("runtimeEnvYAML":"pip:\n  - requests==2.26.0\n  - boto3>=1.35.0\nenv_vars:\n  counter_name: \"test_counter\"\n",)"
           : "") +
      R"("submissionMode":"K8sJobMode","shutdownAfterJobFinishes":false,"ttlSecondsAfterFinished":0,)"
      R"("backoffLimit":0,"activeDeadlineSeconds":3600,"deletionStrategy":{"deletionRules":[)"
      R"({"policy":"DeleteSelf","condition":{"jobStatus":"SUCCEEDED","ttlSeconds":300}},)"
      R"({"policy":"DeleteSelf","condition":{"jobStatus":"FAILED","ttlSeconds":7200}},)"
      R"({"policy":"DeleteSelf","condition":{"jobDeploymentStatus":"Failed","ttlSeconds":7200}}]},)"
      R"("rayClusterSpec":{"rayVersion":"2.52.0","headGroupSpec":{"rayStartParams":{"dashboard-host":"0.0.0.0"},)"
      R"("template":{"spec":{"volumes":[{"name":"code-sample","configMap":{"name":"ray-job-code-sample"}}],"containers":[)" +
      container("ray-head", "1", "4Gi") + R"(]}}},"workerGroupSpecs":[)" + workers +
      "]}},\"status\":{}}";
  return R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{)"
         R"("uid":"e911857d-c318-11e8-bbad-025000000001","kind":{"group":"ray.io","version":"v1","kind":"RayJob"},)"
         R"("resource":{"group":"ray.io","version":"v1","resource":"rayjobs"},"name":"sample-job",)"
         R"("namespace":"tenant-a","operation":"CREATE","userInfo":{"username":"system:serviceaccount:tenant-a:jupyter",)"
         R"("groups":["system:serviceaccounts","system:authenticated"]},"object":)" +
         object +
         R"(,"oldObject":null,"dryRun":false,"options":{"kind":"CreateOptions","apiVersion":"meta.k8s.io/v1"}}})";
}

// Which rules a benchmark's policy runs: the built-in policy's, or none (every rule off in it,
// rules.<id>: off, which evaluate skips, so that only decode and encode are left).
enum class Rules { kBuiltIn, kAllOff };

// Reviews `body` with the built-in policy, its rules as `rules` says.
void run_review(benchmark::State& state, const std::string& body, Rules rules = Rules::kBuiltIn) {
  auto policy = rjg::admission::decode_policy(rjg::admission::default_policy_yaml());
  if (!policy.ok()) {
    state.SkipWithError(policy.error().message.c_str());
    return;
  }
  if (rules == Rules::kAllOff) {
    policy.value().config.rule_actions.fill(rjg::policy::RuleAction::kOff);
  }
  {
    auto check = rjg::admission::review(body, policy.value());
    if (!check.ok()) {
      state.SkipWithError(check.error().message.c_str());
      return;
    }
  }
  for (auto _ : state) {
    auto r = rjg::admission::review(body, policy.value());
    benchmark::DoNotOptimize(r);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(body.size()));
  state.counters["request_bytes"] = static_cast<double>(body.size());
}

void BM_ReviewSmall(benchmark::State& state) { run_review(state, make_review(1, 0)); }
void BM_ReviewTypical(benchmark::State& state) { run_review(state, make_review(3, 30)); }
void BM_ReviewLarge(benchmark::State& state) { run_review(state, make_review(60, 90)); }

BENCHMARK(BM_ReviewSmall);
BENCHMARK(BM_ReviewTypical);
BENCHMARK(BM_ReviewLarge);

// The typical review with a part taken away, timed in place: after the other stages have evicted
// its code and data, as in the server, where a BM_Stage* benchmark times a stage alone and hot.
// BM_ReviewTypical less each of these is what the part costs in place: runtimeEnvYAML (the same
// request without it, 112 bytes shorter), the rules (every one off in the policy), both.
void BM_ReviewTypicalNoRuntimeEnv(benchmark::State& state) {
  run_review(state, make_review(3, 30, RuntimeEnv::kNone));
}
void BM_ReviewTypicalRulesOff(benchmark::State& state) {
  run_review(state, make_review(3, 30), Rules::kAllOff);
}
void BM_ReviewTypicalNoRuntimeEnvRulesOff(benchmark::State& state) {
  run_review(state, make_review(3, 30, RuntimeEnv::kNone), Rules::kAllOff);
}

BENCHMARK(BM_ReviewTypicalNoRuntimeEnv);
BENCHMARK(BM_ReviewTypicalRulesOff);
BENCHMARK(BM_ReviewTypicalNoRuntimeEnvRulesOff);

// The stages of one typical review, so that a change can be attributed to the stage it speeds up.
void BM_StageJsonParse(benchmark::State& state) {
  const std::string body = make_review(3, 30);
  for (auto _ : state) {
    auto doc = rjg::admission::json::parse_in_place(body);
    benchmark::DoNotOptimize(doc);
  }
}

void BM_StageDecode(benchmark::State& state) {
  const std::string body = make_review(3, 30);
  for (auto _ : state) {
    auto d = rjg::admission::decode_review(body);
    benchmark::DoNotOptimize(d);
  }
}

void BM_StageEvaluate(benchmark::State& state) {
  auto policy = rjg::admission::decode_policy(rjg::admission::default_policy_yaml());
  auto decoded = rjg::admission::decode_review(make_review(3, 30));
  if (!policy.ok() || !decoded.ok()) {
    state.SkipWithError("setup failed");
    return;
  }
  for (auto _ : state) {
    auto v = rjg::policy::evaluate(decoded.value().request, policy.value().config);
    benchmark::DoNotOptimize(v);
  }
}

void BM_StageEncode(benchmark::State& state) {
  auto policy = rjg::admission::decode_policy(rjg::admission::default_policy_yaml());
  auto decoded = rjg::admission::decode_review(make_review(3, 30));
  if (!policy.ok() || !decoded.ok()) {
    state.SkipWithError("setup failed");
    return;
  }
  const auto verdict = rjg::policy::evaluate(decoded.value().request, policy.value().config);
  const rjg::admission::ResponseContext ctx{decoded.value().uid, decoded.value().name,
                                            policy.value().hash};
  for (auto _ : state) {
    auto body = rjg::admission::encode_review(ctx, verdict);
    benchmark::DoNotOptimize(body);
  }
}

void BM_StageRuntimeEnvYaml(benchmark::State& state) {
  const std::string text =
      "pip:\n  - requests==2.26.0\n  - boto3>=1.35.0\nenv_vars:\n  counter_name: "
      "\"test_counter\"\n";
  for (auto _ : state) {
    auto env = rjg::admission::parse_runtime_env(text);
    benchmark::DoNotOptimize(env);
  }
}

void BM_StageImageMatch(benchmark::State& state) {
  for (auto _ : state) {
    bool m = rjg::policy::image_matches("*.dkr.ecr.*.amazonaws.com/ray-tenant:*", kImage);
    m = m && !rjg::policy::image_matches("rayproject/ray*", kImage);
    benchmark::DoNotOptimize(m);
  }
}

// The parse stage's floor on the same typical review: what RapidJSON costs before any of our code
// (decoding, rules, encoding) runs. BM_StageJsonParse minus this is the document build.
void run_tokenize(benchmark::State& state, const std::string& body) {
  std::string scratch;
  if (!rjg::bench::tokenize_in_place(body, scratch)) {
    state.SkipWithError("not valid JSON");
    return;
  }
  for (auto _ : state) {
    bool ok = rjg::bench::tokenize_in_place(body, scratch);
    benchmark::DoNotOptimize(ok);
  }
}

void BM_FloorTokenize(benchmark::State& state) { run_tokenize(state, make_review(3, 30)); }
void BM_FloorTokenizeSmall(benchmark::State& state) { run_tokenize(state, make_review(1, 0)); }
void BM_FloorTokenizeLarge(benchmark::State& state) { run_tokenize(state, make_review(60, 90)); }

BENCHMARK(BM_StageJsonParse);
BENCHMARK(BM_FloorTokenize);
BENCHMARK(BM_StageDecode);
BENCHMARK(BM_StageEvaluate);
BENCHMARK(BM_StageEncode);
BENCHMARK(BM_StageRuntimeEnvYaml);
BENCHMARK(BM_StageImageMatch);
BENCHMARK(BM_FloorTokenizeSmall);
BENCHMARK(BM_FloorTokenizeLarge);

// The console output, then each review's CPU time over RapidJSON's bare tokenize of the same
// request (the floor): the figure issue 27 tracks, printed so no one has to divide by hand.
class RatioReporter : public benchmark::ConsoleReporter {
 public:
  // review benchmark -> its floor's benchmark, in the order printed.
  void pair(std::string review, std::string floor) {
    pairs_.emplace_back(std::move(review), std::move(floor));
  }

  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& r : runs) {
      if (!r.error_occurred && r.run_type == Run::RT_Iteration) {
        cpu_[r.benchmark_name()] = r.GetAdjustedCPUTime();
      }
    }
    ConsoleReporter::ReportRuns(runs);
  }

  void Finalize() override {
    for (const auto& [review, floor] : pairs_) {
      const auto r = cpu_.find(review);
      const auto f = cpu_.find(floor);
      if (r != cpu_.end() && f != cpu_.end() && f->second > 0) {
        std::printf("ratio %s / %s: %.2f (CPU time, one process, same run)\n", review.c_str(),
                    floor.c_str(), r->second / f->second);
      }
    }
    ConsoleReporter::Finalize();
  }

 private:
  std::vector<std::pair<std::string, std::string>> pairs_;
  std::map<std::string, double> cpu_;
};

}  // namespace

int main(int argc, char** argv) {
  // RatioReporter is a console reporter, and a display reporter given to RunSpecifiedBenchmarks
  // overrides --benchmark_format: with json or csv asked for (bench/run-bench.sh reads json from
  // stdout), the library's own reporter prints instead, and the ratios are left to the reader.
  bool console = true;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg.starts_with("--benchmark_format=") && arg != "--benchmark_format=console") {
      console = false;
    }
  }
  benchmark::Initialize(&argc, argv);
  std::vector<std::string> bodies;  // kept alive until the benchmarks have run
  bodies.reserve(static_cast<std::size_t>(argc));
  std::vector<std::string> file_names;
  for (int i = 1; i < argc; ++i) {
    constexpr const char* kFlag = "--review-file=";
    if (std::strncmp(argv[i], kFlag, std::strlen(kFlag)) != 0) {
      std::fprintf(stderr, "rjg_review_benchmark: unknown argument %s\n", argv[i]);
      return 2;
    }
    const std::string path = argv[i] + std::strlen(kFlag);
    rjg::Result<std::string> text = rjg::read_file(path);
    if (!text.ok()) {
      std::fprintf(stderr, "rjg_review_benchmark: %s\n", text.error().message.c_str());
      return 2;
    }
    const std::string& body = bodies.emplace_back(std::move(text).value());
    const std::string name = path.substr(path.find_last_of('/') + 1);
    file_names.push_back(name);
    benchmark::RegisterBenchmark(("review/" + name).c_str(),
                                 [&body](benchmark::State& s) { run_review(s, body); });
    benchmark::RegisterBenchmark(("tokenize/" + name).c_str(),
                                 [&body](benchmark::State& s) { run_tokenize(s, body); });
  }
  RatioReporter reporter;
  // Each review with its floor, for the ratio printed at the end and in the output's context
  // ("floor of BM_ReviewTypical": "BM_FloorTokenize"), from which bench/alternate.sh pairs them.
  auto pair = [&reporter](const std::string& review, const std::string& floor) {
    reporter.pair(review, floor);
    benchmark::AddCustomContext("floor of " + review, floor);
  };
  pair("BM_ReviewSmall", "BM_FloorTokenizeSmall");
  pair("BM_ReviewTypical", "BM_FloorTokenize");
  pair("BM_ReviewLarge", "BM_FloorTokenizeLarge");
  pair("BM_ReviewTypicalNoRuntimeEnv", "BM_FloorTokenize");
  pair("BM_ReviewTypicalRulesOff", "BM_FloorTokenize");
  pair("BM_ReviewTypicalNoRuntimeEnvRulesOff", "BM_FloorTokenize");
  for (const std::string& name : file_names) {
    pair("review/" + name, "tokenize/" + name);
  }
  if (console) {
    benchmark::RunSpecifiedBenchmarks(&reporter);
  } else {
    benchmark::RunSpecifiedBenchmarks();
  }
  benchmark::Shutdown();
  return 0;
}
