package org.lake;

import com.sun.jna.Pointer;
import com.sun.jna.ptr.PointerByReference;

/**
 * Options to open a stage or a root (lake_stage_options): local, tenant, S3,
 * descriptor or host store. Not thread-safe; may be closed after the open.
 * A host store given here is kept by the stage or root opened with it.
 */
public final class StageOptions extends Handle {
    HostStoreAdapter host;

    public StageOptions() throws LakeException {
        super("stage options", false, Lake.lib().lake_stage_options_new(), null);
    }

    private StageOptions set(CheckedCall setter) throws LakeException {
        useChecked(setter);
        return this;
    }

    public StageOptions localRoot(String dir) throws LakeException {
        return set((p, e) -> Lake.lib().lake_stage_options_set_local_root(p, dir, e));
    }
    public StageOptions tenant(String tenant) throws LakeException {
        return set((p, e) -> Lake.lib().lake_stage_options_set_tenant(p, tenant, e));
    }
    /** "s3://BUCKET" or "s3://BUCKET/PREFIX"; credentials come from the AWS default chain. */
    public StageOptions s3(String stageUri) throws LakeException {
        return set((p, e) -> Lake.lib().lake_stage_options_set_s3(p, stageUri, e));
    }
    public StageOptions s3Endpoint(String url) throws LakeException {
        return set((p, e) -> Lake.lib().lake_stage_options_set_s3_endpoint(p, url, e));
    }
    public StageOptions s3Region(String region) throws LakeException {
        return set((p, e) -> Lake.lib().lake_stage_options_set_s3_region(p, region, e));
    }
    public StageOptions s3PathStyle(boolean pathStyle) throws LakeException {
        return set((p, e) -> {
            Lake.lib().lake_stage_options_set_s3_path_style(p, pathStyle ? 1 : 0);
            return Status.OK.code;
        });
    }
    public StageOptions s3Concurrency(int concurrency) throws LakeException {
        return set((p, e) -> Lake.lib().lake_stage_options_set_s3_concurrency(p, concurrency, e));
    }
    public StageOptions s3PartSize(long bytes) throws LakeException {
        return set((p, e) -> Lake.lib().lake_stage_options_set_s3_part_size(p, bytes, e));
    }
    public StageOptions uploadCheckpointDir(String dir) throws LakeException {
        return set((p, e) -> Lake.lib().lake_stage_options_set_upload_checkpoint_dir(p, dir, e));
    }
    public StageOptions s3DownloadStreams(int streams) throws LakeException {
        return set((p, e) -> Lake.lib().lake_stage_options_set_s3_download_streams(p, streams, e));
    }
    public StageOptions s3DownloadRangeSize(long bytes) throws LakeException {
        return set((p, e) -> Lake.lib().lake_stage_options_set_s3_download_range_size(p, bytes, e));
    }
    public StageOptions descriptor(String json) throws LakeException {
        return set((p, e) -> Lake.lib().lake_stage_options_set_descriptor(p, json, NativeText.length(json), e));
    }
    public StageOptions hostId(String hostId) throws LakeException {
        return set((p, e) -> Lake.lib().lake_stage_options_set_host_id(p, hostId, e));
    }
    /**
     * Serves the stage from {@code store} (every location beneath
     * {@code rootUri}); the stage or root opened with these options keeps it
     * and its callbacks until it closes. A root also needs {@link #hostId}.
     */
    public StageOptions hostStore(HostStore store, String rootUri) throws LakeException {
        return hostStore(new HostStoreAdapter(store, rootUri));
    }

    StageOptions hostStore(HostStoreAdapter adapter) throws LakeException {
        set((p, e) -> Lake.lib().lake_stage_options_set_host_store(p, adapter.table, e));
        host = adapter;
        return this;
    }

    /** Opens a stage with these options. */
    public Stage open() throws LakeException {
        return use(p -> {
            PointerByReference out = new PointerByReference();
            PointerByReference err = new PointerByReference();
            LakeException.check(Lake.lib().lake_stage_open(p, out, err), err);
            return new Stage(out.getValue(), null, true, host);
        });
    }

    <T> T with(Call<T> call) throws LakeException {
        return use(call);
    }

    @Override
    protected void release(Pointer pointer) {
        Lake.lib().lake_stage_options_free(pointer);
    }
}
