//! The reader configuration the command line asks for ([`ReaderArgs`]): versions,
//! permissive mode, out-of-band agreements by tag space name (looked up in the generated list
//! of spaces, so a space the spec adds is reachable without a change here), network mode and
//! resource limits (by their runtime names).

use hurray_runtime::ReaderConfig;
use hurray_runtime::ctx::Limit;

use clap::Args;

/// How the reader is configured: versions, mode, out-of-band agreements, transport and
/// resource limits. `decode` reads with it; `encode` reads its result back with it.
#[derive(Debug, Args)]
pub struct ReaderArgs {
    /// Accept unknown type tags, schemes and private values where the spec allows, marking
    /// the data not dereferenceable (RES-8, RES-9).
    #[arg(long)]
    pub permissive: bool,
    /// Act as a reader of an older version on one axis (`descriptor=1.0`, `scheme.mxfp=1`).
    #[arg(long = "reader", value_name = "AXIS=VERSION")]
    pub readers: Vec<String>,
    /// Agree on a private value of a tag space out of band (`element_type=0xF0`,
    /// `device=0xF0`, `memory_class=0xF0`, `layout=0xF0`); repeatable.
    #[arg(long = "agree", value_name = "SPACE=VALUE")]
    pub agree: Vec<String>,
    /// Agree on a private extension layout id (EX-1); repeatable.
    #[arg(long = "agree-extension-layout", value_name = "ID")]
    pub agree_extension_layouts: Vec<String>,
    /// The data arrived over a network transport: every sync mode must be producer-synced
    /// (BH-10).
    #[arg(long)]
    pub network: bool,
    /// Refuse a descriptor longer than this many bytes (code `limit-exceeded`). Default: the
    /// format's maximum (4294967295), which refuses nothing legal.
    #[arg(long, value_name = "BYTES")]
    pub max_descriptor_length: Option<String>,
    /// Refuse a file whose index lists more tensors than this. Default: the format's
    /// maximum (18446744073709551615).
    #[arg(long, value_name = "COUNT")]
    pub max_tensors: Option<String>,
    /// Refuse a KV section longer than this many bytes. Default: the format's maximum
    /// (4294967295).
    #[arg(long, value_name = "BYTES")]
    pub max_kv_length: Option<String>,
    /// Refuse a buffer larger than this many bytes (a handle's byte_size), before reading
    /// it: a stream reader's bound. Default: the format's maximum (18446744073709551615).
    #[arg(long, value_name = "BYTES")]
    pub max_buffer_bytes: Option<String>,
    /// Refuse a message of the interchange protocol whose payload is longer than this many
    /// bytes (IX-3, the receiver's maximum message size). Default: the format's maximum
    /// (4294967295).
    #[arg(long, value_name = "BYTES")]
    pub max_payload_bytes: Option<String>,
}

/// A number as written on a command line: decimal or `0x` hexadecimal.
fn number(text: &str, what: &str) -> Result<u64, String> {
    let parsed = match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => text.parse(),
    };
    parsed.map_err(|_| format!("{what}: `{text}` is not a number (decimal or 0x hexadecimal)"))
}

/// The configuration `args` describe, or why it is not one.
pub fn config(args: &ReaderArgs) -> Result<ReaderConfig, String> {
    let mut c = ReaderConfig::new()
        .permissive(args.permissive)
        .network(args.network);
    for r in &args.readers {
        c = c.with_version_str(r).map_err(|e| e.to_string())?;
    }
    for a in &args.agree {
        let (space, value) = a
            .split_once('=')
            .ok_or_else(|| format!("--agree `{a}`: expected SPACE=VALUE (`element_type=0xF0`)"))?;
        let value = number(value, &format!("--agree {space}"))?;
        let value = u32::try_from(value)
            .map_err(|_| format!("--agree {space}: {value} does not fit a tag"))?;
        c = c.agree_named(space, value).map_err(|e| e.to_string())?;
    }
    for id in &args.agree_extension_layouts {
        c = c.agree_extension_layout(number(id, "--agree-extension-layout")?);
    }
    for (limit, given) in [
        (Limit::DescriptorLength, &args.max_descriptor_length),
        (Limit::Tensors, &args.max_tensors),
        (Limit::KvLength, &args.max_kv_length),
        (Limit::BufferBytes, &args.max_buffer_bytes),
        (Limit::PayloadBytes, &args.max_payload_bytes),
    ] {
        if let Some(text) = given {
            c = c.limit(limit, number(text, &format!("--{}", limit.name()))?);
        }
    }
    Ok(c)
}
