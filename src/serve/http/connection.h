// What the HTTP server needs of its connections that cpp-httplib 0.11 (Debian 12) does not
// give: whether a client went away while its request waits for tokens (later versions have
// Request::is_connection_closed), threads for as many connections as are open, and a listen
// backlog larger than the library's 5.
#ifndef PIPESPLIT_SRC_RUNTIME_HTTP_CONNECTION_H_
#define PIPESPLIT_SRC_RUNTIME_HTTP_CONNECTION_H_

#include <httplib.h>

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace pipesplit::serve::http {

// The socket of a request's connection, found by its addresses among this process's sockets.
// The library owns it and closes it only after the request's handler and response are done, so
// it stays valid while a watch is in use.
class ConnectionWatch {
 public:
  explicit ConnectionWatch(const httplib::Request& request);
  // Whether the client closed the connection (or it broke); false when the socket was not
  // found.
  bool Closed() const;

 private:
  int fd_ = -1;
};

// A thread per connection (cpp-httplib's TaskQueue): a connection is a thread that waits for
// its request's tokens, so the pool grows to as many connections as are open, at most `max`
// (more wait for a thread). Threads are kept for later connections.
class ConnectionThreads : public httplib::TaskQueue {
 public:
  explicit ConnectionThreads(size_t max) : max_(max) {}
  ~ConnectionThreads() override;
  void enqueue(std::function<void()> fn) override;
  void shutdown() override;

 private:
  void Work();

  const size_t max_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> jobs_;
  std::vector<std::thread> threads_;
  size_t idle_ = 0;
  bool stopping_ = false;
};

// Makes the listening socket `fd` take a backlog of `backlog` connections.
void WidenBacklog(int fd, int backlog);

}  // namespace pipesplit::serve::http

#endif  // PIPESPLIT_SRC_RUNTIME_HTTP_CONNECTION_H_
