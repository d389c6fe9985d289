//! The interchange protocol's state machine (`hurray_runtime::protocol`, issue #20): a tensor
//! answered in 1 MiB `TENSOR_DATA` frames, sent through a server `Connection` (`send`: encode,
//! read back, sequence check, queue) and received by a client `Connection` (`receive`: gather,
//! read, sequence check, an owned event per frame), in GB/s on 256 MB (`HURRAY_BENCH_PROTOCOL_MB`
//! to change it), each against a plain copy of the same bytes in the same run (the bound: each
//! frame's bytes appended to a buffer, and read out of it); and requests per second on 10k and
//! 100k tiny exchanges (a request answered by a `float32 [4]` tensor: descriptor, one frame,
//! TENSOR_DATA_END), with 1M under `HURRAY_BENCH_1M=1`. Figures go to BENCHMARKS.md by hand.

use std::hint::black_box;
use std::time::Duration;

use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use hurray_runtime::ReaderConfig;
use hurray_runtime::protocol::{Config, Connection, Event};
use hurray_runtime::structures::{
    Descriptor, MessageTypeVariant, TensorData, TensorDescriptorPayload, TensorRequest,
};
use hurray_runtime::tags::{Device, ElementType};
use hurray_runtime::writer::{finalize, row_major};

const FRAME: usize = 1 << 20;

fn descriptor(elements: u64) -> Descriptor {
    let bytes = finalize(row_major(ElementType::Float32, &[elements])).unwrap();
    hurray_runtime::descriptor::read(&bytes, &ReaderConfig::new())
        .unwrap()
        .view()
        .owned()
}

/// A client and a server past their HELLO exchange, the client's request open on stream 1.
fn connected() -> (Connection, Connection) {
    let hello = Config::hello(u32::MAX);
    let mut client = Connection::new(Config::client(hello.clone()));
    let mut server = Connection::new(Config::server(hello));
    server.receive(&client.transmit());
    client.receive(&server.transmit());
    while client.poll_event().is_some() {}
    while server.poll_event().is_some() {}
    (client, server)
}

fn request(client: &mut Connection, server: &mut Connection) {
    let r = TensorRequest::new(
        "t".into(),
        vec![],
        Device::Cpu.into(),
        64,
        Default::default(),
    );
    client
        .send(1, MessageTypeVariant::TensorRequest(r))
        .unwrap();
    server.receive(&client.transmit());
    while server.poll_event().is_some() {}
}

/// The server's answer: the descriptor, the frames (moved in), TENSOR_DATA_END, each written
/// to `wire` as it is sent (as a transport does: `pending`, then `consume`).
fn answer(server: &mut Connection, d: &Descriptor, frames: Vec<Vec<u8>>, wire: &mut Vec<u8>) {
    let mut put = |server: &mut Connection, m: MessageTypeVariant| {
        server.send(1, m).unwrap();
        wire.extend_from_slice(server.pending());
        server.consume(usize::MAX);
    };
    let total = frames.iter().map(|f| f.len() as u64).sum();
    let head = TensorDescriptorPayload::new(d.clone(), total, 0, 1);
    put(server, MessageTypeVariant::TensorDescriptor(head));
    let mut at = 0u64;
    for f in frames {
        let n = f.len() as u64;
        put(
            server,
            MessageTypeVariant::TensorData(TensorData::new(at, f)),
        );
        at += n;
    }
    put(server, MessageTypeVariant::TensorDataEnd);
}

/// The client takes `bytes` in 1 MiB pieces, touching every frame's data; the bytes seen.
fn receive(client: &mut Connection, bytes: &[u8]) -> usize {
    let mut seen = 0;
    for piece in bytes.chunks(FRAME) {
        client.receive(piece);
        while let Some(e) = client.poll_event() {
            if let Event::Message { payload, .. } = e
                && let MessageTypeVariant::TensorData(f) = *payload
            {
                seen += black_box(&f.data).len();
            }
        }
    }
    seen
}

fn throughput(c: &mut Criterion) {
    let mb: usize = std::env::var("HURRAY_BENCH_PROTOCOL_MB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(256);
    let frames: Vec<Vec<u8>> = (0..mb)
        .map(|k| (0..FRAME).map(|i| ((i + k) % 251) as u8).collect())
        .collect();
    let d = descriptor((mb * FRAME / 4) as u64);
    let mut g = c.benchmark_group(format!("protocol-{mb}MB"));
    g.throughput(Throughput::Bytes((mb * FRAME) as u64));
    g.sample_size(10);
    g.measurement_time(Duration::from_secs(20));
    // The wire both sends write to: reserved once, as a socket's buffer would be.
    let mut wire: Vec<u8> = Vec::with_capacity(mb * (FRAME + 64) + 4096);
    g.bench_function("send/hurray", |b| {
        b.iter_batched(
            || {
                let (mut client, mut server) = connected();
                request(&mut client, &mut server);
                (server, frames.clone())
            },
            |(mut server, frames)| {
                wire.clear();
                answer(&mut server, &d, frames, &mut wire);
                black_box(wire.len())
            },
            BatchSize::PerIteration,
        )
    });
    let bytes = {
        let (mut client, mut server) = connected();
        request(&mut client, &mut server);
        let mut bytes = Vec::new();
        answer(&mut server, &d, frames.clone(), &mut bytes);
        bytes
    };
    g.bench_function("receive/hurray", |b| {
        b.iter_batched(
            || {
                let (mut client, mut server) = connected();
                request(&mut client, &mut server);
                client
            },
            |mut client| black_box(receive(&mut client, &bytes)),
            BatchSize::PerIteration,
        )
    });
    // The bound: the frames' bytes appended to a buffer reserved once (what a sender must at
    // least do), and each read out of the buffer into a vector of its own (what a receiver
    // handing out owned frames must at least do).
    g.bench_function("send/plain-bound", |b| {
        b.iter(|| {
            wire.clear();
            for f in &frames {
                wire.extend_from_slice(f);
            }
            black_box(wire.len())
        })
    });
    g.bench_function("receive/plain-bound", |b| {
        b.iter(|| {
            let mut seen = 0;
            for piece in bytes.chunks(FRAME) {
                seen += black_box(piece.to_vec()).len();
            }
            seen
        })
    });
    g.finish();
}

fn tiny(c: &mut Criterion) {
    let mut counts = vec![10_000, 100_000];
    if std::env::var_os("HURRAY_BENCH_1M").is_some() {
        counts.push(1_000_000);
    }
    let d = descriptor(4);
    let mut wire = Vec::new();
    for n in counts {
        let label = match n {
            n if n >= 1_000_000 => format!("{}M", n / 1_000_000),
            n => format!("{}k", n / 1000),
        };
        let mut g = c.benchmark_group(format!("protocol-{label}-tiny"));
        g.throughput(Throughput::Elements(n as u64));
        g.sample_size(10);
        g.measurement_time(Duration::from_secs(15));
        g.bench_function("request-answer/hurray", |b| {
            b.iter(|| {
                let (mut client, mut server) = connected();
                let mut done = 0usize;
                for _ in 0..n {
                    request(&mut client, &mut server);
                    wire.clear();
                    answer(&mut server, &d, vec![vec![7u8; 16]], &mut wire);
                    client.receive(&wire);
                    while let Some(e) = client.poll_event() {
                        done += usize::from(matches!(e, Event::Completed { .. }));
                    }
                }
                assert_eq!(done, n);
                black_box(done)
            })
        });
        g.finish();
    }
}

criterion_group!(benches, throughput, tiny);
criterion_main!(benches);
