//! The Markdown emitter: the spec's tables for humans, checked in under docs/spec.
