#include "io/s3http/s3_responses.h"

#include <expat.h>

#include <initializer_list>
#include <memory>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/cord.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "base/utf8.h"

namespace lake::s3http {
namespace {

constexpr char kMalformedPayloadUrl[] = "type.lake.dev/S3MalformedResponse";
constexpr char kS3ErrorPayloadUrl[] = "type.lake.dev/S3Error";

// A refusal of server output; `document` names the document (its root).
absl::Status Malformed(std::string_view document, std::string_view detail) {
  absl::Status status = absl::InvalidArgumentError(absl::StrCat(
      "malformed S3 response: ", std::string(document), ": ",
      std::string(detail)));
  status.SetPayload(kMalformedPayloadUrl, absl::Cord(std::string(document)));
  return status;
}

// --- Reading a document ----------------------------------------------------
//
// Documents are read in one streaming pass that keeps only the text of the
// fields a parser asked for (a schema), so memory is bounded by those
// fields and the entry limit, whatever else the body holds.

// A repeated element directly under the root (<Part>, <Contents>) and the
// text fields read inside it.
struct EntrySchema {
  std::string_view element;
  std::vector<std::string_view> fields;
};

// The root element, the text fields directly under it, and its entries.
// Schemas are static: readers keep views of their names.
struct DocumentSchema {
  std::string_view root;
  std::vector<std::string_view> fields;
  std::vector<EntrySchema> entries;
};

// The fields found under one element, by name, each at most once.
class Fields {
 public:
  const std::string* Find(std::string_view name) const {
    for (const auto& [field, text] : fields_) {
      if (field == name) return &text;
    }
    return nullptr;
  }
  // The text to fill for a new field; nullptr when it was seen already.
  std::string* Add(std::string_view name) {
    if (Find(name) != nullptr) return nullptr;
    fields_.emplace_back(name, std::string());
    return &fields_.back().second;
  }

 private:
  std::vector<std::pair<std::string_view, std::string>> fields_;
};

struct Entry {
  const EntrySchema* schema = nullptr;
  Fields fields;
};

struct Document {
  const DocumentSchema* schema = nullptr;
  Fields fields;
  std::vector<Entry> entries;  // in document order, all kinds together
};

const std::string_view* FindName(const std::vector<std::string_view>& names,
                                 std::string_view name) {
  for (const std::string_view& candidate : names) {
    if (candidate == name) return &candidate;
  }
  return nullptr;
}

// One expat pass over a body, collecting a Document for whichever of the
// given schemas names the root element.
class DocumentReader {
 public:
  // `schemas` is non-empty; the first names the document in errors until
  // the root element is known.
  explicit DocumentReader(std::initializer_list<const DocumentSchema*> schemas)
      : schemas_(schemas), document_name_(schemas_.front()->root) {}

  absl::StatusOr<Document> Read(std::string_view body) {
    if (body.size() > kMaxResponseBodyBytes) {
      absl::Status status = absl::ResourceExhaustedError(absl::StrCat(
          "malformed S3 response: ", std::string(document_name_), ": body of ",
          body.size(), " bytes is over the limit of ", kMaxResponseBodyBytes));
      status.SetPayload(kMalformedPayloadUrl,
                        absl::Cord(std::string(document_name_)));
      return status;
    }
    // S3 may send keep-alive spaces before the XML declaration.
    size_t start = body.find_first_not_of(" \t\r\n");
    body = start == std::string_view::npos ? std::string_view() : body.substr(start);

    std::unique_ptr<XML_ParserStruct, decltype(&XML_ParserFree)> parser(
        XML_ParserCreateNS("UTF-8", kNamespaceSeparator), &XML_ParserFree);
    if (parser == nullptr) return absl::ResourceExhaustedError("expat: out of memory");
    parser_ = parser.get();
    XML_SetUserData(parser_, this);
    XML_SetParamEntityParsing(parser_, XML_PARAM_ENTITY_PARSING_NEVER);
    XML_SetStartDoctypeDeclHandler(parser_, &OnDoctype);
    XML_SetEntityDeclHandler(parser_, &OnEntityDecl);
    XML_SetExternalEntityRefHandler(parser_, &OnExternalEntity);
    XML_SetElementHandler(parser_, &OnStart, &OnEnd);
    XML_SetCharacterDataHandler(parser_, &OnText);

    XML_Status parsed = XML_Parse(parser_, body.data(),
                                  static_cast<int>(body.size()), XML_TRUE);
    if (!error_.ok()) return error_;
    if (parsed != XML_STATUS_OK) {
      return Malformed(document_name_, absl::StrCat(
          "XML error at line ", XML_GetCurrentLineNumber(parser_), ", column ",
          XML_GetCurrentColumnNumber(parser_), ": ",
          XML_ErrorString(XML_GetErrorCode(parser_))));
    }
    return std::move(document_);
  }

 private:
  // Names arrive as "<namespace URI> <local name>" or "<local name>"; a
  // local name never holds a space.
  static constexpr XML_Char kNamespaceSeparator = ' ';

  enum class Role { kRoot, kEntry, kField, kIgnored };

  struct Name {
    bool known;  // in the S3 namespace or none
    std::string_view local;
  };

  static Name SplitName(const XML_Char* raw) {
    std::string_view name(raw);
    size_t separator = name.rfind(kNamespaceSeparator);
    if (separator == std::string_view::npos) return {true, name};
    return {name.substr(0, separator) == kS3XmlNamespace,
            name.substr(separator + 1)};
  }

