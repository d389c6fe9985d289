use hurray_derive::HurraySection;

#[derive(HurraySection, Clone, Copy)]
struct Header {
    a: u32,
    #[hurray(offset = 6)]
    b: u16,
}

fn main() {}
