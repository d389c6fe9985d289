use hurray_derive::HurraySection;

/// A field cannot predate its section. Reported once: the field's `default` draws no second,
/// contradictory error.
#[derive(HurraySection, Clone, Copy)]
#[hurray(length_prefixed, base = "1.2")]
struct Payload {
    a: u32,
    #[hurray(since = "1.1", default = 0)]
    b: u32,
}

fn main() {}
