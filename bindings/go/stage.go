package lake

// #include <stdlib.h>
// #include "trampolines.h"
import "C"

import (
	"io"
	"runtime"
	"unsafe"
)

// StageOptions say which stage to open (lake_stage_options). One goroutine
// at a time; may be closed once the stage or root is open.
type StageOptions struct {
	h    *handle
	host *hostState
}

// NewStageOptions makes empty options (lake_stage_options_new).
func NewStageOptions() (*StageOptions, error) {
	if err := Load(); err != nil {
		return nil, err
	}
	o := &StageOptions{}
	p := C.lake_stage_options_new()
	o.h = newHandle("StageOptions", unsafe.Pointer(p), true, func(p unsafe.Pointer) error {
		C.lake_stage_options_free((*C.lake_stage_options)(p))
		return nil
	})
	o.h.onClose = append(o.h.onClose, func() {
		if o.host != nil {
			o.host.drop()
		}
	})
	return o, nil
}

func (o *StageOptions) set(call func(*C.lake_stage_options, **C.lake_error) C.lake_status) error {
	defer runtime.KeepAlive(o)
	return checkedCall(o.h, call)
}

func (o *StageOptions) setString(value string, set func(*C.lake_stage_options, *C.char, **C.lake_error) C.lake_status) error {
	s := cstring(value)
	defer free(s)
	return o.set(func(p *C.lake_stage_options, e **C.lake_error) C.lake_status { return set(p, s, e) })
}

func (o *StageOptions) setUint(value uint64, set func(*C.lake_stage_options, C.uint64_t, **C.lake_error) C.lake_status) error {
	return o.set(func(p *C.lake_stage_options, e **C.lake_error) C.lake_status { return set(p, C.uint64_t(value), e) })
}

// SetLocalRoot makes a local stage in dir (lake_stage_options_set_local_root).
func (o *StageOptions) SetLocalRoot(dir string) error {
	return o.setString(dir, func(p *C.lake_stage_options, s *C.char, e **C.lake_error) C.lake_status {
		return C.lake_stage_options_set_local_root(p, s, e)
	})
}

// SetTenant restricts the stage to one tenant (lake_stage_options_set_tenant).
func (o *StageOptions) SetTenant(tenant string) error {
	return o.setString(tenant, func(p *C.lake_stage_options, s *C.char, e **C.lake_error) C.lake_status {
		return C.lake_stage_options_set_tenant(p, s, e)
	})
}

// SetS3 makes an S3 stage at "s3://BUCKET[/PREFIX]" (lake_stage_options_set_s3).
func (o *StageOptions) SetS3(stageURI string) error {
	return o.setString(stageURI, func(p *C.lake_stage_options, s *C.char, e **C.lake_error) C.lake_status {
		return C.lake_stage_options_set_s3(p, s, e)
	})
}

// SetS3Endpoint sets the S3 endpoint (lake_stage_options_set_s3_endpoint).
func (o *StageOptions) SetS3Endpoint(endpoint string) error {
	return o.setString(endpoint, func(p *C.lake_stage_options, s *C.char, e **C.lake_error) C.lake_status {
		return C.lake_stage_options_set_s3_endpoint(p, s, e)
	})
}

// SetS3Region sets the S3 region (lake_stage_options_set_s3_region).
func (o *StageOptions) SetS3Region(region string) error {
	return o.setString(region, func(p *C.lake_stage_options, s *C.char, e **C.lake_error) C.lake_status {
		return C.lake_stage_options_set_s3_region(p, s, e)
	})
}

// SetS3PathStyle selects path-style addressing
// (lake_stage_options_set_s3_path_style).
func (o *StageOptions) SetS3PathStyle(pathStyle bool) error {
	return o.set(func(p *C.lake_stage_options, _ **C.lake_error) C.lake_status {
		C.lake_stage_options_set_s3_path_style(p, cbool(pathStyle))
		return C.LAKE_OK
	})
}

