// Package lake is the Go binding of lake's C ABI (include/lake.h), through
// cgo.
//
// Every handle has an explicit Close() error: closing twice is a no-op, a
// closed handle's methods return ErrClosed without calling lake, and
// closing a parent (a Db, a Stage, an EventLog, a CancelToken, a
// QueryResult, a FoldedItem) first closes the children lake.h requires it
// to outlive. A finalizer only reports a handle the program forgot to close
// (LeakedHandles, and a line on stderr); it never frees, since lake.h ties
// handles' lifetimes together in ways a collector cannot order.
//
// Invariants:
//   - lake is entered only through a handle's use/useExclusive, which hold
//     the handle's lock for the call (shared for the handles lake.h calls
//     thread-safe, exclusive for one-thread-at-a-time handles): Close takes
//     the lock exclusively, so it waits for calls in flight (no
//     use-after-free).
//   - C never holds a Go pointer: callbacks receive a runtime/cgo.Handle by
//     value as their context, and memory lake keeps (ranges, host store
//     tables, Arrow structs, values) is allocated with C.malloc.
//   - A panic or error in a callback never unwinds through C: the
//     trampoline recovers it, tells lake the call failed, and the Go call
//     that invoked lake returns it (*CallbackError).
package lake
