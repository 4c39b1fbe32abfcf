//! Event logs of data-generation pipelines. An [`EventLog`] borrows its
//! root; its [`EventWriter`]s and [`FoldedItem`]s borrow the log, and a
//! blob reader borrows the log too, so the log cannot be freed before them
//! (H-004). Experiments are managed on the [`Db`].
use std::ffi::CString;
use std::marker::PhantomData;
use std::os::raw::{c_char, c_int};

use lake_sys as sys;

use crate::c_strings::{cstring, optional_cstring, ptr_or_null, static_str};
use crate::db::{json_call, Db};
use crate::error::{call, Result};
use crate::handle_count as handles;
use crate::reader::Reader;

/// A step's provenance. `None` strings are empty; `index` None is none.
#[derive(Debug, Clone, Default)]
pub struct Step<'a> {
    pub name: &'a str,
    pub index: Option<i64>,
    /// "Root", "Leaf", "Sequence", "Loop", "MapReduce", "Branch", ….
    pub kind: Option<&'a str>,
    pub enclosing_step: Option<&'a str>,
    pub selector_step: Option<&'a str>,
}

/// A step converted for one call: the C strings live as long as it.
struct RawStep {
    _strings: [Option<CString>; 4],
    raw: sys::lake_step,
}

impl RawStep {
    fn new(step: &Step) -> Result<RawStep> {
        let strings = [
            Some(cstring(step.name)?),
            optional_cstring(step.kind)?,
            optional_cstring(step.enclosing_step)?,
            optional_cstring(step.selector_step)?,
        ];
        let raw = sys::lake_step {
            name: ptr_or_null(&strings[0]),
            index: step.index.unwrap_or(-1),
            kind: ptr_or_null(&strings[1]),
            enclosing_step: ptr_or_null(&strings[2]),
            selector_step: ptr_or_null(&strings[3]),
        };
        Ok(RawStep { _strings: strings, raw })
    }
}

fn raw_step(step: Option<&Step>) -> Result<Option<RawStep>> {
    step.map(RawStep::new).transpose()
}

fn step_ptr(step: &Option<RawStep>) -> *const sys::lake_step {
    step.as_ref().map_or(std::ptr::null(), |s| &s.raw)
}

/// A field value to write.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum FieldValue<'a> {
    Int(i64),
    Float(f64),
    Bool(bool),
    Str(&'a str),
    Json(&'a str),
    /// Above 64 KiB it is uploaded to the root's stage.
    Blob(&'a [u8]),
}

/// A `lake_value` of no kind, for lake to fill or a caller to set.
const NO_VALUE: sys::lake_value =
    sys::lake_value { kind: 0, i64: 0, f64: 0.0, boolean: 0, bytes: std::ptr::null(), len: 0 };

impl FieldValue<'_> {
    fn raw(&self) -> sys::lake_value {
        let mut value = NO_VALUE;
        match *self {
            FieldValue::Int(v) => (value.kind, value.i64) = (sys::LAKE_VALUE_INT, v),
            FieldValue::Float(v) => (value.kind, value.f64) = (sys::LAKE_VALUE_FLOAT, v),
            FieldValue::Bool(v) => (value.kind, value.boolean) = (sys::LAKE_VALUE_BOOL, v as c_int),
            FieldValue::Str(v) => {
                (value.kind, value.bytes, value.len) =
                    (sys::LAKE_VALUE_STR, v.as_ptr() as *const _, v.len())
            }
            FieldValue::Json(v) => {
                (value.kind, value.bytes, value.len) =
                    (sys::LAKE_VALUE_JSON, v.as_ptr() as *const _, v.len())
            }
            FieldValue::Blob(v) => {
                (value.kind, value.bytes, value.len) =
                    (sys::LAKE_VALUE_BLOB, v.as_ptr() as *const _, v.len())
            }
        }
        value
    }
}

/// A field value read from a folded item.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Int(i64),
    Float(f64),
    Bool(bool),
    Str(String),
    Json(String),
    Blob(Vec<u8>),
    /// A blob kept on the stage, of this many bytes: read it with
    /// [`FoldedItem::open_blob`].
    OffloadedBlob(u64),
}