// SetS3Concurrency sets the UploadPart requests in flight per upload
// (lake_stage_options_set_s3_concurrency).
func (o *StageOptions) SetS3Concurrency(n uint32) error {
	return o.setUint(uint64(n), func(p *C.lake_stage_options, v C.uint64_t, e **C.lake_error) C.lake_status {
		return C.lake_stage_options_set_s3_concurrency(p, C.uint32_t(v), e)
	})
}

// SetS3PartSize sets the multipart part size
// (lake_stage_options_set_s3_part_size).
func (o *StageOptions) SetS3PartSize(bytes uint64) error {
	return o.setUint(bytes, func(p *C.lake_stage_options, v C.uint64_t, e **C.lake_error) C.lake_status {
		return C.lake_stage_options_set_s3_part_size(p, v, e)
	})
}

// SetUploadCheckpointDir sets where path uploads keep their checkpoints
// (lake_stage_options_set_upload_checkpoint_dir).
func (o *StageOptions) SetUploadCheckpointDir(dir string) error {
	return o.setString(dir, func(p *C.lake_stage_options, s *C.char, e **C.lake_error) C.lake_status {
		return C.lake_stage_options_set_upload_checkpoint_dir(p, s, e)
	})
}

// SetS3DownloadStreams sets the ranges a verified full S3 read fetches at
// once (lake_stage_options_set_s3_download_streams).
func (o *StageOptions) SetS3DownloadStreams(n uint32) error {
	return o.setUint(uint64(n), func(p *C.lake_stage_options, v C.uint64_t, e **C.lake_error) C.lake_status {
		return C.lake_stage_options_set_s3_download_streams(p, C.uint32_t(v), e)
	})
}

// SetS3DownloadRangeSize sets the length of each such range
// (lake_stage_options_set_s3_download_range_size).
func (o *StageOptions) SetS3DownloadRangeSize(bytes uint64) error {
	return o.setUint(bytes, func(p *C.lake_stage_options, v C.uint64_t, e **C.lake_error) C.lake_status {
		return C.lake_stage_options_set_s3_download_range_size(p, v, e)
	})
}

// SetDescriptor opens the stage a descriptor names
// (lake_stage_options_set_descriptor).
func (o *StageOptions) SetDescriptor(json string) error {
	text := C.CBytes([]byte(json))
	defer C.free(text)
	return o.set(func(p *C.lake_stage_options, e **C.lake_error) C.lake_status {
		return C.lake_stage_options_set_descriptor(p, (*C.char)(text), C.size_t(len(json)), e)
	})
}

// SetHostStore serves the stage from store
// (lake_stage_options_set_host_store).
func (o *StageOptions) SetHostStore(store HostStore) error {
	p, done, err := o.h.use()
	if err != nil {
		return err
	}
	defer done()
	state := register(&hostState{store: store})
	root := cstring(store.RootURI())
	defer free(root)
	table := C.lk_host_store_new(C.uintptr_t(state.handle), root)
	defer C.free(unsafe.Pointer(table))
	var e *C.lake_error
	if err := check(C.lake_stage_options_set_host_store((*C.lake_stage_options)(p), table, &e), e); err != nil {
		state.drop()
		return err
	}
	if o.host != nil {
		o.host.drop()
	}
	o.host = state
	runtime.KeepAlive(o)
	return nil
}

// SetHostID names the host store's stable identity
// (lake_stage_options_set_host_id).
func (o *StageOptions) SetHostID(id string) error {
	return o.setString(id, func(p *C.lake_stage_options, s *C.char, e **C.lake_error) C.lake_status {
		return C.lake_stage_options_set_host_id(p, s, e)
	})
}

// Close frees the options (lake_stage_options_free).
func (o *StageOptions) Close() error { return o.h.close() }

// Stage is where managed objects live (lake_stage). Safe for concurrent
// use. Closing it first closes its readers and writers.
type Stage struct {
	h    *handle
	host *hostState // the host store serving it, if any
}

