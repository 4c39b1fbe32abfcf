#include "engine/s3/s3_object_store.h"

#include <atomic>
#include <thread>

#include "absl/strings/str_cat.h"
#include "engine/push_upload_bridge.h"
#include "engine/s3/s3_object_stream.h"
#include "engine/s3/s3_parallel_listing.h"
#include "engine/stage_record_name.h"
#include "io/s3http/credentials_chain.h"

namespace lake {

absl::StatusOr<std::unique_ptr<S3ObjectStore>> S3ObjectStore::Open(
    const S3StageOptions& options, std::unique_ptr<s3http::CredentialsProvider> credentials) {
  if (options.tuning.concurrency < 1 || options.tuning.concurrency > kS3MaxConcurrency) {
    return absl::InvalidArgumentError(absl::StrCat("S3 upload concurrency must be 1..",
                                                   kS3MaxConcurrency, ", not ",
                                                   options.tuning.concurrency));
  }
  if (options.tuning.part_bytes == 0) {
    return absl::InvalidArgumentError("S3 part size must be positive");
  }
  if (absl::Status s = ValidateS3DownloadTuning(options.download); !s.ok()) return s;
  absl::StatusOr<S3StageLayout> layout =
      S3StageLayout::Create(options.bucket, options.prefix, options.tenant);
  if (!layout.ok()) return layout.status();
  std::unique_ptr<S3ObjectStore> store(
      new S3ObjectStore(options, std::move(*layout), std::move(credentials)));
  absl::StatusOr<std::unique_ptr<s3http::HttpTransport>> transport =
      s3http::HttpTransport::Create(store->options_.transport);
  if (!transport.ok()) return transport.status();
  store->transport_ = std::move(*transport);
  if (store->credentials_ == nullptr) {
    absl::StatusOr<std::unique_ptr<s3http::CredentialsProvider>> chain =
        s3http::DefaultCredentialsChain(*store->transport_);
    if (!chain.ok()) return chain.status();
    store->credentials_ = std::move(*chain);
  }
  s3http::S3ClientOptions client_options;
  client_options.endpoint = store->options_.endpoint;
  client_options.region = store->options_.region;
  client_options.retry = store->options_.retry;
  absl::StatusOr<std::unique_ptr<s3http::S3Client>> client =
      s3http::S3Client::Create(*store->transport_, *store->credentials_, client_options);
  if (!client.ok()) return client.status();
  store->client_ = std::move(*client);
  if (!options.checkpoint_dir.empty()) {
    absl::StatusOr<io::FileSystem*> fs = io::DefaultFileSystem();
    if (!fs.ok()) return fs.status();
    store->fs_ = *fs;
    store->checkpoint_store_ = std::make_unique<UploadCheckpointStore>(**fs, options.checkpoint_dir);
    store->checkpointing_.store = store->checkpoint_store_.get();
  }
  store->checkpointing_.endpoint = absl::StrCat(options.endpoint.scheme, "://",
                                                options.endpoint.Authority());
  store->checkpointing_.list_parts_page = options.list_parts_page;
  return store;
}

absl::StatusOr<StoredObject> S3ObjectStore::Upload(UploadSource& source,
                                                   const UploadOptions& options) {
  return UploadToS3(*client_, layout_, options_.tuning, source, options, checkpointing_);
}

absl::StatusOr<StoredObject> S3ObjectStore::ResumeUpload(std::string_view id,
                                                         const UploadOptions& options) {
  if (fs_ == nullptr) return absl::FailedPreconditionError("this stage keeps no upload checkpoints");
  return ResumeS3Upload(*client_, layout_, options_.tuning, *fs_, id, options, checkpointing_);
}

absl::Status S3ObjectStore::AbortUpload(std::string_view id) {
  return AbortS3Upload(*client_, id, checkpointing_);
}

absl::StatusOr<std::unique_ptr<ObjectWriter>> S3ObjectStore::NewWriter(
    const UploadOptions& options) {
  return std::unique_ptr<ObjectWriter>(new PushUploadBridge(
      [this, options](UploadSource& source) { return Upload(source, options); }));
}

absl::Status S3ObjectStore::CheckContainment(const DataLocation& location) {
  return layout_.KeyOfLocation(location).status();
}

absl::StatusOr<uint64_t> S3ObjectStore::StoredSize(const DataLocation& location) {
  absl::StatusOr<std::string> key = layout_.KeyOfLocation(location);
  if (!key.ok()) return key.status();
  absl::StatusOr<s3http::ObjectInfo> info = client_->HeadObject(layout_.bucket(), *key);
  if (!info.ok()) return info.status();
  return info->size;
}

absl::StatusOr<std::unique_ptr<ObjectStream>> S3ObjectStore::Open(const DataLocation& location,
                                                                 uint64_t start,
                                                                 uint64_t limit) {
  absl::StatusOr<std::string> key = layout_.KeyOfLocation(location);
  if (!key.ok()) return key.status();
  // A read from the start that may pass the declared size is a verified
  // full read: parallel ranges for a large object, else one plain GET.
  // Anything else is an exact range.
  if (start == 0 && limit > location.size_bytes) {
    return S3ParallelObjectStream::Open(*client_, layout_.bucket(), *key, location.size_bytes,
                                        options_.download);
  }
  absl::StatusOr<std::unique_ptr<S3ObjectStream>> stream = S3ObjectStream::Open(
      *client_, layout_.bucket(), *key, location.size_bytes, ByteRange{start, start + limit});
  if (!stream.ok()) return stream.status();
  return std::unique_ptr<ObjectStream>(std::move(*stream));
}

void S3ObjectStore::ReadRanges(absl::Span<RangeRead> ranges) {
  // Up to kS3RangeBatchWindow GETs in flight over the shared transport;
  // each range is one exact-range stream into the caller's buffer.
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (;;) {
      size_t i = next.fetch_add(1);
      if (i >= ranges.size()) return;
      ReadRange(ranges[i]);
    }
  };
  size_t workers = std::min(kS3RangeBatchWindow, ranges.size());
  std::vector<std::thread> threads;
  for (size_t i = 1; i < workers; ++i) threads.emplace_back(work);
  work();
  for (std::thread& thread : threads) thread.join();
}