  static DocumentReader* Self(void* data) {
    return static_cast<DocumentReader*>(data);
  }

  static void OnDoctype(void* data, const XML_Char*, const XML_Char*,
                        const XML_Char*, int) {
    Self(data)->Fail("a DOCTYPE is refused");
  }
  static void OnEntityDecl(void* data, const XML_Char*, int, const XML_Char*,
                           int, const XML_Char*, const XML_Char*,
                           const XML_Char*, const XML_Char*) {
    Self(data)->Fail("an entity declaration is refused");
  }
  static int OnExternalEntity(XML_Parser parser, const XML_Char*,
                              const XML_Char*, const XML_Char*,
                              const XML_Char*) {
    Self(XML_GetUserData(parser))->Fail("an external entity is refused");
    return XML_STATUS_ERROR;
  }
  static void OnStart(void* data, const XML_Char* name, const XML_Char**) {
    Self(data)->Start(SplitName(name));
  }
  static void OnEnd(void* data, const XML_Char*) { Self(data)->End(); }
  static void OnText(void* data, const XML_Char* text, int size) {
    DocumentReader* self = Self(data);
    if (self->text_ != nullptr && self->error_.ok()) {
      self->text_->append(text, static_cast<size_t>(size));
    }
  }

  void Fail(std::string_view detail) {
    if (error_.ok()) error_ = Malformed(document_name_, detail);
    XML_StopParser(parser_, XML_FALSE);
  }

  void Start(Name name) {
    if (!error_.ok()) return;
    if (roles_.size() >= static_cast<size_t>(kMaxXmlDepth)) {
      return Fail(absl::StrCat("elements nest deeper than ", kMaxXmlDepth));
    }
    if (roles_.empty()) return StartRoot(name);
    switch (roles_.back()) {
      case Role::kField:
        return Fail(absl::StrCat("element <", SanitizedExcerpt(name.local),
                                 "> inside the text field <",
                                 std::string(field_name_), ">"));
      case Role::kIgnored:
        roles_.push_back(Role::kIgnored);
        return;
      case Role::kRoot:
        return StartUnderRoot(name);
      case Role::kEntry:
        return StartField(name, document_.entries.back().schema->fields,
                          document_.entries.back().fields);
    }
  }

  void StartRoot(Name name) {
    for (const DocumentSchema* schema : schemas_) {
      if (name.known && name.local == schema->root) {
        document_.schema = schema;
        document_name_ = schema->root;
        roles_.push_back(Role::kRoot);
        return;
      }
    }
    Fail(absl::StrCat("unexpected root element <", SanitizedExcerpt(name.local),
                      "> (or one outside the S3 namespace)"));
  }

  void StartUnderRoot(Name name) {
    if (name.known) {
      for (const EntrySchema& entry : document_.schema->entries) {
        if (name.local != entry.element) continue;
        if (document_.entries.size() >= kMaxListEntries) {
          return Fail(absl::StrCat("more than ", kMaxListEntries, " entries"));
        }
        document_.entries.push_back(Entry{&entry, Fields()});
        roles_.push_back(Role::kEntry);
        return;
      }
    }
    StartField(name, document_.schema->fields, document_.fields);
  }

  // A text field of `names` is read into `fields`; anything else ignored.
  void StartField(Name name, const std::vector<std::string_view>& names,
                  Fields& fields) {
    const std::string_view* field = name.known ? FindName(names, name.local) : nullptr;
    if (field == nullptr) {
      roles_.push_back(Role::kIgnored);
      return;
    }
    text_ = fields.Add(*field);
    if (text_ == nullptr) {
      return Fail(absl::StrCat("<", std::string(*field), "> appears twice"));
    }
    field_name_ = *field;
    roles_.push_back(Role::kField);
  }

  void End() {
    if (!error_.ok() || roles_.empty()) return;
    if (roles_.back() == Role::kField) text_ = nullptr;
    roles_.pop_back();
  }