impl Db {
    pub fn create_experiment(&self, pipeline: &str, experiment: &str) -> Result<()> {
        let (p, e) = (cstring(pipeline)?, cstring(experiment)?);
        call(|err| unsafe {
            sys::lake_experiment_create(self.as_ptr(), p.as_ptr(), e.as_ptr(), err)
        })
    }
    pub fn delete_experiment(&self, pipeline: &str, experiment: &str) -> Result<()> {
        let (p, e) = (cstring(pipeline)?, cstring(experiment)?);
        call(|err| unsafe {
            sys::lake_experiment_delete(self.as_ptr(), p.as_ptr(), e.as_ptr(), err)
        })
    }
    /// The experiments (of one pipeline, or all) as JSON.
    pub fn experiments(&self, pipeline: Option<&str>) -> Result<String> {
        let p = optional_cstring(pipeline)?;
        json_call(|out, err| unsafe {
            sys::lake_experiment_list(self.as_ptr(), ptr_or_null(&p), out, err)
        })
    }
    pub fn describe_experiment(&self, pipeline: &str, experiment: &str) -> Result<String> {
        let (p, e) = (cstring(pipeline)?, cstring(experiment)?);
        json_call(|out, err| unsafe {
            sys::lake_experiment_describe(self.as_ptr(), p.as_ptr(), e.as_ptr(), out, err)
        })
    }
    pub fn compact_experiment(&self, pipeline: &str, experiment: &str) -> Result<String> {
        let (p, e) = (cstring(pipeline)?, cstring(experiment)?);
        json_call(|out, err| unsafe {
            sys::lake_experiment_compact(self.as_ptr(), p.as_ptr(), e.as_ptr(), out, err)
        })
    }

    /// Opens an experiment's event log (`writable`: with a shard of its own).
    pub fn event_log(
        &self,
        pipeline: &str,
        experiment: &str,
        writable: bool,
    ) -> Result<EventLog<'_>> {
        let (p, e) = (cstring(pipeline)?, cstring(experiment)?);
        let mut out = std::ptr::null_mut();
        call(|err| unsafe {
            sys::lake_event_log_open(
                self.as_ptr(),
                p.as_ptr(),
                e.as_ptr(),
                writable as c_int,
                &mut out,
                err,
            )
        })?;
        handles::opened();
        Ok(EventLog { ptr: out, _db: PhantomData })
    }
}

pub struct EventLog<'db> {
    ptr: *mut sys::lake_event_log,
    _db: PhantomData<&'db Db>,
}

// SAFETY: lake.h: an event log is thread-safe.
unsafe impl Send for EventLog<'_> {}
unsafe impl Sync for EventLog<'_> {}

impl<'db> EventLog<'db> {
    pub fn refresh(&self) -> Result<()> {
        call(|err| unsafe { sys::lake_event_log_refresh(self.ptr, err) })
    }

    /// Appends raw events (JSONL): (appended, duplicates).
    pub fn append_jsonl(&self, jsonl: &str) -> Result<(u64, u64)> {
        let (mut appended, mut duplicates) = (0u64, 0u64);
        call(|err| unsafe {
            sys::lake_event_log_append_jsonl(
                self.ptr,
                jsonl.as_ptr() as *const c_char,
                jsonl.len(),
                &mut appended,
                &mut duplicates,
                err,
            )
        })?;
        Ok((appended, duplicates))
    }

