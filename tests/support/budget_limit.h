// Lowers the process BufferBudget's limit for the life of a test scope and
// restores it afterwards, whatever the test's outcome (the budget is
// process-wide: a limit left lowered would starve every later test).
#ifndef LAKE_TESTS_SUPPORT_BUDGET_LIMIT_H_
#define LAKE_TESTS_SUPPORT_BUDGET_LIMIT_H_

#include <cstdint>
#include <stdexcept>

#include "base/buffer_budget.h"

namespace lake::testing {

class ScopedBudgetLimit {
 public:
  explicit ScopedBudgetLimit(uint64_t limit) : saved_(BufferBudget::Process().limit()) {
    absl::Status set = BufferBudget::Process().SetLimit(limit);
    if (!set.ok()) throw std::runtime_error(set.ToString());
  }
  ~ScopedBudgetLimit() { BufferBudget::Process().SetLimit(saved_).IgnoreError(); }
  ScopedBudgetLimit(const ScopedBudgetLimit&) = delete;
  ScopedBudgetLimit& operator=(const ScopedBudgetLimit&) = delete;

 private:
  uint64_t saved_;
};

}  // namespace lake::testing

#endif  // LAKE_TESTS_SUPPORT_BUDGET_LIMIT_H_
