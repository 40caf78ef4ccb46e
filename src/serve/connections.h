#pragma once
// Connections: the server's open connections, counted against its caps and listed for
// shutdown.
//
//   --max-connections               open at once, in all
//   --max-connections-per-address   open at once from one client address (so one client cannot
//                                   take every slot)
//
// A connection over a cap is refused by the listener (a 503 and close); one admitted is
// released when its session ends. Every session, admitted or being refused, is listed, so
// SIGTERM can reach each (Connection::shut_down, then force_close when the grace period ends).
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace sift::serve {

// What the server asks of a connection when it stops. Both may be called from any thread.
class Connection {
 public:
  virtual ~Connection() = default;
  // Stop accepting requests on it: drop a request not completely read, finish the one being
  // answered (its response says Connection: close), then close.
  virtual void shut_down() = 0;
  // Close now; a job still queued for it is dropped.
  virtual void force_close() = 0;
};

class Connections {
 public:
  enum class Cap { None, Total, PerAddress };

  Connections(int max_total, int max_per_address) : max_total_(max_total), max_per_address_(max_per_address) {}

  // Counts a new connection from `address` in, or says which cap it is over (then nothing is counted).
  Cap admit(const std::string& address);
  void release(const std::string& address);
  int max_total() const { return max_total_; }
  int max_per_address() const { return max_per_address_; }

  // The list: add() when a session starts, remove() when it ends; `on_empty` is called (on the
  // thread that removed the last one) whenever the list becomes empty.
  void add(const std::shared_ptr<Connection>& connection);
  void remove(const Connection* connection);
  std::vector<std::shared_ptr<Connection>> all() const;
  bool empty() const;
  void set_on_empty(std::function<void()> on_empty);

 private:
  const int max_total_;
  const int max_per_address_;
  mutable std::mutex mutex_;
  int open_ = 0;
  std::unordered_map<std::string, int> per_address_;
  std::unordered_map<const Connection*, std::weak_ptr<Connection>> listed_;
  std::function<void()> on_empty_;
};

}  // namespace sift::serve
