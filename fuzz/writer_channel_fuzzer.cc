// Fuzzes lake::registry::DecodeForwardedWrite and DecodeForwardedReply, the
// readers of the records writer processes exchange with the registry's
// owner over <root>/writer.sock (registry/writer_channel_format.h). The
// first input byte picks the decoder; the rest is the message.
//
// Properties checked (a violation traps):
//   1. Any input: no crash, leak, ASan or UBSan finding; every refusal is
//      InvalidArgument.
//   2. An accepted request re-encodes to exactly its input (the encoding is
//      canonical).
//   3. An accepted reply re-encodes to a message that decodes to the same
//      status code, message and table record.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz/property_check.h"
#include "registry/writer_channel_format.h"

namespace {

using lake::fuzz::Check;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string_view message(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (data[0] % 2 == 0) {
    absl::StatusOr<lake::registry::ForwardedWrite> write =
        lake::registry::DecodeForwardedWrite(message);
    if (!write.ok()) {
      Check(absl::IsInvalidArgument(write.status()));
      return 0;
    }
    Check(lake::registry::EncodeForwardedWrite(*write) == message);
    return 0;
  }
  absl::StatusOr<lake::registry::ForwardedReply> reply =
      lake::registry::DecodeForwardedReply(message);
  if (!reply.ok()) {
    Check(absl::IsInvalidArgument(reply.status()));
    return 0;
  }
  absl::StatusOr<lake::registry::ForwardedReply> again =
      lake::registry::DecodeForwardedReply(lake::registry::EncodeForwardedReply(*reply));
  Check(again.ok());
  Check(again->status.code() == reply->status.code());
  Check(again->status.message() == reply->status.message());
  Check(again->table == reply->table);
  return 0;
}