  std::vector<const DocumentSchema*> schemas_;
  std::string_view document_name_;
  XML_Parser parser_ = nullptr;
  absl::Status error_;
  std::vector<Role> roles_;     // one per open element
  std::string* text_ = nullptr;  // the open text field, if any
  std::string_view field_name_;
  Document document_;
};

// --- The schemas -------------------------------------------------------------

const DocumentSchema& ErrorSchema() {
  static const DocumentSchema schema{
      "Error", {"Code", "Message", "RequestId", "HostId", "Resource"}, {}};
  return schema;
}

const DocumentSchema& InitiateSchema() {
  static const DocumentSchema schema{
      "InitiateMultipartUploadResult", {"Bucket", "Key", "UploadId"}, {}};
  return schema;
}

const DocumentSchema& ListPartsSchema() {
  static const DocumentSchema schema{
      "ListPartsResult",
      {"Bucket", "Key", "UploadId", "PartNumberMarker", "NextPartNumberMarker",
       "IsTruncated"},
      {{"Part", {"PartNumber", "ETag", "Size", "LastModified"}}}};
  return schema;
}

const DocumentSchema& ListObjectsV2Schema() {
  static const DocumentSchema schema{
      "ListBucketResult",
      {"Name", "Prefix", "KeyCount", "IsTruncated", "NextContinuationToken",
       "EncodingType"},
      {{"Contents", {"Key", "Size", "ETag", "LastModified"}},
       {"CommonPrefixes", {"Prefix"}}}};
  return schema;
}

const DocumentSchema& ListMultipartUploadsSchema() {
  static const DocumentSchema schema{
      "ListMultipartUploadsResult",
      {"Bucket", "Prefix", "KeyMarker", "UploadIdMarker", "NextKeyMarker", "NextUploadIdMarker",
       "IsTruncated", "EncodingType"},
      {{"Upload", {"Key", "UploadId", "Initiated"}}, {"CommonPrefixes", {"Prefix"}}}};
  return schema;
}

const DocumentSchema& CompleteResultSchema() {
  static const DocumentSchema schema{
      "CompleteMultipartUploadResult", {"Location", "Bucket", "Key", "ETag"}, {}};
  return schema;
}

const DocumentSchema& DeleteRequestSchema() {
  static const DocumentSchema schema{"Delete", {"Quiet"}, {{"Object", {"Key"}}}};
  return schema;
}

const DocumentSchema& DeleteResultSchema() {
  static const DocumentSchema schema{
      "DeleteResult", {}, {{"Deleted", {"Key"}}, {"Error", {"Key", "Code", "Message"}}}};
  return schema;
}

const DocumentSchema& CompleteRequestSchema() {
  static const DocumentSchema schema{
      "CompleteMultipartUpload", {}, {{"Part", {"PartNumber", "ETag"}}}};
  return schema;
}

// --- Typed fields --------------------------------------------------------------

enum class Presence { kRequired, kOptional };

// Reads typed values out of the fields of one element. The first refusal
// is kept in *status and every later read returns a zero value, so a parser
// reads all its fields and checks the status once.
class FieldReader {
 public:
  FieldReader(const Fields& fields, std::string_view document,
              std::string where, absl::Status* status)
      : fields_(fields), document_(document), where_(std::move(where)),
        status_(status) {}

  bool Has(std::string_view name) const { return fields_.Find(name) != nullptr; }

  std::string Text(std::string_view name, Presence presence) {
    const std::string* text = fields_.Find(name);
    if (text == nullptr) {
      if (presence == Presence::kRequired) Fail(name, "is missing");
      return std::string();
    }
    return *text;
  }

  uint64_t Number(std::string_view name, uint64_t min, uint64_t max) {
    std::string text = Text(name, Presence::kRequired);
    if (!Has(name)) return 0;
    absl::StatusOr<uint64_t> value = ParseDecimal(text);
    if (!value.ok() || *value < min || *value > max) {
      Fail(name, absl::StrCat("must be a decimal number from ", min, " to ", max,
                              ", not \"", SanitizedExcerpt(text), "\""));
      return 0;
    }
    return *value;
  }

  bool Bool(std::string_view name) {
    std::string text = Text(name, Presence::kRequired);
    if (Has(name) && text != "true" && text != "false") {
      Fail(name, "must be true or false");
    }
    return text == "true";
  }

  int64_t Timestamp(std::string_view name) {
    std::string text = Text(name, Presence::kRequired);
    if (!Has(name)) return 0;
    absl::StatusOr<int64_t> micros = ParseS3Timestamp(text);
    if (!micros.ok()) Fail(name, std::string(micros.status().message()));
    return micros.ok() ? *micros : 0;
  }

  ETag ETagValue(std::string_view name) {
    std::string text = Text(name, Presence::kRequired);
    if (!Has(name)) return ETag();
    absl::StatusOr<ETag> etag = ParseETag(text);
    if (!etag.ok()) Fail(name, std::string(etag.status().message()));
    return etag.ok() ? *etag : ETag();
  }

  void Fail(std::string_view name, std::string_view why) {
    if (!status_->ok()) return;
    *status_ = Malformed(document_, absl::StrCat(where_, where_.empty() ? "" : ": ",
                                                 "<", std::string(name), "> ",
                                                 std::string(why)));
  }

 private:
  const Fields& fields_;
  std::string_view document_;
  std::string where_;
  absl::Status* status_;
};

// "Part[3]": where an entry's fields are, for messages ("" is the root).
std::string EntryWhere(const Entry& entry, size_t index) {
  return absl::StrCat(std::string(entry.schema->element), "[", index + 1, "]");
}

// --- Errors ----------------------------------------------------------------------

bool IsValidErrorCode(std::string_view code) {
  if (code.empty() || code.size() > 128) return false;
  for (char c : code) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '.' &&
        c != '_' && c != '-') {
      return false;
    }
  }
  return true;
}

// A resource without its query string or fragment: a presigned URL's
// credential and signature live there.
std::string WithoutQuery(std::string_view resource) {
  return std::string(resource.substr(0, resource.find_first_of("?#")));
}

// `message` with every whitespace-separated word that carries signing
// material replaced by "[redacted]".
std::string Redacted(std::string_view message) {
  static constexpr std::string_view kMarkers[] = {
      "x-amz-signature", "x-amz-credential", "x-amz-security-token",
      "signature=",      "credential=",      "awsaccesskeyid="};
  std::string out;
  size_t pos = 0;
  while (pos < message.size()) {
    size_t word_end = message.find_first_of(" \t\r\n", pos);
    if (word_end == std::string_view::npos) word_end = message.size();
    std::string_view word = message.substr(pos, word_end - pos);
    std::string lower = absl::AsciiStrToLower(absl::string_view(word.data(), word.size()));
    bool secret = false;
    for (std::string_view marker : kMarkers) {
      secret = secret || lower.find(marker) != std::string::npos;
    }
    out += secret ? std::string("[redacted]") : std::string(word);
    if (word_end < message.size()) out.push_back(message[word_end]);
    pos = word_end + 1;
  }
  return out;
}

