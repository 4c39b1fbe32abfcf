#include "bindings/c/host_object_store.h"

#include <cstring>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "engine/integrity_error.h"
#include "engine/location_uri.h"
#include "engine/managed_key.h"
#include "engine/push_upload_bridge.h"
#include "engine/sha256.h"
#include "engine/stage_record_name.h"

namespace lake::c {
namespace {

constexpr size_t kHostMessageBytes = 512;

// The upload source as the host sees it: every byte lake hands over is
// hashed and counted here, so the DataLocation describes exactly them.
struct HostUploadPull {
  HostUploadPull(UploadSource* source, const UploadOptions* options)
      : source(source), options(options) {}

  UploadSource* source;
  const UploadOptions* options;
  Sha256 hash;
  uint64_t size = 0;
  bool reached_end = false;
  absl::Status failure;

  static int64_t Read(void* ctx, uint8_t* buf, size_t cap) {
    auto* pull = static_cast<HostUploadPull*>(ctx);
    if (!pull->failure.ok()) return -1;
    if (absl::Status s = CheckCancelled(pull->options->cancel); !s.ok()) {
      pull->failure = s;
      return -1;
    }
    if (cap == 0) return 0;
    absl::StatusOr<size_t> n = pull->source->Read(buf, cap);
    if (!n.ok()) {
      pull->failure = n.status();
      return -1;
    }
    if (*n == 0) {
      pull->reached_end = true;
      return 0;
    }
    pull->hash.Update(buf, *n);
    pull->size += *n;
    if (pull->options->progress) pull->options->progress(pull->size, 0);
    return static_cast<int64_t>(*n);
  }
};

class HostObjectStream final : public ObjectStream {
 public:
  HostObjectStream(const lake_host_store& table, void* stream)
      : table_(table), stream_(stream) {}
  ~HostObjectStream() override { (void)Close(); }

  absl::StatusOr<size_t> Read(uint8_t* dst, size_t len) override {
    if (stream_ == nullptr) return absl::FailedPreconditionError("stream is closed");
    char message[kHostMessageBytes] = {0};
    size_t n = 0;
    lake_status code = table_.read_stream(table_.ctx, stream_, dst, len, &n,
                                          message, sizeof message);
    if (code != LAKE_OK) return HostStatus(code, "read_stream", message);
    if (n > len) {
      return absl::InternalError("host read_stream returned more than asked");
    }
    return n;
  }
  absl::Status Close() override {
    if (stream_ != nullptr) table_.close_stream(table_.ctx, stream_);
    stream_ = nullptr;
    return absl::OkStatus();
  }

 private:
  const lake_host_store& table_;
  void* stream_;
};

struct ListContext {
  const std::function<bool(const ListedObject&)>* emit;
  const HostObjectStore* store;
  std::function<bool(std::string_view)> contains;
  bool stopped = false;
};

int EmitListed(void* ctx, const lake_list_entry* entry) {
  auto* list = static_cast<ListContext*>(ctx);
  if (entry == nullptr || entry->uri == nullptr) return 0;
  if (!list->contains(entry->uri)) return 0;  // not a managed object of ours
  bool more = (*list->emit)(ListedObject{entry->uri, entry->size_bytes,
                                         entry->modified_unix_micros});
  list->stopped = !more;
  return more ? 0 : 1;
}

// The pull source of a record upload: its bytes, once.
struct RecordPull {
  std::string_view bytes;
  size_t offset = 0;

  static int64_t Read(void* ctx, uint8_t* buf, size_t cap) {
    auto* pull = static_cast<RecordPull*>(ctx);
    size_t n = std::min(cap, pull->bytes.size() - pull->offset);
    memcpy(buf, pull->bytes.data() + pull->offset, n);
    pull->offset += n;
    return static_cast<int64_t>(n);
  }
};

struct RecordListing {
  std::string prefix;
  std::vector<std::string> names;

