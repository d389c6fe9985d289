//! A reader's resource limits: policies of the reader that runs, not rules of the format
//! (re-exported as `ctx::Limit`; a module of its own so that `error` does not depend on `ctx`).

/// A resource limit of a reader. A limit is a policy of the reader that runs (a service
/// refusing inputs larger than it wants to hold), not a rule of the format: an input refused
/// under a limit may be perfectly valid. Every limit defaults to the largest value the format
/// can express ([`Limit::format_maximum`]), so a default reader never refuses a legal input;
/// a refusal is an [`Error`](crate::Error) whose code is `limit-exceeded` and whose [`Error::limit`](crate::Error::limit) names
/// the limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Limit {
    /// The largest `descriptor_length` read, in bytes.
    DescriptorLength = 0,
    /// The most tensors a file's index may list (`index_entry_count`).
    Tensors = 1,
    /// The largest KV section (`kv_length`), in bytes.
    KvLength = 2,
    /// The largest buffer a stream reader reads (a handle's `byte_size`), in bytes.
    BufferBytes = 3,
    /// The largest message payload a receiver accepts (`payload_length`), in bytes: its
    /// HELLO's `max_message_size`. A larger one breaks IX-3 (`message-too-large`).
    PayloadBytes = 4,
}

impl Limit {
    /// Every limit.
    pub const ALL: [Limit; 5] = [
        Limit::DescriptorLength,
        Limit::Tensors,
        Limit::KvLength,
        Limit::BufferBytes,
        Limit::PayloadBytes,
    ];

    /// The limit's name: the `hurray` option that sets it, without its dashes
    /// (`max-descriptor-length`).
    pub fn name(self) -> &'static str {
        match self {
            Limit::DescriptorLength => "max-descriptor-length",
            Limit::Tensors => "max-tensors",
            Limit::KvLength => "max-kv-length",
            Limit::BufferBytes => "max-buffer-bytes",
            Limit::PayloadBytes => "max-payload-bytes",
        }
    }

    /// What the limit bounds, as a sentence's subject.
    pub fn what(self) -> &'static str {
        match self {
            Limit::DescriptorLength => "the descriptor's length in bytes",
            Limit::Tensors => "the number of tensors in the index",
            Limit::KvLength => "the KV section's length in bytes",
            Limit::BufferBytes => "a buffer's byte_size",
            Limit::PayloadBytes => "a message's payload_length",
        }
    }

    /// The largest value the format can express for the limited quantity (the width of the
    /// field that holds it): the default, which never refuses a legal input.
    pub fn format_maximum(self) -> u64 {
        match self {
            Limit::DescriptorLength | Limit::KvLength | Limit::PayloadBytes => u64::from(u32::MAX),
            Limit::Tensors | Limit::BufferBytes => u64::MAX,
        }
    }

    /// The limit named `name` ([`Limit::name`]).
    pub fn from_name(name: &str) -> Option<Limit> {
        Limit::ALL.into_iter().find(|l| l.name() == name)
    }
}