// The S3Error as it may be shown and stored: query stripped, message
// redacted. Idempotent.
S3Error Safe(S3Error error) {
  error.resource = WithoutQuery(error.resource);
  error.message = Redacted(error.message);
  return error;
}

absl::StatusOr<S3Error> ErrorFromDocument(const Document& document,
                                          int http_status) {
  absl::Status status;
  FieldReader in(document.fields, "Error", "", &status);
  S3Error error;
  error.http_status = http_status;
  error.code = in.Text("Code", Presence::kRequired);
  error.message = in.Text("Message", Presence::kOptional);
  error.request_id = in.Text("RequestId", Presence::kOptional);
  error.host_id = in.Text("HostId", Presence::kOptional);
  error.resource = in.Text("Resource", Presence::kOptional);
  if (status.ok() && !IsValidErrorCode(error.code)) {
    in.Fail("Code", "must be 1 to 128 of A-Z a-z 0-9 . _ -");
  }
  if (!status.ok()) return status;
  return Safe(std::move(error));
}

absl::StatusCode CodeForS3Code(std::string_view code) {
  struct Mapping {
    std::string_view s3_code;
    absl::StatusCode code;
  };
  static constexpr Mapping kMappings[] = {
      {"NoSuchKey", absl::StatusCode::kNotFound},
      {"NoSuchBucket", absl::StatusCode::kNotFound},
      {"NoSuchUpload", absl::StatusCode::kNotFound},
      {"NoSuchVersion", absl::StatusCode::kNotFound},
      {"AccessDenied", absl::StatusCode::kPermissionDenied},
      {"SignatureDoesNotMatch", absl::StatusCode::kPermissionDenied},
      {"InvalidAccessKeyId", absl::StatusCode::kPermissionDenied},
      {"RequestTimeTooSkewed", absl::StatusCode::kPermissionDenied},
      {"ExpiredToken", absl::StatusCode::kPermissionDenied},
      {"PreconditionFailed", absl::StatusCode::kFailedPrecondition},
      {"InvalidObjectState", absl::StatusCode::kFailedPrecondition},
      {"InvalidRange", absl::StatusCode::kOutOfRange},
      {"InvalidArgument", absl::StatusCode::kInvalidArgument},
      {"InvalidRequest", absl::StatusCode::kInvalidArgument},
      {"InvalidPart", absl::StatusCode::kInvalidArgument},
      {"InvalidPartOrder", absl::StatusCode::kInvalidArgument},
      {"EntityTooSmall", absl::StatusCode::kInvalidArgument},
      {"EntityTooLarge", absl::StatusCode::kInvalidArgument},
      {"MalformedXML", absl::StatusCode::kInvalidArgument},
      {"InvalidDigest", absl::StatusCode::kInvalidArgument},
      {"KeyTooLongError", absl::StatusCode::kInvalidArgument},
      {"MissingContentLength", absl::StatusCode::kInvalidArgument},
      {"InvalidBucketName", absl::StatusCode::kInvalidArgument},
      {"BadDigest", absl::StatusCode::kDataLoss},
      {"XAmzContentSHA256Mismatch", absl::StatusCode::kDataLoss},
      {"OperationAborted", absl::StatusCode::kAborted},
      {"NotImplemented", absl::StatusCode::kUnimplemented},
      {"SlowDown", absl::StatusCode::kUnavailable},
      {"ServiceUnavailable", absl::StatusCode::kUnavailable},
      {"InternalError", absl::StatusCode::kUnavailable},
      {"RequestTimeout", absl::StatusCode::kUnavailable},
  };
  for (const Mapping& mapping : kMappings) {
    if (mapping.s3_code == code) return mapping.code;
  }
  return absl::StatusCode::kOk;  // not a known code
}

absl::StatusCode CodeForHttpStatus(int http_status) {
  switch (http_status) {
    case 401: return absl::StatusCode::kUnauthenticated;
    case 403: return absl::StatusCode::kPermissionDenied;
    case 404: return absl::StatusCode::kNotFound;
    case 405:
    case 501: return absl::StatusCode::kUnimplemented;
    case 408:
    case 429: return absl::StatusCode::kUnavailable;
    case 409: return absl::StatusCode::kAborted;
    case 412: return absl::StatusCode::kFailedPrecondition;
    case 416: return absl::StatusCode::kOutOfRange;
    default: break;
  }
  if (http_status >= 500 && http_status <= 599) return absl::StatusCode::kUnavailable;
  if (http_status >= 400 && http_status <= 499) return absl::StatusCode::kInvalidArgument;
  if (http_status >= 300 && http_status <= 399) return absl::StatusCode::kFailedPrecondition;
  return absl::StatusCode::kUnknown;
}

// Payload: the decimal HTTP status, then each string field as
// ":" <decimal length> ":" <bytes>, in declaration order.
std::string EncodePayload(const S3Error& error) {
  std::string out = std::to_string(error.http_status);
  for (const std::string* field : {&error.code, &error.message, &error.request_id,
                                   &error.host_id, &error.resource}) {
    absl::StrAppend(&out, ":", field->size(), ":", *field);
  }
  return out;
}

