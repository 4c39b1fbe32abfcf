package org.lake;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.PointerByReference;
import java.nio.charset.StandardCharsets;

/**
 * A stream writer for one item of an event log: events gather in a batch
 * until {@link #commit()}. One thread at a time; a child of its log.
 */
public final class EventWriter extends Handle {
    /** A step's provenance (lake_step); index < 0 is none, null strings are empty. */
    public record Step(String name, long index, String kind, String enclosingStep, String selectorStep) {
        static LakeNative.Step toNative(Step step) {
            if (step == null) {
                return null;
            }
            LakeNative.Step s = new LakeNative.Step();
            s.name = step.name;
            s.index = step.index;
            s.kind = step.kind;
            s.enclosing_step = step.enclosingStep;
            s.selector_step = step.selectorStep;
            s.write();
            return s;
        }
    }

    /** A JSON field value (text that lake parses as JSON). */
    public record Json(String text) {}

    EventWriter(Pointer pointer, EventLog log) throws ClosedHandleException {
        super("event writer", false, pointer, log);
    }

    private interface Op {
        int run(Pointer writer, PointerByReference err);
    }

    private void call(Op op) throws LakeException {
        use(p -> {
            PointerByReference err = new PointerByReference();
            LakeException.check(op.run(p, err), err);
            return null;
        });
    }

    /** A lake_value of Long/Integer, Double, Boolean, String, Json or byte[] (a blob). */
    static LakeNative.Value value(Object v) {
        LakeNative.Value value = new LakeNative.Value();
        byte[] bytes = null;
        if (v instanceof Long || v instanceof Integer) {
            value.kind = 1;
            value.i64 = ((Number) v).longValue();
        } else if (v instanceof Double || v instanceof Float) {
            value.kind = 2;
            value.f64 = ((Number) v).doubleValue();
        } else if (v instanceof Boolean) {
            value.kind = 3;
            value.boolean_ = (Boolean) v ? 1 : 0;
        } else if (v instanceof String) {
            value.kind = 4;
            bytes = ((String) v).getBytes(StandardCharsets.UTF_8);
        } else if (v instanceof Json) {
            value.kind = 5;
            bytes = ((Json) v).text().getBytes(StandardCharsets.UTF_8);
        } else if (v instanceof byte[]) {
            value.kind = 6;
            bytes = (byte[]) v;
        } else {
            throw new IllegalArgumentException("no event field value of type " + (v == null ? "null" : v.getClass().getName()));
        }
        if (bytes != null && bytes.length > 0) {
            Memory memory = new Memory(bytes.length);
            memory.write(0, bytes, 0, bytes.length);
            value.bytes = memory;
            value.len = bytes.length;
        }
        value.write();
        return value;
    }

    public void stepStarted(Step step) throws LakeException {
        call((p, e) -> Lake.lib().lake_event_writer_step_started(p, Step.toNative(step), e));
    }
    public void stepCompleted(Step step) throws LakeException {
        call((p, e) -> Lake.lib().lake_event_writer_step_completed(p, Step.toNative(step), e));
    }
    /** FIELD_SET (last writer wins); {@code step} may be null. */
    public void fieldSet(String field, Object value, Step step) throws LakeException {
        LakeNative.Value v = value(value);
        call((p, e) -> Lake.lib().lake_event_writer_field_set(p, field, v, Step.toNative(step), e));
    }
    /** FIELD_APPEND (accumulates). */
    public void fieldAppend(String field, Object value, Step step) throws LakeException {
        LakeNative.Value v = value(value);
        call((p, e) -> Lake.lib().lake_event_writer_field_append(p, field, v, Step.toNative(step), e));
    }
    /** TERMINAL: completed, or filtered. */
    public void terminal(boolean filtered, Step step) throws LakeException {
        call((p, e) -> Lake.lib().lake_event_writer_terminal(p, filtered ? 1 : 0, Step.toNative(step), e));
    }
    public void failed(String errorType, String errorDump, String traceback, Step step) throws LakeException {
        call((p, e) -> Lake.lib().lake_event_writer_failed(p, errorType, errorDump, traceback, Step.toNative(step), e));
    }
    /** Appends the batch atomically; a failed commit keeps it for a retry. */
    public void commit() throws LakeException {
        call((p, e) -> Lake.lib().lake_event_writer_commit(p, e));
    }
    public int attempt() throws LakeException {
        return use(p -> Lake.lib().lake_event_writer_attempt(p));
    }

    @Override
    protected void release(Pointer pointer) {
        Lake.lib().lake_event_writer_free(pointer);
    }
}