// OpenStage opens a stage of its own (lake_stage_open).
func OpenStage(opts *StageOptions) (*Stage, error) {
	if err := Load(); err != nil {
		return nil, err
	}
	p, done, err := opts.h.use()
	if err != nil {
		return nil, err
	}
	defer done()
	var out *C.lake_stage
	var e *C.lake_error
	if err := check(C.lake_stage_open((*C.lake_stage_options)(p), &out, &e), e); err != nil {
		return nil, withCallbacks(err, opts.hostState())
	}
	s := &Stage{host: opts.adoptHost()}
	s.h = newHandle("Stage", unsafe.Pointer(out), false, func(p unsafe.Pointer) error {
		C.lake_stage_free((*C.lake_stage)(p))
		return nil
	})
	runtime.KeepAlive(opts)
	return s, nil
}

// hostState is the options' host store state as a callbackState (nil
// interface when none).
func (o *StageOptions) hostState() callbackState {
	if o.host == nil {
		return nil
	}
	return o.host
}

// adoptHost takes the reference a successful open gives lake (released by
// its destroy) and returns the state.
func (o *StageOptions) adoptHost() *hostState {
	if o.host == nil {
		return nil
	}
	o.host.retain()
	return o.host
}

func (s *Stage) states(more ...callbackState) []callbackState {
	if s.host != nil {
		more = append(more, s.host)
	}
	return more
}

// Descriptor is the stage's credential-free topology as JSON
// (lake_stage_descriptor).
func (s *Stage) Descriptor() (string, error) {
	p, done, err := s.h.use()
	if err != nil {
		return "", err
	}
	defer done()
	d := C.GoString(C.lake_stage_descriptor((*C.lake_stage)(p)))
	runtime.KeepAlive(s)
	return d, nil
}

// IOBackend is "io_uring", "sync", "s3" or "host" (lake_stage_io_backend).
func (s *Stage) IOBackend() (string, error) {
	p, done, err := s.h.use()
	if err != nil {
		return "", err
	}
	defer done()
	d := C.GoString(C.lake_stage_io_backend((*C.lake_stage)(p)))
	runtime.KeepAlive(s)
	return d, nil
}

// Presign gives a GET URL for a contained object (lake_stage_presign).
func (s *Stage) Presign(loc *Location, ttlSeconds uint32) (string, error) {
	ptrs, done, err := useAll(s.h, loc.h)
	if err != nil {
		return "", err
	}
	defer done()
	var url *C.char
	var e *C.lake_error
	if err := check(C.lake_stage_presign((*C.lake_stage)(ptrs[0]), (*C.lake_location)(ptrs[1]), C.uint32_t(ttlSeconds), &url, &e), e); err != nil {
		return "", err
	}
	runtime.KeepAlive(s)
	runtime.KeepAlive(loc)
	return takeString(url), nil
}

// CleanStaging removes dead uploads' leftovers and returns their count
// (lake_stage_clean_staging).
func (s *Stage) CleanStaging() (uint64, error) {
	p, done, err := s.h.use()
	if err != nil {
		return 0, err
	}
	defer done()
	var n C.uint64_t
	var e *C.lake_error
	err = check(C.lake_stage_clean_staging((*C.lake_stage)(p), &n, &e), e)
	runtime.KeepAlive(s)
	return uint64(n), err
}

// List calls fn with every published object; fn returns false to stop
// (lake_stage_list).
func (s *Stage) List(fn func(ListEntry) bool) error {
	p, done, err := s.h.use()
	if err != nil {
		return err
	}
	defer done()
	state := register(&listState{fn: fn})
	defer state.drop()
	var e *C.lake_error
	err = check(C.lake_stage_list((*C.lake_stage)(p), C.lk_list_fn(), state.ctx(), &e), e)
	runtime.KeepAlive(s)
	return withCallbacks(err, s.states(state)...)
}

