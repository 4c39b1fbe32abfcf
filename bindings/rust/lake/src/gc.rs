//! Garbage collection of a root's stage: plan (a dry run, deletes
//! nothing), show, status, apply, verify. [`GcOptions`] borrow their cancel
//! token (`'t`) and own their progress callback (boxed: a fixed ctx).
use std::os::raw::{c_char, c_int, c_void};

use lake_sys as sys;

use crate::c_strings::{cpath, cstring, optional_cstring, ptr_or_null, static_str, take_string};
use crate::cancel::CancelToken;
use crate::db::{json_call, Db};
use crate::error::{call, Result};
use crate::handle_count as handles;
use crate::panic_slot::{Collected, PanicSlot};

type ProgressFn<'t> = Box<dyn FnMut(&str, u64, u64) + Send + 't>;

struct Progress<'t> {
    f: std::sync::Mutex<ProgressFn<'t>>,
    panics: PanicSlot,
}

pub struct GcOptions<'t> {
    ptr: *mut sys::lake_gc_options,
    progress: Option<Box<Progress<'t>>>,
    _token: std::marker::PhantomData<&'t CancelToken>,
}

// SAFETY: not thread-safe in lake: Send, not Sync.
unsafe impl Send for GcOptions<'_> {}

impl<'t> GcOptions<'t> {
    pub fn new() -> Result<GcOptions<'t>> {
        crate::abi::check()?;
        let ptr = unsafe { sys::lake_gc_options_new() };
        handles::opened();
        Ok(GcOptions { ptr, progress: None, _token: std::marker::PhantomData })
    }
    /// Objects modified less than `seconds` before the listing are kept.
    pub fn cutoff_seconds(self, seconds: u64) -> Self {
        unsafe { sys::lake_gc_options_set_cutoff_seconds(self.ptr, seconds) };
        self
    }
    /// Allows a cutoff under 24 hours.
    pub fn allow_short_cutoff(self, allow: bool) -> Self {
        unsafe { sys::lake_gc_options_set_allow_short_cutoff(self.ptr, allow as c_int) };
        self
    }
    pub fn memory_budget(self, bytes: u64) -> Result<Self> {
        call(|err| unsafe { sys::lake_gc_options_set_memory_budget(self.ptr, bytes, err) })?;
        Ok(self)
    }
    pub fn temp_dir(self, dir: impl AsRef<std::path::Path>) -> Result<Self> {
        let dir = cpath(dir.as_ref())?;
        call(|err| unsafe { sys::lake_gc_options_set_temp_dir(self.ptr, dir.as_ptr(), err) })?;
        Ok(self)
    }
    /// `progress(phase, done, total)`; a panic becomes the call's error.
    pub fn progress(mut self, progress: impl FnMut(&str, u64, u64) + Send + 't) -> Self {
        let boxed = Box::new(Progress {
            f: std::sync::Mutex::new(Box::new(progress)),
            panics: PanicSlot::default(),
        });
        let ctx = &*boxed as *const Progress<'t> as *mut c_void;
        self.progress = Some(boxed);
        unsafe { sys::lake_gc_options_set_progress(self.ptr, Some(progress_trampoline), ctx) };
        self
    }
    pub fn cancel_token(self, token: &'t CancelToken) -> Self {
        unsafe { sys::lake_gc_options_set_cancel_token(self.ptr, token.as_ptr()) };
        self
    }
    pub fn max_deletes_per_second(self, per_second: u64) -> Self {
        unsafe { sys::lake_gc_options_set_max_deletes_per_second(self.ptr, per_second) };
        self
    }
    fn finish<T>(&self, result: Result<T>) -> Result<T> {
        match &self.progress {
            Some(p) => p.panics.finish(result),
            None => result,
        }
    }
    /// Frees the options now (as dropping them does).
    pub fn close(self) {}
}

unsafe extern "C" fn progress_trampoline(
    ctx: *mut c_void,
    phase: *const c_char,
    done: u64,
    total: u64,
) {
    let progress = &*(ctx as *const Progress);
    let phase = static_str(phase);
    progress
        .panics
        .guard((), || (progress.f.lock().unwrap_or_else(|e| e.into_inner()))(&phase, done, total))
}

