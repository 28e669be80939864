// QuotaCache: decode each object once, rebuild the snapshot after each change.
#include "kube/quota_cache.hpp"

#include <map>
#include <optional>
#include <utility>

#include "admission/json_reader.hpp"
#include "admission/kueue_queue.hpp"
#include "admission/resource_quota.hpp"
#include "logging/log.hpp"

namespace rjg::kube {

// The decoded objects, by (namespace, name); cluster-scoped ones have an empty namespace.
struct QuotaObjects {
  using Key = std::pair<std::string, std::string>;
  std::map<Key, policy::ResourceQuotaSpec> quotas;
  std::map<Key, std::string> local_queues;  // -> spec.clusterQueue
  std::map<Key, policy::ClusterQueueSpec> cluster_queues;

  // Decodes `object` of `collection` and keeps it. Returns kInvalidArgument naming the object
  // when it cannot be read; it is then forgotten.
  Status take(QuotaCollection collection, const admission::WatchedObject& object) {
    const Key key{object.namespace_, object.name};
    Status read = decode(collection, key, object.json);
    if (!read.ok()) {
      forget(collection, key);
      const std::string name =
          object.namespace_.empty() ? object.name : object.namespace_ + "/" + object.name;
      return invalid_argument(std::string(kQuotaCollections[static_cast<std::size_t>(collection)]
                                              .resource) +
                              " " + name + ": " + read.error().message);
    }
    return {};
  }

  void forget(QuotaCollection collection, const Key& key) {
    switch (collection) {
      case QuotaCollection::kResourceQuotas:
        quotas.erase(key);
        return;
      case QuotaCollection::kLocalQueues:
        local_queues.erase(key);
        return;
      case QuotaCollection::kClusterQueues:
        cluster_queues.erase(key);
        return;
    }
  }

  void clear(QuotaCollection collection) {
    switch (collection) {
      case QuotaCollection::kResourceQuotas:
        quotas.clear();
        return;
      case QuotaCollection::kLocalQueues:
        local_queues.clear();
        return;
      case QuotaCollection::kClusterQueues:
        cluster_queues.clear();
        return;
    }
  }

  // What reviews read: ResourceQuotas in (namespace, name) order.
  std::shared_ptr<const policy::ClusterQuotas> build() const {
    auto next = std::make_shared<policy::ClusterQuotas>();
    for (const auto& [key, spec] : quotas) {
      next->namespaces[key.first].push_back(spec);
    }
    for (const auto& [key, cluster_queue] : local_queues) {
      next->local_queues[key.first + "/" + key.second] = cluster_queue;
    }
    for (const auto& [key, spec] : cluster_queues) {
      next->cluster_queues[key.second] = spec;
    }
    return next;
  }

 private:
  Status decode(QuotaCollection collection, const Key& key, const std::string& json) {
    RJG_ASSIGN_OR_RETURN(admission::json::Document doc, admission::json::parse(json));
    const admission::json::Path root("");
    switch (collection) {
      case QuotaCollection::kResourceQuotas: {
        RJG_ASSIGN_OR_RETURN(admission::DecodedResourceQuota q,
                             admission::decode_resource_quota(doc, root));
        quotas[key] = std::move(q.spec);
        return {};
      }
      case QuotaCollection::kLocalQueues: {
        RJG_ASSIGN_OR_RETURN(admission::DecodedLocalQueue q,
                             admission::decode_local_queue(doc, root));
        local_queues[key] = std::move(q.cluster_queue);
        return {};
      }
      case QuotaCollection::kClusterQueues: {
        RJG_ASSIGN_OR_RETURN(policy::ClusterQueueSpec q,
                             admission::decode_cluster_queue(doc, root));
        cluster_queues[key] = std::move(q);
        return {};
      }
    }
    return {};
  }
};

class QuotaCache::Sink final : public WatchSink {
 public:
  Sink(QuotaCache& cache, QuotaCollection collection) : cache_(cache), collection_(collection) {}
  void replace(std::vector<admission::WatchedObject> objects) override {
    std::lock_guard lock(cache_.mu_);
    cache_.objects_->clear(collection_);
    for (const admission::WatchedObject& o : objects) {
      take(o);
    }
    cache_.current_ = cache_.objects_->build();
  }
  void upsert(admission::WatchedObject object) override {
    std::lock_guard lock(cache_.mu_);
    take(object);
    cache_.current_ = cache_.objects_->build();
  }
  void erase(const std::string& namespace_, const std::string& name) override {
    std::lock_guard lock(cache_.mu_);
    cache_.objects_->forget(collection_, {namespace_, name});
    cache_.current_ = cache_.objects_->build();
  }

 private:
  // Under cache_.mu_.
  void take(const admission::WatchedObject& object) {
    if (Status s = cache_.objects_->take(collection_, object); !s.ok()) {
      logging::log_event(logging::Level::kError, "quota object unreadable, left out",
                         {{"error", s.error().message}});
      ++cache_.unreadable_;
    }
  }
  QuotaCache& cache_;
  QuotaCollection collection_;
};

QuotaCache::QuotaCache() : objects_(std::make_unique<QuotaObjects>()) {
  for (const QuotaCollectionInfo& c : kQuotaCollections) {
    sinks_.push_back(std::make_unique<Sink>(*this, c.collection));
  }
}

QuotaCache::~QuotaCache() = default;

WatchSink& QuotaCache::sink(QuotaCollection collection) {
  return *sinks_[static_cast<std::size_t>(collection)];
}

std::shared_ptr<const policy::ClusterQuotas> QuotaCache::snapshot() const {
  std::lock_guard lock(mu_);
  return current_;
}

std::int64_t QuotaCache::unreadable() const {
  std::lock_guard lock(mu_);
  return unreadable_;
}

Result<std::shared_ptr<const policy::ClusterQuotas>> list_quotas(KubeApi& api,
                                                                 const std::string& namespace_) {
  QuotaObjects objects;
  for (const QuotaCollectionInfo& c : kQuotaCollections) {
    const std::string ns =
        c.collection == QuotaCollection::kClusterQueues ? std::string() : namespace_;
    std::string token;
    do {
      const std::string target = collection_target(c.prefix, c.resource, ns, 500, token);
      RJG_ASSIGN_OR_RETURN(std::optional<std::string> body, api.get(target));
      if (!body) {
        if (c.optional) {
          break;  // Kueue is not installed
        }
        return unavailable("GET " + target + ": not found");
      }
      Result<admission::ObjectListPage> page = admission::decode_object_list(*body);
      if (!page) {
        return invalid_argument("GET " + target + ": " + page.error().message);
      }
      for (const admission::WatchedObject& o : page.value().items) {
        RJG_RETURN_IF_ERROR(objects.take(c.collection, o));
      }
      token = std::move(page.value().continue_token);
    } while (!token.empty());
  }
  return objects.build();
}

}  // namespace rjg::kube