  static int Emit(void* ctx, const lake_list_entry* entry) {
    auto* listing = static_cast<RecordListing*>(ctx);
    if (entry == nullptr || entry->uri == nullptr) return 0;
    std::string_view uri(entry->uri);
    if (!uri.starts_with(listing->prefix)) return 0;
    std::string_view name = uri.substr(listing->prefix.size());
    if (!name.empty() && name.find('/') == std::string_view::npos) {
      listing->names.emplace_back(name);
    }
    return 0;
  }
};

}  // namespace

absl::Status HostStatus(lake_status code, const char* operation,
                        const char* message) {
  std::string text = absl::StrCat("host store ", operation, " failed");
  if (message != nullptr && message[0] != '\0') {
    absl::StrAppend(&text, ": ",
                    std::string(message, strnlen(message, kHostMessageBytes)));
  }
  switch (code) {
    case LAKE_OK: return absl::OkStatus();
    case LAKE_INVALID_ARGUMENT: return absl::InvalidArgumentError(text);
    case LAKE_INTEGRITY: return absl::DataLossError(text);
    case LAKE_CONFLICT: return absl::AbortedError(text);
    case LAKE_NOT_FOUND: return absl::NotFoundError(text);
    case LAKE_CANCELLED: return absl::CancelledError(text);
    case LAKE_UNSUPPORTED: return absl::UnimplementedError(text);
    case LAKE_INTERNAL: return absl::InternalError(text);
    default: return absl::UnknownError(text);
  }
}

absl::StatusOr<std::unique_ptr<HostObjectStore>> HostObjectStore::Create(
    const lake_host_store& table, const std::string& tenant) {
  if (table.version != LAKE_HOST_STORE_VERSION) {
    return absl::InvalidArgumentError(absl::StrCat(
        "host store version ", table.version, " is not supported (expected ",
        LAKE_HOST_STORE_VERSION, ")"));
  }
  if (table.upload == nullptr || table.open_stream == nullptr ||
      table.read_stream == nullptr || table.close_stream == nullptr ||
      table.list == nullptr || table.remove == nullptr) {
    return absl::InvalidArgumentError(
        "host store needs upload, open_stream, read_stream, close_stream, "
        "list and remove callbacks");
  }
  if (table.root_uri == nullptr) {
    return absl::InvalidArgumentError("host store root_uri is NULL");
  }
  std::string root(table.root_uri);
  while (absl::EndsWith(root, "/")) root.pop_back();
  // The root must itself be a valid location URI prefix: check it in the
  // form of a key beneath it.
  absl::StatusOr<ParsedUri> parsed = ParseLocationUri(root + "/x");
  if (!parsed.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "host store root_uri is not a canonical file:// or s3:// URI: ",
        parsed.status().message()));
  }
  return std::unique_ptr<HostObjectStore>(
      new HostObjectStore(table, std::move(root), tenant));
}

HostObjectStore::HostObjectStore(const lake_host_store& table,
                                 std::string root_uri, std::string tenant)
    : table_(table), root_uri_(std::move(root_uri)), tenant_(std::move(tenant)) {}

HostObjectStore::~HostObjectStore() {
  if (table_.destroy != nullptr) table_.destroy(table_.ctx);
}

bool HostObjectStore::Contains(std::string_view uri) const {
  if (!IsStrictlyBeneath(uri, root_uri_)) return false;
  // URIs are canonical, so the encoded key decodes to exactly one key; the
  // managed-key rules only look at '/' and ASCII segment names, which the
  // encoding leaves as they are.
  return IsManagedKey(uri.substr(root_uri_.size() + 1), tenant_.empty() ? "" : PercentEncodePath(tenant_));
}

absl::Status HostObjectStore::CheckContainment(const DataLocation& location) {
  if (!Contains(location.uri)) {
    return InvalidLocationError(absl::StrCat(
        "location is outside the stage ", root_uri_,
        tenant_.empty() ? "" : absl::StrCat(" (tenant \"", tenant_, "\")"),
        ": ", location.uri));
  }
  return absl::OkStatus();
}

absl::StatusOr<StoredObject> HostObjectStore::Upload(
    UploadSource& source, const UploadOptions& options) {
  std::string uri = absl::StrCat(root_uri_, "/",
                                 PercentEncodePath(NewManagedObjectKey(tenant_)));
  if (options.key_chosen) {
    if (absl::Status s = options.key_chosen(uri); !s.ok()) return s;
  }
  HostUploadPull pull(&source, &options);
  char message[kHostMessageBytes] = {0};
  lake_status code =
      table_.upload(table_.ctx, uri.c_str(), options.content_type.c_str(),
                    &HostUploadPull::Read, &pull, message, sizeof message);
  absl::Status failure = !pull.failure.ok() ? pull.failure
                         : code != LAKE_OK  ? HostStatus(code, "upload", message)
                         : !pull.reached_end
                             ? absl::UnknownError(
                                   "host store upload returned success before "
                                   "reading the source to its end")
                             : absl::OkStatus();
  if (!failure.ok()) {
    if (code == LAKE_OK) {
      // The host published something lake cannot vouch for: take it back.
      (void)table_.remove(table_.ctx, uri.c_str(), message, sizeof message);
    }
    return failure;
  }
  return StoredObject{uri, pull.size, pull.hash.FinishHex()};
}

absl::StatusOr<std::unique_ptr<ObjectWriter>> HostObjectStore::NewWriter(
    const UploadOptions& options) {
  return std::unique_ptr<ObjectWriter>(new PushUploadBridge(
      [this, options](UploadSource& source) { return Upload(source, options); }));
}

absl::StatusOr<std::unique_ptr<ObjectStream>> HostObjectStore::Open(
    const DataLocation& location, uint64_t start, uint64_t /*limit*/) {
  if (absl::Status s = CheckContainment(location); !s.ok()) return s;
  void* stream = nullptr;
  char message[kHostMessageBytes] = {0};
  lake_status code = table_.open_stream(table_.ctx, location.uri.c_str(), start,
                                        &stream, message, sizeof message);
  if (code != LAKE_OK) return HostStatus(code, "open_stream", message);
  return std::unique_ptr<ObjectStream>(new HostObjectStream(table_, stream));
}

