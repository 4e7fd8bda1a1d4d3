// Opaque CUDA handles (cudaStream_t, cudaEvent_t, cudaGraph_t, cudaGraphExec_t) are the
// addresses of objects owned here. Looking a handle up before using it turns a stale or invented
// handle into an error code instead of a crash.
#pragma once

#include <memory>
#include <unordered_map>

namespace gprof_fake {

template <typename T>
class HandleTable {
 public:
  T* Add(std::unique_ptr<T> object) {
    T* raw = object.get();
    objects_[raw] = std::move(object);
    return raw;
  }

  T* Find(const void* handle) const {
    const auto it = objects_.find(handle);
    return it == objects_.end() ? nullptr : it->second.get();
  }

  bool Remove(const void* handle) { return objects_.erase(handle) > 0; }

  template <typename Visitor>
  void ForEach(Visitor visit) const {
    for (const auto& [handle, object] : objects_) visit(*object);
  }

  template <typename Predicate>
  void RemoveIf(Predicate predicate) {
    std::erase_if(objects_, [&](const auto& entry) { return predicate(*entry.second); });
  }

 private:
  std::unordered_map<const void*, std::unique_ptr<T>> objects_;
};

}  // namespace gprof_fake