std::optional<S3Error> DecodePayload(std::string_view text) {
  S3Error error;
  size_t colon = text.find(':');
  if (colon == std::string_view::npos ||
      !absl::SimpleAtoi(absl::string_view(text.data(), colon), &error.http_status)) {
    return std::nullopt;
  }
  text.remove_prefix(colon);
  for (std::string* field : {&error.code, &error.message, &error.request_id,
                             &error.host_id, &error.resource}) {
    size_t length_end = text.find(':', 1);
    if (text.empty() || text[0] != ':' || length_end == std::string_view::npos) {
      return std::nullopt;
    }
    absl::StatusOr<uint64_t> length = ParseDecimal(text.substr(1, length_end - 1));
    if (!length.ok() || *length > text.size() - length_end - 1) return std::nullopt;
    *field = std::string(text.substr(length_end + 1, *length));
    text.remove_prefix(length_end + 1 + *length);
  }
  if (!text.empty()) return std::nullopt;
  return error;
}

// Reads a success document, or the <Error> document sent in its place.
absl::StatusOr<Document> ReadResult(std::string_view body,
                                    const DocumentSchema& schema) {
  absl::StatusOr<Document> document =
      DocumentReader({&schema, &ErrorSchema()}).Read(body);
  if (!document.ok() || document->schema != &ErrorSchema()) return document;
  absl::StatusOr<S3Error> error = ErrorFromDocument(*document, 200);
  if (!error.ok()) return error.status();
  return S3ErrorStatus(*error);
}

// --- Values ----------------------------------------------------------------------

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// encoding-type=url: %XX (either case) is a byte and '+' a space.
std::optional<std::string> UrlDecoded(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '+') {
      out.push_back(' ');
    } else if (text[i] != '%') {
      out.push_back(text[i]);
    } else {
      if (text.size() - i < 3) return std::nullopt;
      int high = HexValue(text[i + 1]);
      int low = HexValue(text[i + 2]);
      if (high < 0 || low < 0) return std::nullopt;
      out.push_back(static_cast<char>(high << 4 | low));
      i += 2;
    }
  }
  return out;
}

// A key or prefix as lake holds it: decoded when the listing is encoded,
// then valid UTF-8 without NUL, at most kMaxKeyBytes (and non-empty unless
// `may_be_empty`).
std::string KeyText(FieldReader& in, std::string_view name, Presence presence,
                    KeyEncoding encoding, bool may_be_empty) {
  std::string text = in.Text(name, presence);
  if (encoding == KeyEncoding::kUrl) {
    std::optional<std::string> decoded = UrlDecoded(text);
    if (!decoded.has_value()) {
      in.Fail(name, "holds a malformed %-escape");
      return std::string();
    }
    text = std::move(*decoded);
  }
  if (!in.Has(name)) return text;
  if (text.empty() && !may_be_empty) in.Fail(name, "is empty");
  if (text.size() > kMaxKeyBytes) {
    in.Fail(name, absl::StrCat("is longer than ", kMaxKeyBytes, " bytes"));
  }
  if (!IsValidUtf8(text) || text.find('\0') != std::string::npos) {
    in.Fail(name, "is not valid UTF-8 without NUL");
  }
  return text;
}

// An upload id: 1..1,024 visible ASCII bytes (0x21..0x7E).
std::string UploadIdText(FieldReader& in, std::string_view name, Presence presence) {
  std::string id = in.Text(name, presence);
  bool visible = !id.empty() && id.size() <= 1024;
  for (char c : id) visible = visible && c > 0x20 && c < 0x7F;
  if (in.Has(name) && !visible) in.Fail(name, "must be 1 to 1024 visible ASCII characters");
  return id;
}

// The declared EncodingType must be the one asked for (ListObjectsV2Result).
void CheckDeclaredEncoding(FieldReader& in, KeyEncoding encoding) {
  std::string declared = in.Text("EncodingType", Presence::kOptional);
  if (encoding == KeyEncoding::kUrl && declared != "url") {
    in.Fail("EncodingType", "is not \"url\" although encoding-type=url was asked");
  }
  if (encoding == KeyEncoding::kNone && in.Has("EncodingType")) {
    in.Fail("EncodingType", "is present although no encoding was asked");
  }
}

// Why `parts` cannot be a CompleteMultipartUpload list, or "" when it can.
std::string CompletedPartsProblem(std::span<const CompletedPart> parts) {
  if (parts.empty()) return "there are no parts";
  if (parts.size() > static_cast<size_t>(kMaxPartNumber)) {
    return absl::StrCat("more than ", kMaxPartNumber, " parts");
  }
  int previous = 0;
  for (const CompletedPart& part : parts) {
    if (part.part_number < kMinPartNumber || part.part_number > kMaxPartNumber) {
      return absl::StrCat("part number ", part.part_number, " is not in ",
                          kMinPartNumber, "..", kMaxPartNumber);
    }
    if (part.part_number <= previous) {
      return absl::StrCat("part number ", part.part_number,
                          " is not above the previous part ", previous,
                          " (parts must be sorted, without duplicates)");
    }
    absl::StatusOr<ETag> etag = ParseETag(FormatETag(part.etag));
    if (!etag.ok() || *etag != part.etag) {
      return absl::StrCat("part ", part.part_number, " has an invalid ETag");
    }
    previous = part.part_number;
  }
  return std::string();
}

// Why `key` cannot be sent in an XML document, or "" when it can.
std::string XmlKeyProblem(std::string_view key) {
  if (key.empty() || key.size() > kMaxKeyBytes) {
    return absl::StrCat("a key must be 1 to ", kMaxKeyBytes, " bytes");
  }
  if (!IsValidUtf8(key)) return "a key is not valid UTF-8";
  for (char c : key) {
    unsigned char u = static_cast<unsigned char>(c);
    if (u < 0x20 && c != '\t' && c != '\n' && c != '\r') {
      return "a key holds a control character XML cannot carry";
    }
  }
  return std::string();
}

