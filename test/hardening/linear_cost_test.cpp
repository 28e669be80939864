// Linear cost as a property: every repeated structure a review reads, and every way a `check`
// input grows, costs at most linear CPU time. Each structure is grown by 10x (N -> 10N) and the
// review's (or check's) CPU time must grow by less than 20x: linear growth gives about 10x (less
// when a fixed cost dominates), an O(n log n) sort about 12x, anything quadratic 100x.
//
// Reviews run in-process through admission::review, the function the server runs for POST
// /validate; `check` runs as the real binary. Cost is CPU time (CLOCK_PROCESS_CPUTIME_ID for
// reviews, the child's rusage for check), never wall time, and the best of several repetitions,
// so that a loaded machine (other processes, preemption) does not change the figures much. Sizes
// are chosen so that N costs milliseconds: large against timer resolution, small enough that
// the whole test stays under a minute. The table (structure, N, cost at N, cost at 10N, ratio) is
// printed, for docs/hardening.md ("Linear cost").
#include <fcntl.h>
#include <rapidjson/pointer.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "admission/policy_file.hpp"
#include "admission/review.hpp"
#include "common/file.hpp"
#include "test/common/temp_dir.hpp"

namespace rjg {
namespace {

using rapidjson::Document;
using rapidjson::Value;
using Alloc = Document::AllocatorType;

// Growing a structure 10x may cost at most this many times more.
constexpr double kMaxRatio = 20.0;
// Each measurement repeats a run until it took at least this much CPU time (so that a 100 us
// review is not measured against the clock's granularity), then keeps the best of kRepetitions.
constexpr double kMinSampleSeconds = 0.004;
constexpr int kRepetitions = 5;
// When the first run at 10N already costs this many times the cost at N, the structure has
// failed beyond doubt; repeating it (seconds per run on a quadratic path) would only slow the
// test down.
constexpr double kObviousFailure = 3 * kMaxRatio;

double process_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

struct Row {
  std::string structure;
  std::size_t n = 0;
  double at_n = 0;    // seconds of CPU time per run at N
  double at_10n = 0;  // ... at 10N
  double ratio() const { return at_10n / at_n; }
};

void print_table(const char* title, const std::vector<Row>& rows) {
  std::printf("\n%s (CPU time, best of %d; limit: ratio < %.0f)\n", title, kRepetitions, kMaxRatio);
  std::printf("| %-58s | %6s | %10s | %10s | %6s |\n", "structure", "N", "cost at N",
              "cost at 10N", "ratio");
  std::printf("|%s|%s|%s|%s|%s|\n", std::string(60, '-').c_str(), std::string(8, '-').c_str(),
              std::string(12, '-').c_str(), std::string(13, '-').c_str(),
              std::string(8, '-').c_str());
  for (const Row& r : rows) {
    std::printf("| %-58s | %6zu | %7.3f ms | %8.3f ms | %5.1fx |\n", r.structure.c_str(), r.n,
                r.at_n * 1e3, r.at_10n * 1e3, r.ratio());
  }
  std::fflush(stdout);
}

// The CPU seconds of one call at N (`small`) and at 10N (`big`); each returns its own CPU time.
// Samples of the two sizes alternate, so that both see the same machine (a compile starting
// next to the test slows both, not one), and each sample repeats its call until it holds
// kMinSampleSeconds. Returns the best sample per call of each, after kRepetitions rounds; when
// the first call at 10N already costs kObviousFailure times the one at N, after that call.
Row measure(std::string structure, std::size_t n, const std::function<double()>& small,
            const std::function<double()>& big) {
  Row row{std::move(structure), n, small(), big()};
  if (row.ratio() > kObviousFailure) {
    return row;
  }
  auto sample = [](const std::function<double()>& run, double first) {
    const int calls = std::max(1, static_cast<int>(kMinSampleSeconds / std::max(first, 1e-6)));
    double total = 0;
    for (int i = 0; i < calls; ++i) {
      total += run();
    }
    return total / calls;
  };
  const double first_small = row.at_n;
  const double first_big = row.at_10n;
  for (int rep = 0; rep < kRepetitions; ++rep) {
    row.at_n = std::min(row.at_n, sample(small, first_small));
    row.at_10n = std::min(row.at_10n, sample(big, first_big));
  }
  return row;
}

// ---------------------------------------------------------------------------------------------
// Reviews

std::string read_text(const std::filesystem::path& path) {
  Result<std::string> text = read_file(path.string());
  EXPECT_TRUE(text.ok()) << text.error().message;
  return text.ok() ? text.value() : std::string();
}

// A key of a grown map: descending, so that a structure kept sorted by insertion pays its worst
// case (every insertion at the front).
std::string key(std::string_view prefix, std::size_t i, std::size_t n, std::string_view suffix) {
  char digits[24];
  std::snprintf(digits, sizeof digits, "%07zu", n - 1 - i);
  return std::string(prefix) + digits + std::string(suffix);
}

Value text(const std::string& s, Alloc& a) {
  return Value(s.c_str(), static_cast<rapidjson::SizeType>(s.size()), a);
}

// Sets `pointer` (under /request/object) to an object of n entries prefix<key>: value.
void set_map(Document& d, const char* pointer, std::string_view prefix, std::string_view value,
             std::size_t n, std::string_view suffix = {}) {
  Alloc& a = d.GetAllocator();
  Value map(rapidjson::kObjectType);
  for (std::size_t i = 0; i < n; ++i) {
    map.AddMember(text(key(prefix, i, n, suffix), a), text(std::string(value), a), a);
  }
  rapidjson::Pointer((std::string("/request/object") + pointer).c_str()).Set(d, map);
}

// Sets `pointer` to an array of n elements made by `element(i)` (parsed JSON text).
void set_list(Document& d, const char* pointer, std::size_t n,
              const std::function<std::string(std::size_t)>& element) {
  Alloc& a = d.GetAllocator();
  Value list(rapidjson::kArrayType);
  for (std::size_t i = 0; i < n; ++i) {
    Document e;
    e.Parse(element(i).c_str());
    EXPECT_FALSE(e.HasParseError()) << element(i);
    Value v;
    v.CopyFrom(e, a);
    list.PushBack(v, a);
  }
  rapidjson::Pointer((std::string("/request/object") + pointer).c_str()).Set(d, list);
}

void set_string(Document& d, const char* pointer, const std::string& s) {
  rapidjson::Pointer((std::string("/request/object") + pointer).c_str())
      .Set(d, text(s, d.GetAllocator()));
}

std::string numbered(const char* format, std::size_t i) {
  char buf[2048];
  std::snprintf(buf, sizeof buf, format, i, i);
  return buf;
}

std::function<std::string(std::size_t)> each(const char* format) {
  return [format](std::size_t i) { return numbered(format, i); };
}

// runtimeEnvYAML holding `head` then n lines made by `line` (a printf format of the index).
std::string runtime_env(const char* head, const char* line, std::size_t n) {
  std::string out = head;
  for (std::size_t i = 0; i < n; ++i) {
    out += numbered(line, n - 1 - i);
  }
  return out;
}

constexpr const char* kHead = "/spec/rayClusterSpec/headGroupSpec";
constexpr const char* kWorker = "/spec/rayClusterSpec/workerGroupSpecs/0";
constexpr const char* kContainer =
    "{\"name\":\"c%zu\",\"image\":\"rayproject/ray:2.52.0\",\"resources\":{\"requests\":"
    "{\"cpu\":\"1\",\"memory\":\"1Gi\"},\"limits\":{\"cpu\":\"1\",\"memory\":\"1Gi\"}}}";

struct Structure {
  std::string name;
  std::size_t n;
  std::function<void(Document&, std::size_t)> grow;
};

std::string path(const char* base, const char* rest) { return std::string(base) + rest; }

// Every repeated structure of a RayJob: each map of strings and each list that
// admission/decode_rayjob.cpp reads (and parse_runtime_env inside runtimeEnvYAML), and the
// repeated parts of a pod spec it does not read but the JSON parser still walks.
std::vector<Structure> structures() {
  // A container's requests with N extended resources and no limits get one finding per resource
  // (resources-declared), each with its message and cause (the response holds 700 bytes per
  // resource): linear, but with a smaller N, so that 10N stays out of the regime where fresh
  // pages of a multi-megabyte response dominate the cost and make it noisy.
  constexpr std::size_t kFindingEach = 300;
  std::vector<Structure> out;
  auto map = [&out](const std::string& where, std::string pointer, std::string prefix,
                    std::string value, std::size_t n = 4000) {
    out.push_back({where, n, [pointer, prefix, value](Document& d, std::size_t k) {
                     set_map(d, pointer.c_str(), prefix, value, k);
                   }});
  };
  auto list = [&out](const std::string& where, std::string pointer, const char* format,
                     std::size_t n) {
    out.push_back({where, n, [pointer, format](Document& d, std::size_t k) {
                     set_list(d, pointer.c_str(), k, each(format));
                   }});
  };
  // requests and limits of one container, both with the same n extended resources.
  auto resources = [&out](const std::string& where, std::string pointer) {
    out.push_back({where + ".requests and .limits", 4000, [pointer](Document& d, std::size_t k) {
                     set_map(d, (pointer + "/requests").c_str(), "example.com/r", "1", k);
                     set_map(d, (pointer + "/limits").c_str(), "example.com/r", "1", k);
                   }});
  };
  // Two containers whose resources interleave ("r1" < "r1x" < "r2"): the pod footprint sums
  // them into one map.
  out.push_back({"two head containers' resources, interleaved keys", 4000,
                 [](Document& d, std::size_t k) {
                   const std::string c = path(kHead, "/template/spec/containers");
                   set_list(d, c.c_str(), 2, each(kContainer));
                   for (const char* which : {"/requests", "/limits"}) {
                     set_map(d, (c + "/0/resources" + which).c_str(), "example.com/r", "1", k);
                     set_map(d, (c + "/1/resources" + which).c_str(), "example.com/r", "1", k,
                             "x");
                   }
                 }});
  // Maps of strings.
  map("metadata.labels", "/metadata/labels", "example.com/l", "v");
  map("metadata.annotations", "/metadata/annotations", "example.com/a", "v");
  map("metadata.annotations (rayjob-guard.io/ keys)", "/metadata/annotations",
      "rayjob-guard.io/x", "v");
  map("metadata.annotations (ray.io/ keys)", "/metadata/annotations", "ray.io/x", "v");
  map("spec.clusterSelector", "/spec/clusterSelector", "k", "v");
  map("headGroupSpec.rayStartParams", path(kHead, "/rayStartParams"), "p", "1");
  map("headGroupSpec.labels", path(kHead, "/labels"), "l", "v");
  map("headGroupSpec.resources", path(kHead, "/resources"), "example.com/r", "1");
  map("headGroupSpec.template.metadata.labels", path(kHead, "/template/metadata/labels"), "l",
      "v");
  map("headGroupSpec.template.metadata.annotations", path(kHead, "/template/metadata/annotations"),
      "a", "v");
  map("headGroupSpec.template.spec.nodeSelector", path(kHead, "/template/spec/nodeSelector"), "n",
      "v");
  resources("head container resources", path(kHead, "/template/spec/containers/0/resources"));
  map("head container resources.requests, no limits (a finding each)",
      path(kHead, "/template/spec/containers/0/resources/requests"), "example.com/r", "1",
      kFindingEach);
  map("workerGroupSpecs[0].rayStartParams", path(kWorker, "/rayStartParams"), "p", "1");
  map("workerGroupSpecs[0].labels", path(kWorker, "/labels"), "l", "v");
  resources("worker container resources", path(kWorker, "/template/spec/containers/0/resources"));
  map("autoscalerOptions.resources.requests",
      "/spec/rayClusterSpec/autoscalerOptions/resources/requests", "example.com/r", "1");
  map("autoscalerOptions.resources.limits",
      "/spec/rayClusterSpec/autoscalerOptions/resources/limits", "example.com/r", "1");
  map("submitterPodTemplate.metadata.labels", "/spec/submitterPodTemplate/metadata/labels", "l",
      "v");
  map("submitterPodTemplate.metadata.annotations",
      "/spec/submitterPodTemplate/metadata/annotations", "a", "v");
  resources("submitterPodTemplate container resources",
            "/spec/submitterPodTemplate/spec/containers/0/resources");
  map("submitterConfig (members)", "/spec/submitterConfig", "x", "v");
  map("gcsFaultToleranceOptions.redisPassword (members)",
      "/spec/rayClusterSpec/gcsFaultToleranceOptions/redisPassword", "x", "v");
  // Strings: `head` then n lines made by `line` (a printf format of the index).
  auto lines = [&out](const std::string& where, const char* pointer, std::size_t n,
                      const char* head, const char* line) {
    out.push_back({where, n, [pointer, head, line](Document& d, std::size_t k) {
                     set_string(d, pointer, runtime_env(head, line, k));
                   }});
  };
  lines("spec.entrypoint (64-byte words)", "/spec/entrypoint", 4000, "python run.py",
        " --flag-%07zu=0123456789012345678901234567890123456789");
  // runtimeEnvYAML: parse_runtime_env caps it at 10,000 YAML nodes, so 10N stays under that.
  constexpr const char* kEnv = "/spec/runtimeEnvYAML";
  lines("runtimeEnvYAML env_vars", kEnv, 400, "env_vars:\n", "  VAR_%07zu: \"value %zu\"\n");
  lines("runtimeEnvYAML pip", kEnv, 800, "pip:\n", "  - package-%07zu==1.%zu\n");
  lines("runtimeEnvYAML pip.packages", kEnv, 800, "pip:\n  packages:\n",
        "  - package-%07zu==1.%zu\n");
  lines("runtimeEnvYAML py_modules", kEnv, 800, "py_modules:\n",
        "  - s3://bucket/m%07zu-%zu.zip\n");
  lines("runtimeEnvYAML top-level keys", kEnv, 400, "", "key_%07zu: %zu\n");
  // Lists.
  list("metadata.finalizers", "/metadata/finalizers", "\"example.com/f%zu-%zu\"", 4000);
  list("headGroupSpec containers", path(kHead, "/template/spec/containers"), kContainer, 600);
  list("headGroupSpec initContainers", path(kHead, "/template/spec/initContainers"), kContainer,
       600);
  list("head container env", path(kHead, "/template/spec/containers/0/env"),
       "{\"name\":\"E%zu\",\"value\":\"v%zu\"}", 3000);
  list("head container env (valueFrom)", path(kHead, "/template/spec/containers/0/env"),
       "{\"name\":\"E%zu\",\"valueFrom\":{\"fieldRef\":{\"fieldPath\":\"metadata.name\"}}}", 2000);
  list("head container volumeMounts", path(kHead, "/template/spec/containers/0/volumeMounts"),
       "{\"name\":\"v%zu\",\"mountPath\":\"/mnt/%zu\"}", 3000);
  list("head container ports", path(kHead, "/template/spec/containers/0/ports"),
       "{\"name\":\"p%zu\",\"containerPort\":%zu}", 3000);
  list("headGroupSpec volumes", path(kHead, "/template/spec/volumes"),
       "{\"name\":\"v%zu\",\"emptyDir\":{\"sizeLimit\":\"%zuMi\"}}", 3000);
  list("headGroupSpec tolerations", path(kHead, "/template/spec/tolerations"),
       "{\"key\":\"k%zu\",\"operator\":\"Equal\",\"value\":\"%zu\",\"effect\":\"NoSchedule\"}",
       3000);
  list("worker container env", path(kWorker, "/template/spec/containers/0/env"),
       "{\"name\":\"E%zu\",\"value\":\"v%zu\"}", 3000);
  list("workerGroupSpecs", "/spec/rayClusterSpec/workerGroupSpecs",
       "{\"groupName\":\"g%zu\",\"replicas\":1,\"minReplicas\":1,\"maxReplicas\":1,"
       "\"rayStartParams\":{},\"template\":{\"spec\":{\"containers\":[{\"name\":\"w%zu\","
       "\"image\":\"rayproject/ray:2.52.0\",\"resources\":{\"requests\":{\"cpu\":\"1\","
       "\"memory\":\"1Gi\"},\"limits\":{\"cpu\":\"1\",\"memory\":\"1Gi\"}}}]}}}",
       300);
  list("deletionStrategy.deletionRules", "/spec/deletionStrategy/deletionRules",
       "{\"policy\":\"DeleteSelf\",\"condition\":{\"jobStatus\":\"FAILED\",\"ttlSeconds\":%zu}}",
       2000);
  // kuberay-schema prepares, for every rule that is not DeleteSelf, its fix into DeleteSelf with
  // reap-ttl's TTL, which looks at the DeleteWorkers and DeleteCluster rules of its condition.
  list("deletionRules, DeleteWorkers", "/spec/deletionStrategy/deletionRules",
       "{\"policy\":\"DeleteWorkers\",\"condition\":{\"jobStatus\":\"FAILED\",\"ttlSeconds\":"
       "%zu}}",
       2000);
  list("submitterPodTemplate containers", "/spec/submitterPodTemplate/spec/containers",
       kContainer, 600);
  list("submitterPodTemplate container env",
       "/spec/submitterPodTemplate/spec/containers/0/env", "{\"name\":\"E%zu\",\"value\":\"v%zu\"}",
       3000);
  list("autoscalerOptions.env", "/spec/rayClusterSpec/autoscalerOptions/env",
       "{\"name\":\"E%zu\",\"value\":\"v%zu\"}", 3000);
  list("autoscalerOptions.volumeMounts", "/spec/rayClusterSpec/autoscalerOptions/volumeMounts",
       "{\"name\":\"v%zu\",\"mountPath\":\"/mnt/%zu\"}", 3000);
  list("historyServerOptions.collectorOptions.env",
       "/spec/rayClusterSpec/historyServerOptions/collectorOptions/env",
       "{\"name\":\"E%zu\",\"value\":\"v%zu\"}", 3000);
  list("networkPolicy.workerGroups", "/spec/rayClusterSpec/networkPolicy/workerGroups",
       "{\"groupName\":\"g%zu\",\"ingressRules\":[{\"ports\":[{\"port\":%zu}]}]}", 2000);
  list("networkPolicy.head.ingressRules", "/spec/rayClusterSpec/networkPolicy/head/ingressRules",
       "{\"ports\":[{\"port\":%zu}],"
       "\"from\":[{\"podSelector\":{\"matchLabels\":{\"a\":\"%zu\"}}}]}",
       2000);
  list("gcsFaultToleranceOptions.storage.accessModes",
       "/spec/rayClusterSpec/gcsFaultToleranceOptions/storage/accessModes",
       "\"ReadWriteOnce-%zu-%zu\"", 4000);
  return out;
}

// The allowed sample RayJob of the golden tests, serialized after `grow` made one structure n
// long.
std::string request_body(const Structure& s, std::size_t n) {
  Document d;
  d.Parse(read_text(std::filesystem::path(RJG_GOLDEN_CASES_DIR) / "allow-compliant" /
                    "request.json")
              .c_str());
  EXPECT_FALSE(d.HasParseError());
  s.grow(d, n);
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
  d.Accept(w);
  return std::string(buffer.GetString(), buffer.GetSize());
}

TEST(LinearCost, ReviewOfEveryRepeatedStructure) {
  Result<admission::LoadedPolicy> policy = admission::load_policy_or_default("");
  ASSERT_TRUE(policy.ok()) << policy.error().message;
  std::vector<Row> rows;
  for (const Structure& s : structures()) {
    const std::string body_n = request_body(s, s.n);
    const std::string body_10n = request_body(s, 10 * s.n);
    ASSERT_LE(body_10n.size(), kMaxInputBytes) << s.name << ": the request must stay in the limit";
    auto review = [&](const std::string& body) {
      return [&]() {
        const double t0 = process_cpu_seconds();
        Result<admission::ReviewResult> r = admission::review(body, policy.value());
        const double t1 = process_cpu_seconds();
        EXPECT_TRUE(r.ok()) << s.name << ": " << (r.ok() ? "" : r.error().message);
        return t1 - t0;
      };
    };
    rows.push_back(measure(s.name, s.n, review(body_n), review(body_10n)));
  }
  print_table("Review (admission::review, in process): each structure grown from N to 10N", rows);
  for (const Row& r : rows) {
    EXPECT_LT(r.ratio(), kMaxRatio) << r.structure << ": " << r.at_n * 1e3 << " ms at N="
                                    << r.n << ", " << r.at_10n * 1e3 << " ms at 10N";
  }
}

// ---------------------------------------------------------------------------------------------
// check (the real binary)

// Runs the binary with `args`, output to /dev/null, and returns its CPU time (user + system).
// Fails the test when it does not exit 0 or 1 (a bad input would measure the wrong path).
double run_check(const std::vector<std::string>& args) {
  std::vector<char*> argv;
  std::string binary = RJG_BINARY;
  argv.push_back(binary.data());
  std::vector<std::string> copy = args;
  for (std::string& a : copy) {
    argv.push_back(a.data());
  }
  argv.push_back(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    const int null = open("/dev/null", O_WRONLY);
    dup2(null, STDOUT_FILENO);
    dup2(null, STDERR_FILENO);
    execv(argv[0], argv.data());
    _exit(127);
  }
  int status = 0;
  rusage usage{};
  EXPECT_EQ(wait4(pid, &status, 0, &usage), pid);
  EXPECT_TRUE(WIFEXITED(status) && (WEXITSTATUS(status) == 0 || WEXITSTATUS(status) == 1))
      << "check exited with status " << status << " (2: bad input)";
  auto seconds = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6;
  };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

// A small RayJob of about 20 lines, as a tenant's CI would check a directory of them.
std::string small_rayjob_yaml(std::size_t i) {
  return numbered(
      "---\n"
      "apiVersion: ray.io/v1\n"
      "kind: RayJob\n"
      "metadata:\n"
      "  name: job-%zu\n"
      "spec:\n"
      "  entrypoint: python run.py --seed %zu\n"
      "  activeDeadlineSeconds: 3600\n"
      "  rayClusterSpec:\n"
      "    headGroupSpec:\n"
      "      rayStartParams: {}\n"
      "      template:\n"
      "        spec:\n"
      "          containers:\n"
      "          - name: ray-head\n"
      "            image: rayproject/ray:2.52.0\n"
      "            resources:\n"
      "              requests: {cpu: \"1\", memory: 2Gi}\n"
      "              limits: {cpu: \"1\", memory: 2Gi}\n",
      i);
}

std::string small_rayjob_json(std::size_t i) {
  return numbered(
      "{\"apiVersion\":\"ray.io/v1\",\"kind\":\"RayJob\",\"metadata\":{\"name\":\"job-%zu\"},"
      "\"spec\":{\"entrypoint\":\"python run.py --seed %zu\",\"activeDeadlineSeconds\":3600,"
      "\"rayClusterSpec\":{\"headGroupSpec\":{\"rayStartParams\":{},\"template\":{\"spec\":"
      "{\"containers\":[{\"name\":\"ray-head\",\"image\":\"rayproject/ray:2.52.0\","
      "\"resources\":{\"requests\":{\"cpu\":\"1\",\"memory\":\"2Gi\"},\"limits\":{\"cpu\":\"1\","
      "\"memory\":\"2Gi\"}}}]}}}}}}",
      i);
}

using rjg::testing::TempDir;

struct CheckInput {
  std::string name;
  std::size_t n;
  // Writes the input of size k under `dir` (file name prefix `tag`) and returns check's
  // arguments.
  std::function<std::vector<std::string>(const TempDir&, const std::string&, std::size_t)> make;
};

std::vector<CheckInput> check_inputs() {
  auto documents = [](const TempDir& dir, const std::string& tag, std::size_t k,
                      std::vector<std::string> flags) {
    std::string text;
    for (std::size_t i = 0; i < k; ++i) {
      text += small_rayjob_yaml(i);
    }
    flags.insert(flags.begin(), "check");
    flags.push_back(dir.write(tag + ".yaml", text));
    return flags;
  };
  return {
      {"YAML documents in one file", 600,
       [documents](const TempDir& dir, const std::string& tag, std::size_t k) {
         return documents(dir, tag, k, {});
       }},
      {"YAML documents in one file (--output json)", 600,
       [documents](const TempDir& dir, const std::string& tag, std::size_t k) {
         return documents(dir, tag, k, {"--output", "json"});
       }},
      {"files of one document", 30,
       [](const TempDir& dir, const std::string& tag, std::size_t k) {
         std::vector<std::string> args{"check"};
         for (std::size_t i = 0; i < k; ++i) {
           args.push_back(dir.write(tag + "-" + std::to_string(i) + ".yaml", small_rayjob_yaml(i)));
         }
         return args;
       }},
      {"items of one JSON v1 List", 300,
       [](const TempDir& dir, const std::string& tag, std::size_t k) {
         std::string text = "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[";
         for (std::size_t i = 0; i < k; ++i) {
           text += (i ? "," : "") + small_rayjob_json(i);
         }
         text += "]}";
         return std::vector<std::string>{"check", dir.write(tag + ".json", text)};
       }},
  };
}

TEST(LinearCost, CheckOfEveryGrowingInput) {
  TempDir dir;
  std::vector<Row> rows;
  for (const CheckInput& input : check_inputs()) {
    const std::string tag = "in" + std::to_string(rows.size()) + "-";
    const std::vector<std::string> args_n = input.make(dir, tag + "n", input.n);
    const std::vector<std::string> args_10n = input.make(dir, tag + "10n", 10 * input.n);
    rows.push_back(measure(input.name, input.n, [&args_n]() { return run_check(args_n); },
                           [&args_10n]() { return run_check(args_10n); }));
  }
  print_table("check (the binary; each input grown from N to 10N)", rows);
  for (const Row& r : rows) {
    EXPECT_LT(r.ratio(), kMaxRatio) << r.structure << ": " << r.at_n * 1e3 << " ms at N="
                                    << r.n << ", " << r.at_10n * 1e3 << " ms at 10N";
  }
}

}  // namespace
}  // namespace rjg
