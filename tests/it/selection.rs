//! What a server serves a request in (`hurray_runtime::protocol::select`), played as data:
//! every case of tests/protocol/selection.toml asks for a layout or a device and compares the
//! choice, or the refusal's rule and the code its ERROR carries, with the case's.

use std::collections::BTreeMap;

use hurray_runtime::flags::{CapabilityFlags, RequestFlags};
use hurray_runtime::protocol::Config;
use hurray_runtime::protocol::select::{self, Availability, LayoutChoice, Production, Refusal};
use hurray_runtime::rules::Rule;
use hurray_runtime::structures::{Hello, LayoutEntry, MessageTypeVariant, TensorRequest};
use hurray_runtime::tags::{Device, Layout};
use hurray_runtime::wire::{TagSpace, TagValue};
use serde::Deserialize;

use crate::common::root;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Cases {
    layout: Vec<LayoutCase>,
    device: Vec<DeviceCase>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LayoutCase {
    name: String,
    shows: Vec<String>,
    preferred: Vec<String>,
    #[serde(default)]
    allow: bool,
    #[serde(default)]
    transcoding: bool,
    #[serde(default)]
    consumes: Vec<String>,
    #[serde(default = "no_limit")]
    limit: u64,
    stored: String,
    #[serde(default)]
    transcodes: BTreeMap<String, u64>,
    expect: String,
    answer: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DeviceCase {
    name: String,
    shows: Vec<String>,
    preferred: String,
    client: Vec<String>,
    server: Vec<String>,
    #[serde(default)]
    now: Vec<String>,
    #[serde(default)]
    transiently: Vec<String>,
    expect: String,
    answer: Option<String>,
}

fn no_limit() -> u64 {
    u64::MAX
}

fn cases() -> Cases {
    let path = root().join("tests/protocol/selection.toml");
    toml::from_str(&std::fs::read_to_string(&path).unwrap())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn tag<T: TagSpace>(name: &str) -> T {
    T::from_name(name).unwrap_or_else(|| panic!("`{name}` is not allocated"))
}

fn entries(names: &[String]) -> Vec<LayoutEntry> {
    names
        .iter()
        .map(|n| LayoutEntry::new(tag::<Layout>(n).into()))
        .collect()
}

fn devices(names: &[String]) -> Vec<u8> {
    names
        .iter()
        .map(|n| u8::try_from(tag::<Device>(n).value()).unwrap())
        .collect()
}

fn hello(configure: impl FnOnce(&mut Hello)) -> Hello {
    let mut h = Config::hello(1 << 20);
    configure(&mut h);
    h
}

/// The refusal's rule and code against the case's `expect = "refuse <rule>"` and `answer`;
/// its ERROR message carries the code.
fn check_refusal(r: Refusal, expect: &str, answer: Option<&str>) -> Option<String> {
    let got = format!("refuse {}", r.rule().id());
    if got != expect {
        return Some(format!("got `{got}`"));
    }
    let code = r.error_code().name();
    if code != answer {
        return Some(format!(
            "the ERROR carries {code:?}, the case says {answer:?}"
        ));
    }
    match r.error() {
        MessageTypeVariant::Error(e) if e.error_code == r.error_code() => None,
        other => Some(format!("the refusal's message is {other:?}")),
    }
}

/// What is wrong with how the selection plays case `c`, if anything.
fn layout_problem(c: &LayoutCase) -> Option<String> {
    let mut flags = RequestFlags::default();
    if c.allow {
        flags = flags.with(RequestFlags::ALLOW_TRANSCODE);
    }
    let request = TensorRequest::new(
        "w".into(),
        entries(&c.preferred),
        Device::Cpu.into(),
        64,
        flags,
    );
    let client = hello(|h| h.supported_layouts = entries(&c.consumes));
    let server = hello(|h| {
        if c.transcoding {
            h.capability_flags = h.capability_flags.with(CapabilityFlags::TRANSCODING);
        }
    });
    let stored: TagValue<Layout> = tag::<Layout>(&c.stored).into();
    let transcodes: BTreeMap<u32, u64> = c
        .transcodes
        .iter()
        .map(|(n, &b)| (tag::<Layout>(n).value(), b))
        .collect();
    let produce = |e: &LayoutEntry| {
        if e.layout_tag == stored {
            Production::Stored
        } else if let Some(&largest_buffer) = transcodes.get(&e.layout_tag.raw()) {
            Production::Transcoded { largest_buffer }
        } else {
            Production::Unavailable
        }
    };
    let problem = match select::layout(&request, &client, &server, c.limit, produce) {
        Ok(choice) => {
            let got = match choice {
                LayoutChoice::Stored => "stored".to_string(),
                LayoutChoice::Transcode(e) => {
                    format!("transcode {}", e.layout_tag.name().unwrap_or("?"))
                }
                other => format!("{other:?}"),
            };
            (got != c.expect).then(|| format!("got `{got}`"))
        }
        Err(r) => check_refusal(r, &c.expect, c.answer.as_deref()),
    };
    problem.map(|p| format!("{}: expected `{}`: {p}", c.name, c.expect))
}

#[test]
fn every_layout_case_chooses_as_it_says() {
    let problems: Vec<String> = cases().layout.iter().filter_map(layout_problem).collect();
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// What is wrong with how the selection plays case `c`, if anything.
fn device_problem(c: &DeviceCase) -> Option<String> {
    let request = TensorRequest::new(
        "w".into(),
        vec![],
        tag::<Device>(&c.preferred).into(),
        64,
        RequestFlags::default(),
    );
    let client = hello(|h| h.supported_devices = devices(&c.client));
    let server = hello(|h| h.supported_devices = devices(&c.server));
    let (now, transiently) = (devices(&c.now), devices(&c.transiently));
    let available = |d: TagValue<Device>| {
        let d = u8::try_from(d.raw()).unwrap();
        if now.contains(&d) {
            Availability::Now
        } else if transiently.contains(&d) {
            Availability::Transiently
        } else {
            Availability::Permanently
        }
    };
    let problem = match select::device(&request, &client, &server, available) {
        Ok(d) => {
            let got = format!("place {}", d.name().unwrap_or("?"));
            (got != c.expect).then(|| format!("got `{got}`"))
        }
        Err(r) => check_refusal(r, &c.expect, c.answer.as_deref()),
    };
    problem.map(|p| format!("{}: expected `{}`: {p}", c.name, c.expect))
}

#[test]
fn every_device_case_places_as_it_says() {
    let problems: Vec<String> = cases().device.iter().filter_map(device_problem).collect();
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The rules and resolutions the cases that play as they say show: what
/// `protocol::every_rule_the_state_machine_enforces_is_broken_by_a_scenario` counts besides the
/// scenarios.
pub(crate) fn shown() -> std::collections::BTreeSet<String> {
    let c = cases();
    let layouts = c
        .layout
        .iter()
        .filter(|l| layout_problem(l).is_none())
        .flat_map(|l| l.shows.clone());
    let devices = c
        .device
        .iter()
        .filter(|d| device_problem(d).is_none())
        .flat_map(|d| d.shows.clone());
    layouts.chain(devices).collect()
}

/// Every rule the selection's code names is shown by a case, and every rule or resolution a
/// case names exists.
#[test]
fn every_selection_rule_is_shown_by_a_case() {
    let c = cases();
    let shown: Vec<&String> = c
        .layout
        .iter()
        .flat_map(|l| &l.shows)
        .chain(c.device.iter().flat_map(|d| &d.shows))
        .collect();
    for id in &shown {
        let known = Rule::from_id(id).is_some()
            || hurray_runtime::consts::RESOLUTIONS
                .iter()
                .any(|(r, _, _)| r == id);
        assert!(known, "`{id}` is neither a rule nor a resolution");
    }
    let source =
        std::fs::read_to_string(root().join("hurray-runtime/src/protocol/select.rs")).unwrap();
    // The rules the code refuses under (`Rule::Ix29`) and those its documentation's lists say
    // it follows (`/// - IX-23, IX-25: …`).
    let refused = source
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter_map(|word| Rule::ALL.iter().copied().find(|r| format!("{r:?}") == word));
    let listed = source.lines().filter_map(|l| {
        let item = l.trim().strip_prefix("/// - ")?;
        let (ids, _) = item.split_once(':')?;
        Some(
            ids.split(", ")
                .filter_map(Rule::from_id)
                .collect::<Vec<_>>(),
        )
    });
    let named: std::collections::BTreeSet<&'static str> =
        refused.chain(listed.flatten()).map(Rule::id).collect();
    assert!(named.len() >= 8, "select.rs names {named:?}");
    for rule in named {
        assert!(
            shown.iter().any(|s| s.as_str() == rule),
            "no case shows {rule}"
        );
    }
}