absl::Status S3ObjectStore::List(const std::function<bool(const ListedObject&)>& emit) {
  std::string token;
  for (;;) {
    absl::StatusOr<s3http::ListObjectsV2Result> page =
        client_->ListObjectsV2(layout_.bucket(), layout_.ListPrefix(), token);
    if (!page.ok()) return page.status();
    for (const auto& object : page->contents) {
      if (!layout_.ContainsKey(object.key)) continue;
      if (!emit(ListedObject{layout_.UriOfKey(object.key), object.size_bytes,
                             object.last_modified_micros})) {
        return absl::OkStatus();
      }
    }
    if (!page->is_truncated) return absl::OkStatus();
    if (page->next_continuation_token.empty() || page->next_continuation_token == token) {
      return absl::UnknownError("ListObjectsV2 is truncated without a new continuation token");
    }
    token = page->next_continuation_token;
  }
}

absl::Status S3ObjectStore::ListUnordered(size_t streams,
                                          const std::function<bool(const ListedObject&)>& emit) {
  if (streams == 1) return List(emit);
  S3ParallelListing listing;
  listing.bucket = layout_.bucket();
  listing.prefix = layout_.ListPrefix();
  listing.ranges = SplitKeySpace(HexShardBoundaries(layout_.ObjectsKeyPrefix()));
  listing.streams = streams;
  listing.page_keys = options_.list_page_keys;
  return ListKeysInParallel(*client_, listing, [&](const s3http::ListedObject& object) {
    if (!layout_.ContainsKey(object.key)) return true;
    return emit(ListedObject{layout_.UriOfKey(object.key), object.size_bytes,
                             object.last_modified_micros});
  });
}

absl::Status S3ObjectStore::Delete(const DataLocation& location) {
  absl::StatusOr<std::string> key = layout_.KeyOfLocation(location);
  if (!key.ok()) return key.status();
  return client_->DeleteObject(layout_.bucket(), *key);
}

absl::StatusOr<std::string> S3ObjectStore::Presign(const DataLocation& location,
                                                   absl::Duration ttl) {
  absl::StatusOr<std::string> key = layout_.KeyOfLocation(location);
  if (!key.ok()) return key.status();
  if (ttl < absl::Seconds(1) || ttl > kMaxPresignTtl) {
    return absl::InvalidArgumentError(absl::StrCat(
        "a presigned URL lives 1 s to ", absl::ToInt64Seconds(kMaxPresignTtl), " s, not ",
        absl::ToInt64Seconds(ttl), " s"));
  }
  return client_->PresignGet(layout_.bucket(), *key, ttl);
}

std::string S3ObjectStore::RecordKey(std::string_view name) const {
  return layout_.prefix().empty() ? std::string(name)
                                  : absl::StrCat(layout_.prefix(), "/", std::string(name));
}

absl::StatusOr<std::optional<std::string>> S3ObjectStore::ReadStageRecord(std::string_view name,
                                                                          size_t max_bytes) {
  if (absl::Status s = CheckStageRecordName(name); !s.ok()) return s;
  absl::StatusOr<std::string> bytes =
      client_->GetSmallObject(layout_.bucket(), RecordKey(name), max_bytes);
  if (absl::IsNotFound(bytes.status())) return std::optional<std::string>();
  if (!bytes.ok()) return bytes.status();
  return std::optional<std::string>(std::move(*bytes));
}

absl::Status S3ObjectStore::CreateStageRecord(std::string_view name, std::string_view bytes) {
  if (absl::Status s = CheckStageRecordName(name); !s.ok()) return s;
  return client_->PutObjectIfAbsent(layout_.bucket(), RecordKey(name), bytes,
                                    "application/json");
}

absl::StatusOr<std::vector<std::string>> S3ObjectStore::ListStageRecords(std::string_view dir) {
  if (absl::Status s = CheckStageRecordName(dir); !s.ok()) return s;
  std::string prefix = RecordKey(dir) + "/";
  std::vector<std::string> names;
  std::string token;
  for (;;) {
    absl::StatusOr<s3http::ListObjectsV2Result> page =
        client_->ListObjectsV2(layout_.bucket(), prefix, token);
    if (!page.ok()) return page.status();
    for (const auto& object : page->contents) {
      if (!object.key.starts_with(prefix)) continue;
      std::string name = object.key.substr(prefix.size());
      if (!name.empty() && name.find('/') == std::string::npos) names.push_back(std::move(name));
    }
    if (!page->is_truncated) return names;
    if (page->next_continuation_token.empty() || page->next_continuation_token == token) {
      return absl::UnknownError("ListObjectsV2 is truncated without a new continuation token");
    }
    token = page->next_continuation_token;
  }
}

}  // namespace lake
