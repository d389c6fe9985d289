//! The interchange protocol from outside the workspace: a server and a client
//! `Transport` over a loopback TCP connection (an ephemeral port, one connection, bounded by a
//! timeout), a request answered with a tensor the runtime's writer described, in frames.

use std::time::Duration;

use hurray_runtime::protocol::tokio::Transport;
use hurray_runtime::protocol::{Config, Event};
use hurray_runtime::structures::{MessageTypeVariant, TensorRequest};
use hurray_runtime::tags::{Device, ElementType};
use hurray_runtime::{ReaderConfig, descriptor, writer};

#[test]
fn a_tensor_crosses_a_loopback_connection() {
    let bytes = writer::finalize(writer::row_major(ElementType::Float32, &[1000])).unwrap();
    let d = descriptor::read(&bytes, &ReaderConfig::new())
        .unwrap()
        .view()
        .owned();
    let data: Vec<u8> = (0..1000u32)
        .flat_map(|i| (i as f32).to_le_bytes())
        .collect();
    let sent = data.clone();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let got = rt.block_on(async move {
        tokio::time::timeout(Duration::from_secs(30), async move {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap();
            let server = tokio::spawn(async move {
                let (io, _) = listener.accept().await.unwrap();
                let mut s = Transport::new(io, Config::server(Config::hello(1 << 16)))
                    .await
                    .unwrap();
                while let Some(e) = s.next_event().await.unwrap() {
                    if let Event::Message { stream_id, payload } = e
                        && let MessageTypeVariant::TensorRequest(_) = *payload
                    {
                        s.send_tensor(stream_id, d.clone(), &sent, 1024)
                            .await
                            .unwrap();
                    }
                }
            });
            let mut c = Transport::connect_tcp(addr, Config::client(Config::hello(1 << 16)))
                .await
                .unwrap();
            let mut got = Vec::new();
            while let Some(e) = c.next_event().await.unwrap() {
                match e {
                    Event::Connected { .. } => {
                        let r = TensorRequest::new(
                            "t".into(),
                            vec![],
                            Device::Cpu.into(),
                            64,
                            Default::default(),
                        );
                        c.send(1, MessageTypeVariant::TensorRequest(r))
                            .await
                            .unwrap();
                    }
                    Event::Message { payload, .. } => {
                        if let MessageTypeVariant::TensorData(f) = *payload {
                            got.extend_from_slice(&f.data);
                        }
                    }
                    Event::Completed { .. } => break,
                    Event::Rejected { error, .. } => panic!("{error}"),
                    _ => {}
                }
            }
            c.shutdown().await.unwrap();
            server.await.unwrap();
            got
        })
        .await
        .expect("the exchange ends within half a minute")
    });
    assert_eq!(got, data);
}
