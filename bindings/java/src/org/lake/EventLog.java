package org.lake;

import com.sun.jna.Pointer;
import com.sun.jna.ptr.LongByReference;
import com.sun.jna.ptr.PointerByReference;

/**
 * An experiment's event log. Thread-safe (lake.h); a child of its root.
 * Closing it first closes its event writers, folded items and the blob
 * readers opened from them (H-004).
 */
public final class EventLog extends Handle {
    EventLog(Pointer pointer, Db db) throws ClosedHandleException {
        super("event log", true, pointer, db);
    }

    /** Makes batches other writers acknowledged since the open or last refresh visible. */
    public void refresh() throws LakeException {
        use(p -> {
            PointerByReference err = new PointerByReference();
            LakeException.check(Lake.lib().lake_event_log_refresh(p, err), err);
            return null;
        });
    }

    /** Appends raw events as JSONL; returns {appended, duplicates}. */
    public long[] appendJsonl(String jsonl) throws LakeException {
        return use(p -> {
            LongByReference appended = new LongByReference();
            LongByReference duplicates = new LongByReference();
            PointerByReference err = new PointerByReference();
            LakeException.check(Lake.lib().lake_event_log_append_jsonl(p, jsonl, NativeText.length(jsonl),
                                                                       appended, duplicates, err), err);
            return new long[] {appended.getValue(), duplicates.getValue()};
        });
    }

    /** A writer for a new item ({@code createdBy} null for a root item). */
    public EventWriter writer(String itemId, String writerEpoch, EventWriter.Step createdBy) throws LakeException {
        return use(p -> {
            PointerByReference out = new PointerByReference();
            PointerByReference err = new PointerByReference();
            LakeException.check(Lake.lib().lake_event_writer_open(p, itemId, writerEpoch, EventWriter.Step.toNative(createdBy),
                                                                  out, err), err);
            return new EventWriter(out.getValue(), this);
        });
    }

    /** A writer for an existing item in a new attempt. */
    public EventWriter resume(String itemId, String writerEpoch) throws LakeException {
        return use(p -> {
            PointerByReference out = new PointerByReference();
            PointerByReference err = new PointerByReference();
            LakeException.check(Lake.lib().lake_event_writer_resume(p, itemId, writerEpoch, out, err), err);
            return new EventWriter(out.getValue(), this);
        });
    }

    /** The item folded from its events, or null when it has none. */
    public FoldedItem fold(String itemId) throws LakeException {
        return use(p -> {
            PointerByReference out = new PointerByReference();
            PointerByReference err = new PointerByReference();
            LakeException.check(Lake.lib().lake_event_log_fold(p, itemId, out, err), err);
            return out.getValue() == null ? null : new FoldedItem(out.getValue(), this);
        });
    }

    private String text(NativeText.Producer producer) throws LakeException {
        return use(p -> NativeText.produce(p, producer));
    }

    /** {"root":NODE|null,"orphans":[…]} of a root item. */
    public String tree(String rootItemId) throws LakeException {
        return text((p, o, e) -> Lake.lib().lake_event_log_tree(p, rootItemId, o, e));
    }
    public String roots() throws LakeException {
        return text((p, o, e) -> Lake.lib().lake_event_log_roots(p, o, e));
    }
    public String failures() throws LakeException {
        return text((p, o, e) -> Lake.lib().lake_event_log_failures(p, o, e));
    }
    /** The raw events of a root and its descendants, JSONL. */
    public String events(String rootItemId) throws LakeException {
        return text((p, o, e) -> Lake.lib().lake_event_log_events(p, rootItemId, o, e));
    }

    /** A verified reader over blob value {@code index} of {@code field} (a child of this log). */
    Reader openBlob(FoldedItem item, String field, long index) throws LakeException {
        return use(p -> item.with(i -> {
            PointerByReference out = new PointerByReference();
            PointerByReference err = new PointerByReference();
            LakeException.check(Lake.lib().lake_folded_item_open_blob(p, i, field, index, out, err), err);
            return new Reader(out.getValue(), this);
        }));
    }

    @Override
    protected void release(Pointer pointer) {
        Lake.lib().lake_event_log_free(pointer);
    }
}
