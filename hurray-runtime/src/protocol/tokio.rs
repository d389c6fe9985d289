//! The interchange protocol over a tokio byte stream (TCP, a Unix socket, anything
//! `AsyncRead + AsyncWrite`): a thin loop around a [`Connection`], which does all the
//! protocol's work. Behind the `tokio` feature.
//!
//! ```no_run
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! use hurray_runtime::protocol::tokio::Transport;
//! use hurray_runtime::protocol::{Config, Event};
//!
//! let mut client = Transport::connect_tcp("127.0.0.1:7878", Config::client(Config::hello(1 << 24))).await?;
//! while let Some(event) = client.next_event().await? {
//!     if let Event::Connected { version, .. } = event {
//!         println!("speaking protocol version {version}");
//!         break;
//!     }
//! }
//! # Ok(())
//! # }
//! ```

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

use super::{Config, Connection, Event};
use crate::error::Error;
use crate::structures::{Descriptor, MessageTypeVariant};

/// How much a [`Transport`] reads from its stream at a time.
const READ_CHUNK: usize = 64 * 1024;

/// What went wrong sending a message.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TransportError {
    /// The message breaks a rule of the protocol: nothing was sent.
    #[error("refused: {0}")]
    Refused(#[source] Error),
    /// The byte stream failed.
    #[error("transport: {0}")]
    Io(#[from] std::io::Error),
}

/// A [`Connection`] driven over the byte stream `S`.
#[derive(Debug)]
pub struct Transport<S> {
    io: S,
    connection: Connection,
    buffer: Box<[u8]>,
}

impl<S: AsyncRead + AsyncWrite + Unpin> Transport<S> {
    /// Drive a connection of `config`'s role over `io`; a client's HELLO goes out at once.
    pub async fn new(io: S, config: Config) -> std::io::Result<Transport<S>> {
        let mut t = Transport {
            io,
            connection: Connection::new(config),
            buffer: vec![0; READ_CHUNK].into_boxed_slice(),
        };
        t.flush().await?;
        Ok(t)
    }

    /// The connection's state (its role, the agreed version).
    pub fn connection(&self) -> &Connection {
        &self.connection
    }

    /// Send `payload` on `stream_id` ([`Connection::send`]) and write it out.
    pub async fn send(
        &mut self,
        stream_id: u32,
        payload: MessageTypeVariant,
    ) -> Result<(), TransportError> {
        self.connection
            .send(stream_id, payload)
            .map_err(TransportError::Refused)?;
        self.flush().await?;
        Ok(())
    }

    /// Answer a request with one whole tensor, as [`Connection::send_tensor`] does, writing
    /// each message out before the next is made: memory holds one frame, not the tensor.
    pub async fn send_tensor(
        &mut self,
        stream_id: u32,
        descriptor: Descriptor,
        data: &[u8],
        frame: usize,
    ) -> Result<(), TransportError> {
        for m in super::tensor_messages(super::answer_head(descriptor, data), data, frame) {
            self.send(stream_id, m).await?;
        }
        Ok(())
    }

    /// Push one whole tensor under `key`, as [`Connection::push_tensor`] does, writing each
    /// message out before the next is made.
    pub async fn push_tensor(
        &mut self,
        stream_id: u32,
        key: String,
        descriptor: Descriptor,
        data: &[u8],
        frame: usize,
    ) -> Result<(), TransportError> {
        for m in super::tensor_messages(super::push_head(key, descriptor, data), data, frame) {
            self.send(stream_id, m).await?;
        }
        Ok(())
    }

    /// The next event, reading from the stream as needed; `None` once the connection is
    /// over. What the connection answers on its own (a SERVER_HELLO, a PONG, an ERROR) is
    /// written out before an event is returned. The end of the stream ends the connection
    /// ([`Connection::close`]).
    pub async fn next_event(&mut self) -> std::io::Result<Option<Event>> {
        loop {
            self.flush().await?;
            if let Some(e) = self.connection.poll_event() {
                return Ok(Some(e));
            }
            if self.connection.is_closed() {
                return Ok(None);
            }
            let n = self.io.read(&mut self.buffer).await?;
            if n == 0 {
                self.connection.close();
            } else {
                self.connection.receive(&self.buffer[..n]);
            }
        }
    }

    /// Write what the connection has queued.
    async fn flush(&mut self) -> std::io::Result<()> {
        let n = self.connection.pending().len();
        if n > 0 {
            self.io.write_all(self.connection.pending()).await?;
            self.connection.consume(n);
            self.io.flush().await?;
        }
        Ok(())
    }

    /// End the connection: queued bytes are written and the stream shut down.
    pub async fn shutdown(mut self) -> std::io::Result<()> {
        self.flush().await?;
        self.connection.close();
        self.io.shutdown().await
    }
}

impl Transport<tokio::net::TcpStream> {
    /// Connect to `addr` over TCP as `config` says (a client, usually).
    pub async fn connect_tcp(
        addr: impl tokio::net::ToSocketAddrs,
        config: Config,
    ) -> std::io::Result<Transport<tokio::net::TcpStream>> {
        let io = tokio::net::TcpStream::connect(addr).await?;
        io.set_nodelay(true)?;
        Transport::new(io, config).await
    }
}

#[cfg(unix)]
impl Transport<tokio::net::UnixStream> {
    /// Connect to the Unix socket at `path` as `config` says.
    pub async fn connect_unix(
        path: impl AsRef<std::path::Path>,
        config: Config,
    ) -> std::io::Result<Transport<tokio::net::UnixStream>> {
        let io = tokio::net::UnixStream::connect(path).await?;
        Transport::new(io, config).await
    }
}