// XML character data: '&', '<' and '>' escaped; CR kept as a reference so
// that XML line-end normalisation cannot turn it into LF.
std::string XmlEscaped(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '\r': out += "&#13;"; break;
      case '\n': out += "&#10;"; break;
      case '\t': out += "&#9;"; break;
      default: out.push_back(c);
    }
  }
  return out;
}

}  // namespace

bool IsMalformedResponse(const absl::Status& status) {
  return status.GetPayload(kMalformedPayloadUrl).has_value();
}

absl::StatusOr<S3Error> ParseS3Error(int http_status, std::string_view body) {
  absl::StatusOr<Document> document = DocumentReader({&ErrorSchema()}).Read(body);
  if (!document.ok()) return document.status();
  return ErrorFromDocument(*document, http_status);
}

absl::Status S3ErrorStatus(const S3Error& unsafe_error) {
  S3Error error = Safe(unsafe_error);
  absl::StatusCode code = CodeForS3Code(error.code);
  if (code == absl::StatusCode::kOk) code = CodeForHttpStatus(error.http_status);
  std::string text = error.code.empty()
                         ? absl::StrCat("S3 error (HTTP ", error.http_status,
                                        ", no S3 error document)")
                         : absl::StrCat("S3 ", SanitizedExcerpt(error.code, 128),
                                        " (HTTP ", error.http_status, ")");
  if (!error.message.empty()) {
    absl::StrAppend(&text, ": ", SanitizedExcerpt(error.message, 512));
  }
  std::vector<std::string> details;
  if (!error.resource.empty()) {
    details.push_back("resource " + SanitizedExcerpt(error.resource, 256));
  }
  if (!error.request_id.empty()) {
    details.push_back("request id " + SanitizedExcerpt(error.request_id, 128));
  }
  for (size_t i = 0; i < details.size(); ++i) {
    absl::StrAppend(&text, i == 0 ? " [" : ", ", details[i]);
  }
  if (!details.empty()) text += "]";
  absl::Status status(code, text);
  status.SetPayload(kS3ErrorPayloadUrl, absl::Cord(EncodePayload(error)));
  return status;
}

std::optional<S3Error> GetS3Error(const absl::Status& status) {
  absl::optional<absl::Cord> payload = status.GetPayload(kS3ErrorPayloadUrl);
  if (!payload.has_value()) return std::nullopt;
  return DecodePayload(std::string(*payload));
}

absl::Status S3ErrorResponseStatus(int http_status, std::string_view body) {
  absl::StatusOr<S3Error> error = ParseS3Error(http_status, body);
  if (error.ok()) return S3ErrorStatus(*error);
  S3Error bare;
  bare.http_status = http_status;
  return S3ErrorStatus(bare);
}

absl::StatusOr<InitiateMultipartUploadResult>
ParseInitiateMultipartUploadResult(std::string_view body) {
  absl::StatusOr<Document> document = ReadResult(body, InitiateSchema());
  if (!document.ok()) return document.status();
  absl::Status status;
  FieldReader in(document->fields, InitiateSchema().root, "", &status);
  InitiateMultipartUploadResult result;
  result.bucket = in.Text("Bucket", Presence::kOptional);
  result.key = in.Text("Key", Presence::kOptional);
  result.upload_id = UploadIdText(in, "UploadId", Presence::kRequired);
  if (!status.ok()) return status;
  return result;
}

absl::StatusOr<ListPartsResult> ParseListPartsResult(std::string_view body) {
  const DocumentSchema& schema = ListPartsSchema();
  absl::StatusOr<Document> document = ReadResult(body, schema);
  if (!document.ok()) return document.status();
  absl::Status status;
  FieldReader in(document->fields, schema.root, "", &status);
  ListPartsResult result;
  result.bucket = in.Text("Bucket", Presence::kOptional);
  result.key = in.Text("Key", Presence::kOptional);
  result.upload_id = in.Text("UploadId", Presence::kRequired);
  if (in.Has("UploadId") && result.upload_id.empty()) in.Fail("UploadId", "is empty");
  if (in.Has("PartNumberMarker")) {
    result.part_number_marker =
        static_cast<int>(in.Number("PartNumberMarker", 0, kMaxPartNumber));
  }
  if (in.Has("NextPartNumberMarker")) {
    result.next_part_number_marker =
        static_cast<int>(in.Number("NextPartNumberMarker", 0, kMaxPartNumber));
  }
  result.is_truncated = in.Bool("IsTruncated");

  int previous = result.part_number_marker;
  for (size_t i = 0; i < document->entries.size() && status.ok(); ++i) {
    const Entry& entry = document->entries[i];
    FieldReader part_in(entry.fields, schema.root, EntryWhere(entry, i), &status);
    ListedPart part;
    part.part_number = static_cast<int>(
        part_in.Number("PartNumber", kMinPartNumber, kMaxPartNumber));
    part.etag = part_in.ETagValue("ETag");
    part.size_bytes = part_in.Number("Size", 0, kMaxPartSizeBytes);
    part.last_modified_micros = part_in.Timestamp("LastModified");
    if (status.ok() && part.part_number <= previous) {
      part_in.Fail("PartNumber", absl::StrCat(
          part.part_number, " is not above ", previous,
          " (parts must ascend, after PartNumberMarker)"));
    }
    previous = part.part_number;
    result.parts.push_back(std::move(part));
  }
  if (status.ok() && result.is_truncated) {
    if (!result.next_part_number_marker.has_value()) {
      in.Fail("NextPartNumberMarker", "is missing from a truncated listing");
    } else if (*result.next_part_number_marker <= result.part_number_marker ||
               *result.next_part_number_marker < previous) {
      in.Fail("NextPartNumberMarker", absl::StrCat(
          *result.next_part_number_marker,
          " does not advance past PartNumberMarker and the listed parts"));
    }
  }
  if (!status.ok()) return status;
  return result;
}

