use hurray_derive::HurraySection;

/// `spec_dir` only says which spec tree a `spec = "…"` link is checked against.
#[derive(HurraySection, Clone, Copy)]
#[hurray(spec_dir = "../../spec")]
struct Header {
    a: u32,
}

fn main() {}
