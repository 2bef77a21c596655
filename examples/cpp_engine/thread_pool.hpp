// thread_pool.hpp: the engine's job system, a fixed pool of threads with a blocking
// parallel-for: the shape keel::JobSystem adapts to keel's enqueue_task/finish_task.
//
// SPDX-License-Identifier: MIT OR Apache-2.0

#ifndef CPP_ENGINE_THREAD_POOL_HPP
#define CPP_ENGINE_THREAD_POOL_HPP

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace engine {

// `worker_count` workers: the calling thread (worker 0) and worker_count - 1 threads
// that sleep between jobs.
class ThreadPool {
public:
  using Range = std::function<void(uint32_t start, uint32_t end, uint32_t worker)>;

  explicit ThreadPool(uint32_t worker_count) : worker_count_(std::max<uint32_t>(worker_count, 1)) {
    for (uint32_t w = 1; w < worker_count_; ++w) {
      threads_.emplace_back([this, w] { serve(w); });
    }
  }
  ThreadPool(const ThreadPool &) = delete;
  ThreadPool &operator=(const ThreadPool &) = delete;
  ~ThreadPool() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    for (std::thread &t : threads_) {
      t.join();
    }
  }

  uint32_t worker_count() const { return worker_count_; }
  uint64_t jobs_run() const { return jobs_run_; }

  // Runs range over 0..count in chunks of at least min_range items, every item once,
  // and returns when all have run. One job at a time (the engine's main thread calls).
  void parallel_for(uint32_t count, uint32_t min_range, const Range &range) {
    if (count == 0) {
      return;
    }
    const uint32_t even = (count + worker_count_ - 1) / worker_count_;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      range_ = &range;
      count_ = count;
      chunk_ = std::max({even, min_range, 1u});
      next_.store(0);
      busy_ = static_cast<uint32_t>(threads_.size());
      ++generation_;
    }
    wake_.notify_all();
    take_chunks(0);
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [this] { return busy_ == 0; });
    range_ = nullptr;
    ++jobs_run_;
  }

private:
  void take_chunks(uint32_t worker) {
    for (;;) {
      const uint32_t start = next_.fetch_add(chunk_);
      if (start >= count_) {
        return;
      }
      (*range_)(start, std::min(start + chunk_, count_), worker);
    }
  }

  void serve(uint32_t worker) {
    uint64_t seen = 0;
    for (;;) {
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [&] { return stopping_ || generation_ != seen; });
        if (stopping_) {
          return;
        }
        seen = generation_;
      }
      take_chunks(worker);
      {
        std::lock_guard<std::mutex> lock(mutex_);
        --busy_;
      }
      done_.notify_one();
    }
  }

  const uint32_t worker_count_;
  std::vector<std::thread> threads_;
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  const Range *range_ = nullptr;
  uint32_t count_ = 0, chunk_ = 1, busy_ = 0;
  std::atomic<uint32_t> next_{0};
  uint64_t generation_ = 0, jobs_run_ = 0;
  bool stopping_ = false;
};

} // namespace engine

#endif // CPP_ENGINE_THREAD_POOL_HPP
