#include "io/s3http/credential_formats.h"

#include <expat.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "base/utf8.h"
#include "io/s3http/s3_headers.h"

namespace lake::s3http {
namespace {

// --- Small predicates ---------------------------------------------------------

bool IsVisibleAscii(char c) {
  unsigned char byte = static_cast<unsigned char>(c);
  return byte >= 0x21 && byte <= 0x7E;
}

bool AllVisibleAscii(std::string_view text) {
  for (char c : text) {
    if (!IsVisibleAscii(c)) return false;
  }
  return true;
}

bool IsWsp(char c) { return c == ' ' || c == '\t'; }

std::string_view TrimWsp(std::string_view text) {
  while (!text.empty() && IsWsp(text.front())) text.remove_prefix(1);
  while (!text.empty() && IsWsp(text.back())) text.remove_suffix(1);
  return text;
}

std::string Lower(std::string_view text) {
  return absl::AsciiStrToLower(absl::string_view(text.data(), text.size()));
}

// The text of a refused value: its field only, never its bytes.
absl::Status BadField(std::string_view field, std::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat("the ", std::string(field), " ", std::string(why)));
}

// --- Credentials values ---------------------------------------------------------

absl::Status ValidateToken(std::string_view field, std::string_view value, size_t max_bytes) {
  if (value.empty()) return BadField(field, "is empty");
  if (value.size() > max_bytes) {
    return BadField(field, absl::StrCat("is longer than ", max_bytes, " bytes"));
  }
  if (!AllVisibleAscii(value)) {
    return BadField(field, "holds a byte outside visible ASCII (0x21..0x7E)");
  }
  return absl::OkStatus();
}

// --- Expiration -------------------------------------------------------------------

// ISO-8601 UTC as the credential sources write it: ParseS3Timestamp's form
// ("...Z"), or the same with a numeric offset "+hh:mm" / "-hh:mm".
std::optional<absl::Time> ParseExpiration(std::string_view text) {
  if (text.size() > 64) return std::nullopt;
  if (!text.empty() && text.back() == 'Z') {
    absl::StatusOr<int64_t> micros = ParseS3Timestamp(text);
    if (!micros.ok()) return std::nullopt;
    return absl::FromUnixMicros(*micros);
  }
  if (text.size() < 7) return std::nullopt;
  std::string_view offset = text.substr(text.size() - 6);
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  if ((offset[0] != '+' && offset[0] != '-') || !digit(offset[1]) || !digit(offset[2]) ||
      offset[3] != ':' || !digit(offset[4]) || !digit(offset[5])) {
    return std::nullopt;
  }
  int hours = (offset[1] - '0') * 10 + (offset[2] - '0');
  int minutes = (offset[4] - '0') * 10 + (offset[5] - '0');
  if (hours > 23 || minutes > 59) return std::nullopt;
  std::string local = absl::StrCat(std::string(text.substr(0, text.size() - 6)), "Z");
  absl::StatusOr<int64_t> micros = ParseS3Timestamp(local);
  if (!micros.ok()) return std::nullopt;
  absl::Duration east = absl::Minutes(hours * 60 + minutes);
  // Local time = UTC + offset, so UTC = local - offset.
  return absl::FromUnixMicros(*micros) - (offset[0] == '+' ? east : -east);
}

// --- Profile files ----------------------------------------------------------------

absl::Status LineError(size_t line, std::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat("line ", line, ": ", std::string(why)));
}

// The profile a config file's section name stands for, if any.
std::optional<std::string> ConfigProfileName(std::string_view section) {
  if (section == "default") return std::string(section);
  constexpr std::string_view kPrefix = "profile";
  if (section.size() <= kPrefix.size() || section.substr(0, kPrefix.size()) != kPrefix ||
      !IsWsp(section[kPrefix.size()])) {
    return std::nullopt;
  }
  std::string_view name = TrimWsp(section.substr(kPrefix.size()));
  if (name.empty()) return std::nullopt;
  return std::string(name);
}