absl::StatusOr<ListObjectsV2Result> ParseListObjectsV2Result(
    std::string_view body, KeyEncoding encoding) {
  const DocumentSchema& schema = ListObjectsV2Schema();
  absl::StatusOr<Document> document = ReadResult(body, schema);
  if (!document.ok()) return document.status();
  absl::Status status;
  FieldReader in(document->fields, schema.root, "", &status);
  CheckDeclaredEncoding(in, encoding);
  ListObjectsV2Result result;
  result.bucket = in.Text("Name", Presence::kOptional);
  result.prefix = KeyText(in, "Prefix", Presence::kOptional, encoding, true);
  if (in.Has("KeyCount")) result.key_count = in.Number("KeyCount", 0, UINT64_MAX);
  result.is_truncated = in.Bool("IsTruncated");
  if (result.is_truncated) {
    result.next_continuation_token =
        in.Text("NextContinuationToken", Presence::kRequired);
    if (in.Has("NextContinuationToken") && result.next_continuation_token.empty()) {
      in.Fail("NextContinuationToken", "is empty in a truncated listing");
    }
  }
  for (size_t i = 0; i < document->entries.size() && status.ok(); ++i) {
    const Entry& entry = document->entries[i];
    FieldReader entry_in(entry.fields, schema.root, EntryWhere(entry, i), &status);
    if (entry.schema->element == "CommonPrefixes") {
      result.common_prefixes.push_back(
          KeyText(entry_in, "Prefix", Presence::kRequired, encoding, false));
      continue;
    }
    ListedObject object;
    object.key = KeyText(entry_in, "Key", Presence::kRequired, encoding, false);
    object.size_bytes = entry_in.Number("Size", 0, kMaxObjectSizeBytes);
    object.etag = entry_in.ETagValue("ETag");
    object.last_modified_micros = entry_in.Timestamp("LastModified");
    result.contents.push_back(std::move(object));
  }
  if (!status.ok()) return status;
  return result;
}

absl::StatusOr<ListMultipartUploadsResult> ParseListMultipartUploadsResult(
    std::string_view body, KeyEncoding encoding) {
  const DocumentSchema& schema = ListMultipartUploadsSchema();
  absl::StatusOr<Document> document = ReadResult(body, schema);
  if (!document.ok()) return document.status();
  absl::Status status;
  FieldReader in(document->fields, schema.root, "", &status);
  CheckDeclaredEncoding(in, encoding);
  ListMultipartUploadsResult result;
  result.bucket = in.Text("Bucket", Presence::kOptional);
  result.prefix = KeyText(in, "Prefix", Presence::kOptional, encoding, true);
  result.key_marker = KeyText(in, "KeyMarker", Presence::kOptional, encoding, true);
  if (!in.Text("UploadIdMarker", Presence::kOptional).empty()) {
    result.upload_id_marker = UploadIdText(in, "UploadIdMarker", Presence::kRequired);
  }
  result.is_truncated = in.Bool("IsTruncated");
  if (result.is_truncated) {
    result.next_key_marker =
        KeyText(in, "NextKeyMarker", Presence::kRequired, encoding, false);
    if (!in.Text("NextUploadIdMarker", Presence::kOptional).empty()) {
      result.next_upload_id_marker =
          UploadIdText(in, "NextUploadIdMarker", Presence::kRequired);
    }
    if (status.ok() && result.next_key_marker == result.key_marker &&
        result.next_upload_id_marker == result.upload_id_marker) {
      in.Fail("NextKeyMarker", "and NextUploadIdMarker do not advance past the request's markers");
    }
  }
  std::string previous = result.key_marker;
  for (size_t i = 0; i < document->entries.size() && status.ok(); ++i) {
    const Entry& entry = document->entries[i];
    FieldReader entry_in(entry.fields, schema.root, EntryWhere(entry, i), &status);
    if (entry.schema->element == "CommonPrefixes") {
      result.common_prefixes.push_back(
          KeyText(entry_in, "Prefix", Presence::kRequired, encoding, false));
      continue;
    }
    ListedMultipartUpload upload;
    upload.key = KeyText(entry_in, "Key", Presence::kRequired, encoding, false);
    upload.upload_id = UploadIdText(entry_in, "UploadId", Presence::kRequired);
    upload.initiated_micros = entry_in.Timestamp("Initiated");
    if (status.ok() && upload.key < previous) {
      entry_in.Fail("Key", "is below the key before it (or KeyMarker): uploads come in key order");
    }
    previous = upload.key;
    result.uploads.push_back(std::move(upload));
  }
  if (!status.ok()) return status;
  return result;
}