absl::Status HostObjectStore::List(
    const std::function<bool(const ListedObject&)>& emit) {
  ListContext list{&emit, this,
                   [this](std::string_view uri) { return Contains(uri); }};
  std::string prefix = absl::StrCat(root_uri_, "/");
  char message[kHostMessageBytes] = {0};
  lake_status code = table_.list(table_.ctx, prefix.c_str(), &EmitListed, &list,
                                 message, sizeof message);
  if (code != LAKE_OK && !list.stopped) return HostStatus(code, "list", message);
  return absl::OkStatus();
}

absl::Status HostObjectStore::Delete(const DataLocation& location) {
  if (absl::Status s = CheckContainment(location); !s.ok()) return s;
  char message[kHostMessageBytes] = {0};
  lake_status code =
      table_.remove(table_.ctx, location.uri.c_str(), message, sizeof message);
  if (code == LAKE_NOT_FOUND) return absl::OkStatus();
  return HostStatus(code, "remove", message);
}

}  // namespace lake::c

namespace lake::c {

absl::StatusOr<std::string> HostObjectStore::StageRelativeKey(std::string_view uri) {
  if (!IsStrictlyBeneath(uri, root_uri_) ||
      !IsManagedKey(uri.substr(root_uri_.size() + 1), "")) {
    return InvalidLocationError(
        absl::StrCat("location is outside the stage ", root_uri_, ": ", std::string(uri)));
  }
  // The canonical encoding decodes exactly once: as the path of a file URI.
  absl::StatusOr<ParsedUri> parsed =
      ParseLocationUri(absl::StrCat("file:///", std::string(uri.substr(root_uri_.size() + 1))));
  if (!parsed.ok()) return parsed.status();
  return parsed->path.substr(1);
}

absl::StatusOr<std::string> HostObjectStore::RecordUri(std::string_view name) const {
  if (absl::Status s = CheckStageRecordName(name); !s.ok()) return s;
  return absl::StrCat(root_uri_, "/", std::string(name));  // [A-Za-z0-9._-/]: canonical
}

absl::StatusOr<std::optional<std::string>> HostObjectStore::ReadStageRecord(
    std::string_view name, size_t max_bytes) {
  absl::StatusOr<std::string> uri = RecordUri(name);
  if (!uri.ok()) return uri.status();
  void* stream = nullptr;
  char message[kHostMessageBytes] = {0};
  lake_status code =
      table_.open_stream(table_.ctx, uri->c_str(), 0, &stream, message, sizeof message);
  if (code == LAKE_NOT_FOUND) return std::optional<std::string>();
  if (code != LAKE_OK) return HostStatus(code, "open_stream", message);
  HostObjectStream reader(table_, stream);
  std::string bytes;
  uint8_t buf[4096];
  for (;;) {
    absl::StatusOr<size_t> n = reader.Read(buf, sizeof buf);
    if (!n.ok()) return n.status();
    if (*n == 0) break;
    bytes.append(reinterpret_cast<const char*>(buf), *n);
    if (bytes.size() > max_bytes) {
      return absl::DataLossError(absl::StrCat("the stage record ", *uri, " is longer than ",
                                              max_bytes, " bytes"));
    }
  }
  return std::optional<std::string>(std::move(bytes));
}

absl::Status HostObjectStore::CreateStageRecord(std::string_view name, std::string_view bytes) {
  absl::StatusOr<std::optional<std::string>> present = ReadStageRecord(name, bytes.size() + 1);
  if (absl::IsDataLoss(present.status()) || (present.ok() && present->has_value())) {
    return absl::AlreadyExistsError(absl::StrCat("the stage record ", std::string(name),
                                                 " exists"));
  }
  if (!present.ok()) return present.status();
  absl::StatusOr<std::string> uri = RecordUri(name);
  if (!uri.ok()) return uri.status();
  RecordPull pull{bytes};
  char message[kHostMessageBytes] = {0};
  lake_status code = table_.upload(table_.ctx, uri->c_str(), "application/json",
                                   &RecordPull::Read, &pull, message, sizeof message);
  return HostStatus(code, "upload", message);
}

absl::StatusOr<std::vector<std::string>> HostObjectStore::ListStageRecords(std::string_view dir) {
  absl::StatusOr<std::string> uri = RecordUri(dir);
  if (!uri.ok()) return uri.status();
  RecordListing listing{absl::StrCat(*uri, "/"), {}};
  char message[kHostMessageBytes] = {0};
  lake_status code = table_.list(table_.ctx, listing.prefix.c_str(), &RecordListing::Emit,
                                 &listing, message, sizeof message);
  if (code != LAKE_OK) return HostStatus(code, "list", message);
  return listing.names;
}

}  // namespace lake::c