// One pass over the lines of a profile file.
class ProfileFileReader {
 public:
  explicit ProfileFileReader(ProfileFileKind kind) : kind_(kind) {}

  absl::StatusOr<ProfileFile> Read(std::string_view text) {
    size_t number = 0;
    for (;;) {
      ++number;
      size_t end = text.find('\n');
      std::string_view line = text.substr(0, end);
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      if (absl::Status status = Line(number, line); !status.ok()) return status;
      if (end == std::string_view::npos) break;
      text.remove_prefix(end + 1);
    }
    return std::move(file_);
  }

 private:
  absl::Status Line(size_t number, std::string_view line) {
    for (char c : line) {
      unsigned char byte = static_cast<unsigned char>(c);
      if ((byte < 0x20 && c != '\t') || byte == 0x7F) {
        return LineError(number, "holds a control character (other than tab)");
      }
    }
    if (!IsValidUtf8(line)) return LineError(number, "is not valid UTF-8");
    std::string_view trimmed = TrimWsp(line);
    if (trimmed.empty() || trimmed.front() == '#' || trimmed.front() == ';') {
      return absl::OkStatus();
    }
    size_t indent = line.size() - line.substr(line.find_first_not_of(" \t")).size();
    if (value_ != nullptr && indent > value_indent_) {
      absl::StrAppend(value_, "\n", absl::string_view(trimmed.data(), trimmed.size()));
      return absl::OkStatus();
    }
    value_ = nullptr;
    if (trimmed.front() == '[') return Section(number, trimmed);
    return Property(number, trimmed, indent);
  }

  absl::Status Section(size_t number, std::string_view trimmed) {
    size_t close = trimmed.find(']');
    if (close == std::string_view::npos) return LineError(number, "a section line without ']'");
    std::string_view after = TrimWsp(trimmed.substr(close + 1));
    if (!after.empty() && after.front() != '#' && after.front() != ';') {
      return LineError(number, "text after the ']' of a section line");
    }
    std::string_view name = TrimWsp(trimmed.substr(1, close - 1));
    if (name.empty()) return LineError(number, "an empty section name");
    std::optional<std::string> profile = kind_ == ProfileFileKind::kCredentials
                                             ? std::optional<std::string>(std::string(name))
                                             : ConfigProfileName(name);
    // Sections that are no profile are checked and dropped.
    ignored_.clear();
    section_ = profile ? &file_.profiles[*profile] : &ignored_;
    return absl::OkStatus();
  }

  absl::Status Property(size_t number, std::string_view trimmed, size_t indent) {
    size_t delimiter = trimmed.find_first_of("=:");
    if (delimiter == std::string_view::npos) {
      return LineError(number, "expected a [section], a key = value line or a comment");
    }
    if (section_ == nullptr) return LineError(number, "a property before any [section]");
    std::string_view key = TrimWsp(trimmed.substr(0, delimiter));
    if (key.empty()) return LineError(number, "a property without a key");
    std::string& value = (*section_)[Lower(key)];
    value = std::string(TrimWsp(trimmed.substr(delimiter + 1)));
    value_ = &value;
    value_indent_ = indent;
    return absl::OkStatus();
  }

  ProfileFileKind kind_;
  ProfileFile file_;
  ProfileProperties ignored_;
  ProfileProperties* section_ = nullptr;  // null before the first section
  std::string* value_ = nullptr;          // the property a continuation extends
  size_t value_indent_ = 0;
};

bool IsSessionNameChar(char c) {
  return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '+' || c == '=' ||
         c == ',' || c == '.' || c == '@' || c == '-';
}

// --- JSON -----------------------------------------------------------------------

using Json = nlohmann::json;

absl::Status JsonError(std::string_view document, std::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat("malformed ", std::string(document), ": ", std::string(why)));
}

