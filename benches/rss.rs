//! Peak resident set size (Linux `VmHWM`) of each reading workload, each in a process of its
//! own: this bench runs itself once per case with `HURRAY_RSS_CASE=<case>:<n>`, and the child
//! does the work and prints its `VmHWM`. Figures go to `target/hurray-bench/rss.jsonl`; the
//! fixtures are `benches/common`'s (memory-mapped, from the page cache). A process that only
//! starts and exits is measured too (`baseline`).

mod common;

use std::process::Command;

use common::{fixtures, label, probe, record, sizes};
use hurray_runtime::ReaderConfig;
use hurray_runtime::file::MappedFile;
use hurray_runtime::sequential::SequentialReader;
use safetensors::tensor::SafeTensors;

const CASES: &[&str] = &[
    "baseline",
    "open+lookup/hurray",
    "open+lookup/safetensors",
    "verify-all/hurray",
    "sequential/hurray",
    "deserialize-and-touch/safetensors",
];

/// The peak resident set of this process, in bytes.
fn vm_hwm() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kb| kb * 1024)
}

fn run(case: &str, n: usize) -> usize {
    let config = ReaderConfig::new();
    let (hp, sp) = fixtures(n);
    let want = probe(n);
    match case {
        "baseline" => 0,
        "open+lookup/hurray" => {
            let m = MappedFile::open(&hp).unwrap();
            let f = m.view(&config).unwrap();
            f.tensor(&want).unwrap().unwrap().data().len()
        }
        "open+lookup/safetensors" => {
            let m = MappedFile::open(&sp).unwrap();
            let s = SafeTensors::deserialize(m.bytes()).unwrap();
            s.tensor(&want).unwrap().data().len()
        }
        "verify-all/hurray" => {
            let m = MappedFile::open(&hp).unwrap();
            let f = m.view(&config).unwrap();
            f.verify_all().unwrap();
            f.len()
        }
        "sequential/hurray" => {
            let input = std::fs::File::open(&hp).unwrap();
            let mut r = SequentialReader::new(input, &config).unwrap();
            let mut k = 0;
            while r.next_tensor(&mut |_, _, _| {}).unwrap().is_some() {
                k += 1;
            }
            r.finish().unwrap();
            k
        }
        "deserialize-and-touch/safetensors" => {
            // safetensors' whole check, then every tensor's bytes read once.
            let m = MappedFile::open(&sp).unwrap();
            let s = SafeTensors::deserialize(m.bytes()).unwrap();
            s.iter()
                .map(|(_, t)| t.data().iter().map(|b| *b as usize).sum::<usize>())
                .sum()
        }
        other => panic!("no case {other}"),
    }
}

fn main() {
    if let Ok(spec) = std::env::var("HURRAY_RSS_CASE") {
        let (case, n) = spec.rsplit_once(':').expect("<case>:<n>");
        let n: usize = n.parse().expect("a tensor count");
        std::hint::black_box(run(case, n));
        println!("{}", vm_hwm());
        return;
    }
    // `cargo bench` passes its own flags; `--list` asks for the benches, which are these cases.
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let exe = std::env::current_exe().expect("this bench");
    for n in sizes() {
        fixtures(n);
        for case in CASES {
            let out = Command::new(&exe)
                .env("HURRAY_RSS_CASE", format!("{case}:{n}"))
                .output()
                .expect("the child runs");
            assert!(
                out.status.success(),
                "{case} {n}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            let rss: u64 = String::from_utf8_lossy(&out.stdout)
                .trim()
                .parse()
                .expect("VmHWM");
            let key = format!("{}/{case}", label(n));
            println!("peak RSS {key}: {:.1} MB", rss as f64 / 1e6);
            record("rss.jsonl", &key, rss as f64);
        }
    }
}
