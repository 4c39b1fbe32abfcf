// RocksDB's own diagnostic log (the LOG file of the registry directory),
// written so that a failed write cannot stop the process.
//
// RocksDB 7.8's file logger writes each line again into a file writer that
// has seen a failed write, and that writer asserts on it (RocksDB as Debian
// builds it keeps its assertions): a registry opened on a nearly full disk
// (ENOSPC) or whose LOG write fails otherwise aborted the process instead of
// reporting the error. The logger below writes each line with one write(2)
// and, after a failed write, drops every later line.
#ifndef LAKE_REGISTRY_ROCKSDB_INFO_LOG_H_
#define LAKE_REGISTRY_ROCKSDB_INFO_LOG_H_

#include <memory>
#include <string>

#include "rocksdb/env.h"

namespace lake::registry {

// A logger writing `dir`/LOG (its previous contents kept as LOG.old). It
// never fails: a LOG that cannot be created or written is given up on.
std::shared_ptr<rocksdb::Logger> NewFailSafeInfoLog(const std::string& dir);

}  // namespace lake::registry

#endif  // LAKE_REGISTRY_ROCKSDB_INFO_LOG_H_
