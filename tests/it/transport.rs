//! The interchange protocol over real sockets on this machine: a server and a client
//! `hurray_runtime::protocol::tokio::Transport` over TCP on the loopback address and over a
//! Unix socket, a request answered with a tensor of many frames and a push acknowledged.
//! Every test binds an ephemeral loopback port (or a socket in its scratch directory), serves
//! one connection, and is bounded by a timeout: none outlives its test.

use std::time::Duration;

use hurray_runtime::ReaderConfig;
use hurray_runtime::protocol::tokio::Transport;
use hurray_runtime::protocol::{Config, Event};
use hurray_runtime::structures::{MessageTypeVariant, TensorRequest};
use hurray_runtime::tags::{Device, ElementType};
use hurray_runtime::writer;
use tokio::io::{AsyncRead, AsyncWrite};

use crate::common::scratch;

/// Frames of this many bytes.
const FRAME: usize = 64 * 1024;

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime")
}

/// A float32 tensor of `n` elements and its bytes.
fn tensor(n: u64) -> (hurray_runtime::structures::Descriptor, Vec<u8>) {
    let bytes =
        writer::finalize(writer::row_major(ElementType::Float32, &[n])).expect("a descriptor");
    let d = hurray_runtime::descriptor::read(&bytes, &ReaderConfig::new())
        .expect("the writer's descriptor reads")
        .view()
        .owned();
    let data = (0..n).flat_map(|i| (i as f32).to_le_bytes()).collect();
    (d, data)
}

/// Serve one connection: answer every request with `data` (as the tensor `d`), in frames, and
/// acknowledge every push whose bytes arrive whole. Returns the bytes pushed to it.
async fn serve<S: AsyncRead + AsyncWrite + Unpin>(
    io: S,
    d: hurray_runtime::structures::Descriptor,
    data: Vec<u8>,
) -> Vec<u8> {
    let mut server = Transport::new(io, Config::server(Config::hello(1 << 20)))
        .await
        .unwrap();
    let mut pushed = Vec::new();
    while let Some(event) = server.next_event().await.unwrap() {
        match event {
            Event::Message { stream_id, payload } => match *payload {
                MessageTypeVariant::TensorRequest(_) => {
                    server
                        .send_tensor(stream_id, d.clone(), &data, FRAME)
                        .await
                        .unwrap();
                }
                MessageTypeVariant::TensorData(f) => pushed.extend_from_slice(&f.data),
                MessageTypeVariant::TensorDataEnd => {
                    server
                        .send(stream_id, MessageTypeVariant::TensorPutAck)
                        .await
                        .unwrap();
                }
                _ => {}
            },
            Event::Rejected { error, .. } => panic!("the server rejected: {error}"),
            _ => {}
        }
    }
    pushed
}

/// Connect, request the tensor on stream 1, push `push` on stream 3, and return what arrived.
async fn client<S: AsyncRead + AsyncWrite + Unpin>(io: S, push: &[u8]) -> Vec<u8> {
    let config = Config::client(Config::hello(1 << 20)).reader(ReaderConfig::new().network(true));
    let mut client = Transport::new(io, config).await.unwrap();
    let mut got = Vec::new();
    let mut acked = false;
    while let Some(event) = client.next_event().await.unwrap() {
        match event {
            Event::Connected { .. } => {
                let request = TensorRequest::new(
                    "t".into(),
                    vec![],
                    Device::Cpu.into(),
                    64,
                    Default::default(),
                );
                client
                    .send(1, MessageTypeVariant::TensorRequest(request))
                    .await
                    .unwrap();
            }
            Event::Message { payload, .. } => {
                if let MessageTypeVariant::TensorData(f) = *payload {
                    assert_eq!(f.byte_offset_in_buffer, got.len() as u64);
                    got.extend_from_slice(&f.data);
                }
            }
            Event::Completed { stream_id: 1 } => {
                let (d, _) = tensor(push.len() as u64 / 4);
                client
                    .push_tensor(3, "p".into(), d, push, FRAME)
                    .await
                    .unwrap();
            }
            Event::Completed { stream_id: 3 } => {
                acked = true;
                break;
            }
            Event::Rejected { error, .. } => panic!("the client rejected: {error}"),
            _ => {}
        }
    }
    assert!(acked, "the push was not acknowledged");
    client.shutdown().await.unwrap();
    got
}

