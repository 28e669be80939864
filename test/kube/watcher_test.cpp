// Watcher without sockets: list then watch from the list's resourceVersion, resume from the last
// version seen, relist on 410 Gone (an ERROR event or the HTTP status), list again after a line it
// cannot read, back off and keep the version after a failed watch, page through a long list, and
// the state readiness and staleness are computed from.
#include "kube/watcher.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "test/kube/fake_transport.hpp"

namespace rjg::kube {
namespace {

using testing::FakeTransport;
using testing::response;

// The sink: namespace/name -> JSON, and what was called.
class MapSink final : public WatchSink {
 public:
  void replace(std::vector<admission::WatchedObject> objects) override {
    objects_.clear();
    for (auto& o : objects) {
      objects_[o.namespace_ + "/" + o.name] = o.json;
    }
    ++replaces;
  }
  void upsert(admission::WatchedObject o) override {
    objects_[o.namespace_ + "/" + o.name] = o.json;
  }
  void erase(const std::string& ns, const std::string& name) override {
    objects_.erase(ns + "/" + name);
  }
  std::vector<std::string> keys() const {
    std::vector<std::string> out;
    for (const auto& [k, v] : objects_) {
      out.push_back(k);
    }
    return out;
  }
  const std::string& json(const std::string& key) { return objects_.at(key); }
  int replaces = 0;

 private:
  std::map<std::string, std::string> objects_;
};

std::string quota(const std::string& ns, const std::string& name, const std::string& rv,
                  const std::string& cpu = "4") {
  return R"({"metadata":{"namespace":")" + ns + R"(","name":")" + name +
         R"(","resourceVersion":")" + rv + R"("},"spec":{"hard":{"requests.cpu":")" + cpu +
         R"("}}})";
}

std::string list(const std::string& rv, const std::vector<std::string>& items,
                 const std::string& token = "") {
  std::string out = R"({"kind":"ResourceQuotaList","metadata":{"resourceVersion":")" + rv + "\"";
  if (!token.empty()) {
    out += R"(,"continue":")" + token + "\"";
  }
  out += R"(},"items":[)";
  for (std::size_t i = 0; i < items.size(); ++i) {
    out += (i == 0 ? "" : ",") + items[i];
  }
  return out + "]}";
}

std::string event(const std::string& type, const std::string& object) {
  return R"({"type":")" + type + R"(","object":)" + object + "}\n";
}

std::string bookmark(const std::string& rv) {
  return event("BOOKMARK", R"({"kind":"ResourceQuota","metadata":{"resourceVersion":")" + rv +
                               R"("}})");
}

WatchOptions options() {
  WatchOptions o;
  o.resource = "resourcequotas";
  o.backoff = Backoff{0, std::chrono::milliseconds(1), std::chrono::milliseconds(2)};
  return o;
}

bool is_watch(const HttpRequest& r) { return r.target.find("watch=1") != std::string::npos; }

// Runs a watcher whose transport answers the i-th request with answers[i](request); the last
// answer stops the watcher (a list stopped that way reaches no sink, so scripts end on a watch).
struct Script {
  std::vector<std::function<Result<HttpResponse>(const HttpRequest&)>> answers;
  MapSink sink;
  std::unique_ptr<FakeTransport> transport;
  std::unique_ptr<Watcher> watcher;

  void run(WatchOptions o = options()) {
    std::size_t next = 0;
    transport = std::make_unique<FakeTransport>([&](const HttpRequest& r) -> Result<HttpResponse> {
      EXPECT_LT(next, answers.size()) << "unexpected request " << r.target;
      if (next >= answers.size()) {
        watcher->stop();
        return response(200, "");
      }
      if (next + 1 == answers.size()) {
        watcher->stop();
      }
      return answers[next++](r);
    });
    watcher = std::make_unique<Watcher>(*transport, o, sink, 7);
    watcher->run();
    EXPECT_EQ(next, answers.size());
  }
  const std::vector<HttpRequest>& requests() const { return transport->requests; }
};

