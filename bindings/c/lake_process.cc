// Library identity and process-wide settings.
#include "base/buffer_budget.h"
#include "bindings/c/c_handles.h"

#ifndef LAKE_VERSION_STRING
#define LAKE_VERSION_STRING "0.0.0"
#endif

extern "C" {

uint32_t lake_abi_version(void) { return LAKE_ABI_VERSION; }

const char* lake_version_string(void) { return LAKE_VERSION_STRING; }

lake_status lake_set_buffer_budget(uint64_t bytes, lake_error** err) {
  return lake::c::Guarded(err, [&] {
    return lake::c::Report(lake::BufferBudget::Process().SetLimit(bytes), err);
  });
}

lake_cancel_token* lake_cancel_token_new(void) {
  return new (std::nothrow) lake_cancel_token;
}
void lake_cancel_token_cancel(lake_cancel_token* token) {
  if (token != nullptr) token->token.Cancel();
}
int lake_cancel_token_is_cancelled(const lake_cancel_token* token) {
  return token != nullptr && token->token.IsCancelled() ? 1 : 0;
}
void lake_cancel_token_free(lake_cancel_token* token) { delete token; }

}  // extern "C"
