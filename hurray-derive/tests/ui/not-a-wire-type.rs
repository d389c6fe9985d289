use hurray_derive::HurraySection;

#[derive(HurraySection, Clone)]
struct Header {
    a: u32,
    name: String,
}

fn main() {}
