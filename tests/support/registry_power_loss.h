// A RocksDB environment for a registry whose machine can lose power: what
// the fault-injecting file system (fault_injection_file_system.h) is for
// lake's own files, for RocksDB's, which it writes through its own layer.
//
// It remembers, for every file RocksDB creates through it, how many bytes
// a sync made durable. Crash() is the power loss: every later write and
// sync is dropped (reported done, as nothing is left to see it fail).
// Once the registry is closed, DropUnsynced() cuts each of those files
// back to its synced bytes — a file never synced to nothing — which is
// what the disk of a machine that lost power holds of them. Renames and
// deletions are taken as durable (RocksDB syncs the directory after them).
#ifndef LAKE_TESTS_SUPPORT_REGISTRY_POWER_LOSS_H_
#define LAKE_TESTS_SUPPORT_REGISTRY_POWER_LOSS_H_

#include <memory>

#include "rocksdb/env.h"

namespace lake::testing {

class RegistryPowerLoss {
 public:
  RegistryPowerLoss();
  ~RegistryPowerLoss();
  RegistryPowerLoss(const RegistryPowerLoss&) = delete;
  RegistryPowerLoss& operator=(const RegistryPowerLoss&) = delete;

  // For RegistryOptions::env; lives as long as this.
  rocksdb::Env* env() const;
  void Crash();
  // Call once every registry using env() is closed.
  void DropUnsynced();

  class Files;

 private:
  std::shared_ptr<Files> files_;
  std::unique_ptr<rocksdb::Env> env_;
};

}  // namespace lake::testing

#endif  // LAKE_TESTS_SUPPORT_REGISTRY_POWER_LOSS_H_