constexpr std::string_view kJsonFields[] = {"AccessKeyId", "SecretAccessKey", "Token",
                                            "Expiration", "Code"};

// --- XML (STS) ------------------------------------------------------------------

constexpr int kMaxStsXmlDepth = 8;
// The longest STS message repeated in a status.
constexpr size_t kMaxStsMessageBytes = 512;

absl::Status XmlError(std::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat("malformed STS response: ", std::string(why)));
}

// One expat pass over an STS document that keeps the text of the fields
// named by their paths below the root ("Error/Code"). Nothing else is kept.
class StsDocumentReader {
 public:
  StsDocumentReader(std::string_view root, std::vector<std::string_view> fields)
      : root_(root), fields_(std::move(fields)), values_(fields_.size()) {}

  // The fields' texts, in the order given; nullopt for an absent one.
  absl::StatusOr<std::vector<std::optional<std::string>>> Read(std::string_view body) {
    if (body.size() > kMaxCredentialResponseBytes) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "STS response: the body of ", body.size(), " bytes is over the limit of ",
          kMaxCredentialResponseBytes));
    }
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
    XML_Status parsed =
        XML_Parse(parser_, body.data(), static_cast<int>(body.size()), XML_TRUE);
    if (!error_.ok()) return error_;
    if (parsed != XML_STATUS_OK) {
      return XmlError(absl::StrCat("XML error at line ", XML_GetCurrentLineNumber(parser_),
                                   ", column ", XML_GetCurrentColumnNumber(parser_), ": ",
                                   XML_ErrorString(XML_GetErrorCode(parser_))));
    }
    return std::move(values_);
  }

 private:
  static constexpr XML_Char kNamespaceSeparator = ' ';

  // An open element: its path below the root ("" for the root), or ignored
  // (outside the STS namespace, or inside such an element).
  struct Open {
    std::string path;
    bool ignored = false;
  };

  static StsDocumentReader* Self(void* data) { return static_cast<StsDocumentReader*>(data); }
  static void OnDoctype(void* data, const XML_Char*, const XML_Char*, const XML_Char*, int) {
    Self(data)->Fail("a DOCTYPE is refused");
  }
  static void OnEntityDecl(void* data, const XML_Char*, int, const XML_Char*, int,
                           const XML_Char*, const XML_Char*, const XML_Char*,
                           const XML_Char*) {
    Self(data)->Fail("an entity declaration is refused");
  }
  static int OnExternalEntity(XML_Parser parser, const XML_Char*, const XML_Char*,
                              const XML_Char*, const XML_Char*) {
    Self(XML_GetUserData(parser))->Fail("an external entity is refused");
    return XML_STATUS_ERROR;
  }
  static void OnStart(void* data, const XML_Char* name, const XML_Char**) {
    Self(data)->Start(name);
  }
  static void OnEnd(void* data, const XML_Char*) { Self(data)->End(); }
  static void OnText(void* data, const XML_Char* text, int size) {
    StsDocumentReader* self = Self(data);
    if (self->text_ != nullptr && self->error_.ok()) {
      self->text_->append(text, static_cast<size_t>(size));
    }
  }

  void Fail(std::string_view why) {
    if (error_.ok()) error_ = XmlError(why);
    XML_StopParser(parser_, XML_FALSE);
  }

  void Start(std::string_view name) {
    if (!error_.ok()) return;
    if (open_.size() >= static_cast<size_t>(kMaxStsXmlDepth)) {
      return Fail(absl::StrCat("elements nest deeper than ", kMaxStsXmlDepth));
    }
    bool known = true;
    std::string_view local = name;
    if (size_t separator = name.rfind(kNamespaceSeparator); separator != std::string_view::npos) {
      known = name.substr(0, separator) == kStsXmlNamespace;
      local = name.substr(separator + 1);
    }
    if (open_.empty()) {
      if (!known || local != root_) {
        return Fail(absl::StrCat("the root element is not <", std::string(root_),
                                 "> in the STS namespace"));
      }
      open_.push_back(Open{"", false});
      return;
    }
    if (text_ != nullptr) {
      return Fail(absl::StrCat("an element inside the text field <", std::string(field_), ">"));
    }
    const Open& parent = open_.back();
    if (parent.ignored || !known) {
      open_.push_back(Open{"", true});
      return;
    }
    std::string path = parent.path.empty()
                           ? std::string(local)
                           : absl::StrCat(parent.path, "/", absl::string_view(local.data(), local.size()));
    for (size_t i = 0; i < fields_.size(); ++i) {
      if (path != fields_[i]) continue;
      if (values_[i].has_value()) {
        return Fail(absl::StrCat("<", std::string(fields_[i]), "> appears twice"));
      }
      values_[i].emplace();
      text_ = &*values_[i];
      field_ = fields_[i];
    }
    open_.push_back(Open{std::move(path), false});
  }

  void End() {
    if (!error_.ok() || open_.empty()) return;
    text_ = nullptr;
    open_.pop_back();
  }

  std::string_view root_;
  std::vector<std::string_view> fields_;
  std::vector<std::optional<std::string>> values_;
  XML_Parser parser_ = nullptr;
  absl::Status error_;
  std::vector<Open> open_;
  std::string* text_ = nullptr;  // the open field, if any
  std::string_view field_;
};

