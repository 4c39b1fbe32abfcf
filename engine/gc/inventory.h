// The inventory a plan is made from: every published object of the stage
// with its size and modification time, and every file of the root's table
// directories (fragments, manifests, reference deltas) — the candidates,
// before the live index says which of them something still needs.
#ifndef LAKE_ENGINE_GC_INVENTORY_H_
#define LAKE_ENGINE_GC_INVENTORY_H_

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "engine/gc/gc_root.h"
#include "engine/gc/plan_page_format.h"

namespace lake::gc {

using InventoryVisitor = std::function<absl::Status(const Candidate& entry)>;

// Every published object of the stage (every tenant's too), in no order.
// Local: a walk of objects/ and tenants/*/objects/; S3: ListObjectsV2
// pages on `streams` concurrent streams over key ranges
// (s3_parallel_listing.h). `visit` runs on the calling thread.
absl::Status ListStageObjects(const GcRoot& root, size_t streams, const InventoryVisitor& visit);

// Every regular file in data/, _versions/, _lake/object_refs/ and _log/ of
// every directory <root>/tables/<ns>/<table>/, registered or not, and of
// every dropped table's directory <root>/tables/.dropped/<id>/ (the plan
// keeps only those of registered tables and of tables dropped before the
// cutoff), as file:// URIs — but the active segment of a table log (its
// newest segment, table_log.h), except in a dropped table's directory.
//
// Why a listed segment is safe to take when no live version names an
// address in it: appends write only to the active segment or a newer one,
// so no commit after the listing names a record in a segment listed here;
// a commit between the plan and the apply voids the plan (the root
// fingerprint), and a writer between its first record and its commit holds
// the references lock that apply takes exclusively (gc_locks.h). A torn
// roll's temporary file in _log/ is listed too: nothing ever names it.
absl::Status ListTableFiles(const GcRoot& root, const InventoryVisitor& visit);

// The table a table-file URI lies in — "<ns>.<table>", or
// DroppedTableOwner(id) in a dropped table's directory — when it is a file
// directly in one of the directories above; "" otherwise.
std::string TableOfTableFile(const std::string& root_dir, std::string_view uri);
// ".dropped/<id: 16 lowercase hex>": how TableOfTableFile names a dropped
// table (no "<ns>.<table>" looks so: a namespace begins with no '.').
std::string DroppedTableOwner(uint64_t table_id);

}  // namespace lake::gc

#endif  // LAKE_ENGINE_GC_INVENTORY_H_