TEST(Watcher, ListsThenWatchesFromTheListsVersionAndResumesFromTheLastSeen) {
  Script s;
  s.answers = {
      [](const HttpRequest&) {
        return response(200, list("10", {quota("a", "q", "9"), quota("b", "q", "8")}));
      },
      [](const HttpRequest&) {
        return response(200, event("ADDED", quota("c", "q", "11")) +
                                 event("MODIFIED", quota("a", "q", "12", "8")) +
                                 event("DELETED", quota("b", "q", "13")) + bookmark("15"));
      },
      [](const HttpRequest&) { return response(200, ""); },
  };
  s.run();
  ASSERT_EQ(s.requests().size(), 3u);
  EXPECT_EQ(s.requests()[0].target, "/api/v1/resourcequotas?limit=500");
  EXPECT_EQ(s.requests()[1].target.rfind("/api/v1/resourcequotas?watch=1&allowWatchBookmarks=true"
                                         "&resourceVersion=10&timeoutSeconds=",
                                         0),
            0u)
      << s.requests()[1].target;
  // The bookmark's version, the last one seen, is where the next watch resumes.
  EXPECT_NE(s.requests()[2].target.find("&resourceVersion=15&"), std::string::npos)
      << s.requests()[2].target;
  EXPECT_EQ(s.sink.keys(), (std::vector<std::string>{"a/q", "c/q"}));
  EXPECT_NE(s.sink.json("a/q").find(R"("requests.cpu":"8")"), std::string::npos);
  const WatchState st = s.watcher->state();
  EXPECT_TRUE(st.synced);
  EXPECT_EQ(st.lists, 1);
  EXPECT_EQ(st.events, 3);
  EXPECT_EQ(st.failures, 0);
}

TEST(Watcher, GoneListsAgainWhetherAnErrorEventOrTheStatus) {
  Script s;
  s.answers = {
      [](const HttpRequest&) { return response(200, list("10", {quota("a", "q", "9")})); },
      [](const HttpRequest&) {
        return response(200, event("ERROR", R"({"kind":"Status","code":410,"reason":"Expired",)"
                                            R"j("message":"too old resource version: 10 (40)"})j"));
      },
      [](const HttpRequest&) { return response(200, list("40", {quota("b", "q", "39")})); },
      [](const HttpRequest&) { return response(410, R"({"kind":"Status","code":410})"); },
      [](const HttpRequest&) { return response(200, list("50", {})); },
      [](const HttpRequest&) { return response(200, ""); },
  };
  s.run();
  ASSERT_EQ(s.requests().size(), 6u);
  for (std::size_t i : {0u, 2u, 4u}) {
    EXPECT_FALSE(is_watch(s.requests()[i])) << i;
  }
  EXPECT_NE(s.requests()[3].target.find("&resourceVersion=40&"), std::string::npos);
  EXPECT_TRUE(s.sink.keys().empty());  // the last list replaced everything
  EXPECT_EQ(s.sink.replaces, 3);
  EXPECT_EQ(s.watcher->state().lists, 3);
  EXPECT_EQ(s.watcher->state().failures, 0);  // an expired version is routine, not a failure
}

TEST(Watcher, AFailedWatchBacksOffAndResumesFromTheSameVersion) {
  Script s;
  s.answers = {
      [](const HttpRequest&) { return response(200, list("10", {quota("a", "q", "9")})); },
      [](const HttpRequest&) -> Result<HttpResponse> {
        return unavailable("connect https://127.0.0.1:1: Connection refused");
      },
      [](const HttpRequest&) { return response(503, "etcd is down"); },
      [](const HttpRequest&) { return response(200, event("DELETED", quota("a", "q", "11"))); },
  };
  s.run();
  ASSERT_EQ(s.requests().size(), 4u);
  for (std::size_t i : {1u, 2u, 3u}) {
    EXPECT_TRUE(is_watch(s.requests()[i]));
    EXPECT_NE(s.requests()[i].target.find("&resourceVersion=10&"), std::string::npos);
  }
  EXPECT_TRUE(s.sink.keys().empty());
  const WatchState st = s.watcher->state();
  EXPECT_EQ(st.failures, 2);
  EXPECT_EQ(st.lists, 1);
  EXPECT_NE(st.last_error.find("HTTP 503 etcd is down"), std::string::npos) << st.last_error;
}

TEST(Watcher, ALineItCannotReadListsAgain) {
  Script s;
  s.answers = {
      [](const HttpRequest&) { return response(200, list("10", {})); },
      [](const HttpRequest&) {
        return response(200, event("ADDED", quota("a", "q", "11")) + "{\"type\":\"ADDED\"}\n");
      },
      [](const HttpRequest&) { return response(200, list("20", {quota("b", "q", "19")})); },
      [](const HttpRequest&) { return response(200, ""); },
  };
  s.run();
  ASSERT_EQ(s.requests().size(), 4u);
  EXPECT_FALSE(is_watch(s.requests()[2]));
  EXPECT_EQ(s.sink.keys(), (std::vector<std::string>{"b/q"}));
  EXPECT_EQ(s.watcher->state().failures, 1);
  EXPECT_EQ(s.watcher->state().last_error, "");  // the list after it succeeded
}