    fn adopt_writer(
        &self,
        f: impl FnOnce(*mut *mut sys::lake_event_writer, *mut *mut sys::lake_error) -> sys::lake_status,
    ) -> Result<EventWriter<'_>> {
        let mut out = std::ptr::null_mut();
        call(|err| f(&mut out, err))?;
        handles::opened();
        Ok(EventWriter { ptr: out, _log: PhantomData })
    }

    /// A writer of a new root item.
    pub fn writer(&self, item_id: &str, writer_epoch: &str) -> Result<EventWriter<'_>> {
        self.writer_created_by(item_id, writer_epoch, None)
    }

    /// A writer of a new item created by fan-out step `created_by`.
    pub fn writer_created_by(
        &self,
        item_id: &str,
        writer_epoch: &str,
        created_by: Option<&Step>,
    ) -> Result<EventWriter<'_>> {
        let (item, epoch, step) =
            (cstring(item_id)?, cstring(writer_epoch)?, raw_step(created_by)?);
        self.adopt_writer(|out, err| unsafe {
            sys::lake_event_writer_open(
                self.ptr,
                item.as_ptr(),
                epoch.as_ptr(),
                step_ptr(&step),
                out,
                err,
            )
        })
    }

    /// A writer of an existing item, in a new attempt.
    pub fn resume(&self, item_id: &str, writer_epoch: &str) -> Result<EventWriter<'_>> {
        let (item, epoch) = (cstring(item_id)?, cstring(writer_epoch)?);
        self.adopt_writer(|out, err| unsafe {
            sys::lake_event_writer_resume(self.ptr, item.as_ptr(), epoch.as_ptr(), out, err)
        })
    }

    /// The item folded from its events; None when it has no ITEM_CREATED.
    pub fn fold(&self, item_id: &str) -> Result<Option<FoldedItem<'_>>> {
        let item = cstring(item_id)?;
        let mut out = std::ptr::null_mut();
        call(|err| unsafe { sys::lake_event_log_fold(self.ptr, item.as_ptr(), &mut out, err) })?;
        if out.is_null() {
            return Ok(None);
        }
        handles::opened();
        Ok(Some(FoldedItem { ptr: out, log: self }))
    }

    /// `{"root":NODE|null,"orphans":[…]}` of a root item.
    pub fn tree(&self, root_item_id: &str) -> Result<String> {
        let root = cstring(root_item_id)?;
        json_call(|out, err| unsafe { sys::lake_event_log_tree(self.ptr, root.as_ptr(), out, err) })
    }
    pub fn roots(&self) -> Result<String> {
        json_call(|out, err| unsafe { sys::lake_event_log_roots(self.ptr, out, err) })
    }
    pub fn failures(&self) -> Result<String> {
        json_call(|out, err| unsafe { sys::lake_event_log_failures(self.ptr, out, err) })
    }
    /// The raw events of a root and its descendants, JSONL.
    pub fn events(&self, root_item_id: &str) -> Result<String> {
        let root = cstring(root_item_id)?;
        json_call(|out, err| unsafe {
            sys::lake_event_log_events(self.ptr, root.as_ptr(), out, err)
        })
    }

    /// Frees the log now (as dropping it does).
    pub fn close(self) {}
}

crate::handle_count::free_on_drop!(EventLog<'_>, sys::lake_event_log_free);

/// A writer of one item's events; commit appends them atomically.
pub struct EventWriter<'log> {
    ptr: *mut sys::lake_event_writer,
    _log: PhantomData<&'log ()>,
}

// SAFETY: one thread at a time (&mut self); may move between threads.
unsafe impl Send for EventWriter<'_> {}

impl EventWriter<'_> {
    pub fn step_started(&mut self, step: &Step) -> Result<()> {
        let step = RawStep::new(step)?;
        call(|err| unsafe { sys::lake_event_writer_step_started(self.ptr, &step.raw, err) })
    }
    pub fn step_completed(&mut self, step: &Step) -> Result<()> {
        let step = RawStep::new(step)?;
        call(|err| unsafe { sys::lake_event_writer_step_completed(self.ptr, &step.raw, err) })
    }
    /// FIELD_SET (last writer wins).
    pub fn set(&mut self, field: &str, value: FieldValue) -> Result<()> {
        self.set_at(field, value, None)
    }
    pub fn set_at(&mut self, field: &str, value: FieldValue, step: Option<&Step>) -> Result<()> {
        let (field, step, value) = (cstring(field)?, raw_step(step)?, value.raw());
        call(|err| unsafe {
            sys::lake_event_writer_field_set(self.ptr, field.as_ptr(), &value, step_ptr(&step), err)
        })
    }
    /// FIELD_APPEND (accumulates).
    pub fn append(&mut self, field: &str, value: FieldValue, step: Option<&Step>) -> Result<()> {
        let (field, step, value) = (cstring(field)?, raw_step(step)?, value.raw());
        call(|err| unsafe {
            sys::lake_event_writer_field_append(
                self.ptr,
                field.as_ptr(),
                &value,
                step_ptr(&step),
                err,
            )
        })
    }
    /// TERMINAL: completed, or filtered.
    pub fn terminal(&mut self, filtered: bool) -> Result<()> {
        self.terminal_at(filtered, None)
    }
    pub fn terminal_at(&mut self, filtered: bool, step: Option<&Step>) -> Result<()> {
        let step = raw_step(step)?;
        call(|err| unsafe {
            sys::lake_event_writer_terminal(self.ptr, filtered as c_int, step_ptr(&step), err)
        })
    }
    pub fn failed(
        &mut self,
        error_type: &str,
        error_dump: &str,
        traceback: &str,
        step: Option<&Step>,
    ) -> Result<()> {
        let (t, d, tb, step) =
            (cstring(error_type)?, cstring(error_dump)?, cstring(traceback)?, raw_step(step)?);
        call(|err| unsafe {
            sys::lake_event_writer_failed(
                self.ptr,
                t.as_ptr(),
                d.as_ptr(),
                tb.as_ptr(),
                step_ptr(&step),
                err,
            )
        })
    }
    /// Appends the pending batch atomically (kept for a retry on failure).
    pub fn commit(&mut self) -> Result<()> {
        call(|err| unsafe { sys::lake_event_writer_commit(self.ptr, err) })
    }
    pub fn attempt(&self) -> u32 {
        unsafe { sys::lake_event_writer_attempt(self.ptr) }
    }
    /// Frees the writer now (uncommitted events are dropped).
    pub fn close(self) {}
}

