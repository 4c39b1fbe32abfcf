//! What the binding's tests share: a scratch directory holding the test
//! object, a root with `media.clips`, SHA-256, and child processes (the test
//! binary run again on one test, selected by LAKE_RUST_CHILD).
#![allow(dead_code)]
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Mutex, MutexGuard};

use lake::{params, Db, Location};

pub const OBJECT_SIZE: usize = 300_000;

/// Tests that count process-wide things (open handles) run one at a time:
/// every test of such a binary takes this lock through `Scratch::serial`.
static SERIAL: Mutex<()> = Mutex::new(());

pub struct Scratch {
    pub dir: PathBuf,
    pub data: Vec<u8>,
    pub episode: PathBuf,
    _serial: Option<MutexGuard<'static, ()>>,
}

impl Scratch {
    /// A fresh directory holding episode.mp4 (OBJECT_SIZE random bytes).
    pub fn new() -> Scratch {
        Scratch::with_lock(None)
    }

    /// A scratch directory for a test that runs alone in its binary.
    pub fn serial() -> Scratch {
        Scratch::with_lock(Some(SERIAL.lock().unwrap_or_else(|e| e.into_inner())))
    }

    fn with_lock(serial: Option<MutexGuard<'static, ()>>) -> Scratch {
        let base = std::env::var_os("LAKE_TEST_TMPDIR")
            .map(PathBuf::from)
            .unwrap_or_else(std::env::temp_dir);
        let dir = base.join(format!("lake-rs-{}-{}", std::process::id(), unique()));
        fs::create_dir_all(&dir).unwrap();
        let data = random_bytes(OBJECT_SIZE);
        let episode = dir.join("episode.mp4");
        fs::write(&episode, &data).unwrap();
        Scratch { dir, data, episode, _serial: serial }
    }

    pub fn root(&self) -> PathBuf {
        self.dir.join("root")
    }

    pub fn open_root(&self) -> Db {
        Db::open(self.root()).unwrap()
    }

    /// A root with media.clips (name utf8, video file) holding one row "a".
    pub fn clips_root(&self) -> Db {
        let db = self.open_root();
        db.create_table("media.clips", &["name:utf8", "video:file"]).unwrap();
        db.insert(
            "INSERT INTO media.clips (name, video) VALUES (?, ?)",
            params!["a", &self.episode],
        )
        .unwrap();
        db
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.dir);
    }
}

fn unique() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    NEXT.fetch_add(1, Ordering::SeqCst)
}

pub fn random_bytes(n: usize) -> Vec<u8> {
    let mut data = vec![0u8; n];
    fs::File::open("/dev/urandom").unwrap().read_exact(&mut data).unwrap();
    data
}

/// The location of row `name` of media.clips.
pub fn location_of(db: &Db, name: &str) -> Location {
    let mut result =
        db.query("SELECT video FROM media.clips WHERE name = ?", params![name]).unwrap();
    let batch = result.next_batch().unwrap().expect("a batch");
    batch.location(0, 0).unwrap()
}

/// The stored file of a local location.
pub fn stored_path(location: &Location) -> PathBuf {
    PathBuf::from(location.uri().trim_start_matches("file://"))
}

/// The names of media.clips in `ORDER BY name` order.
pub fn names(db: &Db) -> Vec<String> {
    let mut result = db.query("SELECT name FROM media.clips ORDER BY name", params![]).unwrap();
    let mut names = Vec::new();
    for batch in result.batches().unwrap() {
        names.extend(batch.utf8(0).unwrap().into_iter().map(|n| n.unwrap()));
    }
    names
}

/// Runs test `name` of this binary again in a child process with
/// LAKE_RUST_CHILD=`name` and `env`; its output.
pub fn run_child(name: &str, env: &[(&str, &str)]) -> Output {
    let mut command = Command::new(std::env::current_exe().unwrap());
    command
        .args([name, "--exact", "--ignored", "--nocapture", "--test-threads=1"])
        .env("LAKE_RUST_CHILD", name);
    for (key, value) in env {
        command.env(key, value);
    }
    command.output().unwrap()
}

/// True in the child process `run_child(name)` started.
pub fn is_child(name: &str) -> bool {
    std::env::var("LAKE_RUST_CHILD").map_or(false, |v| v == name)
}

/// The lines a child printed with `child_says`.
pub fn child_lines(output: &Output) -> Vec<String> {
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|l| l.find("CHILD: ").map(|at| l[at + 7..].to_string()))
        .collect()
}

pub fn child_says(text: &str) {
    println!("CHILD: {}", text);
}

pub fn exists(path: &Path) -> bool {
    path.exists()
}

/// SHA-256 (FIPS 180-4) as 64 lowercase hex characters.
pub fn sha256(data: &[u8]) -> String {
    const K: [u32; 64] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
        0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
        0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
        0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
        0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
        0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
        0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
        0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
        0xc67178f2,
    ];
    let mut h: [u32; 8] = [
        0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab,
        0x5be0cd19,
    ];
    let mut message = data.to_vec();
    message.push(0x80);
    while message.len() % 64 != 56 {
        message.push(0);
    }
    message.extend_from_slice(&((data.len() as u64) * 8).to_be_bytes());
    for block in message.chunks(64) {
        let mut w = [0u32; 64];
        for i in 0..16 {
            w[i] = u32::from_be_bytes([
                block[4 * i],
                block[4 * i + 1],
                block[4 * i + 2],
                block[4 * i + 3],
            ]);
        }
        for i in 16..64 {
            let s0 = w[i - 15].rotate_right(7) ^ w[i - 15].rotate_right(18) ^ (w[i - 15] >> 3);
            let s1 = w[i - 2].rotate_right(17) ^ w[i - 2].rotate_right(19) ^ (w[i - 2] >> 10);
            w[i] = w[i - 16].wrapping_add(s0).wrapping_add(w[i - 7]).wrapping_add(s1);
        }
        let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut hh] = h;
        for i in 0..64 {
            let s1 = e.rotate_right(6) ^ e.rotate_right(11) ^ e.rotate_right(25);
            let ch = (e & f) ^ (!e & g);
            let t1 = hh.wrapping_add(s1).wrapping_add(ch).wrapping_add(K[i]).wrapping_add(w[i]);
            let s0 = a.rotate_right(2) ^ a.rotate_right(13) ^ a.rotate_right(22);
            let maj = (a & b) ^ (a & c) ^ (b & c);
            let t2 = s0.wrapping_add(maj);
            hh = g;
            g = f;
            f = e;
            e = d.wrapping_add(t1);
            d = c;
            c = b;
            b = a;
            a = t1.wrapping_add(t2);
        }
        for (x, y) in h.iter_mut().zip([a, b, c, d, e, f, g, hh]) {
            *x = x.wrapping_add(y);
        }
    }
    h.iter().map(|x| format!("{:08x}", x)).collect()
}

/// Cuts the stored file of a local location to `len` bytes.
pub fn truncate(location: &Location, len: u64) {
    fs::OpenOptions::new().write(true).open(stored_path(location)).unwrap().set_len(len).unwrap();
}

/// The process's resident memory in bytes (/proc/self/statm).
pub fn resident_bytes() -> i64 {
    let statm = fs::read_to_string("/proc/self/statm").unwrap();
    statm.split_whitespace().nth(1).unwrap().parse::<i64>().unwrap() * 4096
}

pub mod duckdb;
