#pragma once
// cpp-httplib behind our own front door (intake.hpp): the intake accepts
// connections and reads each request whole; a pool of worker threads hands
// it to cpp-httplib's request processing (routing, handlers, the response
// writer) through a stream that reads the request from memory and writes to
// the socket under a deadline. cpp-httplib's own accept loop and socket
// reading are not used.
//
// Threads: Workers owns `threads` threads; submit() may be called from any
// thread (the intake's); each connection is on one worker at a time.

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include <httplib.h>

#include "server/intake.hpp"

namespace mudjack::server {

// How long a response may wait for the client to read it: each wait for
// the socket to take more bytes is at most `timeout`, and all of them
// together at most `timeout` plus one second per `bytes_per_s` sent, so a
// client that reads slowly cannot hold a worker, while an event stream,
// which waits on its run rather than on the client, stays open.
struct WriteLimits {
  std::chrono::milliseconds timeout{10000};
  size_t bytes_per_s = size_t{64} * 1024;
};

class Http : public httplib::Server {
 public:
  // Answers the request at the front of `c` (its request_bytes, all in
  // memory). False when the connection must be closed: the client asked, it
  // could not be written, or `close_after`.
  bool answer(Connection& c, bool close_after, const WriteLimits& limits);
  // Chunked responses (event streams) poll this: set while serving, cleared
  // once the runs have drained so that open streams end.
  void mark_running() { svr_sock_ = 0; }
  void mark_stopped() { svr_sock_ = INVALID_SOCKET; }
};

class Workers {
 public:
  using Work = std::function<void(ConnectionPtr)>;
  Workers(size_t threads, Work work);
  ~Workers();  // stop()
  Workers(const Workers&) = delete;
  Workers& operator=(const Workers&) = delete;

  void submit(ConnectionPtr c);
  // Answers what is queued, then ends the threads; later submissions are closed.
  void stop();

 private:
  void run();

  Work work_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<ConnectionPtr> queue_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace mudjack::server
