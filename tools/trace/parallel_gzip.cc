#include "tools/trace/parallel_gzip.h"

#include <algorithm>
#include <cerrno>

namespace gprof::trace {
namespace {

// RFC 1952: no name, no time (the bytes depend on the input only), OS Unix.
constexpr unsigned char kHeader[10] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3};

void little_endian(unsigned char* out, uint32_t value) {
  for (int i = 0; i < 4; ++i) out[i] = static_cast<unsigned char>(value >> (8 * i));
}

}  // namespace

ParallelGzip::ParallelGzip(std::FILE* out, unsigned threads, int level)
    : out_(out), level_(level), in_flight_max_(2 * std::max(1u, threads)) {
  current_.reserve(kChunk);
  ok_ = put(kHeader, sizeof(kHeader));
  if (threads > 1)
    for (unsigned i = 0; i < threads; ++i) workers_.emplace_back([this] { work(); });
}

ParallelGzip::~ParallelGzip() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  work_ready_.notify_all();
  for (std::thread& t : workers_) t.join();
}

bool ParallelGzip::put(const void* data, size_t size) {
  return size == 0 || std::fwrite(data, 1, size, out_) == size;
}

bool ParallelGzip::write(std::string_view bytes) {
  while (!bytes.empty() && ok_) {
    const size_t n = std::min(bytes.size(), kChunk - current_.size());
    current_.append(bytes.substr(0, n));
    bytes.remove_prefix(n);
    if (current_.size() == kChunk) submit(false);
  }
  return ok_;
}

bool ParallelGzip::finish() {
  if (finished_) return ok_;
  finished_ = true;
  if (ok_) submit(true);
  while (ok_ && !chunks_.empty()) drain(true);
  unsigned char trailer[8];
  little_endian(trailer, static_cast<uint32_t>(crc_));
  little_endian(trailer + 4, static_cast<uint32_t>(total_));  // ISIZE: modulo 2^32
  if (ok_) ok_ = put(trailer, sizeof(trailer));
  return ok_;
}

void ParallelGzip::submit(bool last) {
  auto chunk = std::make_unique<Chunk>();
  chunk->input.swap(current_);
  current_.reserve(kChunk);
  chunk->dictionary = window_;
  chunk->last = last;
  // The next chunk's dictionary: the last kWindow bytes so far.
  const std::string& in = chunk->input;
  if (in.size() >= kWindow) {
    window_.assign(in, in.size() - kWindow, kWindow);
  } else {
    window_.append(in);
    if (window_.size() > kWindow) window_.erase(0, window_.size() - kWindow);
  }
  if (workers_.empty()) {
    compress(*chunk);
    chunk->done = true;
    chunks_.push_back(std::move(chunk));
    drain(false);
    return;
  }
  {
    std::lock_guard lock(mutex_);
    chunks_.push_back(std::move(chunk));
  }
  work_ready_.notify_one();
  drain(false);
  while (ok_ && chunks_.size() >= in_flight_max_) drain(true);
}

void ParallelGzip::compress(Chunk& chunk) const {
  z_stream s{};
  // Raw deflate: the gzip header and trailer are written around all chunks.
  if (deflateInit2(&s, level_, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    chunk.failed = true;
    return;
  }
  if (!chunk.dictionary.empty())
    deflateSetDictionary(&s, reinterpret_cast<const Bytef*>(chunk.dictionary.data()),
                         static_cast<uInt>(chunk.dictionary.size()));
  // The bound, and room for the sync flush's empty stored block.
  chunk.output.resize(deflateBound(&s, chunk.input.size()) + 64);
  s.next_in = reinterpret_cast<Bytef*>(chunk.input.data());
  s.avail_in = static_cast<uInt>(chunk.input.size());
  s.next_out = reinterpret_cast<Bytef*>(chunk.output.data());
  s.avail_out = static_cast<uInt>(chunk.output.size());
  const int flush = chunk.last ? Z_FINISH : Z_SYNC_FLUSH;
  int rc = Z_OK;
  while (true) {
    rc = deflate(&s, flush);
    if (rc == Z_STREAM_ERROR) break;
    if (s.avail_in == 0 && s.avail_out != 0 && (flush != Z_FINISH || rc == Z_STREAM_END)) break;
    const size_t used = chunk.output.size() - s.avail_out;  // out of room: grow
    chunk.output.resize(chunk.output.size() * 2);
    s.next_out = reinterpret_cast<Bytef*>(chunk.output.data() + used);
    s.avail_out = static_cast<uInt>(chunk.output.size() - used);
  }
  chunk.failed = rc == Z_STREAM_ERROR;
  chunk.output.resize(chunk.output.size() - s.avail_out);
  deflateEnd(&s);
  chunk.crc = crc32(0, reinterpret_cast<const Bytef*>(chunk.input.data()),
                    static_cast<uInt>(chunk.input.size()));
}

void ParallelGzip::work() {
  std::unique_lock lock(mutex_);
  while (true) {
    Chunk* next = nullptr;
    work_ready_.wait(lock, [&] {
      if (stopping_) return true;
      for (auto& c : chunks_)
        if (!c->started) return true;
      return false;
    });
    for (auto& c : chunks_)
      if (!c->started) {
        next = c.get();
        break;
      }
    if (next == nullptr) return;  // stopping, nothing left to start
    next->started = true;
    lock.unlock();
    compress(*next);
    lock.lock();
    next->done = true;
    chunk_done_.notify_all();
  }
}

void ParallelGzip::drain(bool wait) {
  while (ok_) {
    std::unique_ptr<Chunk> front;
    {
      std::unique_lock lock(mutex_);
      if (chunks_.empty()) return;
      if (!chunks_.front()->done) {
        if (!wait) return;
        chunk_done_.wait(lock, [&] { return chunks_.front()->done; });
      }
      front = std::move(chunks_.front());
      chunks_.pop_front();
    }
    wait = false;  // one waited for; the rest only if already done
    if (front->failed) {
      ok_ = false;
      errno = ENOMEM;
      return;
    }
    crc_ = crc32_combine(crc_, front->crc, static_cast<z_off_t>(front->input.size()));
    total_ += front->input.size();
    ok_ = put(front->output.data(), front->output.size());
  }
}

}  // namespace gprof::trace