bool IsValidStsCode(std::string_view code) {
  if (code.empty() || code.size() > 128) return false;
  for (char c : code) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' &&
        c != '-') {
      return false;
    }
  }
  return true;
}

absl::StatusCode CodeForStsCode(std::string_view code) {
  struct Mapping {
    std::string_view sts_code;
    absl::StatusCode code;
  };
  static constexpr Mapping kMappings[] = {
      {"InvalidIdentityToken", absl::StatusCode::kPermissionDenied},
      {"ExpiredTokenException", absl::StatusCode::kPermissionDenied},
      {"IDPRejectedClaim", absl::StatusCode::kPermissionDenied},
      {"AccessDenied", absl::StatusCode::kPermissionDenied},
      {"InvalidClientTokenId", absl::StatusCode::kPermissionDenied},
      {"IDPCommunicationError", absl::StatusCode::kUnavailable},
      {"Throttling", absl::StatusCode::kUnavailable},
      {"ServiceUnavailable", absl::StatusCode::kUnavailable},
      {"InternalFailure", absl::StatusCode::kUnavailable},
      {"RequestTimeout", absl::StatusCode::kUnavailable},
      {"RegionDisabledException", absl::StatusCode::kFailedPrecondition},
      {"MalformedPolicyDocument", absl::StatusCode::kInvalidArgument},
      {"PackedPolicyTooLarge", absl::StatusCode::kInvalidArgument},
      {"ValidationError", absl::StatusCode::kInvalidArgument},
      {"InvalidParameterValue", absl::StatusCode::kInvalidArgument},
      {"MissingParameter", absl::StatusCode::kInvalidArgument},
      {"InvalidAction", absl::StatusCode::kInvalidArgument},
  };
  for (const Mapping& mapping : kMappings) {
    if (mapping.sts_code == code) return mapping.code;
  }
  return absl::StatusCode::kOk;  // not a known code
}

absl::StatusCode CodeForStsHttpStatus(int http_status) {
  if (http_status == 408 || http_status == 429 || (http_status >= 500 && http_status <= 599)) {
    return absl::StatusCode::kUnavailable;
  }
  if (http_status == 401 || http_status == 403) return absl::StatusCode::kPermissionDenied;
  if (http_status >= 400 && http_status <= 499) return absl::StatusCode::kInvalidArgument;
  return absl::StatusCode::kUnknown;
}

}  // namespace

