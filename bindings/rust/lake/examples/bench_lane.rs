//! bench/bindings' Rust lane (bench/bindings_lanes/rust builds it in release
//! mode): bindings_bench.c's `read` and `calls` through the safe binding.
//!
//!     bench_lane read ROOT LOCATION_FILE BUF    one verified full read
//!     bench_lane calls ROOT LOCATION_FILE N     N reads of CancelToken::is_cancelled
//!
//! Prints the C anchor's fields, timing the same span: "seconds=S bytes=B
//! verified=1" or "seconds=S calls=N".
use std::process::exit;
use std::time::Instant;

use lake::{CancelToken, Db, Location};

fn read(db: &Db, location: &Location, buf_bytes: usize) -> lake::Result<()> {
    let mut buffer = vec![0u8; buf_bytes];
    let mut total = 0u64;
    let began = Instant::now();
    let mut reader = db.stage().open(location)?;
    loop {
        let n = reader.read_chunk(&mut buffer)?;
        if n == 0 {
            break;
        }
        total += n as u64;
    }
    let verified = reader.verified();
    reader.close()?;
    let seconds = began.elapsed().as_secs_f64();
    if !verified || total != location.size_bytes() {
        eprintln!("rust lane: read {} bytes, verified={}", total, verified);
        exit(1);
    }
    println!("seconds={:.6} bytes={} verified=1", seconds, total);
    Ok(())
}

fn calls(n: u64) -> lake::Result<()> {
    let token = CancelToken::new()?;
    let mut cancelled = 0u64;
    let began = Instant::now();
    for _ in 0..n {
        cancelled += token.is_cancelled() as u64; // a call into lake each time
    }
    let seconds = began.elapsed().as_secs_f64();
    if cancelled != 0 {
        eprintln!("rust lane: a fresh token reads cancelled");
        exit(1);
    }
    println!("seconds={:.6} calls={}", seconds, n);
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 5 || (args[1] != "read" && args[1] != "calls") {
        eprintln!("usage: bench_lane read|calls ROOT LOCATION_FILE BUF|N");
        exit(2);
    }
    let db = Db::open(&args[2])?;
    let location = Location::from_json(std::fs::read_to_string(&args[3])?.trim())?;
    if args[1] == "read" {
        read(&db, &location, args[4].parse()?)?;
    } else {
        calls(args[4].parse()?)?;
    }
    Ok(())
}
