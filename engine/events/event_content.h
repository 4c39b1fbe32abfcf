// When two events of the log are "the same" (EVENT-LOG.md, "Identity"):
// their event_id and their content — every column except event_ts — match.
// Writing the same event again is a no-op; a different event at an existing
// event_id or (item_id, item_seq) is a fencing violation. The fold uses this
// to absorb a retried batch; the append path uses it for the same decision.
#ifndef LAKE_ENGINE_EVENTS_EVENT_CONTENT_H_
#define LAKE_ENGINE_EVENTS_EVENT_CONTENT_H_

#include "engine/events/event.h"

namespace lake::events {

// True when every column of `a` and `b` but event_ts is equal. event_ts is
// left out because a retry of an ambiguously acknowledged batch may carry a
// fresh timestamp for what is otherwise the same event. value_f64 is
// compared by its bits, so a NaN equals itself and -0.0 differs from 0.0.
// Allocates nothing.
bool SameEventContent(const Event& a, const Event& b);

}  // namespace lake::events

#endif  // LAKE_ENGINE_EVENTS_EVENT_CONTENT_H_