TEST(Watcher, PagesThroughALongListBeforeReplacing) {
  Script s;
  s.answers = {
      [](const HttpRequest&) { return response(200, list("10", {quota("a", "q", "9")}, "tok+1")); },
      [](const HttpRequest&) { return response(200, list("10", {quota("b", "q", "8")})); },
      [](const HttpRequest&) { return response(200, ""); },
  };
  s.run();
  EXPECT_EQ(s.requests()[1].target, "/api/v1/resourcequotas?limit=500&continue=tok%2B1");
  EXPECT_EQ(s.sink.replaces, 1);
  EXPECT_EQ(s.sink.keys(), (std::vector<std::string>{"a/q", "b/q"}));
}

TEST(Watcher, NotSyncedUntilAListSucceedsAndStaleOnlyWhileNotWatching) {
  Script s;
  s.answers = {
      [&](const HttpRequest&) {
        EXPECT_FALSE(s.watcher->state().synced);
        return response(403, "forbidden");
      },
      [&](const HttpRequest&) {
        EXPECT_FALSE(s.watcher->state().synced);
        return response(200, list("10", {}));
      },
      [&](const HttpRequest&) {
        EXPECT_TRUE(s.watcher->state().synced);
        return response(200, bookmark("12"));
      },
  };
  s.run();
  const auto now = std::chrono::steady_clock::now();
  // Not watching any more (stopped): stale since the stream ended, which was just now.
  EXPECT_LT(s.watcher->staleness(now).count(), 1.0);
  EXPECT_GE(s.watcher->staleness(now + std::chrono::seconds(30)).count(), 29.0);
  EXPECT_EQ(s.watcher->state().failures, 1);
}

TEST(Watcher, AnOptionalCollectionNotServedIsEmptyAndCurrentUntilItIsServed) {
  // Kueue's CRDs deleted, then installed again: the watch's 404 lists again, a list's 404 empties
  // the sink (once), counts no failure and is current; the next list, absent_recheck later,
  // mirrors the collection once it is served.
  Script s;
  s.answers = {
      [&](const HttpRequest&) { return response(200, list("5", {quota("a", "old", "4")})); },
      [&](const HttpRequest&) { return response(404, "the CRD was deleted"); },  // the watch
      [&](const HttpRequest&) { return response(404, "not found"); },
      [&](const HttpRequest&) {
        EXPECT_TRUE(s.sink.keys().empty());
        EXPECT_TRUE(s.watcher->state().synced);
        EXPECT_TRUE(s.watcher->state().absent);
        EXPECT_EQ(s.watcher->staleness(std::chrono::steady_clock::now()).count(), 0.0);
        return response(404, "not found");
      },
      [&](const HttpRequest&) {
        EXPECT_EQ(s.sink.replaces, 2);  // the first 404 emptied it, the second did not again
        return response(200, list("20", {quota("a", "q", "20")}));
      },
      [&](const HttpRequest&) {
        EXPECT_FALSE(s.watcher->state().absent);
        return response(200, bookmark("21"));
      },
  };
  WatchOptions o = options();
  o.optional = true;
  o.absent_recheck = std::chrono::milliseconds(1);
  s.run(o);
  EXPECT_EQ(s.sink.keys(), std::vector<std::string>{"a/q"});
  EXPECT_EQ(s.watcher->state().failures, 1);  // the watch answered 404; the lists did not fail
  EXPECT_EQ(s.watcher->state().lists, 2);
  EXPECT_TRUE(is_watch(s.requests()[1]));
  for (std::size_t i : {2u, 3u, 4u}) {
    EXPECT_FALSE(is_watch(s.requests()[i])) << i;
  }
}

TEST(Watcher, A404IsAFailureForARequiredCollection) {
  Script s;
  s.answers = {
      [&](const HttpRequest&) { return response(404, "not found"); },
      [&](const HttpRequest&) {
        EXPECT_FALSE(s.watcher->state().synced);
        return response(200, list("3", {}));
      },
      [&](const HttpRequest&) { return response(200, bookmark("4")); },
  };
  s.run();
  EXPECT_EQ(s.watcher->state().failures, 1);
}

}  // namespace
}  // namespace rjg::kube