absl::Status ValidateCredentials(const Credentials& credentials) {
  const std::string& id = credentials.access_key_id;
  if (absl::Status status = ValidateToken("access key id", id, kMaxAccessKeyIdBytes);
      !status.ok()) {
    return status;
  }
  if (id.find_first_of(",/") != std::string::npos) {
    return BadField("access key id", "holds ',' or '/'");
  }
  if (absl::Status status = ValidateToken("secret access key", credentials.secret_access_key,
                                          kMaxSecretAccessKeyBytes);
      !status.ok()) {
    return status;
  }
  if (credentials.session_token.has_value()) {
    return ValidateToken("session token", *credentials.session_token, kMaxSessionTokenBytes);
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> ParseWebIdentityToken(std::string_view file_text) {
  std::string_view token = file_text;
  while (!token.empty() && absl::ascii_isspace(static_cast<unsigned char>(token.front()))) {
    token.remove_prefix(1);
  }
  while (!token.empty() && absl::ascii_isspace(static_cast<unsigned char>(token.back()))) {
    token.remove_suffix(1);
  }
  if (token.size() < kMinWebIdentityTokenBytes) {
    return BadField("web identity token", absl::StrCat("is shorter than ",
                                                       kMinWebIdentityTokenBytes, " bytes"));
  }
  if (absl::Status status =
          ValidateToken("web identity token", token, kMaxWebIdentityTokenBytes);
      !status.ok()) {
    return status;
  }
  return std::string(token);
}

absl::StatusOr<ProfileFile> ParseProfileFile(std::string_view text, ProfileFileKind kind) {
  if (text.size() > kMaxProfileFileBytes) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "the file is ", text.size(), " bytes, over the limit of ", kMaxProfileFileBytes));
  }
  constexpr std::string_view kByteOrderMark = "\xEF\xBB\xBF";
  if (text.substr(0, kByteOrderMark.size()) == kByteOrderMark) {
    text.remove_prefix(kByteOrderMark.size());
  }
  return ProfileFileReader(kind).Read(text);
}

