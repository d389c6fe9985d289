//! The reader configuration the command line asks for ([`super::ReaderArgs`]): versions,
//! permissive mode, out-of-band agreements by tag space name (looked up in the generated list
//! of spaces, so a space the spec adds is reachable without a change here), network mode and
//! resource limits (by their runtime names).

use hurray_runtime::ReaderConfig;
use hurray_runtime::ctx::Limit;

use super::ReaderArgs;

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
    ] {
        if let Some(text) = given {
            c = c.limit(limit, number(text, &format!("--{}", limit.name()))?);
        }
    }
    Ok(c)
}
