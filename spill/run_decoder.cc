#define ZSTD_STATIC_LINKING_ONLY  // ZSTD_estimateDCtxSize
#include "spill/run_decoder.h"

#include <zstd.h>

#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace lake::spill {
namespace {

class MemorySource final : public RunByteSource {
 public:
  explicit MemorySource(std::string_view bytes) : bytes_(bytes) {}
  uint64_t size() const override { return bytes_.size(); }
  absl::Status ReadAt(uint64_t offset, size_t len, char* dst) override {
    std::memcpy(dst, bytes_.data() + offset, len);
    return absl::OkStatus();
  }

 private:
  std::string_view bytes_;
};

absl::Status Damaged(std::string_view what) {
  return absl::DataLossError(absl::StrCat("spill run: ", std::string(what)));
}

}  // namespace

uint64_t BlockInflater::BudgetBytes(size_t max_block_bytes) {
  return MaxStoredBytes(max_block_bytes) + ZSTD_estimateDCtxSize();
}

absl::StatusOr<std::unique_ptr<BlockInflater>> BlockInflater::Create(SpillBudget& budget,
                                                                     size_t max_block_bytes) {
  std::unique_ptr<BlockInflater> inflater(new BlockInflater(max_block_bytes));
  absl::StatusOr<SpillBuffer> stored = SpillBuffer::Allocate(
      budget, MaxStoredBytes(max_block_bytes), "the merge's compressed block");
  if (!stored.ok()) return stored.status();
  absl::StatusOr<SpillCharge> charge =
      SpillCharge::Take(budget, ZSTD_estimateDCtxSize(), "the merge's decompressor");
  if (!charge.ok()) return charge.status();
  inflater->stored_ = *std::move(stored);
  inflater->decompressor_charge_ = *std::move(charge);
  inflater->decompressor_ = ZSTD_createDCtx();
  if (inflater->decompressor_ == nullptr) {
    return absl::ResourceExhaustedError("out of memory for a spill run's decompressor");
  }
  return inflater;
}

BlockInflater::~BlockInflater() { ZSTD_freeDCtx(decompressor_); }

absl::Status BlockInflater::Inflate(std::string_view stored, char* raw, size_t raw_bytes) {
  size_t n = ZSTD_decompressDCtx(decompressor_, raw, raw_bytes, stored.data(), stored.size());
  if (ZSTD_isError(n) || n != raw_bytes) {
    return Damaged("a block does not decompress to its length");
  }
  return absl::OkStatus();
}

uint64_t RunDecoder::BudgetBytes(size_t block_bytes) { return 2 * block_bytes; }

absl::StatusOr<std::unique_ptr<RunDecoder>> RunDecoder::Open(RunByteSource* source,
                                                             BlockInflater* inflater,
                                                             SpillBudget& budget) {
  const uint64_t size = source->size();
  if (size < kRunHeaderBytes + kRunTrailerBytes) {
    return Damaged("shorter than its header and trailer (cut short)");
  }
  char header_bytes[kRunHeaderBytes];
  if (absl::Status s = source->ReadAt(0, sizeof(header_bytes), header_bytes); !s.ok()) return s;
  absl::StatusOr<RunHeader> header =
      DecodeRunHeader({header_bytes, sizeof(header_bytes)}, inflater->max_block_bytes());
  if (!header.ok()) return header.status();
  char trailer_bytes[kRunTrailerBytes];
  if (absl::Status s = source->ReadAt(size - kRunTrailerBytes, sizeof(trailer_bytes),
                                      trailer_bytes);
      !s.ok()) {
    return s;
  }
  absl::StatusOr<RunTrailer> trailer = DecodeRunTrailer({trailer_bytes, sizeof(trailer_bytes)});
  if (!trailer.ok()) return trailer.status();

  std::unique_ptr<RunDecoder> decoder(new RunDecoder(source, inflater, *header, *trailer));
  decoder->data_end_ = size - kRunTrailerBytes;
  absl::StatusOr<SpillBuffer> raw =
      SpillBuffer::Allocate(budget, header->block_bytes, "a merge input's block");
  if (!raw.ok()) return raw.status();
  absl::StatusOr<SpillBuffer> key =
      SpillBuffer::Allocate(budget, header->block_bytes, "a merge input's record");
  if (!key.ok()) return key.status();
  decoder->raw_ = *std::move(raw);
  decoder->key_ = *std::move(key);
  return decoder;
}

absl::StatusOr<bool> RunDecoder::Next() {
  while (block_records_left_ == 0) {
    if (block_pos_ != block_.size()) return Damaged("a block holds more than its records");
    if (offset_ == data_end_) {
      if (absl::Status s = CheckTotals(); !s.ok()) return s;
      return false;
    }
    if (absl::Status s = ReadBlock(); !s.ok()) return s;
  }
  if (absl::Status s = DecodeRecord(); !s.ok()) return s;
  return true;
}

