#include "serve/connections.h"

namespace sift::serve {

Connections::Cap Connections::admit(const std::string& address) {
  std::lock_guard lock(mutex_);
  if (open_ >= max_total_) return Cap::Total;
  auto it = per_address_.find(address);
  if (it != per_address_.end() && it->second >= max_per_address_) return Cap::PerAddress;
  ++per_address_[address];
  ++open_;
  return Cap::None;
}

void Connections::release(const std::string& address) {
  std::lock_guard lock(mutex_);
  --open_;
  auto it = per_address_.find(address);
  if (it != per_address_.end() && --it->second == 0) per_address_.erase(it);
}

void Connections::add(const std::shared_ptr<Connection>& connection) {
  std::lock_guard lock(mutex_);
  listed_.emplace(connection.get(), connection);
}

void Connections::remove(const Connection* connection) {
  std::function<void()> on_empty;
  {
    std::lock_guard lock(mutex_);
    listed_.erase(connection);
    if (listed_.empty()) on_empty = on_empty_;
  }
  if (on_empty) on_empty();
}

std::vector<std::shared_ptr<Connection>> Connections::all() const {
  std::lock_guard lock(mutex_);
  std::vector<std::shared_ptr<Connection>> out;
  out.reserve(listed_.size());
  for (const auto& [_, weak] : listed_)
    if (auto connection = weak.lock()) out.push_back(std::move(connection));
  return out;
}

bool Connections::empty() const {
  std::lock_guard lock(mutex_);
  return listed_.empty();
}

void Connections::set_on_empty(std::function<void()> on_empty) {
  std::lock_guard lock(mutex_);
  on_empty_ = std::move(on_empty);
}

}  // namespace sift::serve
