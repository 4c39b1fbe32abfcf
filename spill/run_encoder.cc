#include "spill/run_encoder.h"

#define ZSTD_STATIC_LINKING_ONLY  // ZSTD_estimateCCtxSize_usingCParams
#include <zstd.h>

#include <algorithm>
#include <cstring>

#include "absl/strings/str_format.h"

namespace lake::spill {
namespace {

uint64_t CompressorBytes(size_t block_bytes, int zstd_level) {
  return ZSTD_estimateCCtxSize_usingCParams(ZSTD_getCParams(zstd_level, block_bytes, 0));
}

class StringSink final : public RunByteSink {
 public:
  explicit StringSink(std::string* out) : out_(out) {}
  absl::Status Append(absl::Span<const std::string_view> pieces) override {
    for (std::string_view p : pieces) out_->append(p);
    return absl::OkStatus();
  }

 private:
  std::string* out_;
};

}  // namespace

uint64_t RunEncoder::BudgetBytes(size_t block_bytes, int zstd_level) {
  return 2 * block_bytes + MaxStoredBytes(block_bytes) + CompressorBytes(block_bytes, zstd_level);
}

absl::StatusOr<std::unique_ptr<RunEncoder>> RunEncoder::Create(SpillBudget& budget,
                                                               size_t block_bytes,
                                                               int zstd_level,
                                                               RunByteSink* sink) {
  if (block_bytes < kMinBlockBytes || block_bytes > kMaxBlockBytes) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "spill block size %d is outside %d..%d", block_bytes, kMinBlockBytes, kMaxBlockBytes));
  }
  std::unique_ptr<RunEncoder> encoder(new RunEncoder(block_bytes, zstd_level, sink));
  absl::StatusOr<SpillBuffer> raw = SpillBuffer::Allocate(budget, block_bytes, "a run's block");
  if (!raw.ok()) return raw.status();
  absl::StatusOr<SpillBuffer> stored =
      SpillBuffer::Allocate(budget, MaxStoredBytes(block_bytes), "a run's compressed block");
  if (!stored.ok()) return stored.status();
  absl::StatusOr<SpillBuffer> last =
      SpillBuffer::Allocate(budget, block_bytes, "a run's last record");
  if (!last.ok()) return last.status();
  absl::StatusOr<SpillCharge> compressor = SpillCharge::Take(
      budget, CompressorBytes(block_bytes, zstd_level), "a run's compressor");
  if (!compressor.ok()) return compressor.status();
  encoder->raw_ = *std::move(raw);
  encoder->stored_ = *std::move(stored);
  encoder->last_ = *std::move(last);
  encoder->compressor_charge_ = *std::move(compressor);
  encoder->compressor_ = ZSTD_createCCtx();
  if (encoder->compressor_ == nullptr) {
    return absl::ResourceExhaustedError("out of memory for a spill run's compressor");
  }
  std::string header = EncodeRunHeader(static_cast<uint32_t>(block_bytes));
  std::string_view piece = header;
  if (absl::Status s = sink->Append({&piece, 1}); !s.ok()) return s;
  return encoder;
}

RunEncoder::~RunEncoder() { ZSTD_freeCCtx(compressor_); }

absl::Status RunEncoder::Add(std::string_view record) {
  if (finished_) return absl::FailedPreconditionError("spill run: a record after the trailer");
  if (record.size() > MaxRecordBytes(block_bytes_)) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "a spill record of %d bytes is longer than %d, the most a block of %d bytes holds",
        record.size(), MaxRecordBytes(block_bytes_), block_bytes_));
  }
  std::string_view last(last_.data(), last_bytes_);
  if (has_last_ && record <= last) {
    return absl::FailedPreconditionError(
        "spill run: records must be strictly ascending (sorted, without duplicates)");
  }
  const size_t shared = has_last_ ? SharedPrefixBytes(last, record) : 0;
  const size_t unshared = record.size() - shared;
  const size_t need = Varint32Bytes(static_cast<uint32_t>(shared)) +
                      Varint32Bytes(static_cast<uint32_t>(unshared)) + unshared;
  if (raw_used_ + need > block_bytes_) {
    if (absl::Status s = FlushBlock(); !s.ok()) return s;
  }
  char* out = raw_.data() + raw_used_;
  out += PutVarint32(out, static_cast<uint32_t>(shared));
  out += PutVarint32(out, static_cast<uint32_t>(unshared));
  std::memcpy(out, record.data() + shared, unshared);
  raw_used_ += need;
  ++block_records_;
  std::memcpy(last_.data() + shared, record.data() + shared, unshared);
  last_bytes_ = record.size();
  has_last_ = true;
  return absl::OkStatus();
}

absl::Status RunEncoder::FlushBlock() {
  if (block_records_ == 0) return absl::OkStatus();
  BlockFrame frame;
  frame.raw_bytes = static_cast<uint32_t>(raw_used_);
  frame.record_count = block_records_;
  std::string_view stored(raw_.data(), raw_used_);
  size_t n = ZSTD_compressCCtx(compressor_, stored_.data(), stored_.size(), raw_.data(),
                               raw_used_, zstd_level_);
  if (!ZSTD_isError(n) && n < raw_used_) {
    frame.codec = BlockCodec::kZstd;
    stored = std::string_view(stored_.data(), n);
  }
  frame.stored_bytes = static_cast<uint32_t>(stored.size());
  std::string frame_bytes = EncodeBlockFrame(frame, stored);
  std::string_view pieces[2] = {frame_bytes, stored};
  if (absl::Status s = sink_->Append(pieces); !s.ok()) return s;
  uint64_t checksum;
  std::memcpy(&checksum, frame_bytes.data() + 16, sizeof(checksum));
  trailer_.blocks_digest = NextBlocksDigest(trailer_.blocks_digest, checksum);
  trailer_.block_count += 1;
  trailer_.record_count += block_records_;
  raw_used_ = 0;
  block_records_ = 0;
  return absl::OkStatus();
}

absl::StatusOr<RunTrailer> RunEncoder::Finish() {
  if (finished_) return absl::FailedPreconditionError("spill run: finished twice");
  if (absl::Status s = FlushBlock(); !s.ok()) return s;
  std::string trailer = EncodeRunTrailer(trailer_);
  std::string_view piece = trailer;
  if (absl::Status s = sink_->Append({&piece, 1}); !s.ok()) return s;
  finished_ = true;
  return trailer_;
}

absl::StatusOr<std::string> EncodeRun(absl::Span<const std::string> records, size_t block_bytes,
                                      int zstd_level) {
  std::string out;
  StringSink sink(&out);
  SpillBudget budget(RunEncoder::BudgetBytes(block_bytes, zstd_level));
  absl::StatusOr<std::unique_ptr<RunEncoder>> encoder =
      RunEncoder::Create(budget, block_bytes, zstd_level, &sink);
  if (!encoder.ok()) return encoder.status();
  for (const std::string& record : records) {
    if (absl::Status s = (*encoder)->Add(record); !s.ok()) return s;
  }
  if (absl::StatusOr<RunTrailer> t = (*encoder)->Finish(); !t.ok()) return t.status();
  return out;
}

}  // namespace lake::spill