absl::Status ValidateWebIdentityRole(const WebIdentityRole& role) {
  const std::string& arn = role.role_arn;
  if (arn.size() < 20 || arn.size() > 2048 || arn.compare(0, 4, "arn:") != 0 ||
      !AllVisibleAscii(arn)) {
    return BadField("role ARN", "must be \"arn:\" then visible ASCII, 20 to 2048 bytes in all");
  }
  if (role.token_file.empty() || role.token_file.size() > 4096 ||
      role.token_file.find('\0') != std::string::npos) {
    return BadField("web identity token file", "must be a path of 1 to 4096 bytes without NUL");
  }
  const std::string& session = role.session_name;
  if (!session.empty()) {
    bool valid = session.size() >= 2 && session.size() <= 64;
    for (char c : session) valid = valid && IsSessionNameChar(c);
    if (!valid) {
      return BadField("role session name", "must be 2 to 64 of A-Z a-z 0-9 _ + = , . @ -");
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<ProfileCredentials> ResolveProfileCredentials(const ProfileFile& credentials_file,
                                                             const ProfileFile& config_file,
                                                             std::string_view profile) {
  ProfileCredentials out;
  ProfileProperties merged;
  const std::string name(profile);
  if (auto it = config_file.profiles.find(name); it != config_file.profiles.end()) {
    out.profile_found = true;
    merged = it->second;
  }
  if (auto it = credentials_file.profiles.find(name); it != credentials_file.profiles.end()) {
    out.profile_found = true;
    for (const auto& [key, value] : it->second) merged[key] = value;
  }
  auto get = [&merged](const char* key) -> std::optional<std::string> {
    auto it = merged.find(key);
    if (it == merged.end() || it->second.empty()) return std::nullopt;
    return it->second;
  };
  out.region = get("region").value_or("");

  std::optional<std::string> role_arn = get("role_arn");
  std::optional<std::string> token_file = get("web_identity_token_file");
  if (role_arn) {
    if (token_file) {
      WebIdentityRole role{*role_arn, *token_file, get("role_session_name").value_or("")};
      if (absl::Status status = ValidateWebIdentityRole(role); !status.ok()) return status;
      out.web_identity = std::move(role);
      return out;
    }
    if (get("source_profile") || get("credential_source")) {
      return absl::UnimplementedError(
          "role_arn with source_profile or credential_source (STS AssumeRole) is not supported; "
          "use static keys, web_identity_token_file or another credential source");
    }
    return absl::InvalidArgumentError(
        "role_arn without web_identity_token_file, source_profile or credential_source");
  }
  if (token_file) {
    return absl::InvalidArgumentError("web_identity_token_file without role_arn");
  }

  std::optional<std::string> id = get("aws_access_key_id");
  std::optional<std::string> secret = get("aws_secret_access_key");
  if (id || secret) {
    if (!id || !secret) {
      return absl::InvalidArgumentError(
          "aws_access_key_id and aws_secret_access_key must be set together");
    }
    Credentials credentials{*id, *secret, get("aws_session_token")};
    if (absl::Status status = ValidateCredentials(credentials); !status.ok()) return status;
    out.credentials = std::move(credentials);
    return out;
  }
  if (get("credential_process")) {
    return absl::UnimplementedError("credential_process is not supported");
  }
  if (get("sso_session") || get("sso_start_url")) {
    return absl::UnimplementedError("SSO credentials (sso_session, sso_start_url) are not supported");
  }
  return out;
}

absl::StatusOr<TemporaryCredentials> ParseCredentialsJson(std::string_view body,
                                                          CredentialsJsonKind kind) {
  const bool imds = kind == CredentialsJsonKind::kImds;
  const std::string_view document = imds ? "IMDS credentials" : "container credentials";
  if (body.size() > kMaxCredentialResponseBytes) {
    return absl::ResourceExhaustedError(
        absl::StrCat(std::string(document), ": the document of ", body.size(),
                     " bytes is over the limit of ", kMaxCredentialResponseBytes));
  }
  // nlohmann keeps the last of duplicate keys silently; the callback sees
  // the top-level keys and refuses a duplicate of a field lake reads.
  bool duplicate = false;
  std::vector<std::string_view> seen;
  auto callback = [&](int depth, Json::parse_event_t event, Json& parsed) {
    if (event == Json::parse_event_t::key && depth == 1) {
      const std::string& key = parsed.get_ref<const std::string&>();
      for (std::string_view field : kJsonFields) {
        if (key != field) continue;
        for (std::string_view earlier : seen) duplicate = duplicate || earlier == field;
        seen.push_back(field);
      }
    }
    return true;
  };
  Json json = Json::parse(body.begin(), body.end(), callback, /*allow_exceptions=*/false);
  if (json.is_discarded()) return JsonError(document, "not a JSON document");
  if (!json.is_object()) return JsonError(document, "not a JSON object");
  if (duplicate) return JsonError(document, "a field appears twice");

  absl::Status status;
  // A string field; nullopt when absent (or, for optional container
  // fields, empty). Records the first refusal in `status`.
  auto field = [&](std::string_view name, bool required) -> std::optional<std::string> {
    auto it = json.find(std::string(name));
    if (it == json.end()) {
      if (required && status.ok()) {
        status = JsonError(document, absl::StrCat("\"", std::string(name), "\" is missing"));
      }
      return std::nullopt;
    }
    if (!it->is_string()) {
      if (status.ok()) {
        status = JsonError(document, absl::StrCat("\"", std::string(name), "\" is not a string"));
      }
      return std::nullopt;
    }
    const std::string& text = it->get_ref<const std::string&>();
    if (!required && text.empty()) return std::nullopt;
    return text;
  };
  std::optional<std::string> code = imds ? field("Code", true) : std::nullopt;
  std::optional<std::string> id = field("AccessKeyId", true);
  std::optional<std::string> secret = field("SecretAccessKey", true);
  std::optional<std::string> token = field("Token", imds);
  std::optional<std::string> expiration = field("Expiration", imds);
  if (!status.ok()) return status;
  if (imds && *code != "Success") {
    return JsonError(document, "\"Code\" is not \"Success\"");
  }
  TemporaryCredentials out;
  out.credentials = Credentials{*id, *secret, token};
  if (absl::Status valid = ValidateCredentials(out.credentials); !valid.ok()) {
    return JsonError(document, std::string(valid.message()));
  }
  if (expiration) {
    out.expiration = ParseExpiration(*expiration);
    if (!out.expiration) {
      return JsonError(document, "\"Expiration\" is not an ISO-8601 time with a UTC offset");
    }
  }
  return out;
}

absl::StatusOr<TemporaryCredentials> ParseAssumeRoleWithWebIdentityResponse(std::string_view body) {
  constexpr std::string_view kPrefix = "AssumeRoleWithWebIdentityResult/Credentials/";
  StsDocumentReader reader("AssumeRoleWithWebIdentityResponse",
                           {"AssumeRoleWithWebIdentityResult/Credentials/AccessKeyId",
                            "AssumeRoleWithWebIdentityResult/Credentials/SecretAccessKey",
                            "AssumeRoleWithWebIdentityResult/Credentials/SessionToken",
                            "AssumeRoleWithWebIdentityResult/Credentials/Expiration"});
  absl::StatusOr<std::vector<std::optional<std::string>>> fields = reader.Read(body);
  if (!fields.ok()) return fields.status();
  constexpr std::string_view kNames[] = {"AccessKeyId", "SecretAccessKey", "SessionToken",
                                         "Expiration"};
  for (size_t i = 0; i < 4; ++i) {
    if (!(*fields)[i].has_value()) {
      return XmlError(absl::StrCat("<", std::string(kPrefix), std::string(kNames[i]),
                                   "> is missing"));
    }
  }
  TemporaryCredentials out;
  out.credentials = Credentials{*(*fields)[0], *(*fields)[1], *(*fields)[2]};
  if (absl::Status valid = ValidateCredentials(out.credentials); !valid.ok()) {
    return XmlError(std::string(valid.message()));
  }
  out.expiration = ParseExpiration(*(*fields)[3]);
  if (!out.expiration) {
    return XmlError("<Expiration> is not an ISO-8601 time with a UTC offset");
  }
  return out;
}

absl::Status StsErrorStatus(int http_status, std::string_view body,
                            std::span<const std::string_view> secrets) {
  StsDocumentReader reader("ErrorResponse", {"Error/Code", "Error/Message"});
  absl::StatusOr<std::vector<std::optional<std::string>>> fields = reader.Read(body);
  std::string code;
  std::string message;
  if (fields.ok()) {
    code = (*fields)[0].value_or("");
    message = (*fields)[1].value_or("");
  }
  if (!IsValidStsCode(code)) code.clear();
  absl::StatusCode status_code = code.empty() ? absl::StatusCode::kOk : CodeForStsCode(code);
  if (status_code == absl::StatusCode::kOk) status_code = CodeForStsHttpStatus(http_status);

  std::string text = code.empty() ? absl::StrCat("STS error (HTTP ", http_status, ")")
                                   : absl::StrCat("STS ", code, " (HTTP ", http_status, ")");
  if (!message.empty()) absl::StrAppend(&text, ": ", message);
  // Secrets go before the text is cut, so none survives whole.
  for (std::string_view secret : secrets) {
    if (secret.empty()) continue;
    text = absl::StrReplaceAll(text, {{absl::string_view(secret.data(), secret.size()),
                                       "[redacted]"}});
  }
  return absl::Status(status_code, SanitizedExcerpt(text, kMaxStsMessageBytes));
}

}  // namespace lake::s3http
