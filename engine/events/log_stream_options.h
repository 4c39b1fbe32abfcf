// The callbacks that tie stream writers (stream_writer.h) to an event log
// and a root's stage: batches go to the log; blobs above the inline
// threshold go to the stage as managed objects.
//
// An offloaded blob's upload is leased (engine/upload_lease.h) when the
// stage takes leases, and the lease is held until a batch is appended —
// the one naming the blob, which records it in the shard's blob journal
// before it is written (blob_references.h) — so no collection deletes the
// object while only the writer's pending events name it. A batch the sink
// fails to append stays pending, and so do its blobs' leases; a writer
// dropped with pending events releases them (the blobs are then
// unreferenced, collected past the cutoff).
#ifndef LAKE_ENGINE_EVENTS_LOG_STREAM_OPTIONS_H_
#define LAKE_ENGINE_EVENTS_LOG_STREAM_OPTIONS_H_

#include "engine/events/event_log.h"
#include "engine/events/stream_writer.h"
#include "engine/managed_stage.h"

namespace lake::events {

// Options for one writer (each writer needs its own: they hold its blobs'
// leases). `log` and `stage` must outlive the writer. The callbacks are
// used as the writer is: by one thread at a time.
StreamWriterOptions StreamIntoLog(EventLog& log, ManagedStage& stage);

}  // namespace lake::events

#endif  // LAKE_ENGINE_EVENTS_LOG_STREAM_OPTIONS_H_
