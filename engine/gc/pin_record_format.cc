// The pin record format; the layout is in the header.
#include "engine/gc/pin_record_format.h"

#include "absl/strings/str_cat.h"
#include "engine/location_uri.h"
#include "engine/table/byte_codec.h"

namespace lake::gc {

std::string EncodePinRecord(const PinRecord& pin) {
  std::string out;
  table::ByteWriter w(&out);
  w.Bytes(kPinRecordMagic);
  w.U32(kPinRecordVersion);
  w.U32(static_cast<uint32_t>(pin.uri.size()));
  w.Bytes(pin.uri);
  w.U64(static_cast<uint64_t>(pin.pinned_unix_micros));
  w.U64(table::Checksum64(out));
  return out;
}

absl::StatusOr<PinRecord> DecodePinRecord(std::string_view bytes) {
  table::ByteReader r(bytes);
  std::string_view magic, uri;
  uint32_t version = 0, uri_bytes = 0;
  uint64_t pinned_at = 0, digest = 0;
  if (!r.Bytes(kPinRecordMagic.size(), &magic) || !r.U32(&version)) {
    return absl::DataLossError("the pin record is incomplete");
  }
  if (magic != kPinRecordMagic) return absl::DataLossError("not a pin record (bad magic)");
  if (version != kPinRecordVersion) {
    return absl::DataLossError(absl::StrCat("pin record version ", version, " is not ",
                                            kPinRecordVersion, ", the one this lake knows"));
  }
  if (!r.U32(&uri_bytes)) return absl::DataLossError("the pin record is incomplete");
  if (uri_bytes == 0 || uri_bytes > kMaxPinUriBytes) {
    return absl::DataLossError(absl::StrCat("the pin record's URI length ", uri_bytes,
                                            " is outside 1..", kMaxPinUriBytes));
  }
  if (!r.Bytes(uri_bytes, &uri) || !r.U64(&pinned_at)) {
    return absl::DataLossError("the pin record is incomplete");
  }
  size_t covered = r.position();
  if (!r.U64(&digest)) return absl::DataLossError("the pin record is incomplete");
  if (r.remaining() != 0) {
    return absl::DataLossError(absl::StrCat("the pin record has ", r.remaining(),
                                            " bytes after its digest"));
  }
  if (table::kChecksumsEnforced && table::Checksum64(bytes.substr(0, covered)) != digest) {
    return absl::DataLossError("the pin record's digest does not match");
  }
  if (absl::Status s = CheckLocationUri(uri); !s.ok()) {
    return absl::DataLossError(absl::StrCat("the pin record's URI is invalid: ", s.message()));
  }
  return PinRecord{std::string(uri), static_cast<int64_t>(pinned_at)};
}

}  // namespace lake::gc
