// ThreadSanitizer's suppressions for the TSan suite (tests/tsan_tests),
// compiled in so that every run of the binary (scripts/test, by hand, its
// forked children) uses them. Each is a false positive in third-party code,
// with the reason; none names lake's code: a report in lake's code is
// fixed, never suppressed.

extern "C" const char* __tsan_default_suppressions() {
  return
      // Abseil 20220623 (built with TSan by scripts/tsan-abseil). A thread
      // whose first blocking call is CondVar::Wait allocates its
      // ThreadIdentity (LowLevelAlloc's mmap, which TSan counts as a write)
      // after Wait has already announced the mutex's release to TSan, and
      // the waiter is queued inside the region where Abseil hides its own
      // atomics from TSan; so the waker's Waiter::Post on that identity
      // looks unordered after the mmap. Upstream's known false positive
      // (abseil-cpp#760, google/sanitizers#953). Seen in the HTTP
      // transport's AwaitHead when no earlier call had created the identity.
      "race:synchronization_internal::Waiter::Post\n"
      // RocksDB (Debian's, not built with TSan). Its cache-entry role map
      // (a mutex and a map) is a function-local static, here first built
      // on RocksDB's stats thread; other threads find it built through the
      // static's guard, whose inline check is not instrumented, so their
      // locking its mutex looks unordered after its allocation. Seen when a
      // registry was opened while its stats thread ran (the CLI's tests).
      "race:rocksdb::RegisterCacheDeleterRole\n"
      "race:rocksdb::CopyCacheDeleterRoleMap\n";
}
