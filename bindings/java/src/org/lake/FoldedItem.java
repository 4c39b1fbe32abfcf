package org.lake;

import com.sun.jna.Pointer;
import com.sun.jna.ptr.PointerByReference;
import java.nio.charset.StandardCharsets;

/** An item folded from its events. Immutable; a child of its event log. */
public final class FoldedItem extends Handle {
    private final EventLog log;

    FoldedItem(Pointer pointer, EventLog log) throws ClosedHandleException {
        super("folded item", true, pointer, log);
        this.log = log;
    }

    /** The whole folded item as JSON. */
    public String json() throws LakeException { return use(p -> Lake.lib().lake_folded_item_json(p)); }
    /** "running", "completed", "filtered" or "failed". */
    public String status() throws LakeException { return use(p -> Lake.lib().lake_folded_item_status(p)); }
    public int lastAttempt() throws LakeException { return use(p -> Lake.lib().lake_folded_item_last_attempt(p)); }
    public long nextItemSeq() throws LakeException { return use(p -> Lake.lib().lake_folded_item_next_item_seq(p)); }
    public long valueCount(String field) throws LakeException {
        return use(p -> Lake.lib().lake_folded_item_value_count(p, field));
    }

    /**
     * Value {@code index} of {@code field}: Long, Double, Boolean, String,
     * EventWriter.Json, or byte[] for an inline blob; null for a blob
     * offloaded to the stage (read it with {@link #openBlob}).
     */
    public Object value(String field, long index) throws LakeException {
        return use(p -> {
            LakeNative.Value v = new LakeNative.Value();
            PointerByReference err = new PointerByReference();
            LakeException.check(Lake.lib().lake_folded_item_value(p, field, index, v, err), err);
            v.read();
            byte[] bytes = v.bytes == null ? null : v.bytes.getByteArray(0, (int) v.len);
            switch (v.kind) {
                case 1: return v.i64;
                case 2: return v.f64;
                case 3: return v.boolean_ != 0;
                case 4: return new String(bytes == null ? new byte[0] : bytes, StandardCharsets.UTF_8);
                case 5: return new EventWriter.Json(new String(bytes == null ? new byte[0] : bytes, StandardCharsets.UTF_8));
                default: return bytes;
            }
        });
    }

    /** A verified reader over blob value {@code index} of {@code field}, inline or offloaded. */
    public Reader openBlob(String field, long index) throws LakeException {
        return log.openBlob(this, field, index);
    }

    <T> T with(Call<T> call) throws LakeException {
        return use(call);
    }

    @Override
    protected void release(Pointer pointer) {
        Lake.lib().lake_folded_item_free(pointer);
    }
}