// Delete deletes a managed object (lake_stage_delete).
func (s *Stage) Delete(loc *Location) error {
	ptrs, done, err := useAll(s.h, loc.h)
	if err != nil {
		return err
	}
	defer done()
	var e *C.lake_error
	err = check(C.lake_stage_delete((*C.lake_stage)(ptrs[0]), (*C.lake_location)(ptrs[1]), &e), e)
	runtime.KeepAlive(s)
	runtime.KeepAlive(loc)
	return withCallbacks(err, s.states()...)
}

// PutFile uploads the file at path (lake_stage_upload_path); opts may be
// nil.
func (s *Stage) PutFile(path string, opts *UploadOptions) (*Location, error) {
	cpath := cstring(path)
	defer free(cpath)
	return s.upload(opts, nil, func(st *C.lake_stage, uo *C.lake_upload_options, out **C.lake_location, e **C.lake_error) C.lake_status {
		return C.lake_stage_upload_path(st, cpath, uo, out, e)
	})
}

// Put uploads the bytes read from r until EOF (lake_stage_upload_reader);
// opts may be nil. An error or panic of r is the call's error.
func (s *Stage) Put(r io.Reader, opts *UploadOptions) (*Location, error) {
	src := newReadSource(r)
	defer src.drop()
	return s.upload(opts, []callbackState{src}, func(st *C.lake_stage, uo *C.lake_upload_options, out **C.lake_location, e **C.lake_error) C.lake_status {
		return C.lake_stage_upload_reader(st, C.lk_read_fn(), src.ctx(), uo, out, e)
	})
}

// upload runs one lake_stage_upload_* call with the options' token, the
// options and the stage in use (that order: ancestors first) and wraps the
// location it makes; sources are the call's own callbacks, whose failures
// (like the options' and the stage's) are its error.
func (s *Stage) upload(opts *UploadOptions, sources []callbackState, fn func(*C.lake_stage, *C.lake_upload_options, **C.lake_location, **C.lake_error) C.lake_status) (*Location, error) {
	th, oh := opts.handles()
	ptrs, done, err := useAll(th, oh, s.h)
	if err != nil {
		return nil, err
	}
	defer done()
	var out *C.lake_location
	var e *C.lake_error
	err = check(fn((*C.lake_stage)(ptrs[2]), (*C.lake_upload_options)(ptrs[1]), &out, &e), e)
	runtime.KeepAlive(s)
	runtime.KeepAlive(opts)
	return s.located(out, err, append(sources, opts.states()...)...)
}

// located wraps an upload's location, or returns its (callbacks') error;
// a location whose callbacks failed is freed.
func (s *Stage) located(out *C.lake_location, err error, states ...callbackState) (*Location, error) {
	if err = withCallbacks(err, s.states(states...)...); err != nil {
		if out != nil {
			C.lake_location_free(out)
		}
		return nil, err
	}
	return wrapLocation(out), nil
}

// Open opens a verified full read of loc (lake_reader_open).
func (s *Stage) Open(loc *Location) (*Reader, error) {
	ptrs, done, err := useAll(s.h, loc.h)
	if err != nil {
		return nil, err
	}
	defer done()
	var out *C.lake_reader
	var e *C.lake_error
	if err := check(C.lake_reader_open((*C.lake_stage)(ptrs[0]), (*C.lake_location)(ptrs[1]), &out, &e), e); err != nil {
		return nil, withCallbacks(err, s.states()...)
	}
	runtime.KeepAlive(loc)
	return newReader(out, s.host, s.h), nil
}