crate::handle_count::free_on_drop!(GcOptions<'_>, sys::lake_gc_options_free);

fn opts_ptr(options: Option<&GcOptions>) -> *const sys::lake_gc_options {
    options.map_or(std::ptr::null(), |o| o.ptr)
}

fn finish<T>(options: Option<&GcOptions>, result: Result<T>) -> Result<T> {
    match options {
        Some(o) => o.finish(result),
        None => result,
    }
}

/// One candidate of a plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GcCandidate {
    pub uri: String,
    /// "object", "table_file" or "multipart_upload".
    pub kind: String,
    pub size_bytes: u64,
    pub modified_unix_micros: i64,
    pub tenant: String,
}

/// One problem a verify found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GcProblem {
    pub uri: String,
    /// "missing", "size-short", "size-long", "digest-mismatch", "unreadable".
    pub problem: String,
    pub expected_size: u64,
    pub observed_size: u64,
    pub message: String,
    pub referrers: Vec<String>,
    pub more_referrers: u64,
}

unsafe extern "C" fn candidate_trampoline(
    ctx: *mut c_void,
    c: *const sys::lake_gc_candidate,
) -> c_int {
    let c = &*c;
    Collected::push(ctx, || GcCandidate {
        uri: static_str(c.uri),
        kind: static_str(c.kind),
        size_bytes: c.size_bytes,
        modified_unix_micros: c.modified_unix_micros,
        tenant: static_str(c.tenant),
    })
}

unsafe extern "C" fn problem_trampoline(ctx: *mut c_void, p: *const sys::lake_gc_problem) -> c_int {
    let p = &*p;
    Collected::push(ctx, || GcProblem {
        uri: static_str(p.uri),
        problem: static_str(p.problem),
        expected_size: p.expected_size,
        observed_size: p.observed_size,
        message: static_str(p.message),
        referrers: (0..p.referrer_count).map(|i| static_str(*p.referrers.add(i))).collect(),
        more_referrers: p.more_referrers,
    })
}

impl Db {
    /// Writes a GC plan and returns its summary (JSON); deletes nothing.
    pub fn gc_plan(&self, options: Option<&GcOptions>) -> Result<String> {
        let result = json_call(|out, err| unsafe {
            sys::lake_gc_plan(self.as_ptr(), opts_ptr(options), out, err)
        });
        finish(options, result)
    }

    /// Every candidate of a plan and its status (JSON).
    pub fn gc_show(&self, plan_id: &str) -> Result<(Vec<GcCandidate>, String)> {
        let id = cstring(plan_id)?;
        let mut candidates = Collected::new();
        let ctx = candidates.ctx();
        let json = json_call(|out, err| unsafe {
            sys::lake_gc_show(self.as_ptr(), id.as_ptr(), Some(candidate_trampoline), ctx, out, err)
        });
        candidates.finish(json)
    }

    /// The kept plans (None) or one plan, as a JSON array.
    pub fn gc_status(&self, plan_id: Option<&str>) -> Result<String> {
        let id = optional_cstring(plan_id)?;
        json_call(|out, err| unsafe {
            sys::lake_gc_status(self.as_ptr(), ptr_or_null(&id), out, err)
        })
    }

    /// Deletes a plan's candidates; the final status entry (JSON).
    pub fn gc_apply(&self, plan_id: &str, options: Option<&GcOptions>) -> Result<String> {
        let id = cstring(plan_id)?;
        let result = json_call(|out, err| unsafe {
            sys::lake_gc_apply(self.as_ptr(), id.as_ptr(), opts_ptr(options), out, err)
        });
        finish(options, result)
    }

    /// Scrubs the root (`deep`: every object read and verified): the
    /// problems found and the summary (JSON).
    pub fn gc_verify(
        &self,
        deep: bool,
        options: Option<&GcOptions>,
    ) -> Result<(Vec<GcProblem>, String)> {
        let mut problems = Collected::new();
        let ctx = problems.ctx();
        let mut out: *mut c_char = std::ptr::null_mut();
        let result = call(|err| unsafe {
            sys::lake_gc_verify(
                self.as_ptr(),
                deep as c_int,
                opts_ptr(options),
                Some(problem_trampoline),
                ctx,
                &mut out,
                err,
            )
        })
        .map(|_| unsafe { take_string(out) });
        finish(options, problems.finish(result))
    }
}
