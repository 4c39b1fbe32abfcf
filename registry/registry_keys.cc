#include "registry/registry_keys.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace lake::registry {

std::string NamespaceKey(std::string_view ns) {
  return absl::StrCat(std::string(kNamespacePrefix), std::string(ns));
}

std::string TableKey(const table::TableName& name) {
  return absl::StrCat(std::string(kTablePrefix), name.ns, ".", name.table);
}

std::string TableIdKey(uint64_t table_id) {
  return absl::StrFormat("%s%016x", std::string(kTableIdPrefix), table_id);
}

std::string TableVersionsPrefix(uint64_t table_id) {
  return absl::StrFormat("%s%016x/", std::string(kVersionPrefix), table_id);
}

std::string VersionKey(uint64_t table_id, uint64_t version) {
  return absl::StrFormat("%s%020u", TableVersionsPrefix(table_id), version);
}

std::string OperationKey(std::string_view operation_id) {
  return absl::StrCat(std::string(kOperationPrefix), std::string(operation_id));
}

std::string DroppedTableKey(uint64_t table_id) {
  return absl::StrFormat("%s%016x", std::string(kDroppedTablePrefix), table_id);
}

std::string TableTagsPrefix(uint64_t table_id) {
  return absl::StrFormat("%s%016x/", std::string(kTagPrefix), table_id);
}

std::string TagKey(uint64_t table_id, std::string_view tag) {
  return absl::StrCat(TableTagsPrefix(table_id), std::string(tag));
}

std::string TableRetiredVersionsPrefix(uint64_t table_id) {
  return absl::StrFormat("%s%016x/", std::string(kRetiredVersionPrefix), table_id);
}

std::string RetiredVersionKey(uint64_t table_id, uint64_t version) {
  return absl::StrFormat("%s%020u", TableRetiredVersionsPrefix(table_id), version);
}

std::string ReferenceBaseKey(uint64_t table_id) {
  return absl::StrFormat("%s%016x", std::string(kReferenceBasePrefix), table_id);
}

std::string DeferredMarkKey(uint64_t table_id) {
  return absl::StrFormat("%s%016x", std::string(kDeferredMarkPrefix), table_id);
}

}  // namespace lake::registry
