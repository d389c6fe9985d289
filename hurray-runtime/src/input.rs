//! A buffered reader over any [`Read`] with its running offset: the one input of the
//! readers that cannot seek (the sequential file reader and the canonical stream reader).
//! It grows only by what the input brings, so a length field promising more than the
//! input holds allocates nothing beyond what was read.

use std::io::Read;

/// The input is read, and data handed on, this many bytes at a time.
pub const CHUNK: usize = 1 << 20;

/// A buffered input with its running offset.
#[derive(Debug)]
pub(crate) struct Input<R> {
    inner: R,
    buf: Vec<u8>,
    start: usize,
    pub(crate) pos: u64,
    eof: bool,
    /// The next read's size: it doubles from a page up to a chunk while reads come back
    /// full, so a short input allocates little.
    read_size: usize,
}

impl<R: Read> Input<R> {
    pub(crate) fn new(inner: R) -> Input<R> {
        Input {
            inner,
            buf: Vec::new(),
            start: 0,
            pos: 0,
            eof: false,
            read_size: 4096,
        }
    }

    pub(crate) fn available(&self) -> usize {
        self.buf.len() - self.start
    }

    /// One read from the input into the buffer (growing it only by what the read may
    /// bring); false at its end.
    pub(crate) fn read_more(&mut self) -> std::io::Result<bool> {
        if self.start > 0 {
            self.buf.drain(..self.start);
            self.start = 0;
        }
        let old = self.buf.len();
        let want = self.read_size;
        self.buf.resize(old + want, 0);
        let got = loop {
            match self.inner.read(&mut self.buf[old..]) {
                Ok(k) => break k,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    self.buf.truncate(old);
                    return Err(e);
                }
            }
        };
        self.buf.truncate(old + got);
        if got == want {
            self.read_size = (self.read_size * 2).min(CHUNK);
        }
        self.eof = got == 0;
        Ok(got > 0)
    }

    /// Make `n` bytes available unless the input ends first; how many are (at most `n`).
    pub(crate) fn fill(&mut self, n: usize) -> std::io::Result<usize> {
        while self.available() < n && !self.eof {
            self.read_more()?;
        }
        Ok(self.available().min(n))
    }

    /// Some bytes, at most `n`: what is buffered, or one read's worth; 0 at the end.
    pub(crate) fn some(&mut self, n: usize) -> std::io::Result<usize> {
        if self.available() == 0 && !self.eof {
            self.read_more()?;
        }
        Ok(self.available().min(n))
    }

    pub(crate) fn peek(&self, n: usize) -> &[u8] {
        &self.buf[self.start..self.start + n]
    }

    pub(crate) fn consume(&mut self, n: usize) {
        self.start += n;
        self.pos += n as u64;
    }
}