crate::handle_count::free_on_drop!(EventWriter<'_>, sys::lake_event_writer_free);

/// An item folded from its events. Immutable.
pub struct FoldedItem<'log> {
    ptr: *mut sys::lake_folded_item,
    log: &'log EventLog<'log>,
}

// SAFETY: immutable once folded.
unsafe impl Send for FoldedItem<'_> {}
unsafe impl Sync for FoldedItem<'_> {}

impl<'log> FoldedItem<'log> {
    /// The whole folded item as JSON.
    pub fn json(&self) -> String {
        unsafe { static_str(sys::lake_folded_item_json(self.ptr)) }
    }
    /// "running", "completed", "filtered" or "failed".
    pub fn status(&self) -> String {
        unsafe { static_str(sys::lake_folded_item_status(self.ptr)) }
    }
    pub fn last_attempt(&self) -> u32 {
        unsafe { sys::lake_folded_item_last_attempt(self.ptr) }
    }
    pub fn next_item_seq(&self) -> u64 {
        unsafe { sys::lake_folded_item_next_item_seq(self.ptr) }
    }
    /// How many values `field` has (0 when absent).
    pub fn value_count(&self, field: &str) -> usize {
        match cstring(field) {
            Ok(field) => unsafe { sys::lake_folded_item_value_count(self.ptr, field.as_ptr()) },
            Err(_) => 0,
        }
    }
    /// Value `index` of `field` (NOT_FOUND when absent).
    pub fn value(&self, field: &str, index: usize) -> Result<Value> {
        let field = cstring(field)?;
        let mut raw = NO_VALUE;
        call(|err| unsafe {
            sys::lake_folded_item_value(self.ptr, field.as_ptr(), index, &mut raw, err)
        })?;
        let bytes = || -> Vec<u8> {
            if raw.bytes.is_null() {
                Vec::new()
            } else {
                unsafe { std::slice::from_raw_parts(raw.bytes as *const u8, raw.len) }.to_vec()
            }
        };
        Ok(match raw.kind {
            sys::LAKE_VALUE_INT => Value::Int(raw.i64),
            sys::LAKE_VALUE_FLOAT => Value::Float(raw.f64),
            sys::LAKE_VALUE_BOOL => Value::Bool(raw.boolean != 0),
            sys::LAKE_VALUE_STR => Value::Str(String::from_utf8_lossy(&bytes()).into_owned()),
            sys::LAKE_VALUE_JSON => Value::Json(String::from_utf8_lossy(&bytes()).into_owned()),
            _ if raw.bytes.is_null() && raw.len > 0 => Value::OffloadedBlob(raw.len as u64),
            _ => Value::Blob(bytes()),
        })
    }
    /// A verified reader of blob value `index` of `field` (inline or
    /// offloaded); it borrows the log.
    pub fn open_blob(&self, field: &str, index: usize) -> Result<Reader<'log>> {
        let field = cstring(field)?;
        Reader::open(|out, err| unsafe {
            sys::lake_folded_item_open_blob(self.log.ptr, self.ptr, field.as_ptr(), index, out, err)
        })
    }
    /// Frees the item now (as dropping it does).
    pub fn close(self) {}
}

crate::handle_count::free_on_drop!(FoldedItem<'_>, sys::lake_folded_item_free);