absl::Status RunDecoder::ReadBlock() {
  if (data_end_ - offset_ < kBlockFrameBytes) return Damaged("a block frame runs into the trailer");
  char frame_bytes[kBlockFrameBytes];
  if (absl::Status s = source_->ReadAt(offset_, sizeof(frame_bytes), frame_bytes); !s.ok()) {
    return s;
  }
  absl::StatusOr<BlockFrame> frame = DecodeBlockFrame({frame_bytes, sizeof(frame_bytes)}, header_);
  if (!frame.ok()) return frame.status();
  const uint64_t stored_at = offset_ + kBlockFrameBytes;
  if (data_end_ - stored_at < frame->stored_bytes) return Damaged("a block runs into the trailer");
  // A stored block is read straight into the raw buffer; a compressed one
  // into the shared buffer, and inflated from there once it is checked.
  char* stored = frame->codec == BlockCodec::kStored ? raw_.data() : inflater_->stored();
  if (absl::Status s = source_->ReadAt(stored_at, frame->stored_bytes, stored); !s.ok()) return s;
  std::string_view stored_bytes(stored, frame->stored_bytes);
  if (absl::Status s = CheckBlockChecksum(*frame, stored_bytes); !s.ok()) return s;
  if (frame->codec == BlockCodec::kZstd) {
    if (absl::Status s = inflater_->Inflate(stored_bytes, raw_.data(), frame->raw_bytes);
        !s.ok()) {
      return s;
    }
  }
  offset_ = stored_at + frame->stored_bytes;
  seen_.block_count += 1;
  seen_.record_count += frame->record_count;
  seen_.blocks_digest = NextBlocksDigest(seen_.blocks_digest, frame->checksum);
  block_ = std::string_view(raw_.data(), frame->raw_bytes);
  block_pos_ = 0;
  block_records_left_ = frame->record_count;
  return absl::OkStatus();
}

absl::Status RunDecoder::DecodeRecord() {
  uint32_t shared = 0;
  uint32_t unshared = 0;
  if (!GetVarint32(block_, &block_pos_, &shared) || !GetVarint32(block_, &block_pos_, &unshared)) {
    return Damaged("a record's lengths are cut short");
  }
  if (shared > key_bytes_) return Damaged("a record shares more than the record before it");
  if (unshared > block_.size() - block_pos_) return Damaged("a record runs past its block");
  if (static_cast<uint64_t>(shared) + unshared > MaxRecordBytes(header_.block_bytes)) {
    return Damaged("a record is longer than a block holds");
  }
  std::string_view suffix = block_.substr(block_pos_, unshared);
  // The new record is the old one's first `shared` bytes and `suffix`: it
  // is greater exactly when `suffix` is greater than the rest of the old.
  if (has_key_ && suffix <= std::string_view(key_.data() + shared, key_bytes_ - shared)) {
    return Damaged("records out of order or repeated");
  }
  std::memcpy(key_.data() + shared, suffix.data(), unshared);
  key_bytes_ = shared + unshared;
  has_key_ = true;
  block_pos_ += unshared;
  --block_records_left_;
  return absl::OkStatus();
}

absl::Status RunDecoder::CheckTotals() const {
  if (seen_.record_count != trailer_.record_count || seen_.block_count != trailer_.block_count) {
    return Damaged(absl::StrFormat("%d records in %d blocks, the trailer says %d in %d",
                                   seen_.record_count, seen_.block_count, trailer_.record_count,
                                   trailer_.block_count));
  }
  if (kRunChecksumsEnforced && seen_.blocks_digest != trailer_.blocks_digest) {
    return Damaged("the blocks do not match the trailer's digest");
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<std::string>> DecodeRun(std::string_view bytes,
                                                   size_t max_block_bytes) {
  absl::StatusOr<RunHeader> header = DecodeRunHeader(bytes, max_block_bytes);
  if (!header.ok()) return header.status();
  SpillBudget budget(BlockInflater::BudgetBytes(header->block_bytes) +
                     RunDecoder::BudgetBytes(header->block_bytes));
  absl::StatusOr<std::unique_ptr<BlockInflater>> inflater =
      BlockInflater::Create(budget, header->block_bytes);
  if (!inflater.ok()) return inflater.status();
  MemorySource source(bytes);
  absl::StatusOr<std::unique_ptr<RunDecoder>> decoder =
      RunDecoder::Open(&source, inflater->get(), budget);
  if (!decoder.ok()) return decoder.status();
  std::vector<std::string> records;
  for (;;) {
    absl::StatusOr<bool> more = (*decoder)->Next();
    if (!more.ok()) return more.status();
    if (!*more) return records;
    records.emplace_back((*decoder)->record());
  }
}

}  // namespace lake::spill