absl::StatusOr<CompleteMultipartUploadResult>
ParseCompleteMultipartUploadResult(std::string_view body) {
  const DocumentSchema& schema = CompleteResultSchema();
  absl::StatusOr<Document> document = ReadResult(body, schema);
  if (!document.ok()) return document.status();
  absl::Status status;
  FieldReader in(document->fields, schema.root, "", &status);
  CompleteMultipartUploadResult result;
  result.location = in.Text("Location", Presence::kOptional);
  result.bucket = in.Text("Bucket", Presence::kRequired);
  result.key = in.Text("Key", Presence::kRequired);
  // RGW answers <ETag></ETag>: an empty ETag is the same as none.
  if (!in.Text("ETag", Presence::kOptional).empty()) {
    result.etag = in.ETagValue("ETag");
  }
  if (!status.ok()) return status;
  return result;
}

absl::StatusOr<std::string> SerializeCompleteMultipartUpload(
    std::span<const CompletedPart> parts) {
  std::string problem = CompletedPartsProblem(parts);
  if (!problem.empty()) {
    return absl::InvalidArgumentError("CompleteMultipartUpload: " + problem);
  }
  std::string body = absl::StrCat("<CompleteMultipartUpload xmlns=\"",
                                  std::string(kS3XmlNamespace), "\">");
  for (const CompletedPart& part : parts) {
    absl::StrAppend(&body, "<Part><PartNumber>", part.part_number,
                    "</PartNumber><ETag>", XmlEscaped(FormatETag(part.etag)),
                    "</ETag></Part>");
  }
  body += "</CompleteMultipartUpload>";
  return body;
}

absl::StatusOr<std::vector<CompletedPart>> ParseCompleteMultipartUpload(
    std::string_view body) {
  const DocumentSchema& schema = CompleteRequestSchema();
  absl::StatusOr<Document> document = DocumentReader({&schema}).Read(body);
  if (!document.ok()) return document.status();
  absl::Status status;
  std::vector<CompletedPart> parts;
  for (size_t i = 0; i < document->entries.size() && status.ok(); ++i) {
    const Entry& entry = document->entries[i];
    FieldReader in(entry.fields, schema.root, EntryWhere(entry, i), &status);
    CompletedPart part;
    part.part_number =
        static_cast<int>(in.Number("PartNumber", kMinPartNumber, kMaxPartNumber));
    part.etag = in.ETagValue("ETag");
    parts.push_back(std::move(part));
  }
  if (!status.ok()) return status;
  std::string problem = CompletedPartsProblem(parts);
  if (!problem.empty()) return Malformed(schema.root, problem);
  return parts;
}

absl::StatusOr<std::string> SerializeDeleteObjects(std::span<const std::string> keys) {
  if (keys.empty() || keys.size() > kMaxDeleteObjectsKeys) {
    return absl::InvalidArgumentError(absl::StrCat(
        "DeleteObjects: 1 to ", kMaxDeleteObjectsKeys, " keys, not ", keys.size()));
  }
  std::string body = absl::StrCat("<Delete xmlns=\"", std::string(kS3XmlNamespace),
                                  "\"><Quiet>true</Quiet>");
  for (const std::string& key : keys) {
    std::string problem = XmlKeyProblem(key);
    if (!problem.empty()) return absl::InvalidArgumentError("DeleteObjects: " + problem);
    absl::StrAppend(&body, "<Object><Key>", XmlEscaped(key), "</Key></Object>");
  }
  body += "</Delete>";
  return body;
}

absl::StatusOr<std::vector<std::string>> ParseDeleteObjectsRequest(std::string_view body) {
  const DocumentSchema& schema = DeleteRequestSchema();
  absl::StatusOr<Document> document = DocumentReader({&schema}).Read(body);
  if (!document.ok()) return document.status();
  absl::Status status;
  std::vector<std::string> keys;
  for (size_t i = 0; i < document->entries.size() && status.ok(); ++i) {
    const Entry& entry = document->entries[i];
    FieldReader in(entry.fields, schema.root, EntryWhere(entry, i), &status);
    keys.push_back(KeyText(in, "Key", Presence::kRequired, KeyEncoding::kNone, false));
  }
  if (!status.ok()) return status;
  if (keys.empty() || keys.size() > kMaxDeleteObjectsKeys) {
    return Malformed(schema.root, absl::StrCat("1 to ", kMaxDeleteObjectsKeys, " keys"));
  }
  return keys;
}

absl::StatusOr<DeleteObjectsResult> ParseDeleteObjectsResult(std::string_view body) {
  const DocumentSchema& schema = DeleteResultSchema();
  absl::StatusOr<Document> document = ReadResult(body, schema);
  if (!document.ok()) return document.status();
  absl::Status status;
  DeleteObjectsResult result;
  for (size_t i = 0; i < document->entries.size() && status.ok(); ++i) {
    const Entry& entry = document->entries[i];
    FieldReader in(entry.fields, schema.root, EntryWhere(entry, i), &status);
    std::string key = KeyText(in, "Key", Presence::kRequired, KeyEncoding::kNone, false);
    if (entry.schema->element == "Deleted") {
      result.deleted.push_back(std::move(key));
      continue;
    }
    DeleteObjectsFailure failure;
    failure.key = std::move(key);
    failure.code = in.Text("Code", Presence::kRequired);
    if (in.Has("Code") && !IsValidErrorCode(failure.code)) {
      in.Fail("Code", "must be 1 to 128 of A-Z a-z 0-9 . _ -");
    }
    failure.message = SanitizedExcerpt(Redacted(in.Text("Message", Presence::kOptional)), 512);
    result.failures.push_back(std::move(failure));
  }
  if (!status.ok()) return status;
  return result;
}

}  // namespace lake::s3http
