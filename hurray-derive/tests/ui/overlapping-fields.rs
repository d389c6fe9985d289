use hurray_derive::HurraySection;

#[derive(HurraySection, Clone, Copy)]
struct Header {
    #[hurray(offset = 0)]
    a: u32,
    #[hurray(offset = 2)]
    b: u16,
}

fn main() {}
