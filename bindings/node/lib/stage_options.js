'use strict';
// Stage options set from JS fields (S3 addressing and tuning, tenant,
// descriptor).
const native = require('./native');
const { check } = require('./errors');

const lib = () => native.lib();

// Sets stage options `opts` from {stageUri, endpoint, region, pathStyle,
// tenant, concurrency, partSize, uploadCheckpointDir, downloadStreams,
// downloadRangeSize, descriptor} (each optional).
function configureS3(opts, { stageUri, endpoint, region, pathStyle, tenant, concurrency,
  partSize, uploadCheckpointDir, downloadStreams, downloadRangeSize, descriptor }) {
  const set = (fn, value) => check(fn, opts, value);
  const f = lib();
  if (descriptor) {
    const bytes = Buffer.from(descriptor, 'utf8');
    check(f.lake_stage_options_set_descriptor, opts, bytes, bytes.length);
  }
  if (stageUri) set(f.lake_stage_options_set_s3, stageUri);
  if (endpoint) set(f.lake_stage_options_set_s3_endpoint, endpoint);
  if (region) set(f.lake_stage_options_set_s3_region, region);
  if (pathStyle) f.lake_stage_options_set_s3_path_style(opts, 1);
  if (tenant) set(f.lake_stage_options_set_tenant, tenant);
  if (concurrency) set(f.lake_stage_options_set_s3_concurrency, concurrency);
  if (partSize) set(f.lake_stage_options_set_s3_part_size, partSize);
  if (uploadCheckpointDir !== undefined && uploadCheckpointDir !== null) {
    set(f.lake_stage_options_set_upload_checkpoint_dir, String(uploadCheckpointDir));
  }
  if (downloadStreams) set(f.lake_stage_options_set_s3_download_streams, downloadStreams);
  if (downloadRangeSize) set(f.lake_stage_options_set_s3_download_range_size, downloadRangeSize);
}

module.exports = { configureS3 };
