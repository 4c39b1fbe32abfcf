// The RocksDB keys of the registry: one short prefix per record kind, so
// each kind is one contiguous, ordered range (a prefix scan lists it).
//
// Key scheme (format version 1; values are described in registry_records.h):
//   s/                               the root's stage descriptor
//   n/<ns>                           a namespace
//   t/<ns>.<table>                   a table registration
//   i/<table id: 16 lowercase hex>   table id → name (ids are never reused)
//   v/<table id: 16 hex>/<version: 20 decimal digits>
//                                    one committed version of a table
//   o/<operation id>                 an append operation's record
//   c/next_table_id                  the table id counter
//   d/<table id: 16 hex>             a dropped table (its i/ and v/ stay)
//   g/<table id: 16 hex>/<tag>       a tag pinning one version of a table
//   x/<table id: 16 hex>/<version: 20 decimal digits>
//                                    a version retired by an expiry
//   b/<table id: 16 hex>             a table's reference base (the snapshot
//                                    its lineage replay starts from)
//   u/<table id: 16 hex>             a table whose commits may not be synced
//                                    yet (a deferred mark)
//
// Namespace and table names are identifiers ([A-Za-z_][A-Za-z0-9_]*), and
// '.' sorts below every identifier character, so the byte order of table
// keys is the order of TableName (namespace, then table). Fixed-width ids and
// versions make byte order the numeric order.
#ifndef LAKE_REGISTRY_REGISTRY_KEYS_H_
#define LAKE_REGISTRY_REGISTRY_KEYS_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "schema/table_schema.h"

namespace lake::registry {

inline constexpr std::string_view kStageDescriptorKey = "s/";
inline constexpr std::string_view kNamespacePrefix = "n/";
inline constexpr std::string_view kTablePrefix = "t/";
inline constexpr std::string_view kTableIdPrefix = "i/";
inline constexpr std::string_view kVersionPrefix = "v/";
inline constexpr std::string_view kOperationPrefix = "o/";
inline constexpr std::string_view kNextTableIdKey = "c/next_table_id";
inline constexpr std::string_view kDroppedTablePrefix = "d/";
inline constexpr std::string_view kTagPrefix = "g/";
inline constexpr std::string_view kRetiredVersionPrefix = "x/";
inline constexpr std::string_view kReferenceBasePrefix = "b/";
inline constexpr std::string_view kDeferredMarkPrefix = "u/";

std::string NamespaceKey(std::string_view ns);
std::string TableKey(const table::TableName& name);
std::string TableIdKey(uint64_t table_id);
// The prefix of every version key of one table.
std::string TableVersionsPrefix(uint64_t table_id);
std::string VersionKey(uint64_t table_id, uint64_t version);
std::string OperationKey(std::string_view operation_id);
std::string DroppedTableKey(uint64_t table_id);
// The prefix of every tag key of one table.
std::string TableTagsPrefix(uint64_t table_id);
std::string TagKey(uint64_t table_id, std::string_view tag);
// The prefix of every retired-version key of one table.
std::string TableRetiredVersionsPrefix(uint64_t table_id);
std::string RetiredVersionKey(uint64_t table_id, uint64_t version);
std::string ReferenceBaseKey(uint64_t table_id);
std::string DeferredMarkKey(uint64_t table_id);

}  // namespace lake::registry

#endif  // LAKE_REGISTRY_REGISTRY_KEYS_H_