#[test]
fn a_tensor_and_a_push_cross_a_loopback_tcp_connection() {
    let (d, data) = tensor(1 << 20); // 4 MiB, 64 frames
    let (_, push) = tensor(100_000);
    let rt = runtime();
    let (got, pushed) = rt.block_on(async {
        tokio::time::timeout(Duration::from_secs(60), async {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap();
            let server = tokio::spawn(async move {
                let (io, _) = listener.accept().await.unwrap();
                serve(io, d, data).await
            });
            let io = tokio::net::TcpStream::connect(addr).await.unwrap();
            let got = client(io, &push).await;
            (got, server.await.unwrap())
        })
        .await
        .expect("the exchange ends within a minute")
    });
    assert_eq!(got, tensor(1 << 20).1);
    assert_eq!(pushed, push);
}

#[cfg(unix)]
#[test]
fn a_tensor_and_a_push_cross_a_unix_socket() {
    let dir = scratch("transport-unix");
    let path = dir.join("hurray.sock");
    let (d, data) = tensor(10_000);
    let (_, push) = tensor(3);
    let rt = runtime();
    let (got, pushed) = rt.block_on(async {
        tokio::time::timeout(Duration::from_secs(60), async {
            let listener = tokio::net::UnixListener::bind(&path).unwrap();
            let server = tokio::spawn(async move {
                let (io, _) = listener.accept().await.unwrap();
                serve(io, d, data).await
            });
            let io = tokio::net::UnixStream::connect(&path).await.unwrap();
            let got = client(io, &push).await;
            (got, server.await.unwrap())
        })
        .await
        .expect("the exchange ends within a minute")
    });
    assert_eq!(got, tensor(10_000).1);
    assert_eq!(pushed, push);
}

/// A peer that speaks out of turn is answered and ended: a raw socket sends a TENSOR_REQUEST
/// first (IX-8); the server answers with an ERROR and closes.
#[test]
fn a_server_answers_a_peer_that_skips_the_hello_and_closes() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let rt = runtime();
    rt.block_on(async {
        tokio::time::timeout(Duration::from_secs(30), async {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap();
            let server = tokio::spawn(async move {
                let (io, _) = listener.accept().await.unwrap();
                let mut t = Transport::new(io, Config::server(Config::hello(1 << 20))).await.unwrap();
                let mut events = Vec::new();
                while let Some(e) = t.next_event().await.unwrap() {
                    events.push(e);
                }
                events
            });
            let mut raw = tokio::net::TcpStream::connect(addr).await.unwrap();
            let request = TensorRequest::new("t".into(), vec![], Device::Cpu.into(), 64, Default::default());
            let m = hurray_runtime::structures::InterchangeMessage::new(
                hurray_runtime::wire::TagValue::new(hurray_runtime::tags::MessageType::TensorRequest),
                1,
                MessageTypeVariant::TensorRequest(request),
            );
            raw.write_all(&m.to_bytes()).await.unwrap();
            let mut answer = Vec::new();
            raw.read_to_end(&mut answer).await.unwrap();
            let error = hurray_runtime::message::read(&answer, &ReaderConfig::new()).unwrap();
            assert!(matches!(error.view().payload().owned(), MessageTypeVariant::Error(_)));
            let events = server.await.unwrap();
            assert!(
                events.iter().any(|e| matches!(e, Event::Rejected { error, .. } if error.rule().map(|r| r.id()) == Some("IX-8"))),
                "{events:?}"
            );
        })
        .await
        .expect("the exchange ends within half a minute")
    });
}