// OpenRange opens the byte range [start, end) of loc
// (lake_reader_open_range).
func (s *Stage) OpenRange(loc *Location, start, end uint64) (*Reader, error) {
	ptrs, done, err := useAll(s.h, loc.h)
	if err != nil {
		return nil, err
	}
	defer done()
	var out *C.lake_reader
	var e *C.lake_error
	if err := check(C.lake_reader_open_range((*C.lake_stage)(ptrs[0]), (*C.lake_location)(ptrs[1]), C.uint64_t(start), C.uint64_t(end), &out, &e), e); err != nil {
		return nil, withCallbacks(err, s.states()...)
	}
	runtime.KeepAlive(loc)
	return newReader(out, s.host, s.h), nil
}

// Create opens a push upload (lake_writer_open); opts may be nil. The
// writer is a child of the stage and of the options' cancel token.
func (s *Stage) Create(opts *UploadOptions) (*Writer, error) {
	th, oh := opts.handles()
	ptrs, done, err := useAll(th, oh, s.h)
	if err != nil {
		return nil, err
	}
	defer done()
	var out *C.lake_writer
	var e *C.lake_error
	if err := check(C.lake_writer_open((*C.lake_stage)(ptrs[2]), (*C.lake_upload_options)(ptrs[1]), &out, &e), e); err != nil {
		return nil, withCallbacks(err, s.states(opts.states()...)...)
	}
	runtime.KeepAlive(opts)
	return newWriter(out, s, opts, th), nil
}

// Range is one range of a batched read: [Start, End) of Location.
type Range struct {
	Location   *Location
	Start, End uint64
}

// RangeResult is one range's outcome: its bytes, or its error.
type RangeResult struct {
	Data []byte
	Err  error
}

// ReadRanges reads many ranges submitted together (lake_stage_read_ranges).
// Each result holds its range's bytes or error; the returned error is the
// first failed range's (nil when all succeeded).
func (s *Stage) ReadRanges(ranges []Range) ([]RangeResult, error) {
	hs := []*handle{s.h}
	for _, r := range ranges {
		hs = append(hs, r.Location.h)
	}
	ptrs, done, err := useAll(dedupe(hs)...)
	if err != nil {
		return nil, err
	}
	defer done()
	locs := map[*handle]unsafe.Pointer{}
	for i, h := range dedupe(hs) {
		locs[h] = ptrs[i]
	}
	n := len(ranges)
	if n == 0 {
		return nil, nil
	}
	arr := (*[1 << 28]C.lake_range)(C.calloc(C.size_t(n), C.size_t(unsafe.Sizeof(C.lake_range{}))))[:n:n]
	defer C.free(unsafe.Pointer(&arr[0]))
	for i, r := range ranges {
		arr[i].location = (*C.lake_location)(locs[r.Location.h])
		arr[i].start = C.uint64_t(r.Start)
		arr[i].end = C.uint64_t(r.End)
		if r.End > r.Start {
			arr[i].buffer = C.malloc(C.size_t(r.End - r.Start))
		} else {
			arr[i].buffer = C.malloc(1)
		}
	}
	var e *C.lake_error
	status := C.lake_stage_read_ranges((*C.lake_stage)(ptrs[0]), &arr[0], C.size_t(n), &e)
	results := make([]RangeResult, n)
	for i := range arr {
		if arr[i].status == C.LAKE_OK {
			results[i].Data = C.GoBytes(arr[i].buffer, C.int(arr[i].bytes_read))
		} else {
			results[i].Err = errorFrom(arr[i].status, arr[i].error)
		}
		C.free(arr[i].buffer)
	}
	err = check(status, e)
	runtime.KeepAlive(s)
	runtime.KeepAlive(ranges)
	return results, withCallbacks(err, s.states()...)
}

func dedupe(hs []*handle) []*handle {
	seen := map[*handle]bool{}
	var out []*handle
	for _, h := range hs {
		if !seen[h] {
			seen[h] = true
			out = append(out, h)
		}
	}
	return out
}

// Close frees the stage after closing its readers and writers
// (lake_stage_free). A root's stage (Db.Stage) is only detached: the root
// owns it.
func (s *Stage) Close() error { return s.h.close() }
