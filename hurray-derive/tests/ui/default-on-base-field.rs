use hurray_derive::HurraySection;

#[derive(HurraySection, Clone, Copy)]
struct Header {
    #[hurray(default = 1)]
    a: u32,
}

fn main() {}
