use hurray_derive::HurraySection;

/// Each field whose type has no fixed wire encoding is reported once, at its type.
#[derive(HurraySection, Clone)]
#[hurray(length_prefixed)]
struct Header {
    a: u32,
    name: String,
    flag: bool,
    #[hurray(since = "1.1", default = None)]
    maybe: Option<u16>,
}

fn main() {}
